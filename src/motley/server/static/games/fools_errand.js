// The Fool's Errand: how the table shows an observation (no rules here: the server's legal moves decide).
// The scale as a tug-of-war meter between the two seats, the cards in play by who drew them, each seat's deck,
// pile and Joker. Every viewer reads the same public observation (nobody holds a hand).
import { html } from "/static/vendor/preact-htm.js";
import { Card, nameOf, plural } from "/static/parts.js";

const LABELS = {"draw": "Draw", "play joker": "Play Joker", "keep joker": "Keep Joker"};
const JOKER_PLACE = {set_aside: "Joker set aside", drawn: "Joker drawn"};
const LOG_WORDS = {"draw": "drew", "play joker": "played the Joker", "keep joker": "kept the Joker"};
/** The meter's end: a scale this far (or further) from level fills one side. */
const METER_END = 20;

/** The scale as a meter: the marker moves towards the seat the scale favours (seat 0 on the left). */
function Meter({scale}) {
  const at = 50 - (Math.max(-METER_END, Math.min(METER_END, scale)) / METER_END) * 50;
  const toward = scale === 0 ? "level" : `${Math.abs(scale)} towards ${nameOf(scale > 0 ? 0 : 1)}`;
  return html`<div class="meter" role="meter" aria-label="Scale" aria-valuemin=${-METER_END} aria-valuemax=${METER_END}
      aria-valuenow=${scale} aria-valuetext=${toward}>
    <span class="end left">${nameOf(0)}</span>
    <span class="bar"><span class="mid"></span><span class="mark" style=${{left: `${at}%`}}></span></span>
    <span class="end right">${nameOf(1)}</span>
    <p class="trick-line">Scale: ${toward}</p></div>`;
}

export default {
  oneClick: false,
  apart: ["joker"],
  hand: () => [],
  noHand: true,
  defaultMove: "draw",
  moveLabel: (move) => LABELS[move] || move,
  logText: (move) => LOG_WORDS[move] || null,
  seatExtras(obs, seat) {
    const place = obs.jokers[seat];
    return {count: obs.deck_sizes[seat], countWord: "in deck",
            note: [JOKER_PLACE[place] || "", `pile: ${plural(obs.piles[seat].length, "card")}`].filter(Boolean).join(", ")};
  },
  Center({obs}) {
    const plays = obs.in_play;
    return html`<div class="center-head"><${Meter} scale=${obs.scale} /></div>
      <div class="errand-play">
        ${[0, 1].map((seat) => html`<div class="errand-row" data-side=${seat === (obs.seat ?? 0) ? "near" : "far"}>
          ${plays.map((p, k) => (p.seat === seat ? html`<${Card} code=${p.card} small flip=${`fe:${k}`} from=${seat}
            mark=${k === plays.length - 1 ? "latest" : ""} />` : null))}</div>`)}
        ${plays.length ? null : html`<p class="trick-line">No cards in play.</p>`}
        ${obs.unclaimed.length ? html`<p class="trick-line">${plural(obs.unclaimed.length, "card")} unclaimed.</p>` : null}
      </div>`;
  },
  scoreSheet: (obs) => ({label: "pile", rows: [{label: "cards in pile", values: obs.piles.map((p) => p.length)}]}),
  help: [  // how this page is played; the rules themselves come from the game (/api/games "how_to_play")
    "Draws happen by themselves. While your Joker is set aside, your next card is drawn after a short pause (Settings) unless you press Play Joker first; when you draw the Joker, press Play Joker or Keep Joker.",
  ],
};
