// Fool!: how the table shows an observation (no rules here: the server's legal moves decide what is legal).
import { html } from "/static/vendor/preact-htm.js";
import { TrickView, nameOf } from "/static/parts.js";

function decorate(plays, winner, fools, leader) {
  return plays.map((p) => ({
    seat: p.seat, card: p.card,
    mark: fools.includes(p.seat) ? "fool" : p.seat === winner ? "winner" : "",
    note: [p.seat === leader ? "led" : "", p.seat === winner ? "wins" : "", fools.includes(p.seat) ? "becomes the Fool" : ""]
      .filter(Boolean).join(", "),
  }));
}

function caption(winner, fools) {
  const parts = [];
  if (winner !== null && winner !== undefined) parts.push(`${nameOf(winner)} wins the trick.`);
  if (fools.length) parts.push(`${fools.map(nameOf).join(" and ")} ${fools.length > 1 ? "become Fools" : "becomes the Fool"}.`);
  return parts.join(" ");
}

function trickOf(t) {
  return {plays: decorate(t.plays, t.winner, t.fools, t.leader), caption: caption(t.winner, t.fools)};
}

function finalTrick(last) {
  const plays = last.final_trick || [];
  if (!plays.length) return null;
  return {plays: decorate(plays, null, last.fools, plays[0].seat),
          caption: `Last trick of round ${last.round_number}. ${caption(null, last.fools)}`};
}

function lastTrick(obs) {
  if (obs.tricks.length) return trickOf(obs.tricks[obs.tricks.length - 1]);
  return obs.last_round ? finalTrick(obs.last_round) : null;
}

export default {
  oneClick: true,
  apart: [],
  hand: (obs) => obs.hand,
  trickCount: (obs) => `${obs.round_number}:${obs.tricks.length}`,
  finishedTrick(obs, before) {
    if (before === null || before === `${obs.round_number}:${obs.tricks.length}`) return null;
    return lastTrick(obs);
  },
  lastTrick,
  seatExtras(obs, seat) {
    const play = obs.trick.plays.find((p) => p.seat === seat);
    const notes = [];
    if (obs.trick.plays.length && obs.trick.plays[0].seat === seat) notes.push("led");
    if (obs.sitting_out.includes(seat)) notes.push("sits out this trick");
    if (obs.dealer === seat) notes.push("dealer");
    return {disc: obs.discs.includes(seat), count: obs.hand_sizes[seat], played: play ? [play.card] : null,
            note: notes.join(", ")};
  },
  Center({obs, held}) {
    if (held) return html`<div class="trick-box held"><h2>Trick finished</h2><${TrickView} trick=${held.trick} /></div>`;
    const best = obs.trick.winning;
    const plays = obs.trick.plays.map((p, k) => ({seat: p.seat, card: p.card, mark: p.seat === best ? "winner" : "",
      note: [k === 0 ? "led" : "", p.seat === best ? "to beat" : ""].filter(Boolean).join(", ")}));
    const waiting = obs.trick.order.filter((q) => !obs.trick.plays.some((p) => p.seat === q));
    return html`<div class="trick-box"><h2>Round ${obs.round_number} - trick ${obs.tricks.length + 1}</h2>
      ${plays.length ? html`<${TrickView} trick=${{plays, caption: obs.trick.lead ? `Lead colour: ${obs.trick.lead}.` : ""}} />`
        : html`<p>${obs.terminal ? "" : `${nameOf(obs.trick.leader)} leads.`}</p>`}
      ${waiting.length && !obs.terminal ? html`<p class="muted-strong">Still to play: ${waiting.map(nameOf).join(", ")}</p>` : null}
    </div>`;
  },
  Summary({obs}) {
    const last = obs.last_round;
    if (!last) return null;
    return html`<section class="panel summary" aria-label="Round summary"><h2>Round ${last.round_number} summary</h2>
      <ul>${last.scores.map((v, q) => html`<li>${nameOf(q)}: ${v > 0 ? "+" : ""}${v} points${
        last.bonus.includes(q) ? " (went out: +10)" : ""}${last.went_out_fooled.includes(q) ? " (went out, but the Fool: 0)" : ""}${
        last.fools.includes(q) ? " - the Fool of the last trick" : ""}</li>`)}</ul></section>`;
  },
  scoreSheet: (obs) => ({label: "round", rows: obs.round_scores.map((scores, k) => ({label: `round ${k + 1}`,
    values: scores}))}),
  help: [  // how this page is played; the rules themselves come from the game (/api/games "how_to_play")
    "Click a card to play it (or select it and press Play, with one-click play off in Settings). Cards you may not play now are greyed out.",
  ],
};
