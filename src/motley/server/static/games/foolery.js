// Foolery: how the table shows an observation (no rules here: the server's legal moves decide what is legal).
import { html } from "/static/vendor/preact-htm.js";
import { Card, nameOf } from "/static/parts.js";

const words = (text) => (text ? text.split(" ") : []);

function lastWon(obs) {
  let winner = null;
  for (let k = obs.log.length - 1; k >= 0; k--) {
    const e = obs.log[k];
    if (winner === null && e.event === "trick") winner = k;
    else if (winner !== null && e.event === "play") {
      return {plays: words(e.cards).map((c) => ({seat: e.seat, card: c, mark: "winner"})),
              caption: `${nameOf(e.seat)} wins the trick and leads next.`};
    }
  }
  return null;
}

const tricks = (obs) => `${obs.hand_number}:${obs.log.filter((e) => e.event === "trick").length}`;

export default {
  oneClick: false,
  apart: ["trump", "fool"],
  hand: (obs) => obs.hand,
  giveCount(obs) {
    const step = obs.exchange.steps[obs.exchange.step_index];
    return step ? step.cards - step.given : 1;
  },
  moveLabel: (move) => (move === "pass" ? "Pass" : move),
  trickCount: tricks,
  finishedTrick: (obs, before) => (before === null || before === tricks(obs) ? null : lastWon(obs)),
  lastTrick: lastWon,
  seatExtras(obs, seat) {
    const notes = [];
    if (obs.places[seat] !== null) notes.push(`out, place ${obs.places[seat] + 1}`);
    if (obs.passed.includes(seat)) notes.push("passed");
    const top = obs.table && obs.table.seat === seat ? words(obs.table.cards) : null;
    return {count: obs.hand_sizes[seat], title: obs.titles[seat], played: top, note: notes.join(", ")};
  },
  Center({obs, held}) {
    if (obs.phase === "exchange") {
      return html`<div class="trick-box"><h2>Hand ${obs.hand_number}: the exchange</h2><ul>
        ${obs.exchange.steps.map((s) => html`<li>${nameOf(s.giver)} gives ${nameOf(s.receiver)} ${s.cards} ${
          s.cards === 1 ? "card" : "cards"} (${s.rule === "highest" ? "the highest" : "any"}): ${s.given} given</li>`)}</ul>
        ${obs.exchange.received.length ? html`<p>You received: ${obs.exchange.received.map((c) => html`<${Card} code=${c} small />`)}</p>` : null}
      </div>`;
    }
    const held_ = held ? html`<div class="held"><h3>Trick finished</h3><div class="trick">
      ${held.trick.plays.map((p) => html`<${Card} code=${p.card} mark="winner" />`)}</div><p class="caption">${held.trick.caption}</p></div>` : null;
    const top = obs.table;
    return html`<div class="trick-box"><h2>Hand ${obs.hand_number}${obs.hands_total ? ` of ${obs.hands_total}` : ""}</h2>
      ${held_}
      ${top ? html`<p>To beat (${nameOf(top.seat)}):</p><div class="trick">${words(top.cards).map((c) => html`<${Card} code=${c} />`)}</div>`
        : held ? null : html`<p>${obs.terminal ? "" : `${nameOf(obs.current_player)} leads.`}</p>`}
      ${obs.passed.length ? html`<p class="muted-strong">Passed since: ${obs.passed.map(nameOf).join(", ")}</p>` : null}
    </div>`;
  },
  Summary({obs}) {
    const last = obs.hand_results[obs.hand_results.length - 1];
    if (!last) return null;
    const n = obs.hand_results.length;
    const order = last.places.map((p, q) => [p, q]).sort((a, b) => a[0] - b[0]);
    return html`<section class="panel summary" aria-label="Hand summary"><h2>Hand ${n} summary</h2>
      <ol>${order.map(([, q]) => html`<li>${nameOf(q)}: ${last.points[q] > 0 ? "+" : ""}${last.points[q]} points${
        obs.titles[q] ? `, now ${obs.titles[q]}` : ""}</li>`)}</ol>
      ${obs.phase === "exchange" ? html`<p>The exchange comes next (see the table).</p>` : null}</section>`;
  },
  scoreSheet: (obs) => ({label: "hand", rows: obs.hand_results.map((r, k) => ({label: `hand ${k + 1}`, values: r.points}))}),
  help: [  // how this page is played; the rules themselves come from the game (/api/games "how_to_play")
    "Select cards in your hand and press Play; Pass passes. In the exchange select the cards to give and press Give.",
  ],
};
