// @ts-check
// What the first page's two screens (lobby.js: the games and the tables; friends.js: "Play with friends") share:
// the games and the server's defaults, the name this browser plays under, the browser's key (the tables it made,
// listed and cancelled by the server), refusals shown where the eye is (a toast in view and words beside the
// control pressed), making a table, and the tables this browser was given links to ("Your tables", kept in
// localStorage).
import { $, el } from "/static/dom.js";

/**
 * The games (/api/games) and the server's settings for a new table and the "Play with bots" seats
 * (/api/defaults), filled in by lobby.js when the page loads.
 * @type {{games: import("./schema/messages").GameInfo[], defaults: {play_bot: import("./schema/messages").SeatRequest["bot"]} & Record<string, any>}}
 */
export const lobby = {games: [], defaults: {play_bot: "heuristic"}};

const NAME_KEY = "motley.name";

/** The name this browser plays under ("" until the player types one). */
export function myName() {
  try { return localStorage.getItem(NAME_KEY) || ""; } catch (e) { return ""; }
}

export function keepMyName(name) {
  try { localStorage.setItem(NAME_KEY, name); } catch (e) { /* storage full or off */ }
}

// ---- the browser's key: the tables this browser made, as the server keeps them -----------------------------
const KEY_KEY = "motley.key";
let pageKey = "";

/** 32 random bytes in base64url (43 characters): a key nobody else has. */
function newKey() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** This browser's key, drawn once and kept in localStorage (where storage is off: one for this page). The page
 * sends it when it makes a table; the server keeps only its digest, and lists and cancels that key's tables. */
export function browserKey() {
  try {
    const kept = localStorage.getItem(KEY_KEY);
    if (kept && /^[A-Za-z0-9_-]{22,128}$/.test(kept)) return kept;
    const key = newKey();
    localStorage.setItem(KEY_KEY, key);
    return key;
  } catch (e) {
    return pageKey ||= newKey();
  }
}

// ---- refusals: in words, with what to do next, where the eye is ---------------------------------------------

/** A request the server refused (``code``: its refusal's code, ``status``: HTTP; 0: no answer at all). */
export class Refused extends Error {
  /** @param {string} message @param {string} code @param {number} status */
  constructor(message, code, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

/** ``fetch``, with a failure to reach the server as a :class:`Refused` (code ``offline``) and a refusal's body
 * (``{"error": {"code", "message"}}``) as one (``fallback``: the words when the answer has none); the answer's JSON.
 * @param {string} url @param {RequestInit} [init] @param {string} [fallback] */
export async function ask(url, init, fallback = "the server refused") {
  let r;
  try { r = await fetch(url, init); }
  catch (e) { throw new Refused("the server did not answer", "offline", 0); }
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Refused(data.error?.message || `${fallback} (HTTP ${r.status})`, data.error?.code || `http_${r.status}`, r.status);
  return data;
}

/** What to do next after a refusal of ``code``, in words; ``where``: what was pressed ("create": Create table). */
export function nextStep(code, where = "") {
  switch (code) {
    case "too_many_tables": return "Cancel one of your unfinished tables listed here, then try again.";
    case "too_fast": return "Wait those seconds, then press the button again.";
    case "bad_request": case "invalid_request":
      return where === "create" ? "Change what it names (under Seats or Table options), then press Create table again."
        : "Reload the page and try again.";
    case "seat_refused": return "Pick another open seat below, or make your own table.";
    case "no_table": case "table_over": return "That table has ended: pick another one below.";
    case "offline": return "Check your connection, then try again.";
    case "stopping": case "elsewhere": case "store_unavailable": case "unavailable": case "busy":
      return "The server is busy: try again in a moment.";
    default: return "Try again; if it keeps failing, reload the page.";
  }
}

/** The refusal ``e`` (a :class:`Refused`, or any error) in words a person reads: what happened and what to do. */
export function refusalWords(e, where = "") {
  const said = String(e && e.message || "something went wrong");
  return `${said[0].toUpperCase()}${said.slice(1)}. ${nextStep(e && e.code, where)}`;
}

let toastTimer = 0;

/** Show ``text`` in the page's toast: fixed in the view, an alert screen readers announce, with ``more`` (nodes:
 * what to do, such as the tables to cancel) under it; "" hides it. It stays until closed or replaced, but for
 * ``seconds`` given. */
export function showError(text, more = [], seconds = 0) {
  clearTimeout(toastTimer);
  $("toast").hidden = !text;  // shown before its words are put in, so that they are announced as an alert
  $("error").textContent = text;
  $("toast-more").replaceChildren(...more);
  if (text && seconds) toastTimer = setTimeout(() => showError(""), seconds * 1000);
}

/** A refusal where the eye is: in the toast (in view, whatever the scroll) and, with ``inline`` (an element
 * beside the control pressed), there too. Returns the words. */
export function showRefusal(e, inline = null, where = "", more = []) {
  const words = refusalWords(e, where);
  showError(words, more);
  if (inline) {
    inline.textContent = words;
    inline.classList.add("refused");
    inline.scrollIntoView({block: "nearest"});
    // the toast keeps clear of the words beside the control: at the top of the view when they are low in it
    const box = inline.getBoundingClientRect();
    $("toast").classList.toggle("top", box.top + box.height / 2 > window.innerHeight / 2);
  } else {
    $("toast").classList.remove("top");
  }
  return words;
}

/** Wire the toast's Close button (once, when the page starts). */
export function wireToast() {
  $("toast-close").addEventListener("click", () => showError(""));
}


/** POST a table request, made with this browser's key; the answer's JSON, or throws a :class:`Refused`. */
export async function postTable(body) {
  return ask("/api/tables", {method: "POST", headers: {"Content-Type": "application/json", "X-Motley-Key": browserKey()},
                             body: JSON.stringify(body)}, "the table could not be made");
}

/** The unfinished tables this browser made, as the server knows them (``GET /api/my-tables``: lobby lines with
 * ``links``); null when the server could not be asked. */
export async function fetchMine() {
  try {
    const list = await ask("/api/my-tables", {headers: {"X-Motley-Key": browserKey()}});
    return Array.isArray(list) ? list : null;
  } catch (e) { return null; }
}

/** Cancel table ``id``: as the browser that made it, or else by a seat link this browser keeps; throws a
 * :class:`Refused`. */
export async function cancelTable(id) {
  const post = (body) => ask(`/api/tables/${id}/cancel`, {method: "POST", headers: {"Content-Type": "application/json"},
                                                           body: JSON.stringify(body)}, "the table could not be cancelled");
  try { return await post({key: browserKey()}); }
  catch (e) {
    const kept = myTables().find((t) => t.id === id);
    const token = kept && kept.links.map((l) => new URL(l.link, location.origin).searchParams.get("token")).find(Boolean);
    if (!(e instanceof Refused) || e.code !== "not_yours" || !token) throw e;
    return post({token});
  }
}

/** Remember every seat link of a new table in this browser ("Your tables"). */
export function rememberMade(data, game) {
  rememberTable(data.id, game.title, data.seats.filter((s) => s.link)
    .map((s) => ({seat: s.seat, name: s.name, link: s.link})));
}

// ---- "your tables": the links this browser was given, kept in localStorage ----------------------------
const MINE_KEY = "motley.mytables";
const MINE_MAX = 50;

export function myTables() {
  try {
    const list = JSON.parse(localStorage.getItem(MINE_KEY) || "[]");
    return Array.isArray(list) ? list : [];
  } catch (e) { return []; }
}

/** Remember ``links`` ([{seat, name, link}], seats from 0) of table ``id`` (merged with what is kept already). */
export function rememberTable(id, title, links) {
  const list = myTables();
  let entry = list.find((t) => t.id === id);
  if (!entry) { entry = {id, title, created: Date.now(), links: []}; list.unshift(entry); }
  for (const l of links) {
    if (!entry.links.some((k) => k.link === l.link)) entry.links.push(l);
  }
  try { localStorage.setItem(MINE_KEY, JSON.stringify(list.slice(0, MINE_MAX))); } catch (e) { /* full or off */ }
}

/** Forget the links of table ``id``. */
export function forgetLinks(id) {
  try { localStorage.setItem(MINE_KEY, JSON.stringify(myTables().filter((t) => t.id !== id))); } catch (e) { /* off */ }
}

// ---- at the cap: the tables this browser made, offered to cancel ------------------------------------------------

/** "waiting for 2 people", "playing round 3": where an unfinished table is. */
export function stateWords(t) {
  if (t.finished) return "finished";
  if (t.waiting_for > 0) return `waiting for ${t.waiting_for} ${t.waiting_for === 1 ? "person" : "people"}`;
  return `playing ${t.stage}`;
}

/** A "Cancel table" button for table ``t``: cancels it (the server ends it for everyone at it), then calls
 * ``done(t)``; a refusal is shown in view and beside the button. */
export function cancelButton(t, done) {
  const b = el("button", {type: "button", "class": "secondary small cancel-table", text: "Cancel table",
                          "aria-label": `Cancel ${t.title} table (${stateWords(t)})`});
  b.addEventListener("click", async () => {
    b.disabled = true;
    try {
      await cancelTable(t.id);
      forgetLinks(t.id);
      done(t);
    } catch (e) {
      b.disabled = false;
      showRefusal(e, b.parentElement?.querySelector(".row-status") || null);
    }
  });
  return b;
}

/** What the toast offers at the cap (too many unfinished tables): this browser's unfinished tables, each with a
 * link to its seat and "Cancel table"; ``cancelled(t)`` is called after one is cancelled. The nodes to show. */
export async function unfinishedOffer(cancelled) {
  const mine = await fetchMine();
  if (!mine || !mine.length) {
    return [el("p", {text: "None of them was made in this browser: leave or cancel them where they were made (each " +
                           "ends by itself after an hour with no move)."})];
  }
  const ul = el("ul", {"class": "offer-tables"});
  for (const t of mine) {
    const li = el("li", {"data-table": t.id}, el("strong", {text: t.title}), ` - ${stateWords(t)} `);
    if (t.links.length) li.append(el("a", {href: t.links[0].link, text: "go to my seat"}), " ");
    li.append(cancelButton(t, (gone) => {
      li.replaceChildren(`${gone.title}: cancelled. `);
      $("error").textContent = `${gone.title} table cancelled: you may make a table again.`;
      cancelled(gone);
    }), el("span", {"class": "row-status", role: "status"}));
    ul.append(li);
  }
  return [el("p", {text: "Your unfinished tables made in this browser:"}), ul];
}
