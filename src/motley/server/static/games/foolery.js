// @ts-check
// Foolery: how the table shows an observation (no rules here: the server's legal moves decide what is legal).
// Written for every viewer: a seat's observation has "hand" and its own part of the exchange ("gave",
// "received", "partner"); a spectator's has none of them.
import { html } from "/static/vendor/preact-htm.js";
import { Card, TrickOnTable, cardWords, joinNames, nameOf, ordinal, plural } from "/static/parts.js";

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

/** A seat's name with its title this hand: "Ben (King)". */
function titled(obs, seat) {
  const title = (obs.titles || [])[seat];
  return title ? `${nameOf(seat)} (${title})` : nameOf(seat);
}

/** The cards in words: "the King of clubs and the 10 of hearts". */
const cardList = (codes) => joinNames(codes.map(cardWords));

/** Is the viewer one of the seats that exchange cards this hand (FY-R13)? */
function inExchange(obs) {
  const ex = obs.exchange;
  return obs.seat !== null && obs.seat !== undefined && !!ex && Array.isArray(ex.gave)
    && ex.steps.some((s) => s.giver === obs.seat || s.receiver === obs.seat);
}

/** The exchange in words for this viewer (FY-R13, FY-D17), or "" when the hand has none. A seat in the exchange
 * reads what it gave and what it received, from its own observation; anyone else only who gave whom how many
 * cards (the cards are known to the two seats alone). */
function exchangeWords(obs) {
  const ex = obs.exchange;
  if (!ex || !ex.steps.length) return "";
  if (!inExchange(obs)) {
    const done = ex.steps.filter((s) => s.given > 0);
    return done.length ? `The exchange: ${joinNames(done.map((s) => `${titled(obs, s.giver)} gave ${
      titled(obs, s.receiver)} ${plural(s.given, "card")}`))}.` : "";
  }
  const me = obs.seat;
  const partner = ex.partner === null || ex.partner === undefined ? null : ex.partner;
  const mine = ex.steps.find((s) => s.giver === me);
  const parts = [];
  if (ex.gave.length) {
    const highest = mine && mine.rule === "highest";
    parts.push(`You gave ${partner === null ? "" : `${titled(obs, partner)} `}${cardList(ex.gave)}${
      highest ? `, your highest ${ex.gave.length === 1 ? "card" : "cards"}, as the rules require` : ""}`);
  }
  if (ex.received.length) parts.push(`${parts.length ? "you" : "You"} received ${cardList(ex.received)}${
    partner === null ? "" : ` from ${nameOf(partner)}`}`);
  return parts.length ? `${parts.join("; ")}.` : "";
}

/** The moves of this hand's play so far (its plays and passes; the exchange's gives come before them). */
const playMoves = (obs) => (obs.log || []).filter((e) => e.event === "play" || e.event === "pass").length;

/** Are the exchange's words still on the table? Until the viewer's own first play or pass of the hand (a seat
 * in the exchange plans with what it received), for anyone else until the first lead. */
function exchangeShown(obs) {
  if (obs.phase !== "play" || !(obs.exchange && obs.exchange.steps.length)) return false;
  const log = obs.log || [];
  if (inExchange(obs)) return !log.some((e) => (e.event === "play" || e.event === "pass") && e.seat === obs.seat);
  return !log.some((e) => e.event === "play");
}

/** The exchange as the table shows it: who gives whom how many cards, and what the viewer gave and received
 * (a seat's own cards only, from its own observation). */
function Exchange({obs}) {
  const ex = obs.exchange || {};
  const steps = ex.steps || [];
  const received = Array.isArray(ex.received) ? ex.received : [];
  const gave = Array.isArray(ex.gave) ? ex.gave : [];
  const words = inExchange(obs) ? exchangeWords(obs) : "";
  // one column in the middle of the felt: the heading, the steps, what this seat gave and received (nothing overlaps)
  return html`<div class="exchange-view"><h2>Hand ${obs.hand_number}: the exchange</h2>
    <ul class="exchange">${steps.map((s, k) => html`<li class=${k === ex.step_index ? "now" : ""}>
      ${titled(obs, s.giver)} gives ${titled(obs, s.receiver)} ${s.rule === "highest" ? `the highest ${
        s.cards === 1 ? "card" : `${s.cards} cards`}` : `any ${plural(s.cards, "card")}`}: ${s.given} of ${s.cards} given</li>`)}</ul>
    ${words ? html`<p class="exchange-words" id="exchange-words">${words}</p>` : null}
    ${gave.length || received.length ? html`<p class="received">${gave.length ? html`<span>You gave: ${gave.map((c) =>
      html`<${Card} code=${c} small />`)}</span>` : null} ${received.length ? html`<span>You received: ${
      received.map((c) => html`<${Card} code=${c} small />`)}</span>` : null}</p>` : null}</div>`;
}

/** The rules' paragraph on titles and the exchange for ``n`` players (FY-R11, FY-R13, FY-T15). */
function titlesParagraph(n) {
  const upward = "Before the next hand the Peasant gives the King their two highest cards and the King gives back any two";
  if (n <= 3) {
    return "The first out becomes King, the second a Noble and the last the Peasant: with 3 players there is no "
      + `Prince and no Merchant. ${upward}; the Noble keeps their cards.`;
  }
  const nobles = n - 4;
  const middle = nobles === 0 ? "" : nobles === 1 ? ", a Noble" : `, ${nobles} Nobles`;
  return `The first out becomes King, then Prince${middle}, Merchant and last the Peasant. ${upward}; the Merchant `
    + `gives the Prince their highest card and the Prince gives back any one${nobles ? "; Nobles keep their cards" : ""}.`;
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
      return html`<div class="center-head"><h2>${head}</h2><p class="trick-line" key=${held.trick.caption}>${held.trick.caption}</p></div>
        <${TrickOnTable} plays=${held.trick.plays} trickKey=${`done:${held.key}`} />`;
    }
    const plays = playsBefore(obs.log || [], (obs.log || []).length);
    const top = obs.table;
    const marked = plays.map((p, j) => ({...p, mark: j === plays.length - 1 && top ? "winner" : ""}));
    const line = top ? `To beat: ${nameOf(top.seat)}'s play.${(obs.passed || []).length
      ? ` Passed: ${obs.passed.map(nameOf).join(", ")}.` : ""}` : obs.terminal ? "" : `${nameOf(obs.current_player)} leads.`;
    const words = exchangeShown(obs) ? exchangeWords(obs) : "";
    return html`<div class="center-head"><h2>${head}</h2><p class="trick-line" key=${line}>${line}</p>
        ${words ? html`<p class="exchange-words" id="exchange-words">${words}</p>` : null}</div>
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
      ${obs.terminal ? null : html`<p>The next hand begins with the exchange.</p>`}`;
  },
  scoreSheet: (obs) => ({label: "hand", rows: (obs.hand_results || []).map((r, k) => ({label: `hand ${k + 1}`,
    values: r.points}))}),
  logNotes(obs) {
    const words = obs.phase === "exchange" ? "" : exchangeWords(obs);
    return words ? [{text: words, after: playMoves(obs)}] : [];
  },
  howToPlay: (paragraphs, obs, players) => paragraphs.map((p) => (/Prince|Merchant/.test(p) ? titlesParagraph(players) : p)),
  help: [  // how this page is played; the rules themselves come from the game (/api/games "how_to_play")
    "Select cards in your hand and press Play; Pass passes. In the exchange select the cards to give and press Give.",
  ],
};

export default view;
