// @ts-check
// Who is at the table, and what happens when someone is not (motley.server.play.presence): each seat's connection
// in words ("Ben lost the connection: the heuristic bot plays for them in 25 s", counting down to the time the
// server gives, SeatInfo.grace_left), the stand-in named while it plays (an away seat, or an idle one whose move
// timer ran out Settings.expiries_to_stand_in times in a row: "I'm back" takes the seat again), and the note to a
// returning person of what was played for them (from the log's actor fields).
//
// And this page's own connection: it is down while the browser is offline (navigator.onLine and its events), the
// socket is closed, or a ping goes unanswered (PING_EVERY, PONG_WITHIN); the page then says "Connection lost,
// reconnecting...", keeps the hand, and keeps one move the person makes (the pending move). Once a new socket's
// first state arrives, the pending move is sent on it if the table is still at the version the move was made at
// and the move is still legal; a later version means the server had it (or the table moved on: the stand-in's
// move is told), so it is never sent twice (the server refuses a stale version besides).
import { html } from "/static/vendor/preact-htm.js";
import { S, nameOf, plural } from "/static/parts.js";

/** @typedef {import("/static/schema/messages").SeatInfo} SeatInfo */
/** @typedef {import("/static/schema/messages").StateMessage} StateMessage */
/** @typedef {import("/static/schema/messages").LogLine} LogLine */

/** Seconds between pings while nothing else is heard, and seconds a ping waits for its answer. */
const PING_EVERY = 4, PONG_WITHIN = 3;
/** The log's actors that are a person's stand-in (motley.server.play.table.Move). */
const STAND_IN = ["timer", "away", "idle"];

// ---- the seats' connections --------------------------------------------------------------------------------------
/** When each seat's stand-in takes over from a person who lost the connection (ms since the epoch), or null. */
let takeover = /** @type {(number | null)[]} */ ([]);

/** The seats as the server sent them (a state or seats message): the countdowns start from now. */
export function noteSeats(/** @type {SeatInfo[]} */ seats) {
  const now = Date.now();
  takeover = seats.map((s) => (s.grace_left === null || s.grace_left === undefined ? null : now + s.grace_left * 1000));
}

/** Whole seconds before the stand-in takes over ``seat`` (null: not counting down). */
function secondsLeft(seat) {
  const at = takeover[seat];
  return at === null || at === undefined ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** "the heuristic bot": a person seat's stand-in. */
function standIn(info) {
  return info.stand_in ? `the ${info.stand_in} bot` : "a bot";
}

/** A seat's connection, short (shown on the seat, at any width): its kind (the dot's class), why a bot plays or
 * will (``why``, left out on a phone) and the words. */
export function seatPresence(/** @type {SeatInfo} */ info) {
  if (info.kind === "bot") return {kind: "bot", why: "", words: "bot"};
  if (info.idle) return {kind: "away", why: "idle", words: "bot plays"};
  if (info.away) return {kind: "away", why: "away", words: "bot plays"};
  const left = secondsLeft(info.seat);
  if (left !== null) return left > 0 ? {kind: "offline", why: "offline", words: `bot in ${left}s`}
    : {kind: "away", why: "away", words: "bot plays"};
  return info.connected ? {kind: "online", why: "", words: "online"} : {kind: "offline", why: "", words: "offline"};
}

/** A seat's connection on the seat: "offline: bot in 25s" ("bot in 25s" on a phone, under a red dot). */
export function SeatConn({info}) {
  const p = seatPresence(info);
  return html`<div class=${`seat-conn ${p.kind}`}>${p.why ? html`<span class="conn-why">${p.why}: </span>` : null}${p.words}</div>`;
}

/** A seat's connection as a sentence, or null while its person plays (or it is a bot seat). */
export function seatSentence(/** @type {SeatInfo} */ info, /** @type {number | null} */ me) {
  if (info.kind === "bot") return null;
  const you = info.seat === me;
  const who = you ? "you" : nameOf(info.seat);
  const left = secondsLeft(info.seat);
  if (info.idle) {
    return you ? `Your time ran out: ${standIn(info)} plays for you until you are back.`
      : `${who}'s time ran out: ${standIn(info)} plays for them until they are back.`;
  }
  if (info.away || left === 0) return `${you ? "You are" : `${who} is`} away: ${standIn(info)} plays for ${you ? "you" : "them"}.`;
  if (left !== null) return `${who} lost the connection: ${standIn(info)} plays for them in ${left} s.`;
  return null;
}

/** The status line when the stand-in plays (or is about to) for the seat to move, else null. */
export function turnSentence(/** @type {StateMessage} */ msg) {
  if (msg.terminal || msg.current_player < 0) return null;
  const info = msg.seats[msg.current_player];
  if (!info || info.kind === "bot") return null;
  const left = secondsLeft(info.seat);
  const who = info.seat === msg.seat ? "you" : nameOf(info.seat);
  if (info.idle || info.away || left === 0) return `${capital(standIn(info))} plays for ${who}`;
  if (left !== null) return `${nameOf(info.seat)} lost the connection: bot in ${left} s`;  // fits a phone's line
  return null;
}

/** Does the stand-in play (or count down) for the seat to move, so the move timer's countdown is not shown? */
export function standInTurn(/** @type {StateMessage} */ msg) {
  return turnSentence(msg) !== null;
}

function capital(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

/** This page's lost connection, and the people who lost theirs and the idle ones, one sentence each (visible text,
 * not a tooltip; the lines wrap at any width). */
export function PresenceNotes({msg}) {
  const others = msg.terminal ? [] : msg.seats.filter((s) => s.seat !== msg.seat).map((s) => seatSentence(s, msg.seat));
  const down = link.up && browserOnline() ? null : link.pending
    ? "Connection lost, reconnecting... Your move is kept and will be sent when the connection is back."
    : "Connection lost, reconnecting...";
  const lines = [down, ...others].filter((t) => t !== null);
  return lines.length ? html`<div id="presence" class="presence-notes" role="status">
    ${lines.map((t) => html`<p>${t}</p>`)}</div>` : null;
}

/** The viewer's own seat, when its stand-in plays because their time ran out: the words and "I'm back". */
export function IdleBar({msg, back}) {
  const info = msg.seat === null ? null : msg.seats[msg.seat];
  if (!info || !info.idle || msg.terminal) return null;
  return html`<div class="idle-bar" role="status"><span>${seatSentence(info, msg.seat)}</span>
    <button type="button" class="move primary" onClick=${back}>I'm back</button></div>`;
}

// ---- what the stand-in played for the viewer ---------------------------------------------------------------------
/** The log number up to which this page has read the log (null: no state yet), and the lines to tell. */
let readUpTo = /** @type {number | null} */ (null);
let played = /** @type {LogLine[]} */ ([]);

/** A new state: the viewer's moves its stand-in made since the page last read the log (on a page just opened,
 * since the person's own last move) are kept to be told; a move of the person's own clears them. */
export function notePlayed(/** @type {StateMessage} */ msg) {
  if (msg.seat === null) return;
  const own = msg.log.filter((e) => e.seat === msg.seat);
  const since = readUpTo !== null ? readUpTo
    : own.filter((e) => e.actor === "seat").reduce((n, e) => Math.max(n, e.n), 0);
  if (own.some((e) => e.actor === "seat" && e.n > since)) played = [];
  const fresh = own.filter((e) => e.n > since && STAND_IN.includes(e.actor) && !played.some((p) => p.n === e.n));
  played = [...played, ...fresh].filter((e) => !own.some((o) => o.actor === "seat" && o.n > e.n));
  readUpTo = msg.log.reduce((n, e) => Math.max(n, e.n), readUpTo || 0);
}

/** "While you were away, the heuristic bot played for you: played the 7 of spades." (``describe``: a log line in
 * words, starting with the seat's name), with a button that puts it away. */
export function PlayedNote({msg, describe, redraw}) {
  if (!played.length || msg.seat === null) return null;
  const info = msg.seats[msg.seat];
  const name = nameOf(msg.seat);
  const moves = played.map((e) => {
    const text = describe({...e, actor: "seat"});
    return text.startsWith(`${name} `) ? text.slice(name.length + 1) : text;
  });
  const away = played.some((e) => e.actor === "away");
  const lead = away ? "While you were away," : "Your time ran out:";
  return html`<div id="played-for-you" class="played-note" role="status">
    <span>${lead} ${standIn(info)} played ${plural(played.length, "move")} for you: ${moves.join("; ")}.</span>
    <button type="button" class="secondary small" onClick=${() => { played = []; redraw(); }}>OK</button></div>`;
}

// ---- this page's connection ----------------------------------------------------------------------------------------
/** The page's connection: ``up`` (a socket open and answering, the browser online); the pending move; when a
 * message was last heard and a ping sent (ms). */
export const link = {
  up: false,
  /** @type {{version: number, action: number, move: string, sentOn: WebSocket | null} | null} */
  pending: null,
  heard: 0,
  pinged: 0,
  /** @type {string} */
  lost: "",
};

/** Is the browser online (true where it cannot say)? */
export function browserOnline() {
  return typeof navigator === "undefined" || navigator.onLine !== false;
}

/** The words in the header for the connection. */
export function connWords(conn) {
  if (conn === "closed") return "closed";
  if (!link.up || !browserOnline()) return "Connection lost, reconnecting...";
  return conn;
}

/** The status line while the connection is down (null: it is up); short, to fit a phone's line. */
export function downSentence() {
  if (link.up && browserOnline()) return null;
  return link.pending ? "Reconnecting... your move is kept" : "Connection lost, reconnecting...";
}

/**
 * Watch this page's connection: ``reconnect()`` opens a new socket now (the browser came back online, or a ping
 * went unanswered: the old socket is closed first, ``drop()``); ``redraw()`` shows the change.
 * @param {{reconnect: () => void, drop: () => void, ping: () => void, redraw: () => void}} hooks
 */
export function watchLink({reconnect, drop, ping, redraw}) {
  window.addEventListener("offline", () => { link.up = false; drop(); redraw(); });
  window.addEventListener("online", () => { reconnect(); redraw(); });
  setInterval(() => {
    if (!link.up) return;
    const now = Date.now();
    if (link.pinged > link.heard && now - link.pinged > PONG_WITHIN * 1000) {  // no answer: the socket is dead
      link.up = false;
      link.pinged = 0;
      drop();
      redraw();
    } else if (now - link.heard > PING_EVERY * 1000 && link.pinged <= link.heard) {
      link.pinged = now;
      ping();
    }
  }, 1000);
}

/** A socket opened (it counts as up once the browser is online). */
export function linkOpened() {
  link.up = browserOnline();
  link.heard = Date.now();
  link.pinged = 0;
}

/** A message was heard on the current socket. */
export function linkHeard() {
  link.heard = Date.now();
}

/** The current socket closed. */
export function linkClosed() {
  link.up = false;
}

/** Keep ``move`` (made at ``version``) until the server has it; ``sentOn``: the socket it went out on, or null
 * (the connection was down: it waits). */
export function keepMove(version, move, sentOn) {
  link.pending = {version, action: move.action, move: move.move, sentOn};
}

/**
 * A state arrived on ``socket``: the pending move is done with once the table is past its version (the server had
 * it, or the table moved on: ``S.error`` says so then), and sent, once on this socket, if the table is still at
 * its version and it is still legal. Returns true when it sent it.
 * @param {StateMessage} msg @param {WebSocket} socket @param {(data: any) => void} sendRaw
 */
export function settlePending(msg, socket, sendRaw) {
  const p = link.pending;
  if (!p) return false;
  if (msg.version > p.version) {
    link.pending = null;
    const mine = msg.log.find((e) => e.n === p.version + 1);
    if (mine && mine.actor !== "seat") S.error = "The connection came back too late: your move was played for you meanwhile.";
    return false;
  }
  if (msg.version < p.version || p.sentOn === socket || !link.up) return false;
  const legal = msg.legal.find((m) => m.action === p.action && m.move === p.move);
  if (!legal) { link.pending = null; S.sent = null; return false; }
  p.sentOn = socket;
  S.sent = msg.version;
  sendRaw({type: "move", version: p.version, action: p.action});
  return true;
}

/** A move refused by the server (an error): nothing is pending any more. */
export function pendingRefused() {
  link.pending = null;
}
