// @ts-check
// The table page: draws the table from the server's JSON (the viewer's observation, its legal moves, the log)
// with Preact + htm. The server is the only judge of legality: a selection of cards is playable iff it is the
// card set of one legal move (each legal move carries its "cards"). Per-game drawing is in games/<game>.js,
// which draws with the pieces of parts.js (names, cards, tricks, and the page state S that this module fills).
//
// Layout: the seats around the table (desktop: an oval, the viewer at the bottom; phone: a compact row at the
// top), the trick in the middle, the person's hand and controls docked at the bottom of the viewport. The end
// of a deal and of the match are dialogs over the table; nothing is inserted above the hand during play.
// Every viewer is drawn from what its own message holds: a spectator's has no hand, no exchange of its own.
import { html, render, useEffect, useErrorBoundary, useLayoutEffect, useState } from "/static/vendor/preact-htm.js";
import { Card, Face, S, SETTINGS_KEY, TrickView, cardInfo, cardWords, handRows, joinNames, nameOf, ordinal, plural,
         seatAngle } from "/static/parts.js";
import { ChatPanel, chat, chatReceived, chatRefused } from "/static/chat.js";
import { IdleBar, PlayedNote, PresenceNotes, SeatConn, browserOnline, connWords, downSentence, keepMove, link, linkClosed,
         linkHeard, linkOpened, notePlayed, noteSeats, pendingRefused, seatPresence, settlePending, standInTurn,
         turnSentence, watchLink } from "/static/presence.js";

const tableId = location.pathname.split("/").pop();
const token = new URLSearchParams(location.search).get("token");
let ws = null;
let inOrder = Promise.resolve();
let retry = 500;
let retryTimer = null;
let stopped = false;
let redraw = () => {};
let autoTimer = null;
let deadlineAt = null;
let summaryAt = null;   // when the server's deal summary goes on by itself (ms), or null
let dialogGoesAt = null; // when the deal's dialog closes by itself (ms): nothing waits for this viewer; or null
/** Seconds a deal's summary stays open for a viewer the table does not wait for (it closes by itself). */
const SUMMARY_SHOWN = 6;
let knownDeal = null;   // the deal counter of the last message (a deal that ends while the page is open: a dialog)
let before = null;      // where the moving things were before this draw (see motion below)
/** @type {import("/static/schema/messages").TableSettings | null} */
let tableSettings = null;  // the table's settings (the first message of a connection)
/** Rule ids in a reason: "(FY-R3)", "(FE-R2, FE-R4)". */
const RULE_IDS = /\s*\((?:[A-Z]{1,3}-[A-Z]?\d+[a-z]?(?:,\s*)?)+\)/g;

export function setSetting(key, value) {
  S.settings = {...S.settings, [key]: value};
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(S.settings));
  redraw();
}

// ---- people -------------------------------------------------------------------------------------
/** Is this page the seat's live page (the contract's "live"; absent: an older server, always live)? */
function isLive() {
  return !S.msg || S.msg.live !== false;
}

// ---- cards --------------------------------------------------------------------------------------
function sortKey(code) {
  const info = cardInfo(code);
  const apart = (S.view && S.view.apart || []).includes(info.suit);
  if (S.settings.sortBy === "rank" && !apart) return info.rank * 10000 + info.order;
  return (apart ? 1e7 : 0) + info.order;
}

// ---- words --------------------------------------------------------------------------------------
function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith(".") ? "" : ".");
}

/** A reason in words (the server's ``words``, else its ``reason`` without rule ids) and the rule ids apart. */
function reasonWords(answer) {
  const raw = answer.reason || answer.message || "";
  const rules = answer.rules || [...raw.matchAll(/[A-Z]{1,3}-[A-Z]?\d+[a-z]?/g)].map((m) => m[0]);
  const text = answer.words || (raw ? capitalise(raw.replace(RULE_IDS, "").replace(/^illegal move '[^']*':\s*/i, "")) : "");
  return {text, rules};
}

/** "{seat 6} reached -82 points." with the seats' names. */
function withNames(text) {
  return text.replace(/\{seat (\d+)\}/g, (_, q) => nameOf(Number(q)));
}

/** A log entry in words: "Ann played the 7 of spades", "Bob passed", "Cleo had to pass". */
function logWords(e) {
  const who = nameOf(e.seat);
  const auto = S.autoSent.has(e.n) ? " (automatic)" : "";
  const by = {timer: " (out of time: played for them)", away: " (away: a bot played for them)"}[e.actor] || "";
  if (e.move === null) return `${who} made a move you cannot see${by}`;
  const own = S.view.logText ? S.view.logText(e.move, e) : null;
  if (own) return `${who} ${own}${auto}${by}`;
  const parts = e.move.split(" ");
  let text;
  if (e.move === "pass") text = e.forced ? "had to pass" : "passed";
  else if (parts[0] === "give") text = `gave ${joinNames(parts.slice(1).map(cardWords))}`;
  else if (parts.every((c) => c in S.cards)) text = `${e.forced ? "had to play" : "played"} ${joinNames(parts.map(cardWords))}`;
  else text = e.move;
  return `${who} ${text}${auto}${by}`;
}

// ---- moves --------------------------------------------------------------------------------------
function canSend() {
  return ws && ws.readyState === WebSocket.OPEN && S.msg && S.sent !== S.msg.version && isLive();
}

function sendRaw(data) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(data));
}

export function send(move, automatic = false) {
  if (!S.msg || S.sent === S.msg.version || !isLive()) return;
  if (focusInDock()) S.focusHand = true;  // the focused card or button is gone or means another thing now
  const up = canSend() && link.up;  // else the move is kept, and sent once the connection is back
  S.error = "";
  S.hint = "";
  S.sent = S.msg.version;
  if (automatic) S.autoSent.add(S.msg.version + 1);
  keepMove(S.msg.version, move, up ? ws : null);
  if (up) sendRaw({type: "move", version: S.msg.version, action: move.action});
  S.selected = [];
  redraw();
}

function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const x = [...a].sort(), y = [...b].sort();
  return x.every((c, i) => c === y[i]);
}

/** The legal move whose cards are exactly the selected ones, or null. */
function matchingMove(codes) {
  return S.msg.legal.find((m) => m.cards.length && sameCards(m.cards, codes)) || null;
}

function isGiving() {
  const legal = S.msg ? S.msg.legal : [];
  return legal.length > 0 && legal.every((m) => m.move.startsWith("give "));
}

/** Ask the server why a selection is not a legal move (in words); the answer replaces the page's own. */
function askWhy(codes) {
  const text = codes.join(" ");
  const key = `${S.msg.version}:${text}`;
  if (S.why.key === key || !ws || ws.readyState !== WebSocket.OPEN) return;
  S.why = {key, reason: null, rules: []};
  sendRaw({type: "why", move: text});
}

/** The server's answer for these cards at this version, if it came: ``{text, rules}``. */
function whyAnswer(codes) {
  return S.why.reason && S.why.key === `${S.msg.version}:${codes.join(" ")}` ? S.why : null;
}

/** Why the selection is not a move now (``{text, rules}``), or null when it is one (or nothing is selected). */
function whyNot(codes) {
  if (!codes.length || matchingMove(codes)) return null;
  if (isGiving()) {
    const need = giveNeed();
    return codes.length !== need ? {text: `Select ${plural(need, "card")} to give.`, rules: []} : null;
  }
  askWhy(codes);
  const answer = whyAnswer(codes);
  if (answer) return {text: answer.reason, rules: answer.rules};
  const wider = S.msg.legal.filter((m) => contains(m.cards, codes));
  if (wider.length) return {text: "Not a play yet: these cards are part of a play with more cards.", rules: []};
  return {text: "These cards are not a play you may make now.", rules: []};
}

/** How many cards to select for the exchange: what the step still asks, at most the cards that may be given. */
function giveNeed() {
  const need = S.view.giveCount ? S.view.giveCount(S.msg.observation) : 1;
  return Math.max(1, Math.min(need, new Set(S.msg.legal.flatMap((m) => m.cards)).size));
}

function usable(code) {
  return S.msg.legal.some((m) => m.cards.includes(code));
}

/** The person's cards: the game view's, else a plain ``hand`` list of the observation (a game with no view).
 * @param {import("/static/schema/messages").GameObservation} obs @returns {string[]} */
function handOf(obs) {
  if (S.view.hand) return S.view.hand(obs) || [];
  return "hand" in obs && Array.isArray(obs.hand) ? obs.hand.filter((c) => typeof c === "string") : [];
}

function handCodes(hand) {
  return hand.map((code, i) => ({code, i})).sort((a, b) => sortKey(a.code) - sortKey(b.code) || a.i - b.i);
}

// ---- the keyboard: the hand is one tab stop (a roving tab index), arrows move within it ----------------------
/** Is the keyboard focus in the dock (the hand, its buttons)? */
function focusInDock() {
  const el = document.activeElement;
  return !!el && el !== document.body && !!el.closest(".dock");
}

/** The hand's cards in the order shown (rows included), as their hand indices. */
function shownOrder(hand) {
  return handCodes(hand).map(({i}) => i);
}

/** The hand index of the card that takes the Tab stop: the one the arrows last moved to, if it is still held
 * (by its code), else the first card shown. */
function rovingIndex(hand) {
  const order = shownOrder(hand);
  const at = order.find((i) => hand[i] === S.rovingCode);
  return at !== undefined ? at : order.length ? order[0] : -1;
}

/** Move the focus within the hand: ``by`` cards along the order shown (no wrap), or to the first / last. */
function moveFocus(hand, from, by) {
  const order = shownOrder(hand);
  if (!order.length) return;
  const k = order.indexOf(from);
  const to = by === -Infinity ? 0 : by === Infinity ? order.length - 1 : Math.max(0, Math.min(order.length - 1, (k < 0 ? 0 : k) + by));
  S.rovingCode = hand[order[to]];
  const el = /** @type {HTMLElement | null} */ (document.querySelector(`#hand-cards .hand-card[data-i="${order[to]}"]`));
  if (el) el.focus();
  redraw();
}

const ARROWS = {ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1, Home: -Infinity, End: Infinity};

/** A key in the hand: the arrows (and Home, End) move between cards; Enter or Space press the card (select it, or
 * play it where one click plays); P plays (gives) the selection once it is a move; Escape clears it. */
function handKey(e, hand) {
  const el = /** @type {HTMLElement} */ (e.target);
  const at = el.dataset && el.dataset.i !== undefined ? Number(el.dataset.i) : -1;
  if (e.key in ARROWS) {
    e.preventDefault();
    moveFocus(hand, at < 0 ? rovingIndex(hand) : at, at < 0 ? 0 : ARROWS[e.key]);
  } else if ((e.key === "p" || e.key === "P") && !e.ctrlKey && !e.metaKey && !e.altKey) {
    e.preventDefault();
    if (readyToPlay(hand)) playSelected(hand);
  } else if (e.key === "Escape" && S.selected.length) {
    e.preventDefault();
    S.selected = [];
    redraw();
  }
}

/** Is the selection a move to send now (Play, or Give with the cards the step asks)? */
function readyToPlay(hand) {
  const msg = S.msg;
  if (!msg || !isLive() || !msg.legal.length || S.sent === msg.version || summaryWaits(msg)) return false;
  const codes = S.selected.map((i) => hand[i]);
  return isGiving() ? codes.length > 0 && !whyNot(codes) : !!matchingMove(codes);
}

/** A card pressed: select it (or play it with one click), or say why it cannot be used now. */
function press(i, code, hand) {
  const msg = S.msg;
  if (!isLive()) { S.hint = "This seat is being played in another tab: press Play here to play from this one."; redraw(); return; }
  if (msg.terminal) { S.hint = "The match is over."; redraw(); return; }
  if (!msg.legal.length || S.sent === msg.version) {
    S.hint = `It is not your turn: ${msg.current_player >= 0 ? `${nameOf(msg.current_player)} plays now.` : "wait a moment."}`;
    redraw();
    return;
  }
  if (!usable(code)) {
    S.hint = `You cannot play ${cardWords(code)} now.`;
    if (!isGiving()) { S.hintFor = [code]; askWhy([code]); }
    redraw();
    return;
  }
  S.hint = "";
  const legalNow = msg.legal.find((m) => sameCards(m.cards, [code]));
  if (S.settings.oneClick && S.view.oneClick && legalNow && !S.selected.length) { send(legalNow); return; }
  const adding = !S.selected.includes(i);
  S.selected = adding ? [...S.selected, i] : S.selected.filter((j) => j !== i);
  if (adding && S.settings.complete && !isGiving()) completeSelection(hand);
  redraw();
}

/** When the selection is no legal move but exactly one legal move holds it, select that move's other cards
 * too (following a pair, one click picks the pair; Play still sends it). */
function completeSelection(hand) {
  const codes = S.selected.map((j) => hand[j]);
  if (matchingMove(codes)) return;
  const holding = S.msg.legal.filter((m) => m.cards.length > codes.length && contains(m.cards, codes));
  if (holding.length !== 1) return;
  const rest = [...holding[0].cards];
  for (const c of codes) rest.splice(rest.indexOf(c), 1);
  for (const c of rest) {
    const j = hand.findIndex((h, k) => h === c && !S.selected.includes(k));
    if (j < 0) return;
    S.selected = [...S.selected, j];
  }
}

/** Does the multiset ``big`` hold every card of ``small``? */
function contains(big, small) {
  const left = [...big];
  for (const c of small) { const k = left.indexOf(c); if (k < 0) return false; left.splice(k, 1); }
  return true;
}

function playSelected(hand) {
  const codes = S.selected.map((i) => hand[i]);
  if (isGiving()) {
    if (codes.length !== giveNeed()) return;
    S.queue = codes;
    S.selected = [];
    sendQueued();
    return;
  }
  const move = matchingMove(codes);
  if (move) send(move);
}

function sendQueued() {
  if (S.queue.length && S.msg.legal.length && !isGiving()) S.queue = [];  // the exchange is over for us
  if (!S.queue.length || !isGiving()) return false;
  const move = S.msg.legal.find((m) => m.cards.length === 1 && S.queue.includes(m.cards[0]));
  if (!move) { S.queue = []; S.error = "The cards chosen can no longer be given; choose again."; redraw(); return true; }
  S.queue = S.queue.filter((c, k) => k !== S.queue.indexOf(move.cards[0]));
  send(move);  // the person chose these cards: not an automatic move
  return true;
}

/** The legal move the game's view makes by itself after a pause (The Fool's Errand's draw), or null. */
function defaultMove(msg) {
  return (S.view.defaultMove && msg.legal.find((m) => m.move === S.view.defaultMove)) || null;
}

/** Forced moves (one legal move) are made for the player when the setting is on, paced so they can be seen; a
 * table with a pace (every table made since the setting exists) plays them itself, so the page leaves them. */
function autoMove() {
  clearTimeout(autoTimer);
  const msg = S.msg;
  if (!msg || msg.terminal || !msg.legal.length || S.sent === msg.version || !isLive()) return;
  if (summaryWaits(msg)) return;  // the deal's summary is open: nothing moves until the table goes on
  if (sendQueued()) return;
  if (!S.settings.autoMoves || S.manual === msg.version) return;
  const version = msg.version;
  const later = defaultMove(msg);
  if (later) {  // a move the game makes by itself unless the person chooses otherwise (a draw), paced
    autoTimer = setTimeout(() => { if (S.msg && S.msg.version === version) send(later, true); }, S.settings.drawDelay * 1000);
    return;
  }
  if (msg.legal.length !== 1) return;
  const pace = S.tableSettings && S.tableSettings.pace;
  if (pace !== null && pace !== undefined) return;  // the table plays forced moves itself, at its pace
  const wait = S.held ? Math.max(0, S.held.until - Date.now()) + 200 : 500;
  autoTimer = setTimeout(() => { if (S.msg && S.msg.version === version) send(S.msg.legal[0], true); }, wait);
}

// ---- the finished trick, held where the trick is for a moment, then gathered to its winner --------------
/** @param {import("/static/schema/messages").StateMessage} msg */
function noteTrick(msg) {
  if (!S.view || !S.view.finishedTrick) return;
  const key = S.lastTricks;
  const done = S.view.finishedTrick(msg.observation, S.lastTricks);
  S.lastTricks = S.view.trickCount ? S.view.trickCount(msg.observation) : null;
  if (done && S.settings.trickPause > 0) {
    const until = Date.now() + S.settings.trickPause * 1000;
    S.held = {trick: done, until, key};
    setTimeout(() => gather(until), S.settings.trickPause * 1000);
  }
}

/** The held trick's cards move to its winner's seat, then the table shows the next trick. */
function gather(until) {
  if (!S.held || S.held.until !== until) return;
  const done = () => { if (S.held && S.held.until === until) { S.held = null; redraw(); } };
  const winner = S.held.trick.winner;
  const seat = winner === null || winner === undefined ? null : document.querySelector(`.seat[data-seat="${winner}"]`);
  const cards = [...document.querySelectorAll(".table-trick .card")];
  if (!motionOn() || !seat || !cards.length) { done(); return; }
  const to = centre(seat.getBoundingClientRect());
  const runs = cards.map((el) => {
    const at = centre(el.getBoundingClientRect());
    return el.animate([{transform: "none", opacity: 1},
      {transform: `translate(${to.x - at.x}px, ${to.y - at.y}px) scale(0.4)`, opacity: 0.2}],
      {duration: 380, easing: "ease-in", fill: "forwards"}).finished;
  });
  Promise.all(runs).then(done, done);
}

// ---- motion: FLIP (where a thing was before this draw -> where it is now), with the Web Animations API -----
function motionOn() {
  return S.settings.motion && !matchMedia("(prefers-reduced-motion: reduce)").matches && !!document.body.animate;
}

function centre(r) {
  return {x: r.left + r.width / 2, y: r.top + r.height / 2};
}

/** Remember where every moving thing is (cards on the table, Fool discs, the cards of the hand). */
function snapshot() {
  if (!motionOn() || before) return;
  before = new Map();
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-flip]"))) before.set(el.dataset.flip, el.getBoundingClientRect());
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".hand-card"))) before.set(`hand:${el.dataset.card}`, el.getBoundingClientRect());
}

/** After a draw: a thing that moved slides from where it was; a new card on the table comes from the hand it
 * left (the person's) or from its player's seat. */
function animate() {
  const old = before;
  before = null;
  if (!old || !motionOn()) return;
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-flip]"))) {
    let from = old.get(el.dataset.flip) || old.get(`hand:${el.dataset.card}`);
    if (!from && el.dataset.from !== undefined) {
      const seat = document.querySelector(`.seat[data-seat="${el.dataset.from}"]`);
      if (seat) from = seat.getBoundingClientRect();
    }
    if (!from) continue;
    const a = centre(from), b = centre(el.getBoundingClientRect());
    if (Math.abs(a.x - b.x) + Math.abs(a.y - b.y) < 2) continue;
    el.animate([{transform: `translate(${a.x - b.x}px, ${a.y - b.y}px)`}, {transform: "none"}],
               {duration: 360, easing: "cubic-bezier(.2,.7,.3,1)"});
  }
}

// ---- the end of a deal ---------------------------------------------------------------------------
/** Does the server hold the table for the deal's summary now (the contract's ``summary``)? */
function summaryWaits(msg) {
  return !!(msg.summary && (msg.summary.waiting || []).length);
}

/** Does the server's summary wait for this page's own Continue? */
function waitsForMe(msg) {
  return msg.seat !== null && !!msg.summary && (msg.summary.waiting || []).includes(msg.seat) && isLive();
}

/** A deal ended while the page was open: show its summary (the server's ``summary`` also opens it, also on a page
 * loaded while it is shown). A dialog nothing waits for (a spectator's, a seat's that already pressed Continue,
 * any at a table that does not wait) closes by itself: when the server's summary ends, or ``SUMMARY_SHOWN``
 * seconds after it opened when the server shows none. */
/** @param {import("/static/schema/messages").StateMessage} msg @param {import("/static/schema/messages").StateMessage | null} prev */
function noteDeal(msg, prev) {
  const deal = S.view.dealKey ? S.view.dealKey(msg.observation) : null;
  const opened = S.dialog;
  if (knownDeal !== null && deal !== null && deal > knownDeal && !msg.terminal) S.dialog = "deal";
  knownDeal = deal;
  // the server's summary is over (everyone pressed Continue, or its time ran out): the table goes on, the dialog goes
  if (prev && prev.summary && !msg.summary && S.dialog === "deal") S.dialog = null;
  if (msg.summary && !msg.terminal) {
    if (S.dialog === null && S.closedSummary !== msg.summary.deal) S.dialog = "deal";
    summaryAt = msg.summary.until === null || msg.summary.until === undefined ? null : Date.now() + msg.summary.until * 1000;
  } else {
    summaryAt = null;
  }
  if (S.dialog !== "deal" || msg.summary) dialogGoesAt = null;
  else if (opened !== "deal" || dialogGoesAt === null) dialogGoesAt = Date.now() + SUMMARY_SHOWN * 1000;
  if (msg.terminal && S.dialog !== "closed-end" && S.dialog !== "rematch") S.dialog = "end";
}

/** Close the deal's dialog whose time is up (nothing waits for it); called every second. */
function closeDueDialog() {
  if (dialogGoesAt === null || Date.now() < dialogGoesAt) return;
  dialogGoesAt = null;
  if (S.dialog === "deal") S.dialog = null;
}

function continueDeal() {
  const msg = S.msg;
  if (msg.summary) {
    S.closedSummary = msg.summary.deal;
    if (msg.seat !== null && (msg.summary.waiting || []).includes(msg.seat)) sendRaw({type: "continue"});
  }
  S.dialog = null;
  dialogGoesAt = null;
  redraw();
  autoMove();
}

// ---- connection ---------------------------------------------------------------------------------
let loading = null;

/** Load the game's view and card names once (every state message waits for the same load). */
function loadGame(game) {
  if (!loading) loading = fetchGame(game);
  return loading;
}

/** The game's view (games/<game>.js): its default export. One that fails to load (a missing file, an error in
 * it) is reported, on the page (``S.viewError``, shown above the table) and in the console, and the table is drawn
 * with no game view (the plain drawing of each hook, see GameView in parts.js). */
async function loadView(game) {
  try {
    const loaded = await import(`/static/games/${game}.js`);
    if (!loaded.default || typeof loaded.default !== "object") throw new Error("it has no default export");
    return /** @type {import("/static/parts.js").GameView<any>} */ (loaded.default);
  } catch (err) {
    const why = err && err.message ? err.message : String(err);
    S.viewError = `The game's drawing could not be loaded (games/${game}.js: ${why}); the table is shown plainly.`;
    console.error("motley: the game view did not load:", err);
    return {};
  }
}

async function fetchGame(game) {
  const [views, games] = await Promise.all([
    loadView(game),
    fetch("/api/games").then((r) => r.json()).catch(() => []),
  ]);
  S.gameInfo = games.find((g) => g.name === game) || null;
  S.cards = S.gameInfo ? S.gameInfo.cards : {};
  S.view = views;
}

/** @param {import("/static/schema/messages").StateMessage} msg */
async function onState(msg, socket) {
  await loadGame(msg.game);
  const wasMine = S.msg && S.msg.legal.length > 0;
  const fresh = !S.msg || S.msg.version !== msg.version;
  snapshot();
  if (S.msg && fresh) noteTrick(msg);
  else if (!S.msg && S.view.trickCount) S.lastTricks = S.view.trickCount(msg.observation);
  if (!S.msg) requestAnimationFrame(() => performance.mark("motley-table-drawn"));  // first table on screen
  const prev = S.msg;  // before the steps below change S.msg
  // a move (or the opening of the match) shown one step at a time: the view decides what, if anything, to show
  if (S.view.showSteps) await S.view.showSteps(S.msg, msg, (step) => { S.msg = step; redraw(); });
  S.msg = msg;
  noteDeal(msg, prev);
  if (msg.params) S.params = msg.params;  // the table's options: in the first message of a connection
  if (msg.settings) tableSettings = msg.settings;  // and its settings
  if (msg.settings) S.tableSettings = msg.settings;  // and its settings (pace, bot delay, timers)
  if (fresh) { S.selected = []; S.hint = ""; if (S.advice && S.advice.version !== msg.version) S.advice = null; }
  deadlineAt = msg.deadline === null || msg.deadline === undefined ? null : Date.now() + msg.deadline * 1000;
  noteSeats(msg.seats);
  notePlayed(msg);
  if (socket === ws) settlePending(msg, socket, sendRaw);
  const mine = msg.legal.length > 0 && isLive();
  document.title = `${mine ? "\u25CF Your turn - " : ""}${msg.title} - motley`;
  if (mine && !wasMine && S.settings.sound) beep();
  redraw();
  autoMove();
}

function beep() {
  try {
    const ctx = new AudioContext();
    const osc = ctx.createOscillator();
    osc.connect(ctx.destination);
    osc.frequency.value = 660;
    osc.start();
    osc.stop(ctx.currentTime + 0.12);
  } catch { /* no sound available */ }
}

/** @param {import("/static/schema/messages").WhyMessage} msg */
function onWhy(msg) {
  if (!S.msg || S.why.key !== `${msg.version}:${msg.move}`) return;
  const {text, rules} = reasonWords(msg);
  S.why = {key: S.why.key, reason: msg.reason ? text : null, rules};
  if (S.hintFor && S.hintFor.join(" ") === msg.move && S.why.reason) {
    S.hint = `You cannot play ${cardWords(S.hintFor[0])} now: ${S.why.reason.charAt(0).toLowerCase()}${S.why.reason.slice(1)}`;
    S.hintRules = rules;
  }
  redraw();
}

// ---- hints (a table made with hints) ---------------------------------------------------------------
/** Ask the server for the strongest bot's choice for this decision (once per decision). */
function askHint() {
  if (!S.msg || !canSend()) return;
  S.advising = S.msg.version;
  sendRaw({type: "hint"});
  redraw();
}

/** @param {import("/static/schema/messages").HintMessage} msg */
function onHint(msg) {
  S.advising = null;
  if (!S.msg || msg.version !== S.msg.version) return;  // the table moved on: this decision is over
  S.advice = msg;
  redraw();
}

/** The hand's indices the hint's cards are (each card of the move once), for the highlight. */
function hintedIndices(hand) {
  const advice = S.advice;
  if (!advice || !S.msg || advice.version !== S.msg.version) return [];
  const out = [];
  for (const code of advice.cards || []) {
    const j = hand.findIndex((h, k) => h === code && !out.includes(k));
    if (j >= 0) out.push(j);
  }
  return out;
}

/** The hints badge of the dock at a table with hints: "Hints: Ann 2, Bob 0" (the people's counts; a bot asks for
 * none), "Hints on" where nobody asked yet. */
function hintCounts(msg) {
  const people = msg.seats.filter((s) => s.kind !== "bot").map((s) => s.seat);
  if (!people.length || !msg.hints.some((n) => n > 0)) return "Hints on";
  return `Hints: ${people.map((q) => `${q === msg.seat ? "you" : nameOf(q)} ${msg.hints[q]}`).join(", ")}`;
}

/** "Hints used: Ann 2, Bob 0." (the people; a bot asks for none) at a table with hints, else null. */
function HintsUsed() {
  const used = S.msg && S.msg.hints;
  if (!used) return null;
  const people = S.msg.seats.filter((s) => s.kind !== "bot").map((s) => s.seat);
  if (!people.length) return null;
  return html`<p class="hints-used">Hints used: ${people.map((q) => `${nameOf(q)} ${used[q]}`).join(", ")}.</p>`;
}

/** @param {import("/static/schema/messages").ErrorMessage} msg */
function onError(msg) {
  if (msg.code === "chat_off" || msg.code === "chat_limited") { chatRefused(msg.message); redraw(); return; }
  S.advising = null;  // a hint asked for and refused may be asked again (the server says why)
  const {text, rules} = reasonWords(msg);
  S.error = text || msg.message;
  if (msg.code === "stale") S.error = "Your move came too late: the table had moved on, and shows where it is now.";
  if (msg.code === "not_your_turn" && S.msg && S.msg.current_player >= 0) {  // the server says "seat N", from 0
    S.error = `It is not your turn: ${nameOf(S.msg.current_player)} plays now.`;
  }
  S.errorRules = rules;
  if (msg.code !== "rate_limited") pendingRefused();
  if (S.msg && S.sent === S.msg.version) S.manual = S.msg.version;  // refused: the person decides this one
  S.sent = null;
  S.queue = [];
  if (msg.code === "bad_token" || msg.code === "no_table") stopped = true;
  redraw();
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const q = new URLSearchParams();
  if (token) q.set("token", token);
  clearTimeout(retryTimer);
  const socket = new WebSocket(`${proto}://${location.host}/ws/${tableId}?${q}`);
  ws = socket;
  socket.onopen = () => { if (ws !== socket) return; S.conn = "connected"; retry = 500; linkOpened(); redraw(); };
  socket.onmessage = (ev) => {
    if (ws !== socket) return;  // a socket given up on (presence.js): its late messages are not read
    linkHeard();
    /** @type {import("/static/schema/messages").ServerMessage} */
    const msg = JSON.parse(ev.data);
    if (msg.type === "state") inOrder = inOrder.then(() => onState(msg, socket));  // one at a time, in arrival order
    else if (msg.type === "seats" && S.msg) { S.msg = {...S.msg, seats: msg.seats}; noteSeats(msg.seats); redraw(); }
    else if (msg.type === "why") onWhy(msg);
    else if (msg.type === "hint") onHint(msg);
    else if (msg.type === "rematch") { S.rematch = msg; if (S.dialog === "closed-end") S.dialog = "end"; redraw(); }
    else if (msg.type === "rematch_declined") { S.declined = [...S.declined, msg.name || nameOf(msg.seat)]; redraw(); }
    else if (msg.type === "chat" || msg.type === "chat_log") {
      chatReceived(msg, S.panel === "chat", S.msg ? S.msg.seat : null);
      redraw();
    } else if (msg.type === "error") onError(msg);
  };
  socket.onclose = () => {
    if (ws !== socket) return;
    linkClosed();
    S.conn = stopped ? "closed" : "reconnecting";
    redraw();
    if (!stopped) later();
  };
}

/** Try again after the backoff; while the browser is offline, its "online" event reconnects (presence.js). */
function later() {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => { if (browserOnline()) connect(); else later(); }, retry);
  retry = Math.min(retry * 2, 8000);
}

/** The connection is given up on (offline, or a ping unanswered): the socket is closed, the page says so. */
function dropSocket() {
  const socket = ws;
  ws = null;
  if (socket) socket.close();
  linkClosed();
  if (!stopped) { S.conn = "reconnecting"; later(); }
}

// ---- the status line ------------------------------------------------------------------------------
function statusText(msg) {
  if (msg.terminal) return "The match is over.";
  const down = downSentence();
  if (down) return down;
  if (!isLive()) return "This seat is open in another tab.";
  if ((msg.waiting_for || []).length) return `Waiting for ${joinNames(msg.waiting_for.map(nameOf))} to arrive`;
  if (summaryWaits(msg)) {
    const who = msg.summary.waiting.map((q) => (q === msg.seat ? "you" : nameOf(q)));
    return `Waiting for ${joinNames(who)} to continue`;
  }
  const standIn = turnSentence(msg);
  if (standIn) return standIn;
  if (msg.legal.length) return "Your turn";
  if (msg.seat === msg.current_player) return "Your turn (sending...)";
  return msg.current_player >= 0 ? `${nameOf(msg.current_player)} to play` : "";
}

// ---- the seats around the table ---------------------------------------------------------------------
function Seat({seat}) {
  const msg = S.msg;
  const info = msg.seats[seat];
  const turn = !msg.terminal && msg.current_player === seat;
  const extra = S.view.seatExtras ? safe(() => S.view.seatExtras(msg.observation, seat), {}) : {};
  const a = seatAngle(seat);
  const where = {left: `${50 + 44 * Math.cos(a)}%`, top: `${50 + 41 * Math.sin(a)}%`};
  const state = seatPresence(info);
  const you = msg.seat === seat;
  const label = `${nameOf(seat)}${you ? " (you)" : ""}${turn ? ", to play" : ""}`;
  return html`<section class=${`seat${turn ? " turn" : ""}${you ? " me" : ""}`} style=${where}
      aria-label=${label} data-seat=${seat}>
    <div class="seat-head">
      <span class=${`dot ${state.kind}`} aria-hidden="true"></span>
      <span class="seat-name">${nameOf(seat)}${you ? html` <span class="you">(you)</span>` : null}</span></div>
    <${SeatConn} info=${info} />
    <div class="seat-facts">
      <span class="pts">${plural(msg.scores[seat], "pt", "pts")}</span>
      ${extra.count !== undefined ? html`<span class="count">${plural(extra.count, "card")}${extra.countWord ? ` ${extra.countWord}` : ""}</span>` : null}</div>
    <div class="seat-marks">
      ${extra.title ? html`<span class="badge">${extra.title}</span>` : null}
      ${(extra.discs || []).map((k) => html`<span class="disc" data-flip=${`disc:${k}`} title="holds a Fool disc">Fool</span>`)}
      ${extra.note ? html`<span class="note" key=${extra.note}>${extra.note}</span>` : null}</div>
    ${turn ? html`<span class="turn-mark">to play</span>` : null}
  </section>`;
}

/** ``f()``, or ``otherwise`` if it throws (a view that cannot read a message must not stop the page). */
function safe(f, otherwise) {
  try { return f(); } catch (err) { console.warn("view:", err); return otherwise; }
}

/** The game's middle of the table; a view that fails says so instead of taking the page down. */
function Center() {
  const [failed, reset] = useErrorBoundary();
  const msg = S.msg;
  useEffect(() => { if (failed) reset(); }, [msg.version]);
  if (failed) return html`<p class="trick-line">The table cannot be drawn for this moment.</p>`;
  return S.view.Center ? html`<${S.view.Center} obs=${msg.observation} held=${S.held} />` : null;
}

function Board() {
  const msg = S.msg;
  const n = msg.seats.length;
  const me = msg.seat === null ? 0 : msg.seat;
  const order = Array.from({length: n}, (_, k) => (me + k) % n);
  return html`<div class=${`board seats-${n}`} id="board">
    <div class="felt"><div class="center" aria-label="Table" role="region"><${Center} /></div>
      <${Waiting} /></div>
    <div class="seats">${order.map((q) => html`<${Seat} seat=${q} key=${q} />`)}</div>
  </div>`;
}

// ---- the hand, docked -----------------------------------------------------------------------------
function Hand() {
  const msg = S.msg;
  const hand = handOf(msg.observation);
  const live = isLive();
  const mine = live && msg.legal.length > 0 && S.sent !== msg.version && !summaryWaits(msg);
  const codes = S.selected.map((i) => hand[i]);
  const move = mine ? matchingMove(codes) : null;
  const giving = mine && isGiving();
  const reason = mine ? whyNot(codes) : null;
  const commands = mine ? msg.legal.filter((m) => !m.cards.length) : [];
  const anyCardMove = mine && msg.legal.some((m) => m.cards.length);
  const ready = giving ? codes.length && !reason : !!move;
  const sorted = handCodes(hand);
  const roving = rovingIndex(hand);
  const rows = handRows(sorted, knownDeal);
  const note = reason ? reason : S.hint ? {text: S.hint, rules: S.hintRules || []} : null;
  const hinted = mine ? hintedIndices(hand) : [];
  const advice = mine && S.advice && S.advice.version === msg.version ? S.advice : null;
  const asked = advice !== null || S.advising === msg.version;
  return html`<section class="hand-area" aria-label="Your hand">
    <div class=${`dock-line${advice ? " advised" : ""}`}>
      <div id="status" class=${mine ? "yours" : ""} data-version=${msg.version} role="status">${statusText(msg)}${deadlineWords()}</div>
      ${msg.hints ? html`<span class="hints-on" id="hints-on" title="At this table each person may ask for the strongest bot's choice, once per decision">${hintCounts(msg)}</span>` : null}
      ${note ? html`<span class="why" role="status" title=${note.rules && note.rules.length ? `Rule ${note.rules.join(", ")}` : ""}>${note.text}</span>` : null}
      ${advice ? html`<span class="advice" role="status" id="advice">Hint: ${advice.why}</span>` : null}
    </div>
    <div class="dock-body">
      <div class=${`hand rows-${rows.length}${S.view.noHand ? " no-hand" : ""}`} role="group" id="hand-cards"
          aria-label="Your cards" aria-keyshortcuts="ArrowLeft ArrowRight Home End Enter Space P Escape" tabindex="-1"
          onKeyDown=${(e) => handKey(e, hand)}>
        ${rows.map((row) => html`<div class="hand-row" style=${{"--n": row.length}}>${row.map(({code, i}) =>
          html`<${HandCard} key=${keyOf(hand, i)} code=${code} i=${i} hand=${hand} mine=${mine} roving=${i === roving}
            hinted=${hinted.includes(i)} />`)}</div>`)}
        ${hand.length === 0 && !S.view.noHand ? html`<span class="muted">no cards in hand</span>` : null}
      </div>
      <div class="controls" id="moves">
        ${!live ? html`<button type="button" class="move primary" onClick=${() => sendRaw({type: "claim"})}>Play here</button>` : null}
        ${mine && msg.hints ? html`<button type="button" class="move secondary hint-button" disabled=${asked}
            aria-label=${advice ? "Hint given for this decision" : "Hint: the strongest bot's choice"} onClick=${askHint}>${
            S.advising === msg.version ? "Thinking..." : "Hint"}</button>` : null}
        ${anyCardMove ? html`<button type="button" class="move primary" disabled=${!ready}
            onClick=${() => playSelected(hand)}>${giving ? "Give" : "Play"}</button>` : null}
        ${commands.map((m) => html`<button type="button" class=${`move${advice && advice.move === m.move ? " hinted" : ""}`} data-move=${m.move}
            onClick=${() => send(m)}>${S.view.moveLabel ? S.view.moveLabel(m.move) : m.move}</button>`)}
        ${live && !mine && !anyCardMove ? html`<span class="muted">${msg.terminal ? "no more moves" : "not your turn"}</span>` : null}
      </div>
    </div>
  </section>`;
}

/** A card's key among its element's siblings: the deal, its code and which copy of that code it is (a card keeps
 * its element while the hand changes, so the focus never stays on a place that now holds another card; a new deal
 * is a new hand). */
function keyOf(hand, i) {
  const deal = S.view.dealKey ? safe(() => S.view.dealKey(S.msg.observation), "") : "";
  return `${deal}:${hand[i]}#${hand.slice(0, i).filter((c) => c === hand[i]).length}`;
}

function HandCard({code, i, hand, mine, roving, hinted}) {
  const info = cardInfo(code);
  const can = mine && usable(code);
  const on = S.selected.includes(i);
  return html`<button type="button" class=${`card hand-card suit-${info.suit}${on ? " selected" : ""}${can ? " playable" : ""}${mine && !can ? " unplayable" : ""}${hinted ? " hinted" : ""}`}
    data-card=${code} data-i=${i} tabindex=${roving ? 0 : -1} aria-label=${hinted ? `${info.name} (the hint)` : info.name}
    aria-pressed=${on ? "true" : "false"} aria-disabled=${can ? "false" : "true"}
    onFocus=${() => { S.rovingCode = code; }} onClick=${() => press(i, code, hand)}><${Face} code=${code} /></button>`;
}

function deadlineWords() {
  if (deadlineAt === null || S.msg.terminal || standInTurn(S.msg) || downSentence()) return "";
  return ` - ${Math.max(0, Math.round((deadlineAt - Date.now()) / 1000))}s left`;
}

function SpectatorDock() {
  const msg = S.msg;
  return html`<section class="hand-area watching" aria-label="Watching">
    <div class="dock-line"><div id="status" data-version=${msg.version} role="status">${statusText(msg)}${deadlineWords()}</div></div>
    <div id="moves" class="controls"><span class="muted">You are watching: spectators do not move.</span></div></section>`;
}

// ---- before the match starts ------------------------------------------------------------------------
/** While the bots wait for people who have not arrived: who, and a Start button for a person at the table. */
function Waiting() {
  const msg = S.msg;
  const absent = msg.waiting_for || [];
  if (!absent.length || msg.terminal) return null;
  const names = joinNames(absent.map(nameOf));
  const verb = absent.length === 1 ? "has not" : "have not";
  const declined = S.declined.length ? html`<p>${joinNames(S.declined)} declined the rematch: ${
    S.declined.length === 1 ? "the seat is" : "the seats are"} open to anyone under the lobby's Open tables.</p>` : null;
  return html`<section class="waiting" aria-label="Waiting for players">
    <p>${`The bots wait until everyone has arrived: ${names} ${verb} opened their link yet.`}</p>
    ${declined}
    ${msg.seat !== null && isLive() ? html`<button type="button" onClick=${() => sendRaw({type: "start"})}>Start</button>` : null}</section>`;
}

// ---- dialogs ------------------------------------------------------------------------------------
function Dialog({label, id, children}) {
  return html`<div class="dialog-layer"><div class="dialog" role="dialog" aria-label=${label} id=${id}>${children}</div></div>`;
}

function DealSummary() {
  const msg = S.msg;
  const waiting = msg.summary ? msg.summary.waiting || [] : [];
  const left = summaryAt === null ? null : Math.max(0, Math.round((summaryAt - Date.now()) / 1000));
  const mineToPress = waitsForMe(msg);
  const others = waiting.filter((q) => q !== msg.seat);
  const closing = dialogGoesAt === null ? null : Math.max(0, Math.round((dialogGoesAt - Date.now()) / 1000));
  return html`<${Dialog} label="End of the deal" id="deal-summary">
    ${S.view.Summary ? html`<${S.view.Summary} obs=${msg.observation} />` : html`<h2>The deal is over</h2>`}
    ${others.length ? html`<p class="muted">Waiting for ${joinNames(others.map(nameOf))} to continue.</p>` : null}
    ${left !== null ? html`<p class="muted">The next deal starts by itself in ${plural(left, "second")}.</p>` : null}
    ${closing !== null ? html`<p class="muted">The table goes on; this closes by itself in ${plural(closing, "second")}.</p>` : null}
    <div class="dialog-buttons"><button type="button" class="primary" onClick=${continueDeal}>
      ${mineToPress ? "Continue" : "Close"}</button>
      <button type="button" class="secondary" onClick=${() => { S.panel = "sheet"; continueDeal(); }}>Score sheet</button></div>
    <${HintsUsed} />
  </${Dialog}>`;
}

/** Each seat's place: the winners by the match's returns (the game's rule: ties and shared wins) share 1st;
 * the others by their returns, then their points (ties share a place): ``[{seat, place}]`` best first. */
function places(msg) {
  const value = msg.returns || msg.scores;
  const best = Math.max(...value);
  const ahead = (r, q) => value[r] > value[q] + 1e-9 || (Math.abs(value[r] - value[q]) <= 1e-9 && msg.scores[r] > msg.scores[q]);
  const place = (q) => (value[q] >= best - 1e-9 ? 1 : 1 + msg.seats.filter((_, r) => ahead(r, q)).length);
  return msg.seats.map((_, q) => ({seat: q, place: place(q)}))
    .sort((a, b) => a.place - b.place || msg.scores[b.seat] - msg.scores[a.seat]);
}

/** The match's end in words, for this viewer: "You finished 2nd of 7 with 16 points; Bot 4 won with 20." */
function verdict(msg) {
  const ranked = places(msg);
  const n = msg.seats.length;
  const winners = ranked.filter((r) => r.place === 1).map((r) => r.seat).sort((a, b) => a - b);  // seat order
  const pts = (q) => plural(msg.scores[q], "point");
  if (winners.length === n && n > 1) return "The match is a draw.";
  const won = winners.length === 1 ? `${nameOf(winners[0])} won with ${pts(winners[0])}.`
    : `${joinNames(winners.map((q) => `${nameOf(q)} (${pts(q)})`))} share the win.`;
  if (msg.seat === null) return won;
  const mine = ranked.find((r) => r.seat === msg.seat);
  if (mine.place === 1) {
    const others = winners.filter((q) => q !== msg.seat);
    return others.length ? `You share the win with ${joinNames(others.map(nameOf))}, with ${pts(msg.seat)}.`
      : `You won with ${pts(msg.seat)}!`;
  }
  const tied = ranked.filter((r) => r.place === mine.place && r.seat !== msg.seat).map((r) => r.seat).sort((a, b) => a - b);
  return `You finished ${ordinal(mine.place)} of ${n} with ${pts(msg.seat)}${
    tied.length ? ` (tied with ${joinNames(tied.map(nameOf))})` : ""}; ${won}`;
}

function MatchOver() {
  const msg = S.msg;
  const ranked = places(msg);
  return html`<${Dialog} label="Match over" id="match-over">
    <h2>Match over</h2>
    <p class="verdict">${verdict(msg)}</p>
    ${msg.end_reason ? html`<p class="end-reason">${withNames(msg.end_reason)}</p>` : null}
    <ol class="ranking">${ranked.map((r) => html`<li>${ordinal(r.place)}: ${nameOf(r.seat)}${msg.seat === r.seat ? " (you)" : ""}, ${
      plural(msg.scores[r.seat], "point")}${r.place === 1 ? " - winner" : ""}</li>`)}</ol>
    <${HintsUsed} />
    <${RematchOffer} />
    <div class="dialog-buttons">
      ${msg.seat !== null && !S.rematch ? html`<button type="button" class="rematch primary" onClick=${openRematch}>Rematch</button>` : null}
      <button type="button" class="secondary" onClick=${() => { S.dialog = "closed-end"; S.panel = "sheet"; redraw(); }}>Score sheet</button>
    </div>
    <p><a href=${`/replay/${tableId}${msg.seat !== null ? `?view=${msg.seat}` : ""}`}>Replay and analyse this match</a> - <a href="/">Back to the lobby</a></p>
  </${Dialog}>`;
}

// ---- rematch ------------------------------------------------------------------------------------
function openRematch() {
  const msg = S.msg;
  S.draft = msg.seats.map((s, q) => ({from: q, kind: s.kind === "bot" ? "bot" : "human", bot: s.bot || null,
                                      strength: null, name: s.name}));
  S.dialog = "rematch";
  redraw();
}

/** Was the seat list changed in the editor? (An unchanged offer is sent as a plain rematch.) */
function draftChanged() {
  const msg = S.msg;
  return S.draft.some((d, k) => d.from !== k || (d.kind === "bot" && (d.bot !== msg.seats[d.from].bot || d.strength)));
}

async function sendRematch() {
  const body = {token};
  if (draftChanged()) {
    body.seats = S.draft.map((d) => (d.kind === "bot"
      ? {from: d.from, kind: "bot", bot: d.bot, ...(d.strength ? {strength: d.strength} : {})}
      : {from: d.from, kind: "human", name: d.name}));
  }
  const answer = await fetch(`/api/tables/${tableId}/rematch`, {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const reply = await answer.json().catch(() => ({}));
  if (!answer.ok) {
    S.error = typeof reply.error?.message === "string" ? reply.error.message : "The rematch could not be made.";
    S.dialog = "end";
    redraw();
    return;
  }
  goTo(reply.link);  // the one who offers goes to the new table, where the bots wait for the others
}

function moveDraft(k, by) {
  const d = [...S.draft];
  [d[k], d[k + by]] = [d[k + by], d[k]];
  S.draft = d;
  redraw();
}

function RematchEditor() {
  const bots = S.gameInfo ? S.gameInfo.bots : ["heuristic", "random"];
  const most = S.gameInfo ? S.gameInfo.max_simulations : 5000;
  const set = (k, patch) => { S.draft = S.draft.map((d, j) => (j === k ? {...d, ...patch} : d)); redraw(); };
  return html`<${Dialog} label="Rematch" id="rematch-editor"><h2>Rematch: the seats</h2>
    <p class="muted">People keep their place in the list; change a bot, or move seats up and down.</p>
    <ol class="draft">${S.draft.map((d, k) => html`<li>
      <span class="draft-name">${d.kind === "bot" ? "Bot" : nameOf(d.from)}</span>
      ${d.kind === "bot" ? html`<label class="inline">Kind <select value=${d.bot} aria-label=${`Seat ${k + 1} bot kind`}
          onChange=${(e) => set(k, {bot: e.target.value})}>${bots.map((b) => html`<option value=${b}>${b}</option>`)}</select></label>
        ${d.bot === "ismcts" ? html`<label class="inline">Strength <input type="number" min="1" max=${most}
          aria-label=${`Seat ${k + 1} strength (simulations)`} value=${d.strength || ""}
          onChange=${(e) => set(k, {strength: Math.max(1, Math.min(most, Number(e.target.value) || 0)) || null})} /></label>` : null}` : null}
      <button type="button" class="small secondary" disabled=${k === 0} aria-label=${`Move seat ${k + 1} up`}
        onClick=${() => moveDraft(k, -1)}>Up</button>
      <button type="button" class="small secondary" disabled=${k === S.draft.length - 1} aria-label=${`Move seat ${k + 1} down`}
        onClick=${() => moveDraft(k, 1)}>Down</button></li>`)}</ol>
    <div class="dialog-buttons"><button type="button" class="primary" onClick=${sendRematch}>Offer the rematch</button>
      <button type="button" class="secondary" onClick=${() => { S.dialog = "end"; redraw(); }}>Cancel</button></div>
  </${Dialog}>`;
}

/** An offered rematch: who offers it, Accept (go to this viewer's link) and Decline; declines heard so far. */
function RematchOffer() {
  const offer = S.rematch;
  const msg = S.msg;
  const declined = S.declined.length ? html`<p class="muted">${joinNames(S.declined)} declined the rematch.</p>` : null;
  if (!offer || S.rematchDeclined) return declined;
  const by = offer.offered_by !== undefined && offer.offered_by !== null ? nameOf(offer.offered_by) : null;
  const seated = token && offer.you !== null;
  return html`<div class="offer" role="group" aria-label="Rematch offer">
    <p><b>${by ? `${by} offers a rematch.` : "A rematch is ready."}</b></p>
    <button type="button" class="primary" onClick=${() => goTo(offer.link)}>${seated ? "Accept" : "Watch the rematch"}</button>
    ${seated && msg.seat !== null ? html`<button type="button" class="secondary" onClick=${declineRematch}>Decline</button>` : null}
    ${declined}</div>`;
}

async function declineRematch() {
  const offer = S.rematch;
  const newToken = new URL(offer.link, location.href).searchParams.get("token");
  S.rematchDeclined = true;
  redraw();
  await fetch(`/api/tables/${offer.table}/decline`, {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({token: newToken})}).catch(() => null);
}

/** Leave for ``link`` once. */
function goTo(link) {
  if (S.leaving) return;
  S.leaving = true;
  stopped = true;
  location.assign(link);
}

// ---- panels -------------------------------------------------------------------------------------
function LastTrick() {
  const last = S.view.lastTrick ? safe(() => S.view.lastTrick(S.msg.observation), null) : null;
  return html`<section class="panel" aria-label="Last trick" id="last-trick"><h2>Last trick</h2>
    ${last ? html`<${TrickView} trick=${last} />` : html`<p class="muted">No trick finished yet.</p>`}</section>`;
}

function Settings() {
  const s = S.settings;
  const check = (key, label) => html`<label class="check"><input type="checkbox" checked=${s[key]}
    onChange=${(e) => setSetting(key, e.target.checked)} /> ${label}</label>`;
  return html`<section class="panel" aria-label="Settings"><h2>Settings</h2>
    ${check("autoMoves", "Make forced moves for me (a pass when nothing else is legal)")}
    ${S.view.oneClick ? check("oneClick", "Play a card with one click") : null}
    ${check("complete", "Select the rest of a play when only one play fits")}
    ${check("motion", "Move the cards (off also when the system asks for reduced motion)")}
    ${check("sound", "Sound when it is my turn")}
    ${S.view.defaultMove ? html`<label>Draw for me after <input type="number" min="0.5" max="10" step="0.5"
      value=${s.drawDelay} onChange=${(e) => setSetting("drawDelay", Math.max(0.5, Math.min(10, Number(e.target.value) || 1.5)))} /> s</label>` : null}
    <label>Sort my hand <select value=${s.sortBy} onChange=${(e) => setSetting("sortBy", e.target.value)}>
      <option value="suit">by suit, then rank</option><option value="rank">by rank, then suit</option></select></label>
    <label>Show a finished trick for <input type="number" min="0" max="10" step="0.5" value=${s.trickPause}
      onChange=${(e) => setSetting("trickPause", Math.max(0, Math.min(10, Number(e.target.value) || 0)))} /> s</label>
  </section>`;
}

/** An option's value at this table, in words (the choice's label where it has one). */
function optionWords(o) {
  const value = S.params && o.name in S.params ? S.params[o.name] : o.default;
  const at = o.choices.findIndex((c) => JSON.stringify(c) === JSON.stringify(value));
  if (at >= 0) return o.choice_labels[at];
  return typeof value === "object" ? "as set for this table" : String(value);
}

/** The game's rules as this table has them (the view's ``howToPlay``, else as given). */
function howToPlay(paragraphs) {
  const own = S.view.howToPlay;
  return own ? safe(() => own(paragraphs, S.msg.observation, S.msg.seats.length), paragraphs) : paragraphs;
}

function Help() {
  const g = S.gameInfo;
  return html`<section class="panel" aria-label="How to play" id="help"><h2>How to play ${S.msg.title}</h2>
    ${g && g.summary ? html`<p class="game-summary">${g.summary}</p>` : null}
    ${g && g.at_a_glance ? html`<p class="muted">${capitalise(g.at_a_glance)}</p>` : null}
    ${howToPlay(g ? g.how_to_play : []).map((p) => html`<p>${p}</p>`)}
    ${(S.view.help || []).map((p) => html`<p>${p}</p>`)}
    ${g ? html`<h3>This table's options</h3><ul>${g.options.map((o) => html`<li><b>${o.label}</b>: ${optionWords(o)}
      <span class="muted"> (${o.explanation})</span></li>`)}</ul>` : null}</section>`;
}

function ScoreSheet() {
  const sheet = S.view.scoreSheet ? safe(() => S.view.scoreSheet(S.msg.observation), null) : null;
  const msg = S.msg;
  return html`<section class="panel" aria-label="Score sheet" id="score-sheet"><h2>Score sheet</h2>
    ${sheet && sheet.rows.length ? html`<div class="sheet-scroll"><table class="scores"><thead><tr><th>${sheet.label}</th>
      ${msg.seats.map((s, i) => html`<th>${nameOf(i)}</th>`)}</tr></thead><tbody>
      ${sheet.rows.map((r) => html`<tr><td>${r.label}</td>${r.values.map((v) => html`<td>${v}</td>`)}</tr>`)}
      <tr class="total"><td>total</td>${msg.scores.map((v) => html`<td>${v}</td>`)}</tr></tbody></table></div>`
      : html`<p class="muted">No ${sheet ? sheet.label : "round"} finished yet.</p>`}</section>`;
}

function Toolbar() {
  const open = (name) => () => { S.panel = S.panel === name ? null : name; redraw(); };
  const btn = (name, label) => html`<button type="button" class="secondary" aria-expanded=${S.panel === name}
    onClick=${open(name)}>${label}</button>`;
  const msg = S.msg;
  return html`<nav class="toolbar" aria-label="Table tools">${S.view.lastTrick ? btn("last", "Last trick") : null}
    ${btn("sheet", "Score sheet")}${btn("help", "Help")}${btn("settings", "Settings")}
    ${btn("chat", chat.unread && S.panel !== "chat" ? `Chat (${chat.unread} new)` : "Chat")}
    ${msg.terminal && S.dialog === "closed-end" ? html`<button type="button" class="secondary"
      onClick=${() => { S.dialog = "end"; redraw(); }}>Result</button>` : null}</nav>`;
}

/** Whether this table lets spectators write in its chat (its settings, from the first message). */
function chatOpenToAll() {
  return !!(tableSettings && tableSettings.spectator_chat);
}

function Log() {
  const log = S.msg.log;
  const notes = S.view.logNotes ? safe(() => S.view.logNotes(S.msg.observation), []) : [];
  const items = log.map((e) => html`<li class="entry" value=${e.n}>${logWords(e)}</li>`);
  for (const note of notes.slice().sort((a, b) => a.after - b.after)) {  // from the newest: each index stays right
    if (note.after > log.length) continue;  // older than the log shown
    items.splice(log.length - note.after, 0, html`<li class="entry note">${note.text}</li>`);
  }
  return html`<ol id="log" reversed>${items.reverse()}</ol>`;
}

function App() {
  const [, setTick] = useState(0);
  useEffect(() => { redraw = () => { snapshot(); setTick((t) => t + 1); }; }, []);
  useEffect(() => { const t = setInterval(() => { closeDueDialog(); redraw(); }, 1000); return () => clearInterval(t); }, []);
  useLayoutEffect(() => { animate(); settleFocus(); });
  const msg = S.msg;
  const who = msg ? (msg.seat === null ? "Watching" : `You are ${nameOf(msg.seat)}`) : "";
  const header = html`<header><h1 id="title">${msg ? msg.title : "motley"}</h1>
    <span id="who">${who}</span>
    <span id="conn" class=${`conn ${link.up || S.conn === "closed" ? S.conn : "reconnecting"}`}>${connWords(S.conn)}</span><a href="/">Lobby</a></header>`;
  if (!msg || !S.view) return html`${header}<main><p>Connecting to the table...</p>
    <div id="error" role="alert">${S.error}</div></main>`;
  const dialog = msg.terminal ? (S.dialog === "rematch" ? html`<${RematchEditor} />` : S.dialog === "end" ? html`<${MatchOver} />` : null)
    : S.dialog === "deal" ? html`<${DealSummary} />` : null;
  return html`${header}<main class="table-main">
    <div id="error" role="alert">${S.error ? html`<span title=${(S.errorRules || []).length ? `Rule ${S.errorRules.join(", ")}` : ""}>${S.error}</span>` : null}</div>
    ${S.viewError ? html`<p id="view-error" class="view-error" role="alert">${S.viewError}</p>` : null}
    <${PresenceNotes} msg=${msg} />
    <${PlayedNote} msg=${msg} describe=${logWords} redraw=${redraw} />
    <${IdleBar} msg=${msg} back=${() => sendRaw({type: "back"})} />
    <${Board} />
    ${dialog}
    <${Toolbar} />
    ${S.panel === "last" ? html`<${LastTrick} />` : null}
    ${S.panel === "sheet" ? html`<${ScoreSheet} />` : null}
    ${S.panel === "help" ? html`<${Help} />` : null}
    ${S.panel === "settings" ? html`<${Settings} />` : null}
    ${S.panel === "chat" ? html`<${ChatPanel} me=${msg.seat} canWrite=${msg.seat !== null || chatOpenToAll()} redraw=${redraw}
      send=${(text) => { if (!ws || ws.readyState !== WebSocket.OPEN) return false; sendRaw({type: "chat", text}); return true; }} />` : null}
    <details class="panel log-panel"><summary>Log</summary><${Log} /></details>
  </main>
  <div class="dock">${msg.seat !== null ? html`<${Hand} />` : html`<${SpectatorDock} />`}</div>`;
}

/** After a move made from the dock (or one that took the focused card away): the focus goes to the hand as a
 * whole (the group, not a card), where a stray Space or Enter plays nothing and an arrow enters the hand. */
function settleFocus() {
  const lost = !!S.focusedEl && !S.focusedEl.isConnected;  // the focused card left the hand (a move made for us)
  S.focusedEl = focusInDock() ? document.activeElement : null;
  if (!S.focusHand && !lost) return;
  S.focusHand = false;
  const group = /** @type {HTMLElement | null} */ (document.getElementById("hand-cards"));
  if (group && group.offsetParent !== null) { group.focus({preventScroll: true}); S.focusedEl = group; }
}

// For tests and the console: the last state and a raw send.
/** @type {any} */ (window).motleyTable = {state: () => S.msg, raw: (text) => ws && ws.send(text), decision, selection};

/** The selected cards' codes, in the order they were selected. */
function selection() {
  return S.msg && S.view ? S.selected.map((i) => handOf(S.msg.observation)[i]) : [];
}

/** The legal moves when the player has a real decision to make now (null while a move is on its way, one is
 * being made for them, it is not their turn, or this page is not the seat's live page); with "give", how many
 * cards to select. */
function decision() {
  const msg = S.msg;
  if (!msg || msg.terminal || !msg.legal.length || S.sent === msg.version || S.queue.length || !isLive()) return null;
  if (summaryWaits(msg)) return null;
  const auto = S.settings.autoMoves && S.manual !== msg.version;
  if (auto && msg.legal.length === 1) return null;
  const later = auto ? defaultMove(msg) : null;
  return {version: msg.version, legal: msg.legal, give: isGiving() ? giveNeed() : 0, later: later ? later.move : null};
}
document.body.classList.add("table");
render(html`<${App} />`, document.getElementById("app"));
connect();
watchLink({reconnect: () => { if (!ws || ws.readyState !== WebSocket.OPEN || !link.up) { dropSocket(); connect(); } },
           drop: dropSocket, ping: () => sendRaw({type: "ping"}), redraw: () => redraw()});
