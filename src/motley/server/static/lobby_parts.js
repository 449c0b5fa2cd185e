// @ts-check
// What the first page's two screens (lobby.js: the games and the tables; friends.js: "Play with friends") share:
// the games and the server's defaults, the name this browser plays under, the page's error line, making a
// table, and the tables this browser was given links to ("Your tables", kept in localStorage).
import { $ } from "/static/dom.js";

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

export function showError(text) { $("error").textContent = text; }

/** POST a table request; the answer's JSON, or throws an Error with the server's words. */
export async function postTable(body) {
  const r = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify(body)});
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error?.message || `the table could not be made (HTTP ${r.status})`);
  return data;
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
