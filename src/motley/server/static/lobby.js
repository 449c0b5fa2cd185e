// @ts-check
// The first page: each game with its picture, words and two buttons ("Play with bots", "Play with friends"),
// your tables and the open tables. Everything about a game comes from /api/games (the game's spec), nothing
// from game names here. The page's module: the friends' screen is friends.js, what both screens share is
// lobby_parts.js.
import { $, el } from "/static/dom.js";
import { openFriends, wireFriends } from "/static/friends.js";
import { ask, cancelButton, fetchMine, forgetLinks, keepMyName, lobby, myName, myTables, postTable, rememberMade,
         rememberTable, showError, showRefusal, stateWords, unfinishedOffer, wireToast } from "/static/lobby_parts.js";

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
  status.classList.remove("refused");
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
    button.disabled = false;
    const more = e.code === "too_many_tables" ? await unfinishedOffer(() => {
      status.textContent = "A table was cancelled: press Play with bots again.";
      loadTables();
    }) : [];
    showRefusal(e, status, "bots", more);
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

/** Take an open seat of table ``t`` under ``name``: off to the seat; the loser of a race for the last seat is
 * told in view (and beside the form) and offered the open seats left. */
async function join(t, name, form) {
  const status = form.querySelector(".row-status");
  try {
    const data = await ask(`/api/tables/${t.id}/join?name=${encodeURIComponent(name)}`, {method: "POST"},
                           "the seat could not be taken");
    if (name) keepMyName(name);
    rememberTable(t.id, t.title, [{seat: data.seat, name: name || `Seat ${data.seat + 1}`, link: data.link}]);
    location.href = data.link;
  } catch (e) {
    form.querySelector("button[type=submit]").disabled = false;
    const taken = e.code === "seat_refused" || e.code === "no_table";
    const tables = taken ? await fetchTables() : null;
    const left = (tables || []).filter((o) => o.id !== t.id && !o.finished && o.free_seats > 0);
    const more = taken ? (left.length ? [el("p", {text: "Open seats left:"}),
                                         el("ul", {"class": "offer-tables"}, ...left.map(openLine))]
                                      : [el("p", {text: "No other seat is open: make your own table with a Play button above."})]) : [];
    const words = showRefusal(taken ? {message: "that seat was just taken", code: e.code} : e, status, "", more);
    if (taken) {
      $("open-note").textContent = words;
      joining = null;
      loadTables(tables);
    }
  }
}

/** The table whose Join form is open (the list is not redrawn under it meanwhile), or null. */
let joining = null;

/** Join asks the name first: a small form in place of the button (your name as kept), then "Take the seat". */
function openJoinForm(t, button) {
  const name = el("input", {type: "text", "class": "join-name", maxlength: "30", autocomplete: "nickname",
                            value: myName(), "aria-label": `Your name at ${t.title}`, placeholder: "Your name"});
  const take = el("button", {type: "submit", text: "Take the seat"});
  const back = el("button", {type: "button", "class": "secondary small", text: "Not now"});
  const form = el("form", {"class": "join-form", "aria-label": `Join ${t.title}`},
                  el("label", {}, "Your name ", name), " ", take, " ", back,
                  el("span", {"class": "row-status", role: "status"}));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    take.disabled = true;
    join(t, name.value.trim(), form);
  });
  back.addEventListener("click", () => { joining = null; loadTables(); });
  joining = t.id;
  button.replaceWith(form);
  name.focus();
}

/** "42 s", "5 min", "3 h", "2 days" ago. */
function ago(seconds) {
  if (seconds < 60) return `${Math.round(seconds)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  const days = Math.round(seconds / 86400);
  return `${days} ${days === 1 ? "day" : "days"} ago`;
}

function joinButton(t) {
  const b = el("button", {type: "button", "class": "secondary",
                          text: `Join (${t.free_seats} open ${t.free_seats === 1 ? "seat" : "seats"})`});
  b.addEventListener("click", () => openJoinForm(t, b));
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

/** "Your tables": the server's list of the unfinished tables this browser made (``owned``, kept in this
 * browser's list too) merged with the links kept here; an unfinished one may be cancelled, any one forgotten. */
function renderMine(byId, owned) {
  for (const t of owned || []) rememberTable(t.id, t.title, t.links);
  const mine = myTables();
  const box = $("mine");
  if (!mine.length) {
    box.textContent = "Tables you make or join are kept here, and the server lists the ones you make to every page " +
      "of this browser.";
    return;
  }
  const ownedIds = new Set((owned || []).map((t) => t.id));
  const ul = el("ul", {"class": "mine"});
  for (const t of mine) {
    const live = byId.get(t.id) || (owned || []).find((o) => o.id === t.id);
    const state = live ? stateWords(live) : "closed";
    const li = el("li", {"data-table": t.id}, el("strong", {text: t.title}), ` - ${state} - `);
    if (live && live.finished) li.append(el("a", {href: `/replay/${t.id}`, text: "replay"}), " ");
    for (const l of t.links) {
      li.append(el("a", {href: l.link, "class": "my-seat", text: `${l.name} (seat ${l.seat + 1})`}), " ");
    }
    if (live && !live.finished && (ownedIds.has(t.id) || t.links.length)) {
      li.append(cancelButton({...live, title: t.title}, (gone) => {
        showError(`${gone.title} table cancelled.`, [], 8);
        loadTables();
      }), " ");
    }
    if (!ownedIds.has(t.id)) {  // a table the server lists as this browser's is cancelled, not forgotten
      const forget = el("button", {type: "button", "class": "secondary small", "aria-label": `Forget ${t.title} table`,
                                   text: "forget"});
      forget.addEventListener("click", () => forgetTable(t.id));
      li.append(forget);
    }
    li.append(el("span", {"class": "row-status", role: "status"}));
    ul.append(li);
  }
  box.replaceChildren(ul);
}

/** Tables with a seat anyone may take, each with its Join button. */
function renderOpen(tables) {
  const open = tables.filter((t) => !t.finished && t.free_seats > 0);
  if (!open.length) { $("open").textContent = "No open seats right now. Make a table and invite your friends."; return; }
  $("open").replaceChildren(el("ul", {"class": "open-tables"}, ...open.map(openLine)));
}

/** An open table's line: its game, who sits there, where it is, and Join. */
function openLine(t) {
  return el("li", {"data-table": t.id}, el("strong", {text: t.title}),
            ` - ${(t.names || []).join(", ")} - ${stateWords(t)} `, joinButton(t));
}

async function fetchTables() {
  try {
    const tables = await (await fetch("/api/tables")).json();
    return Array.isArray(tables) ? tables : null;
  } catch (e) { return null; }
}

/** Draw the tables: ``ready`` (the lobby's list) and ``readyOwned`` (this browser's, the server's list) where
 * fetched already, else fetched now. */
async function loadTables(ready, readyOwned) {
  const [tables, owned] = await Promise.all([ready || fetchTables(),
                                             readyOwned === undefined ? fetchMine() : readyOwned]);
  if (!tables) return;
  renderMine(new Map(tables.map((t) => [t.id, t])), owned);
  if (joining && document.querySelector(".join-form")) return;  // not redrawn under a Join form being filled
  joining = null;
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
  const [games, defaults, tables, owned] = await Promise.all([
    fetch("/api/games").then((r) => r.json()), fetch("/api/defaults").then((r) => r.json()).catch(() => null),
    fetchTables(), fetchMine()]);
  lobby.games = games;
  if (defaults) lobby.defaults = defaults;
  renderGames();
  enablePlay();
  await loadTables(tables || [], owned);
  window.addEventListener("hashchange", route);
  route();
  setInterval(() => loadTables(), 5000);
}
wireToast();
wireFriends({back: route, made: () => loadTables()});
init();
