// The Fool's Errand: how the table shows an observation (no rules here: the server's legal moves decide).
import { html } from "/static/vendor/preact-htm.js";
import { Card, nameOf } from "/static/parts.js";

const LABELS = {"draw": "Draw", "play joker": "Play Joker", "keep joker": "Keep Joker"};
const JOKER_PLACE = {set_aside: "Joker set aside", drawn: "Joker drawn"};

export default {
  oneClick: false,
  apart: ["joker"],
  hand: () => [],
  noHand: true,
  defaultMove: "draw",
  moveLabel: (move) => LABELS[move] || move,
  seatExtras(obs, seat) {
    const place = obs.jokers[seat];
    return {count: obs.deck_sizes[seat], played: place === "deck" ? null : ["JK"],
            note: [JOKER_PLACE[place] || "", `pile: ${obs.piles[seat].length} cards`].filter(Boolean).join(", ")};
  },
  Center({obs}) {
    const scale = obs.scale;
    const toward = scale === 0 ? "level" : `${Math.abs(scale)} towards ${nameOf(scale > 0 ? 0 : 1)}`;
    const plays = obs.in_play;
    return html`<div class="trick-box"><h2>Scale: ${toward}</h2>
      <div class="trick">${plays.map((p, k) => html`<div class=${`play${k === plays.length - 1 ? " latest" : ""}`}>
        <${Card} code=${p.card} /><span class="who">${nameOf(p.seat)}</span></div>`)}</div>
      ${plays.length ? null : html`<p>No cards in play.</p>`}
      ${obs.unclaimed.length ? html`<p class="muted-strong">${obs.unclaimed.length} cards unclaimed.</p>` : null}</div>`;
  },
  scoreSheet: (obs) => ({label: "pile", rows: [{label: "cards in pile", values: obs.piles.map((p) => p.length)}]}),
  help: [  // how this page is played; the rules themselves come from the game (/api/games "how_to_play")
    "Draws happen by themselves. While your Joker is set aside, your next card is drawn after a short pause (Settings) unless you press Play Joker first; when you draw the Joker, press Play Joker or Keep Joker.",
  ],
};
