// @ts-check
// Fool!: how the table shows an observation (no rules here: the server's legal moves decide what is legal).
// Written for every viewer: a seat's observation has "hand", a spectator's has none.
import { html } from "/static/vendor/preact-htm.js";
import { TrickOnTable, joinNames, nameOf, plural } from "/static/parts.js";

function decorate(plays, winner, fools, leader) {
  return plays.map((p) => ({
    seat: p.seat, card: p.card,
    mark: fools.includes(p.seat) ? "fool" : p.seat === winner ? "winner" : "",
    note: [p.seat === leader ? "led" : "", p.seat === winner ? "wins" : "", fools.includes(p.seat) ? "the Fool" : ""]
      .filter(Boolean).join(", "),
  }));
}

function caption(winner, fools) {
  const parts = [];
  if (winner !== null && winner !== undefined) parts.push(`${nameOf(winner)} wins the trick.`);
  if (fools.length) {
    parts.push(`${joinNames(fools.map(nameOf))} ${fools.length > 1 ? "become Fools" : "becomes the Fool"}.`);
  }
  return parts.join(" ");
}

function trickOf(t) {
  return {plays: decorate(t.plays, t.winner, t.fools, t.leader), caption: caption(t.winner, t.fools),
          winner: t.winner, fools: t.fools};
}

function finalTrick(last) {
  const plays = last.final_trick || [];
  if (!plays.length) return null;
  return {plays: decorate(plays, null, last.fools, plays[0].seat), winner: last.fools[0] ?? null, fools: last.fools,
          caption: `Last trick of round ${last.round_number}. ${caption(null, last.fools)}`};
}

function lastTrick(obs) {
  if (obs.tricks.length) return trickOf(obs.tricks[obs.tricks.length - 1]);
  return obs.last_round ? finalTrick(obs.last_round) : null;
}

const trickCount = (obs) => `${obs.round_number}:${obs.tricks.length}`;

/** The line over the trick: whose lead, the lead colour, who is still to play. */
function trickLine(obs) {
  if (obs.terminal) return "";
  const plays = obs.trick.plays;
  if (!plays.length) return `${nameOf(obs.trick.leader)} leads.`;
  const waiting = obs.trick.order.filter((q) => !plays.some((p) => p.seat === q));
  const lead = obs.trick.lead ? `Lead colour: ${obs.trick.lead}. ` : "";
  return `${lead}${waiting.length ? `Still to play: ${plural(waiting.length, "player")}.` : ""}`;
}

/** @type {import("../parts.js").GameView<import("../schema/messages").FoolObservation>} */
const view = {
  oneClick: true,
  apart: [],
  hand: (obs) => obs.hand || [],
  trickCount,
  dealKey: (obs) => (obs.last_round ? obs.last_round.round_number : 0),
  finishedTrick(obs, before) {
    if (before === null || before === trickCount(obs)) return null;
    return lastTrick(obs);
  },
  lastTrick,
  seatExtras(obs, seat) {
    const notes = [];
    if (obs.trick.plays.length && obs.trick.plays[0].seat === seat) notes.push("led");
    if (obs.sitting_out.includes(seat)) notes.push("sits out this trick");
    if (obs.dealer === seat) notes.push("dealer");
    return {discs: obs.discs.map((q, k) => (q === seat ? k : -1)).filter((k) => k >= 0), count: obs.hand_sizes[seat],
            note: notes.join(", ")};
  },
  Center({obs, held}) {
    const title = `Round ${obs.round_number}, trick ${obs.tricks.length + (held ? 0 : 1)}`;
    if (held) {
      return html`<div class="center-head"><h2>${title}</h2><p class="trick-line" key=${held.trick.caption}>${held.trick.caption}</p></div>
        <${TrickOnTable} plays=${held.trick.plays} trickKey=${`done:${held.key}`} />`;
    }
    const best = obs.trick.winning;
    const plays = obs.trick.plays.map((p, k) => ({seat: p.seat, card: p.card, mark: p.seat === best ? "winner" : "",
      note: [k === 0 ? "led" : "", p.seat === best ? "to beat" : ""].filter(Boolean).join(", ")}));
    return html`<div class="center-head"><h2>${title}</h2><p class="trick-line" key=${trickLine(obs)}>${trickLine(obs)}</p></div>
      <${TrickOnTable} plays=${plays} trickKey=${trickCount(obs)} />`;
  },
  Summary({obs}) {
    const last = obs.last_round;
    if (!last) return null;
    return html`<h2 id="deal-title">Round ${last.round_number} is over</h2>
      <ul class="deal-scores">${last.scores.map((v, q) => html`<li>${nameOf(q)}: ${v > 0 ? "+" : ""}${plural(v, "point")}${
        last.bonus.includes(q) ? " (went out: +10)" : ""}${last.went_out_fooled.includes(q) ? " (went out as the Fool: 0)" : ""}${
        last.fools.includes(q) ? " (the Fool of the last trick)" : ""}</li>`)}</ul>`;
  },
  scoreSheet: (obs) => ({label: "round", rows: obs.round_scores.map((scores, k) => ({label: `round ${k + 1}`,
    values: scores}))}),
  help: [  // how this page is played; the rules themselves come from the game (/api/games "how_to_play")
    "Click a card to play it (or select it and press Play, with one-click play off in Settings). Cards you may play now are raised; press any other card to hear why it cannot be played.",
  ],
};

export default view;
