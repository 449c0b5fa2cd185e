// The table page: draws the table from the server's JSON (the seat's observation, its legal moves, the log)
// with Preact + htm. The server is the only judge of legality: a selection of cards is playable iff it is the
// card set of one legal move (each legal move carries its "cards"). Per-game drawing is in games/<game>.js,
// which draws with the pieces of parts.js (names, cards, tricks, and the page state S that this module fills).
import { html, render, useEffect, useState } from "/static/vendor/preact-htm.js";
import { Card, S, SETTINGS_KEY, TrickView, cardInfo, nameOf, suitSymbol } from "/static/parts.js";

const tableId = location.pathname.split("/").pop();
const token = new URLSearchParams(location.search).get("token");
let ws = null;
let inOrder = Promise.resolve();
let retry = 500;
let stopped = false;
let redraw = () => {};
let autoTimer = null;
let deadlineAt = null;

export function setSetting(key, value) {
  S.settings = {...S.settings, [key]: value};
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(S.settings));
  redraw();
}

// ---- people -------------------------------------------------------------------------------------
function presence(info) {
  if (info.kind === "bot") return "bot";
  if (info.away) return "away: a bot plays";
  return info.connected ? "online" : "offline";
}

// ---- cards --------------------------------------------------------------------------------------
function sortKey(code) {
  const info = cardInfo(code);
  const apart = (S.view && S.view.apart || []).includes(info.suit);
  if (S.settings.sortBy === "rank" && !apart) return info.rank * 10000 + info.order;
  return (apart ? 1e7 : 0) + info.order;
}

// ---- moves --------------------------------------------------------------------------------------
function canSend() {
  return ws && ws.readyState === WebSocket.OPEN && S.msg && S.sent !== S.msg.version;
}

export function send(move, automatic = false) {
  if (!canSend()) return;
  S.error = "";
  S.sent = S.msg.version;
  if (automatic) S.autoSent.add(S.msg.version + 1);
  ws.send(JSON.stringify({type: "move", version: S.msg.version, action: move.action}));
  S.selected = [];
  redraw();
}

function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith(".") ? "" : ".");
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

/** Ask the server why a selection is not a legal move (the engine's words); the answer replaces the page's own. */
function askWhy(codes) {
  const text = codes.join(" ");
  const key = `${S.msg.version}:${text}`;
  if (S.why.key === key || !ws || ws.readyState !== WebSocket.OPEN) return;
  S.why = {key, reason: null};
  ws.send(JSON.stringify({type: "why", move: text}));
}

/** Why the selection is not a move now (in words), or "" when it is one (or nothing is selected). */
function whyNot(codes) {
  if (!codes.length || matchingMove(codes)) return "";
  if (!isGiving()) {
    askWhy(codes);
    if (S.why.reason && S.why.key === `${S.msg.version}:${codes.join(" ")}`) return S.why.reason;
  }
  if (isGiving()) {
    const need = giveNeed();
    if (codes.length !== need) return `Select ${need} card${need === 1 ? "" : "s"} to give.`;
    return "";
  }
  const wider = S.msg.legal.filter((m) => contains(m.cards, codes));
  if (wider.length) return "Not a play yet: these cards are part of a play with more cards.";
  return "These cards are not a legal play now (no legal move uses exactly them).";
}

/** How many cards to select for the exchange: what the step still asks, at most the cards that may be given. */
function giveNeed() {
  const need = S.view.giveCount ? S.view.giveCount(S.msg.observation) : 1;
  return Math.max(1, Math.min(need, new Set(S.msg.legal.flatMap((m) => m.cards)).size));
}

function usable(code) {
  return S.msg.legal.some((m) => m.cards.includes(code));
}

/** The person's cards: the game view's, else a plain ``hand`` list of the observation (a game with no view). */
function handOf(obs) {
  if (S.view.hand) return S.view.hand(obs);
  return Array.isArray(obs.hand) ? obs.hand.filter((c) => typeof c === "string") : [];
}

function handCodes(hand) {
  return hand.map((code, i) => ({code, i})).sort((a, b) => sortKey(a.code) - sortKey(b.code) || a.i - b.i);
}

function toggle(i, code, hand) {
  if (!usable(code)) return;
  const legalNow = S.msg.legal.find((m) => sameCards(m.cards, [code]));
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
  send(move, true);
  return true;
}

/** The legal move the game's view makes by itself after a pause (The Fool's Errand's draw), or null. */
function defaultMove(msg) {
  return (S.view.defaultMove && msg.legal.find((m) => m.move === S.view.defaultMove)) || null;
}

/** Forced moves (one legal move) are made for the player when the setting is on, paced so they can be seen. */
function autoMove() {
  clearTimeout(autoTimer);
  const msg = S.msg;
  if (!msg || msg.terminal || !msg.legal.length || S.sent === msg.version) return;
  if (sendQueued()) return;
  if (!S.settings.autoMoves || S.manual === msg.version) return;
  const version = msg.version;
  const later = defaultMove(msg);
  if (later) {  // a move the game makes by itself unless the person chooses otherwise (a draw), paced
    autoTimer = setTimeout(() => { if (S.msg && S.msg.version === version) send(later, true); }, S.settings.drawDelay * 1000);
    return;
  }
  if (msg.legal.length !== 1) return;
  const wait = S.held ? Math.max(0, S.held.until - Date.now()) + 200 : 500;
  autoTimer = setTimeout(() => { if (S.msg && S.msg.version === version) send(S.msg.legal[0], true); }, wait);
}

// ---- the finished trick, held for a moment --------------------------------------------------------
function noteTrick(msg) {
  if (!S.view || !S.view.finishedTrick) return;
  const done = S.view.finishedTrick(msg.observation, S.lastTricks);
  S.lastTricks = S.view.trickCount ? S.view.trickCount(msg.observation) : null;
  if (done && S.settings.trickPause > 0) {
    const until = Date.now() + S.settings.trickPause * 1000;
    S.held = {trick: done, until};
    setTimeout(() => { if (S.held && S.held.until === until) { S.held = null; redraw(); } }, S.settings.trickPause * 1000);
  }
}

// ---- connection ---------------------------------------------------------------------------------
let loading = null;

/** Load the game's view and card names once (every state message waits for the same load). */
function loadGame(game) {
  if (!loading) loading = fetchGame(game);
  return loading;
}

async function fetchGame(game) {
  const [views, games] = await Promise.all([
    import(`/static/games/${game}.js`).then((m) => m.default).catch(() => ({})),
    fetch("/api/games").then((r) => r.json()).catch(() => []),
  ]);
  S.gameInfo = games.find((g) => g.name === game) || null;
  S.cards = S.gameInfo ? S.gameInfo.cards : {};
  S.view = views;
}

async function onState(msg) {
  await loadGame(msg.game);
  const wasMine = S.msg && S.msg.legal.length > 0;
  const fresh = !S.msg || S.msg.version !== msg.version;
  if (S.msg && fresh) noteTrick(msg);
  else if (!S.msg && S.view.trickCount) S.lastTricks = S.view.trickCount(msg.observation);
  if (!S.msg) requestAnimationFrame(() => performance.mark("motley-table-drawn"));  // first table on screen
  S.msg = msg;
  if (msg.params) S.params = msg.params;  // the table's options: in the first message of a connection
  if (fresh) S.selected = [];
  deadlineAt = msg.deadline === null ? null : Date.now() + msg.deadline * 1000;
  const mine = msg.legal.length > 0;
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

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const q = new URLSearchParams();
  if (token) q.set("token", token);
  ws = new WebSocket(`${proto}://${location.host}/ws/${tableId}?${q}`);
  ws.onopen = () => { S.conn = "connected"; retry = 500; redraw(); };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "state") inOrder = inOrder.then(() => onState(msg));  // one at a time, in arrival order
    else if (msg.type === "seats" && S.msg) { S.msg = {...S.msg, seats: msg.seats}; redraw(); }
    else if (msg.type === "why" && S.msg && S.why.key === `${msg.version}:${msg.move}`) {
      S.why = {key: S.why.key, reason: msg.reason ? capitalise(msg.reason) : null};
      redraw();
    }
    else if (msg.type === "rematch") {
      S.rematch = msg.link;
      redraw();
      if (token) goTo(msg.link);  // a person goes to their seat of the rematch
    }
    else if (msg.type === "error") {
      S.error = msg.message;
      if (S.msg && S.sent === S.msg.version) S.manual = S.msg.version;  // refused: the person decides this one
      S.sent = null;
      S.queue = [];
      if (msg.code === "bad_token" || msg.code === "no_table") stopped = true;
      redraw();
    }
  };
  ws.onclose = () => {
    S.conn = stopped ? "closed" : "reconnecting";
    redraw();
    if (!stopped) { setTimeout(connect, retry); retry = Math.min(retry * 2, 8000); }
  };
}

// ---- components ---------------------------------------------------------------------------------
function statusText(msg) {
  if (msg.terminal) return "The match is over.";
  if ((msg.waiting_for || []).length) return `Waiting for ${msg.waiting_for.map(nameOf).join(", ")} to arrive`;
  if (msg.legal.length) return "Your turn";
  if (msg.seat === msg.current_player) return "Your turn (sending...)";
  return `Waiting for ${nameOf(msg.current_player)}`;
}

function Seat({seat}) {
  const msg = S.msg;
  const info = msg.seats[seat];
  const turn = !msg.terminal && msg.current_player === seat;
  const extra = S.view.seatExtras ? S.view.seatExtras(msg.observation, seat, S.held) : {};
  return html`<section class=${`seat${turn ? " turn" : ""}${msg.seat === seat ? " me" : ""}`}
      aria-label=${`${nameOf(seat)}${turn ? ", to play" : ""}`} data-seat=${seat}>
    <div class="seat-head"><span class="seat-name">${nameOf(seat)}</span>
      ${extra.disc ? html`<span class="disc" title="holds a Fool disc">Fool</span>` : null}
      ${extra.title ? html`<span class="badge">${extra.title}</span>` : null}</div>
    <div class="seat-facts">
      ${turn ? html`<span class="turn-mark">to play</span>` : null}
      <span class=${`presence ${presence(info).split(":")[0]}`}>${presence(info)}</span>
      ${extra.count !== undefined ? html`<span>${extra.count} ${extra.count === 1 ? "card" : "cards"}</span>` : null}
      <span>${msg.scores[seat]} pts</span>
      ${extra.note ? html`<span class="note">${extra.note}</span>` : null}</div>
    ${extra.played ? html`<div class="played">${extra.played.map((c) => html`<${Card} code=${c} small />`)}</div>` : null}
  </section>`;
}

function Hand() {
  const msg = S.msg;
  const hand = handOf(msg.observation);
  if (msg.seat === null) return null;
  const mine = msg.legal.length > 0 && S.sent !== msg.version;
  const codes = S.selected.map((i) => hand[i]);
  const move = mine ? matchingMove(codes) : null;
  const giving = mine && isGiving();
  const reason = mine ? whyNot(codes) : "";
  const commands = mine ? msg.legal.filter((m) => !m.cards.length) : [];
  const anyCardMove = mine && msg.legal.some((m) => m.cards.length);
  const ready = giving ? codes.length && !reason : !!move;
  return html`<section class="hand-area" aria-label="Your hand">
    <div class="hand" role="group" aria-label="Your cards">
      ${handCodes(hand).map(({code, i}) => {
        const info = cardInfo(code);
        const off = !mine || !usable(code);
        const on = S.selected.includes(i);
        return html`<button type="button" class=${`card hand-card suit-${info.suit}${on ? " selected" : ""}`}
          data-card=${code} aria-label=${info.name} aria-pressed=${on ? "true" : "false"}
          aria-disabled=${off ? "true" : "false"} onClick=${() => mine && toggle(i, code, hand)}
          onKeyDown=${(e) => { if (e.key === "Enter" && ready) { e.preventDefault(); playSelected(hand); } }}>
          <span class="rank">${info.short}</span><span class="pip" aria-hidden="true">${suitSymbol(info.suit)}</span>
        </button>`;
      })}
      ${hand.length === 0 && !S.view.noHand ? html`<span class="muted">no cards in hand</span>` : null}
    </div>
    <div class="controls" id="moves">
      ${anyCardMove ? html`<button type="button" class="move primary" disabled=${!ready}
          onClick=${() => playSelected(hand)}>${giving ? "Give" : "Play"}</button>` : null}
      ${commands.map((m) => html`<button type="button" class="move" data-move=${m.move}
          onClick=${() => send(m)}>${S.view.moveLabel ? S.view.moveLabel(m.move) : m.move}</button>`)}
      ${!mine ? html`<span class="muted">${msg.terminal ? "no more moves" : "not your turn"}</span>` : null}
      ${reason ? html`<span class="why" role="status">${reason}</span>` : null}
    </div>
  </section>`;
}

function SpectatorNote() {
  return html`<section class="hand-area" aria-label="Watching"><div id="moves" class="controls">
    <span class="muted">spectators do not move</span></div></section>`;
}

function Log() {
  const msg = S.msg;
  const entries = msg.log.slice().reverse();
  return html`<div id="log">${entries.map((e) => html`<div class="entry">${e.n}. ${nameOf(e.seat)}${
    e.actor === "seat" ? "" : ` [${e.actor}]`}: ${e.move === null ? "(a hidden move)" : logText(e)}</div>`)}</div>`;
}

function logText(e) {
  const auto = S.autoSent.has(e.n) ? " (automatic)" : "";
  if (e.move === "pass") return `passed (no play)${auto}`;
  return (S.view.logText ? S.view.logText(e.move) : e.move) + auto;
}

/** While the bots wait for people who have not arrived: who, and a Start button for a person at the table. */
function Waiting() {
  const msg = S.msg;
  const absent = msg.waiting_for || [];
  if (!absent.length || msg.terminal) return null;
  const start = () => ws && ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify({type: "start"}));
  return html`<section class="panel waiting" aria-label="Waiting for players">
    <p>The bots wait until everyone has arrived: ${absent.map(nameOf).join(", ")} ${absent.length === 1 ? "has" : "have"}
      not opened their link yet.</p>
    ${msg.seat !== null ? html`<button type="button" onClick=${start}>Start</button>` : null}</section>`;
}

/** Ask the server for the rematch; its link comes back to every viewer through their socket. */
async function askRematch() {
  const answer = await fetch(`/api/tables/${tableId}/rematch`, {method: "POST",
    headers: {"Content-Type": "application/json"}, body: JSON.stringify({token})});
  const body = await answer.json().catch(() => ({}));
  if (!answer.ok) { S.error = body.detail || "the rematch could not be made"; redraw(); return; }
  goTo(body.link);
}

/** Leave for ``link`` once (the answer to Rematch and the socket's rematch message both say where). */
function goTo(link) {
  if (S.leaving) return;
  S.leaving = true;
  stopped = true;
  location.assign(link);
}

function Ranking() {
  const msg = S.msg;
  const order = msg.seats.map((s, i) => i).sort((a, b) => msg.scores[b] - msg.scores[a]);
  const best = Math.max(...(msg.returns || msg.scores));
  const verdict = msg.seat !== null && msg.returns
    ? (msg.returns[msg.seat] > 0 ? " You win!" : msg.returns[msg.seat] < 0 ? " You lose." : " A draw.") : "";
  return html`<section class="banner" id="match-over" aria-label="Match over">
    <h2>Match over.${verdict}</h2>
    <ol class="ranking">${order.map((q) => html`<li>${nameOf(q)}: ${msg.scores[q]} points${
      msg.returns && msg.returns[q] === best && best > 0 ? " - winner" : ""}</li>`)}</ol>
    ${msg.seat !== null && !S.rematch ? html`<button type="button" class="rematch" onClick=${askRematch}>Rematch</button>` : null}
    ${S.rematch ? html`<p><a href=${S.rematch}>${msg.seat === null ? "Watch the rematch" : "Go to the rematch"}</a></p>` : null}
    <p><a href=${`/replay/${tableId}`}>replay this match</a> - <a href="/">back to the lobby</a></p>
  </section>`;
}

function LastTrick() {
  const last = S.view.lastTrick ? S.view.lastTrick(S.msg.observation) : null;
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

function Help() {
  const g = S.gameInfo;
  return html`<section class="panel" aria-label="How to play" id="help"><h2>How to play ${S.msg.title}</h2>
    ${(g ? g.how_to_play : []).map((p) => html`<p>${p}</p>`)}
    ${(S.view.help || []).map((p) => html`<p>${p}</p>`)}
    ${g ? html`<h3>This table's options</h3><ul>${g.options.map((o) => html`<li><b>${o.label}</b>: ${optionWords(o)}
      <span class="muted"> (${o.explanation})</span></li>`)}</ul>` : null}</section>`;
}

function ScoreSheet() {
  const sheet = S.view.scoreSheet ? S.view.scoreSheet(S.msg.observation) : null;
  const msg = S.msg;
  return html`<section class="panel" aria-label="Score sheet" id="score-sheet"><h2>Score sheet</h2>
    ${sheet && sheet.rows.length ? html`<table class="scores"><thead><tr><th>${sheet.label}</th>
      ${msg.seats.map((s, i) => html`<th>${nameOf(i)}</th>`)}</tr></thead><tbody>
      ${sheet.rows.map((r) => html`<tr><td>${r.label}</td>${r.values.map((v) => html`<td>${v}</td>`)}</tr>`)}
      <tr class="total"><td>total</td>${msg.scores.map((v) => html`<td>${v}</td>`)}</tr></tbody></table>`
      : html`<p class="muted">No ${sheet ? sheet.label : "round"} finished yet.</p>`}</section>`;
}

function Toolbar() {
  const open = (name) => () => { S.panel = S.panel === name ? null : name; redraw(); };
  const btn = (name, label) => html`<button type="button" class="secondary" aria-expanded=${S.panel === name}
    onClick=${open(name)}>${label}</button>`;
  return html`<nav class="toolbar" aria-label="Table tools">${S.view.lastTrick ? btn("last", "Last trick") : null}
    ${btn("sheet", "Score sheet")}${btn("help", "Help")}${btn("settings", "Settings")}</nav>`;
}

function Board() {
  const msg = S.msg;
  const n = msg.seats.length;
  const me = msg.seat === null ? 0 : msg.seat;
  const others = Array.from({length: n}, (_, k) => (me + k) % n).filter((q) => q !== msg.seat);
  const center = S.view.Center ? html`<${S.view.Center} obs=${msg.observation} held=${S.held} />` : null;
  return html`<div class="board" id="board">
    <div class="opponents">${others.map((q) => html`<${Seat} seat=${q} />`)}</div>
    <div class="center" aria-label="Table" role="region">${center}</div>
    ${msg.seat !== null ? html`<${Seat} seat=${msg.seat} />` : null}
  </div>`;
}

function App() {
  const [, setTick] = useState(0);
  useEffect(() => { redraw = () => setTick((t) => t + 1); }, []);
  const [now, setNow] = useState(Date.now());
  useEffect(() => { const t = setInterval(() => setNow(Date.now()), 1000); return () => clearInterval(t); }, []);
  const msg = S.msg;
  const header = html`<header><h1 id="title">${msg ? msg.title : "motley"}</h1>
    <span id="who">${msg ? (msg.seat === null ? "watching (public view)" : `you are ${nameOf(msg.seat)}`) : ""}</span>
    <span id="conn" class=${`conn ${S.conn}`}>${S.conn}</span><a href="/">lobby</a></header>`;
  if (!msg || !S.view) return html`${header}<main><p>Connecting to the table...</p>
    <div id="error" role="alert">${S.error}</div></main>`;
  const left = deadlineAt !== null && !msg.terminal ? ` - ${Math.max(0, Math.round((deadlineAt - now) / 1000))}s left` : "";
  const mine = msg.legal.length > 0;
  return html`${header}<main class="table-main">
    <div id="status" class=${mine ? "yours" : ""} data-version=${msg.version} role="status">${statusText(msg)}${left}</div>
    <div id="error" role="alert">${S.error}</div>
    ${msg.terminal ? html`<${Ranking} />` : html`<${Waiting} />`}
    <${Board} />
    ${msg.seat !== null ? html`<${Hand} />` : html`<${SpectatorNote} />`}
    <${Toolbar} />
    ${S.panel === "last" ? html`<${LastTrick} />` : null}
    ${S.panel === "sheet" || (msg.terminal && S.panel === null) ? html`<${ScoreSheet} />` : null}
    ${S.panel === "help" ? html`<${Help} />` : null}
    ${S.panel === "settings" ? html`<${Settings} />` : null}
    ${S.view.Summary ? html`<${S.view.Summary} obs=${msg.observation} />` : null}
    <details class="panel log-panel"><summary>Log</summary><${Log} /></details>
  </main>`;
}

// For tests and the console: the last state and a raw send.
window.motleyTable = {state: () => S.msg, raw: (text) => ws && ws.send(text), decision, selection};

/** The selected cards' codes, in the order they were selected. */
function selection() {
  return S.msg && S.view ? S.selected.map((i) => handOf(S.msg.observation)[i]) : [];
}

/** The legal moves when the player has a real decision to make now (null while a move is on its way, one is
 * being made for them, or it is not their turn); with "give", how many cards to select. */
function decision() {
  const msg = S.msg;
  if (!msg || msg.terminal || !msg.legal.length || S.sent === msg.version || S.queue.length) return null;
  const auto = S.settings.autoMoves && S.manual !== msg.version;
  if (auto && msg.legal.length === 1) return null;
  const later = auto ? defaultMove(msg) : null;
  return {version: msg.version, legal: msg.legal, give: isGiving() ? giveNeed() : 0, later: later ? later.move : null};
}
render(html`<${App} />`, document.getElementById("app"));
connect();
