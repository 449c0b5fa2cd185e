// The Fool's Errand: how the table shows an observation (no rules here: the server's legal moves decide).
import { html } from "/static/vendor/preact-htm.js";
import { Card, nameOf } from "/static/table.js";

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
  help: [
    "The Fool's Errand is a two-player game without hands: on your turn the top card of your own deck is drawn and played for you, and tips the scale towards you by its value (J, Q, K count 10; an Ace counts 11 when you trail by 11 or more, else 1).",
    "A play that brings the scale to exactly 0 scoops every card in play into your score pile. The only decision is the Joker: when you draw it you may play it at once (the scale goes to 0 and you scoop) or keep it aside face up and play it on a later turn instead of drawing.",
    "The game ends when both decks hold only their Joker; the bigger score pile (Ace 1, number cards their value, J/Q/K 10) wins.",
    "Draws happen by themselves. While your Joker is set aside, your next card is drawn after a short pause (Settings) unless you press Play Joker first; when you draw the Joker, press Play Joker or Keep Joker.",
  ],
};
