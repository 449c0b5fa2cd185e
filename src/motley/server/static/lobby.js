// @ts-check
// The first page: each game with its picture, words and two buttons ("Play with bots", "Play with friends"),
// your tables and the open tables. Everything about a game comes from /api/games (the game's spec), nothing
// from game names here. The page's module: the friends' screen is friends.js, what both screens share is
// lobby_parts.js.
import { $, el } from "/static/dom.js";
import { openFriends, wireFriends } from "/static/friends.js";
import { forgetLinks, lobby, myName, myTables, postTable, rememberMade, rememberTable, showError } from "/static/lobby_parts.js";

// ---- the games ------------------------------------------------------------------------------------------

/** One game: its picture in a box of the picture's own shape (nothing moves as it loads), words, buttons.
 * @param {import("./schema/messages").GameInfo} game */
function gameCard(game) {
  const id = `game-${game.name}`;
  const pic = game.picture;
  const img = el("img", {src: pic.url, alt: `A ${game.title} table in play`, width: String(pic.width),
                         height: String(pic.height), decoding: "async"});
  const box = el("div", {"class": "picture"}, img);
  if (pic.width && pic.height) box.style.aspectRatio = `${pic.width} / ${pic.height}`;
  const bots = el("button", {type: "button", "class": "play-bots", disabled: ""}, "Play with bots");
  const friends = el("button", {type: "button", "class": "secondary play-friends", disabled: ""}, "Play with friends");
  bots.addEventListener("click", () => playWithBots(game, bots));
  friends.addEventListener("click", () => { location.hash = `#friends/${game.name}`; });
  const status = el("p", {"class": "card-status", role: "status"});
  return el("article", {"class": "game-card", "aria-labelledby": id, "data-game": game.name}, box,
            el("div", {"class": "game-words"},
               el("h2", {id, text: game.title}),
               el("p", {"class": "summary", text: game.summary}),
               el("p", {"class": "glance", text: capitalized(game.at_a_glance)}),
               el("div", {"class": "actions"}, bots, friends), status));
}

function capitalized(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }

/** "Play with bots": you and the bots at the game's usual player count, the rules' defaults; off to your seat.
 * @param {import("./schema/messages").GameInfo} game */
async function playWithBots(game, button) {
  const status = button.closest(".game-card").querySelector(".card-status");
  button.disabled = true;
  status.textContent = "Making your table...";
  const n = game.usual_players;
  /** @type {import("./schema/messages").SeatRequest[]} */
  const seats = [{kind: "human", name: myName()}];
  for (let i = 1; i < n; i++) seats.push({kind: "bot", bot: lobby.defaults.play_bot});
  try {
    const data = await postTable({game: game.name, players: n, seats});
    rememberMade(data, game);
    location.href = data.seats[0].link;
  } catch (e) {
    status.textContent = "";
    showError(e.message);
    button.disabled = false;
  }
}

function renderGames() {
  $("games").replaceChildren(...lobby.games.map(gameCard));
}

/** The buttons work once the server's defaults are known (a moment after the games are drawn). */
function enablePlay() {
  for (const b of document.querySelectorAll(".game-card button")) b.removeAttribute("disabled");
}

function forgetTable(id) {
  forgetLinks(id);
  loadTables();
}

async function join(id, title) {
  const r = await fetch(`/api/tables/${id}/join`, {method: "POST"});
  const data = await r.json().catch(() => ({}));
  if (r.ok) {
    rememberTable(id, title, [{seat: data.seat, name: `Seat ${data.seat + 1}`, link: data.link}]);
    location.href = data.link;
  } else {
    showError(data.error?.message || "this table has no open seat any more");
    loadTables();
  }
}

/** "42 s", "5 min", "3 h", "2 days" ago. */
function ago(seconds) {
  if (seconds < 60) return `${Math.round(seconds)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  const days = Math.round(seconds / 86400);
  return `${days} ${days === 1 ? "day" : "days"} ago`;
}

/** Where a table is, in words: finished, waiting for people, or the round being played. */
function stateWords(t) {
  if (t.finished) return "finished";
  if (t.waiting_for > 0) return `waiting for ${t.waiting_for} ${t.waiting_for === 1 ? "person" : "people"}`;
  return `playing ${t.stage}`;
}

function joinButton(t) {
  const b = el("button", {type: "button", "class": "secondary",
                          text: `Join (${t.free_seats} open ${t.free_seats === 1 ? "seat" : "seats"})`});
  b.addEventListener("click", () => join(t.id, t.title));
  return b;
}

function tableRow(t) {
  const names = (t.names && t.names.length) ? t.names.join(", ") : `${t.players} players`;
  const tr = el("tr", {"data-table": t.id},
                el("td", {text: t.title}), el("td", {"class": "names", text: names}),
                el("td", {"class": "state", text: stateWords(t)}), el("td", {"class": "age", text: ago(t.age)}));
  const actions = el("td");
  if (t.finished) actions.append(el("a", {href: `/replay/${t.id}`, text: "replay"}));
  else {
    actions.append(el("a", {href: `/table/${t.id}`, text: "watch"}));
    if (t.free_seats > 0) actions.append(" ", joinButton(t));
  }
  tr.append(actions);
  return tr;
}

function renderMine(byId) {
  const mine = myTables();
  const box = $("mine");
  if (!mine.length) { box.textContent = "Tables you make or join are kept here, in this browser."; return; }
  const ul = el("ul", {"class": "mine"});
  for (const t of mine) {
    const live = byId.get(t.id);
    const state = live ? stateWords(live) : "closed";
    const li = el("li", {"data-table": t.id}, el("strong", {text: t.title}), ` - ${state} - `);
    if (live && live.finished) li.append(el("a", {href: `/replay/${t.id}`, text: "replay"}), " ");
    for (const l of t.links) {
      li.append(el("a", {href: l.link, "class": "my-seat", text: `${l.name} (seat ${l.seat + 1})`}), " ");
    }
    const forget = el("button", {type: "button", "class": "secondary small", "aria-label": `Forget ${t.title} table`,
                                 text: "forget"});
    forget.addEventListener("click", () => forgetTable(t.id));
    li.append(forget);
    ul.append(li);
  }
  box.replaceChildren(ul);
}

/** Tables with a seat anyone may take, each with its Join button. */
function renderOpen(tables) {
  const open = tables.filter((t) => !t.finished && t.free_seats > 0);
  if (!open.length) { $("open").textContent = "No open seats right now. Make a table and invite your friends."; return; }
  const ul = el("ul", {"class": "open-tables"});
  for (const t of open) {
    ul.append(el("li", {"data-table": t.id}, el("strong", {text: t.title}),
                 ` - ${(t.names || []).join(", ")} - ${stateWords(t)} `, joinButton(t)));
  }
  $("open").replaceChildren(ul);
}

async function fetchTables() {
  try {
    const tables = await (await fetch("/api/tables")).json();
    return Array.isArray(tables) ? tables : null;
  } catch (e) { return null; }
}

async function loadTables(ready) {
  const tables = ready || await fetchTables();
  if (!tables) return;
  renderMine(new Map(tables.map((t) => [t.id, t])));
  renderOpen(tables);
  const box = $("tables");
  if (!tables.length) { box.textContent = "No tables yet."; return; }
  const head = el("tr", {}, ...["Game", "Players", "State", "Started", ""].map((h) => el("th", {scope: "col", text: h})));
  box.replaceChildren(el("table", {"class": "tables"}, head, ...tables.map(tableRow)));
}

// ---- which screen: the games, or a game's friends' screen (#friends/<game>) ------------------------------

function route() {
  const m = /^#friends\/(.+)$/.exec(location.hash);
  const game = m && lobby.games.find((g) => g.name === decodeURIComponent(m[1]));
  $("front").hidden = !!game || !lobby.games.length;
  $("friends").hidden = !game;
  if (game) openFriends(game);
  else document.title = "motley - card games with friends and bots";
}

/** The games, the server's defaults and the tables, fetched together; the page is shown once all are drawn. */
async function init() {
  const [games, defaults, tables] = await Promise.all([
    fetch("/api/games").then((r) => r.json()), fetch("/api/defaults").then((r) => r.json()).catch(() => null),
    fetchTables()]);
  lobby.games = games;
  if (defaults) lobby.defaults = defaults;
  renderGames();
  enablePlay();
  loadTables(tables || []);
  window.addEventListener("hashchange", route);
  route();
  setInterval(() => loadTables(), 5000);
}
wireFriends({back: route, made: () => loadTables()});
init();
