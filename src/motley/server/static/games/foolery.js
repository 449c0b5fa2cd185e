// @ts-check
// Foolery: how the table shows an observation (no rules here: the server's legal moves decide what is legal).
// Written for every viewer: a seat's observation has "hand" and its own part of the exchange ("gave",
// "received", "partner"); a spectator's has none of them.
import { html } from "/static/vendor/preact-htm.js";
import { Card, TrickOnTable, nameOf, ordinal, plural } from "/static/parts.js";

const words = (text) => (text ? text.split(" ") : []);

/** The plays of the trick that ends at log entry ``end`` (exclusive), in the order played. */
function playsBefore(log, end) {
  const plays = [];
  for (let k = end - 1; k >= 0 && log[k].event !== "trick"; k--) {
    if (log[k].event === "play") plays.unshift({seat: log[k].seat, cards: words(log[k].cards)});
  }
  return plays;
}

/** The last finished trick, every play of it in order, the winning (last) play marked. */
function lastWon(obs) {
  const log = obs.log || [];
  for (let k = log.length - 1; k >= 0; k--) {
    if (log[k].event !== "trick") continue;
    const plays = playsBefore(log, k);
    if (!plays.length) return null;
    const winner = plays[plays.length - 1].seat;
    return {plays: plays.map((p, j) => ({...p, mark: j === plays.length - 1 ? "winner" : ""})), winner,
            caption: `${nameOf(winner)} wins the trick and leads next.`};
  }
  return null;
}

const tricks = (obs) => `${obs.hand_number}:${(obs.log || []).filter((e) => e.event === "trick").length}`;

/** The exchange as the table shows it: who gives whom how many cards; the viewer's own cards only to a seat. */
function Exchange({obs}) {
  const ex = obs.exchange || {};
  const steps = ex.steps || [];
  const received = Array.isArray(ex.received) ? ex.received : [];
  // one column in the middle of the felt: the heading, the steps, what this seat received (nothing overlaps)
  return html`<div class="exchange-view"><h2>Hand ${obs.hand_number}: the exchange</h2>
    <ul class="exchange">${steps.map((s, k) => html`<li class=${k === ex.step_index ? "now" : ""}>
      ${nameOf(s.giver)} gives ${nameOf(s.receiver)} ${plural(s.cards, "card")} (${s.rule === "highest" ? "the highest"
        : "any"}): ${s.given} given</li>`)}</ul>
    ${received.length ? html`<p class="received">You received: ${received.map((c) => html`<${Card} code=${c} small />`)}</p>`
      : null}</div>`;
}

/** @type {import("../parts.js").GameView<import("../schema/messages").FooleryObservation>} */
const view = {
  oneClick: false,
  apart: ["trump", "fool"],
  hand: (obs) => obs.hand || [],
  giveCount(obs) {
    const ex = obs.exchange;
    const step = ex ? ex.steps[ex.step_index] : undefined;
    return step ? step.cards - step.given : 1;
  },
  moveLabel: (move) => (move === "pass" ? "Pass" : move),
  trickCount: tricks,
  dealKey: (obs) => (obs.hand_results || []).length,
  finishedTrick: (obs, before) => (before === null || before === tricks(obs) ? null : lastWon(obs)),
  lastTrick: lastWon,
  seatExtras(obs, seat) {
    const notes = [];
    if (obs.places && obs.places[seat] !== null && obs.places[seat] !== undefined) {
      notes.push(`out ${ordinal(obs.places[seat] + 1)}`);
    }
    if ((obs.passed || []).includes(seat)) notes.push("passed");
    return {count: obs.hand_sizes[seat], title: (obs.titles || [])[seat], note: notes.join(", ")};
  },
  Center({obs, held}) {
    if (obs.phase === "exchange") return html`<${Exchange} obs=${obs} />`;
    const head = `Hand ${obs.hand_number}${obs.hands_total ? ` of ${obs.hands_total}` : ""}`;
    if (held) {
      return html`<div class="center-head"><h2>${head}</h2><p class="trick-line">${held.trick.caption}</p></div>
        <${TrickOnTable} plays=${held.trick.plays} trickKey=${`done:${held.key}`} />`;
    }
    const plays = playsBefore(obs.log || [], (obs.log || []).length);
    const top = obs.table;
    const marked = plays.map((p, j) => ({...p, mark: j === plays.length - 1 && top ? "winner" : ""}));
    const line = top ? `To beat: ${nameOf(top.seat)}'s play.${(obs.passed || []).length
      ? ` Passed: ${obs.passed.map(nameOf).join(", ")}.` : ""}` : obs.terminal ? "" : `${nameOf(obs.current_player)} leads.`;
    return html`<div class="center-head"><h2>${head}</h2><p class="trick-line">${line}</p></div>
      <${TrickOnTable} plays=${marked} trickKey=${tricks(obs)} />`;
  },
  Summary({obs}) {
    const results = obs.hand_results || [];
    const last = results[results.length - 1];
    if (!last) return null;
    const order = last.places.map((p, q) => [p, q]).sort((a, b) => a[0] - b[0]);
    const titles = !obs.terminal && obs.titles ? obs.titles : [];  // the titles for the next hand, if one comes
    return html`<h2 id="deal-title">Hand ${results.length} is over</h2>
      <ol class="deal-scores">${order.map(([p, q]) => html`<li>${nameOf(q)}: out ${ordinal(p + 1)}, ${
        last.points[q] > 0 ? "+" : ""}${plural(last.points[q], "point")}${titles[q] ? `; now ${titles[q]}` : ""}</li>`)}</ol>
      ${obs.phase === "exchange" ? html`<p>The exchange comes next.</p>` : null}`;
  },
  scoreSheet: (obs) => ({label: "hand", rows: (obs.hand_results || []).map((r, k) => ({label: `hand ${k + 1}`,
    values: r.points}))}),
  help: [  // how this page is played; the rules themselves come from the game (/api/games "how_to_play")
    "Select cards in your hand and press Play; Pass passes. In the exchange select the cards to give and press Give.",
  ],
};

export default view;
