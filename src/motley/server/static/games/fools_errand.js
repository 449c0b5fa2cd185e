// @ts-check
// The Fool's Errand: how the table shows an observation (no rules here: the server's legal moves decide).
// The scale as a tug-of-war meter between the two seats, the cards in play by who drew them, each seat's deck,
// pile and Joker. Every viewer reads the same public observation (nobody holds a hand).
//
// One decision (draw, play or keep a Joker) makes the game play on by itself until the next decision: a move
// brings many events in the observation's log (each draw, scoop, Joker). The page shows them one at a time,
// each for the table's pace (``showSteps``, called by the table page between two state messages): the card
// drawn appears on the line of play, the meter moves, a scoop carries the cards to the pile, a Joker set aside
// shows aside, the decks count down. The server waits as long before its next automatic move.
import { html, useLayoutEffect } from "/static/vendor/preact-htm.js";
import { Card, S, cardWords, nameOf, plural } from "/static/parts.js";

const LABELS = {"draw": "Draw", "play joker": "Play Joker", "keep joker": "Keep Joker"};
const JOKER_PLACE = {set_aside: "Joker set aside", drawn: "Joker drawn"};
const LOG_WORDS = {"draw": "drew", "play joker": "played the Joker", "keep joker": "kept the Joker"};
/** The meter's end: a scale this far (or further) from level fills one side. */
const METER_END = 20;
/** More new events than this (a page that was away a long time) are not shown one by one. */
const MOST_STEPS = 200;

/** Seconds each event is shown for: the table's ``pace`` (its settings come in a connection's first message). */
let pace = 0.7;

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

// ---- the events of a move, one at a time ------------------------------------------------------------
function motionOff() {
  return !S.settings.motion || matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/**
 * An observation as this view shows it, one event at a time (``showSteps``): the server's, with the event shown
 * (``shown``) and the cards a scoop carries to its pile now (``scooped``).
 * @typedef {import("../schema/messages").FoolsErrandObservation & {shown?: import("../schema/messages").FoolsErrandEvent | null,
 *   scooped?: {seat: number, cards: import("../schema/messages").FoolsErrandCard[]} | null}} ShownObservation
 */

/** What the table shows after log event ``e`` (``{"event", "seat", "card", "value", "scale"}``), from ``obs``: only
 * the places of things (the cards in play, piles, decks, Jokers) and the scale, as the event announces them. A
 * play's or reveal's ``scale`` is announced from its seat's side; a scoop's ``value`` is its cards, ``scale``
 * its points; a scoop leaves the scale level, but the one at the end of the match (``then``, the next event,
 * is the end). ``shown``: the event; ``scooped``: the cards a scoop carries to its pile now. */
function afterEvent(obs, e, then) {
  const o = {...obs, in_play: [...obs.in_play], piles: obs.piles.map((p) => [...p]), deck_sizes: [...obs.deck_sizes],
             jokers: [...obs.jokers], pile_points: [...obs.pile_points], unclaimed: [...obs.unclaimed],
             shown: e, scooped: null};
  const q = e.seat;
  const fromDeck = () => { if (o.jokers[q] === "deck") o.deck_sizes[q] -= 1; };
  if (e.event === "play" || e.event === "reveal") {
    if (e.card === "JK") { fromDeck(); o.jokers[q] = "drawn"; } else o.deck_sizes[q] -= 1;
    o.in_play.push({seat: q, card: e.card});  // a Joker too, until its scoop
    o.scale = q === 0 ? e.scale : -e.scale;
  } else if (e.event === "set_aside") {
    fromDeck();
    o.jokers[q] = "set_aside";
  } else if (e.event === "scoop") {
    o.scooped = {seat: q, cards: o.in_play};
    o.piles[q].push(...o.in_play.filter((p) => p.card !== "JK").map((p) => p.card));
    o.pile_points[q] += e.scale;
    if (!then || then.event !== "end") o.scale = 0;
    o.in_play = [];
  } else if (e.event === "joker_back") {
    o.in_play = o.in_play.filter((p) => !(p.card === "JK" && p.seat === q));
    if (o.jokers[q] !== "deck") o.deck_sizes[q] += 1;
    o.jokers[q] = "deck";
  } else if (e.event === "end") {
    o.unclaimed.push(...o.in_play.filter((p) => p.card !== "JK").map((p) => p.card));
    o.in_play = [];
  }
  return o;
}

/** The step messages of ``events`` from ``obs`` on, one per event but the last (``next`` shows that one). */
function stepsOf(obs, events, next, log) {
  const steps = [];
  for (const [k, e] of events.slice(0, -1).entries()) {
    obs = afterEvent(obs, e, events[k + 1]);
    steps.push({...next, observation: obs, scores: obs.pile_points, legal: [], terminal: false, returns: null,
                end_reason: null, current_player: -1, deadline: null, summary: null, log});
  }
  return steps;
}

/** The table before the first event of the match: nothing in play, no piles, the Jokers in the decks, and each
 * deck as many cards fuller as the opening's events took from it (found by stepping them over empty decks). */
function beforeOpening(b) {
  const bare = {...b, in_play: [], piles: [[], []], deck_sizes: [0, 0], jokers: ["deck", "deck"],
                pile_points: [0, 0], unclaimed: [], scale: 0, shown: null, scooped: null};
  let o = bare;
  for (const [k, e] of b.log.entries()) o = afterEvent(o, e, b.log[k + 1]);
  return {...bare, deck_sizes: b.deck_sizes.map((n, q) => n - o.deck_sizes[q])};
}

/** Whether the opening (the draws the deal made by itself before the first decision) has been shown on this page. */
let openingShown = false;

/** The state messages to show before ``next``: at the opening, when the last person the table waited for arrives
 * (their page's first message says ``opening``; the others see the wait end) or someone starts the match, each
 * event of it (the server waits as long before its first move); after a move, one per new log event but its last; none
 * for a connection's first message later in the match (a reload, a late joiner, a reconnect shows the table as it
 * is), without pace, with motion off, or for a log that does not follow on from ``prev``'s. */
function stepsBetween(prev, next) {
  const b = next.observation;
  if (!b || !b.log) return [];
  const started = next.opening || prev && (prev.waiting_for || []).length && !(next.waiting_for || []).length;
  if (next.version === 0 && started && !openingShown) {
    openingShown = true;
    if (!pace || motionOff() || b.log.length < 2 || b.log.length > MOST_STEPS) return [];
    return stepsOf(beforeOpening(b), b.log, next, next.log);
  }
  const a = prev && prev.observation;
  if (next.settings || !pace || motionOff() || !a || !a.log) return [];
  const events = b.log.slice(a.log.length);
  if (events.length < 2 || events.length > MOST_STEPS || a.log.length === 0 && b.log.length > MOST_STEPS) return [];
  return stepsOf(a, events, next, prev.log);
}

/** Show the events of a move one at a time before ``next``: ``show(step)`` draws each step message, each for the
 * table's pace; resolves once the last but one has been shown its time (the table page then draws ``next``).
 * ``prev`` is null for a connection's first message. */
async function showSteps(prev, next, show) {
  for (const m of [prev, next]) if (m && m.settings && "pace" in m.settings) pace = m.settings.pace || 0;
  for (const step of stepsBetween(prev, next)) {
    show(step);
    await new Promise((done) => setTimeout(done, pace * 1000));
  }
}

/** The event being shown, in words: "Ann drew the 7 of hearts", "Bob scooped 6 cards". */
function eventWords(e) {
  const who = nameOf(e.seat);
  const card = e.card === "JK" ? "the Joker" : e.card ? cardWords(e.card) : "";
  return {play: e.card === "JK" ? `${who} played the Joker` : `${who} drew ${card}`,
          reveal: `${who} revealed ${card}`,
          set_aside: `${who} set the Joker aside`,
          scoop: `${who} scooped ${plural(e.value, "card")} (${plural(e.scale, "point")})`,
          joker_back: `${who}'s Joker went back into the deck`,
          end: "The match ends"}[e.event] || "";
}

/** The cards a scoop carries off move to the scooping seat (its pile) and fade. */
function useScoopMotion(scooped) {
  useLayoutEffect(() => {
    if (!scooped || motionOff()) return;
    const seat = document.querySelector(`.seat[data-seat="${scooped.seat}"]`);
    if (!seat) return;
    const to = seat.getBoundingClientRect();
    for (const el of document.querySelectorAll(".errand-play .card.scooped")) {
      const at = el.getBoundingClientRect();
      const dx = to.left + to.width / 2 - (at.left + at.width / 2), dy = to.top + to.height / 2 - (at.top + at.height / 2);
      el.animate([{transform: "none", opacity: 1}, {transform: `translate(${dx}px, ${dy}px) scale(0.4)`, opacity: 0}],
                 {duration: Math.max(150, Math.min(500, pace * 700)), easing: "ease-in", fill: "forwards"});
    }
  }, [scooped]);
}

function Line({plays, seat, side, scooped}) {
  return html`<div class="errand-row" data-side=${side}>
    ${plays.map((p, k) => (p.seat !== seat ? null : scooped
      ? html`<${Card} code=${p.card} small mark="scooped" />`
      : html`<${Card} code=${p.card} small flip=${`fe:${k}`} from=${seat} mark=${k === plays.length - 1 ? "latest" : ""} />`))}</div>`;
}

/** @type {import("../parts.js").GameView<ShownObservation>} */
const view = {
  oneClick: false,
  apart: ["joker"],
  hand: () => [],
  noHand: true,
  defaultMove: "draw",
  showSteps,
  moveLabel: (move) => LABELS[move] || move,
  logText: (move) => LOG_WORDS[move] || null,
  seatExtras(obs, seat) {
    const place = obs.jokers[seat];
    return {count: obs.deck_sizes[seat], countWord: "in deck",
            note: [JOKER_PLACE[place] || "", `pile: ${plural(obs.piles[seat].length, "card")}`].filter(Boolean).join(", ")};
  },
  Center({obs}) {
    useScoopMotion(obs.scooped);
    const scooped = obs.scooped ? obs.scooped.cards : [];
    const plays = scooped.length ? scooped : obs.in_play;
    const near = obs.seat ?? 0;
    return html`<div class="center-head"><${Meter} scale=${obs.scale} /></div>
      <div class="errand-play">
        ${[0, 1].map((seat) => html`<${Line} plays=${plays} seat=${seat} side=${seat === near ? "near" : "far"}
          scooped=${scooped.length > 0} />`)}
        ${obs.shown ? html`<p class="trick-line step">${eventWords(obs.shown)}.</p>`
          : plays.length ? null : html`<p class="trick-line">No cards in play.</p>`}
        ${obs.unclaimed.length ? html`<p class="trick-line">${plural(obs.unclaimed.length, "card")} unclaimed.</p>` : null}
      </div>`;
  },
  scoreSheet: (obs) => ({label: "pile", rows: [{label: "cards in pile", values: obs.piles.map((p) => p.length)}]}),
  help: [  // how this page is played; the rules themselves come from the game (/api/games "how_to_play")
    "Draws happen by themselves, one at a time at the table's pace (at once with motion off in Settings). While your Joker is set aside, your next card is drawn after a short pause (Settings) unless you press Play Joker first; when you draw the Joker, press Play Joker or Keep Joker.",
  ],
};
export default view;

/** For tests: the table shown after each of ``events`` from ``obs`` (see ``afterEvent``). */
export function replayEvents(obs, events) {
  return events.reduce((o, e, k) => afterEvent(o, e, events[k + 1]), obs);
}
