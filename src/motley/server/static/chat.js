// @ts-check
// The table's chat (motley.server.play.chat): the lines said at this table, a box to say something and quick
// reactions, and a Mute button for each other writer (kept in this browser, per table). Every line is shown as
// text (Preact sets text, never markup). The server decides who may write: a spectator's box is shown only at a
// table that lets spectators write. The table page (table.js) hands this module the chat messages it receives
// (chatReceived) and draws <ChatPanel> as one of its panels.
import { html, useEffect, useRef } from "/static/vendor/preact-htm.js";

/** @typedef {import("/static/schema/messages").ChatLine} ChatLine */
/** @typedef {import("/static/schema/messages").ChatMessage} ChatMessage */
/** @typedef {import("/static/schema/messages").ChatLogMessage} ChatLogMessage */

/** Quick reactions, one press each. */
export const REACTIONS = ["Good game", "Well played", "Thanks", "Oops", "Good luck"];
/** The longest message the server takes (protocol.MAX_CHAT). */
export const MAX_CHAT = 200;

/** The chat's state on this page: its lines, lines unread while the panel is shut, the draft, a refusal. */
export const chat = {/** @type {ChatLine[]} */ lines: [], unread: 0, draft: "", error: ""};

const tableId = location.pathname.split("/").pop();
const MUTED_KEY = `motley.chat.muted.${tableId}`;

/** Who is muted here: "seat:N" for a seat, "spectators" for every spectator. */
function loadMuted() {
  try {
    const stored = JSON.parse(localStorage.getItem(MUTED_KEY) || "[]");
    return new Set(Array.isArray(stored) ? stored.filter((k) => typeof k === "string") : []);
  } catch (e) { return new Set(); }
}
let muted = loadMuted();

/** The mute key of a line's writer. */
function writerKey(line) { return line.seat === null ? "spectators" : `seat:${line.seat}`; }

/** Mute or hear again the writer of ``line``. */
function toggleMute(line, redraw) {
  const key = writerKey(line);
  muted = new Set(muted);
  if (muted.has(key)) muted.delete(key); else muted.add(key);
  localStorage.setItem(MUTED_KEY, JSON.stringify([...muted]));
  redraw();
}

/** A chat message or the chat log from the server; ``open``: whether the panel is open (else it counts unread). */
export function chatReceived(/** @type {ChatMessage | ChatLogMessage} */ msg, open, me) {
  if (msg.type === "chat_log") {
    chat.lines = msg.lines.slice();
    return;
  }
  const {type, ...line} = msg;
  if (chat.lines.some((l) => l.number === line.number)) return;  // sent again after a reconnection
  chat.lines = [...chat.lines, line].slice(-200);
  if (!open && line.seat !== me && !muted.has(writerKey(line))) chat.unread += 1;
}

/** A refusal of something this page said (chat_off, chat_limited), shown inside the panel. */
export function chatRefused(message) { chat.error = message; }

/** The time of a line, as the clock on the wall says it. */
function clock(at) { return new Date(at * 1000).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"}); }

/**
 * The chat panel.
 * @param {{me: number | null, canWrite: boolean, send: (text: string) => boolean, redraw: () => void}} props
 */
export function ChatPanel({me, canWrite, send, redraw}) {
  const list = useRef(null);
  useEffect(() => {  // opened: everything is read, and the panel is brought into view above the docked hand
    chat.unread = 0;
    const panel = list.current && list.current.closest("section");
    if (panel) panel.scrollIntoView({block: "center"});
  }, []);
  useEffect(() => { if (list.current) list.current.scrollTop = list.current.scrollHeight; }, [chat.lines.length]);
  const say = (text) => {
    const clean = text.trim();
    if (!clean) return;
    if (send(clean.slice(0, MAX_CHAT))) { chat.draft = ""; chat.error = ""; }
    else chat.error = "Not connected: your message was not sent. It stays in the box; send it again once connected.";
    redraw();
  };
  const shown = chat.lines.filter((l) => !muted.has(writerKey(l)));
  const hidden = chat.lines.length - shown.length;
  const writers = [...new Map(chat.lines.filter((l) => l.seat !== me || me === null)
    .map((l) => [writerKey(l), l])).values()];
  return html`<section class="panel chat" aria-label="Table chat" id="chat"><h2>Chat</h2>
    <ol class="chat-lines" role="log" aria-live="polite" aria-label="Messages" ref=${list}>
      ${shown.length ? shown.map((l) => html`<li key=${l.number} class=${l.seat === me ? "mine" : ""}>
        <span class="chat-time">${clock(l.at)}</span> <b>${l.seat === me && me !== null ? "You" : l.name}</b>${": "}<span
        class="chat-text">${l.text}</span></li>`)
        : html`<li class="muted">Nothing said yet.</li>`}
    </ol>
    ${hidden ? html`<p class="muted">${hidden} ${hidden === 1 ? "message" : "messages"} from muted people hidden.</p>` : null}
    ${writers.length ? html`<div class="chat-mutes">${writers.map((l) => {
      const who = l.seat === null ? "spectators" : l.name;
      const on = muted.has(writerKey(l));
      return html`<button type="button" class="secondary small" aria-pressed=${on}
        onClick=${() => toggleMute(l, redraw)}>${on ? `Hear ${who}` : `Mute ${who}`}</button>`;
    })}</div>` : null}
    ${canWrite ? html`<form class="chat-say" onSubmit=${(e) => { e.preventDefault(); say(chat.draft); }}>
        <input type="text" aria-label="Message" maxlength=${MAX_CHAT} value=${chat.draft} autocomplete="off"
          placeholder="Say something to the table" onInput=${(e) => { chat.draft = e.target.value; }} />
        <button type="submit">Send</button></form>
      <div class="chat-reactions" role="group" aria-label="Quick reactions">${REACTIONS.map((r) => html`<button
        type="button" class="secondary small" onClick=${() => say(r)}>${r}</button>`)}</div>`
      : html`<p class="muted">At this table only the players write in the chat.</p>`}
    ${chat.error ? html`<p class="chat-error" role="alert">${chat.error}</p>` : null}
  </section>`;
}
