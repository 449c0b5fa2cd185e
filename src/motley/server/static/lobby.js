"use strict";
let GAMES = [];
// $ and el come from dom.js, loaded before this script.

function currentGame() { return GAMES.find((g) => g.name === $("game").value); }

function seatRow(i, game) {
  const kind = el("select", {"class": "seat-kind", "data-seat": String(i), "aria-label": `Seat ${i} player`});
  kind.append(el("option", {value: "human", text: "person"}));
  const label = {ismcts: "ISMCTS bot", best: "strongest bot"};
  for (const b of game.bots) kind.append(el("option", {value: b, text: label[b] || b + " bot"}));
  kind.value = i === 0 ? "human" : game.bots[0];
  const strength = el("input", {"class": "seat-strength", type: "number", min: "10", max: String(game.max_simulations), value: "300",
                                title: "ISMCTS simulations per move"});
  const name = el("input", {"class": "seat-name", type: "text", placeholder: "name", size: "10"});
  // an open seat may be claimed by anyone in the lobby; otherwise only its invite link works
  const open = el("input", {"class": "seat-open", type: "checkbox", "aria-label": `Seat ${i} open to anyone in the lobby`});
  const openLabel = el("label", {"class": "seat-open-label", title: "anyone in the lobby may take this seat"},
                       open, " open seat");
  const update = () => {
    strength.style.display = kind.value === "ismcts" ? "" : "none";
    name.style.display = kind.value === "human" ? "" : "none";
    openLabel.style.display = kind.value === "human" ? "" : "none";
  };
  kind.addEventListener("change", update);
  update();
  return el("div", {"class": "seatrow"}, el("span", {text: "Seat " + i}), kind, name, openLabel, strength);
}

function renderSeats() {
  const game = currentGame();
  const n = Number($("players").value);
  const box = $("seats");
  box.replaceChildren();
  for (let i = 0; i < n; i++) box.append(seatRow(i, game));
}

/** Is ``value`` a grid: an object of objects of numbers (a table such as Fool!'s deck table)? */
function isGrid(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0 &&
    Object.values(value).every((row) => row !== null && typeof row === "object" && !Array.isArray(row) &&
                                        Object.values(row).every((x) => typeof x === "number"));
}

/** An editable table for a grid option: one row per key, one number per column. */
function gridEditor(o) {
  const rows = Object.keys(o.default);
  const cols = Object.keys(o.default[rows[0]]);
  const table = el("table", {"class": "grid option", "data-name": o.name, "aria-label": o.label});
  table.append(el("tr", {}, el("th", {text: ""}), ...cols.map((c) => el("th", {scope: "col", text: c}))));
  for (const r of rows) {
    const tr = el("tr", {}, el("th", {scope: "row", text: r}));
    for (const c of cols) {
      const input = el("input", {type: "number", "class": "grid-cell", "data-row": r, "data-col": c,
                                 value: String(o.default[r][c]), "aria-label": `${o.label}: ${r} ${c}`});
      tr.append(el("td", {}, input));
    }
    table.append(tr);
  }
  return table;
}

function gridValue(table) {
  const out = {};
  for (const input of table.querySelectorAll(".grid-cell")) {
    (out[input.dataset.row] ||= {})[input.dataset.col] = Number(input.value);
  }
  return out;
}

/** The words for an option's rules default. */
function defaultWords(o) {
  if (o.choices.length) return o.choice_labels[o.choices.indexOf(o.default)];
  if (o.kind === "bool") return o.default ? "on" : "off";
  if (isGrid(o.default)) return "the table shown";
  return typeof o.default === "string" ? o.default : JSON.stringify(o.default);
}

function optionInput(o) {
  let input;
  if (o.choices.length) {
    input = el("select", {name: o.name});
    o.choices.forEach((c, i) => {
      const words = o.choice_labels[i] + (JSON.stringify(c) === JSON.stringify(o.default) ? " (rules default)" : "");
      input.append(el("option", {value: JSON.stringify(c), text: words}));
    });
    input.value = JSON.stringify(o.default);
  } else if (o.kind === "bool") {
    input = el("input", {type: "checkbox", name: o.name});
    input.checked = !!o.default;
  } else if (o.kind === "int") {
    input = el("input", {type: "number", name: o.name, value: String(o.default)});
    if (o.minimum !== null) input.min = o.minimum;
    if (o.maximum !== null) input.max = o.maximum;
  } else if (o.kind === "json" && isGrid(o.default)) {
    return gridEditor(o);
  } else {
    input = el("input", {type: "text", name: o.name, size: "30",
                         value: o.kind === "json" ? JSON.stringify(o.default) : String(o.default)});
  }
  input.classList.add("option");
  return input;
}

function optionRow(o) {
  const input = optionInput(o);
  const row = el("div", {"class": "option-row", "data-option": o.name});
  const label = el("label", {"class": "option-label"}, el("span", {"class": "option-name", text: o.label}), " ");
  if (input.tagName === "TABLE") row.append(label, input); else { label.append(input); row.append(label); }
  row.append(el("span", {"class": "doc", text: o.explanation}));
  const notes = el("span", {"class": "note"});
  if (!o.choices.length) notes.append(`rules default: ${defaultWords(o)}`);
  if (o.rules.length) notes.append(`${notes.textContent ? " - " : ""}rule ${o.rules.join(", ")}`);
  if (notes.textContent) row.append(notes);
  if (o.assumed) {
    row.append(el("span", {"class": "assumed", text: "The rules leave this open: the default is an assumption."}));
  }
  return row;
}

function renderGame() {
  const game = currentGame();
  const players = $("players");
  players.min = game.min_players; players.max = game.max_players;
  players.value = Math.min(Math.max(Number(players.value), game.min_players), game.max_players);
  $("players-label").style.display = game.min_players === game.max_players ? "none" : "";
  $("options").replaceChildren(...game.options.map(optionRow));
  renderSeats();
}

function readOptions() {
  const out = {};
  const game = currentGame();
  for (const input of document.querySelectorAll("#options .option")) {
    const name = input.name || input.dataset.name;
    const o = game.options.find((x) => x.name === name);
    let v;
    if (input.tagName === "TABLE") v = gridValue(input);
    else if (input.tagName === "SELECT") v = JSON.parse(input.value);
    else if (input.type === "checkbox") v = input.checked;
    else if (o.kind === "int") v = Number(input.value);
    else v = input.value;
    if (JSON.stringify(v) !== JSON.stringify(o.default)) out[o.name] = v;
  }
  return out;
}

async function create(ev) {
  ev.preventDefault();
  $("error").textContent = "";
  const game = currentGame();
  const seats = [...document.querySelectorAll("#seats .seatrow")].map((row) => {
    const kind = row.querySelector(".seat-kind").value;
    if (kind === "human") {
      return {kind: "human", name: row.querySelector(".seat-name").value, open: row.querySelector(".seat-open").checked};
    }
    const s = {kind: "bot", bot: kind};
    if (kind === "ismcts") s.strength = Number(row.querySelector(".seat-strength").value);
    return s;
  });
  const body = {game: game.name, players: Number($("players").value), options: readOptions(), seats,
                grace: Number($("grace").value), bot_delay: Number($("bot_delay").value),
                wait_for_people: $("wait_for_people").checked};
  if ($("move_time").value) body.move_time = Number($("move_time").value);
  const r = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) { $("error").textContent = data.error || data.detail || "could not create the table"; return; }
  const list = el("ul", {"class": "links"});
  let first = null;
  for (const s of data.seats) {
    if (!s.link) continue;
    const url = location.origin + s.link;
    if (!first) first = s.link;
    const note = s.open ? " - open: anyone in the lobby may take it instead" : "";
    list.append(el("li", {}, `Seat ${s.seat} (${s.name}): `, el("a", {href: s.link, "class": "invite"}, url), note));
  }
  list.append(el("li", {}, "Spectators: ", el("a", {href: data.spectate}, location.origin + data.spectate)));
  rememberTable(data.id, game.title, data.seats.filter((s) => s.link)
    .map((s) => ({seat: s.seat, name: s.name, link: s.link})));
  const box = $("created");
  box.replaceChildren(el("h3", {text: "Table created - invite links (each is secret to its seat)"}), list);
  if (first) box.append(el("p", {}, el("a", {href: first, id: "play-now"}, el("button", {type: "button", text: "Play my seat now"}))));
  loadTables();
}

// ---- "your tables": the links this browser was given, kept in localStorage ----------------------------
const MINE_KEY = "motley.mytables";
const MINE_MAX = 50;

function myTables() {
  try {
    const list = JSON.parse(localStorage.getItem(MINE_KEY) || "[]");
    return Array.isArray(list) ? list : [];
  } catch (e) { return []; }
}

/** Remember ``links`` ([{seat, name, link}]) of table ``id`` (merged with what is kept already). */
function rememberTable(id, title, links) {
  const list = myTables();
  let entry = list.find((t) => t.id === id);
  if (!entry) { entry = {id, title, created: Date.now(), links: []}; list.unshift(entry); }
  for (const l of links) {
    if (!entry.links.some((k) => k.link === l.link)) entry.links.push(l);
  }
  try { localStorage.setItem(MINE_KEY, JSON.stringify(list.slice(0, MINE_MAX))); } catch (e) { /* full or off */ }
}

function forgetTable(id) {
  localStorage.setItem(MINE_KEY, JSON.stringify(myTables().filter((t) => t.id !== id)));
  loadTables();
}

async function join(id, title) {
  const r = await fetch(`/api/tables/${id}/join`, {method: "POST"});
  const data = await r.json();
  if (r.ok) {
    rememberTable(id, title, [{seat: data.seat, name: `seat ${data.seat}`, link: data.link}]);
    location.href = data.link;
  } else {
    $("error").textContent = data.detail || "no open seat";
    loadTables();
  }
}

/** "42 s", "5 min", "3 h", "2 days" ago. */
function ago(seconds) {
  if (seconds < 60) return `${Math.round(seconds)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} days ago`;
}

/** Where a table is, in words: finished, waiting for people, or the round being played. */
function stateWords(t) {
  if (t.finished) return "finished";
  if (t.waiting_for > 0) return `waiting for ${t.waiting_for} ${t.waiting_for === 1 ? "person" : "people"}`;
  return `playing ${t.stage}`;
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
    if (t.free_seats > 0) {
      const b = el("button", {type: "button", "class": "secondary", text: `join (${t.free_seats} open)`});
      b.addEventListener("click", () => join(t.id, t.title));
      actions.append(" ", b);
    }
  }
  tr.append(actions);
  return tr;
}

function renderMine(byId) {
  const mine = myTables();
  const box = $("mine");
  if (!mine.length) { box.textContent = "Tables you create or join are kept here, in this browser."; return; }
  const ul = el("ul", {"class": "mine"});
  for (const t of mine) {
    const live = byId.get(t.id);
    const state = live ? stateWords(live) : "closed";
    const li = el("li", {"data-table": t.id}, `${t.title} - ${state} - `);
    if (live && live.finished) li.append(el("a", {href: `/replay/${t.id}`, text: "replay"}), " ");
    for (const l of t.links) li.append(el("a", {href: l.link, "class": "my-seat", text: `${l.name} (seat ${l.seat})`}), " ");
    const forget = el("button", {type: "button", "class": "secondary small", text: "forget"});
    forget.addEventListener("click", () => forgetTable(t.id));
    li.append(forget);
    ul.append(li);
  }
  box.replaceChildren(ul);
}

async function loadTables() {
  const r = await fetch("/api/tables");
  const tables = await r.json();
  renderMine(new Map(tables.map((t) => [t.id, t])));
  const box = $("tables");
  if (!tables.length) { box.textContent = "No tables yet: create one."; return; }
  const head = el("tr", {}, ...["Game", "Players", "State", "Started", ""].map((h) => el("th", {scope: "col", text: h})));
  box.replaceChildren(el("table", {"class": "tables"}, head, ...tables.map(tableRow)));
}

async function init() {
  GAMES = await (await fetch("/api/games")).json();
  for (const g of GAMES) $("game").append(el("option", {value: g.name, text: g.title}));
  $("game").value = GAMES[0].name;  // the first game, whatever the browser kept from an earlier visit
  $("game").addEventListener("change", renderGame);
  $("players").addEventListener("change", renderSeats);
  $("create").addEventListener("submit", create);
  renderGame();
  loadTables();
  setInterval(loadTables, 5000);
}
init();
