"use strict";
let GAMES = [];
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function currentGame() { return GAMES.find((g) => g.name === $("game").value); }

function seatRow(i, game) {
  const kind = el("select", {"class": "seat-kind", "data-seat": String(i), "aria-label": `Seat ${i} player`});
  kind.append(el("option", {value: "human", text: "person"}));
  for (const b of game.bots) kind.append(el("option", {value: b, text: b === "ismcts" ? "ISMCTS bot" : b + " bot"}));
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

function renderGame() {
  const game = currentGame();
  const players = $("players");
  players.min = game.min_players; players.max = game.max_players;
  players.value = Math.min(Math.max(Number(players.value), game.min_players), game.max_players);
  $("players-label").style.display = game.min_players === game.max_players ? "none" : "";
  const box = $("options");
  box.replaceChildren();
  for (const o of game.options) {
    let input;
    if (o.choices.length) {
      input = el("select", {name: o.name});
      for (const c of o.choices) input.append(el("option", {value: JSON.stringify(c), text: String(c)}));
      input.value = JSON.stringify(o.default);
    } else if (o.kind === "bool") {
      input = el("input", {type: "checkbox", name: o.name});
      input.checked = !!o.default;
    } else if (o.kind === "int") {
      input = el("input", {type: "number", name: o.name, value: String(o.default)});
      if (o.minimum !== null) input.min = o.minimum;
      if (o.maximum !== null) input.max = o.maximum;
    } else {
      input = el("input", {type: "text", name: o.name, size: "30",
                           value: o.kind === "json" ? JSON.stringify(o.default) : String(o.default)});
    }
    input.dataset.kind = o.kind;
    input.classList.add("option");
    box.append(el("label", {}, o.name + " ", input, el("span", {"class": "doc", text: o.doc})));
  }
  renderSeats();
}

function readOptions() {
  const out = {};
  const game = currentGame();
  for (const input of document.querySelectorAll(".option")) {
    const o = game.options.find((x) => x.name === input.name);
    let v;
    if (input.tagName === "SELECT") v = JSON.parse(input.value);
    else if (input.type === "checkbox") v = input.checked;
    else if (o.kind === "int") v = Number(input.value);
    else if (o.kind === "json") v = input.value;
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
  const box = $("created");
  box.replaceChildren(el("h3", {text: "Table created - invite links (each is secret to its seat)"}), list);
  if (first) box.append(el("p", {}, el("a", {href: first, id: "play-now"}, el("button", {type: "button", text: "Play my seat now"}))));
  loadTables();
}

async function join(id) {
  const r = await fetch(`/api/tables/${id}/join`, {method: "POST"});
  const data = await r.json();
  if (r.ok) location.href = data.link; else $("error").textContent = data.detail || "no open seat";
  if (!r.ok) loadTables();
}

async function loadTables() {
  const r = await fetch("/api/tables");
  const tables = await r.json();
  const box = $("tables");
  if (!tables.length) { box.textContent = "No tables yet: create one."; return; }
  const ul = el("ul");
  for (const t of tables) {
    const li = el("li", {"data-table": t.id}, `${t.title} - ${t.players} players - ${t.finished ? "finished" : "move " + t.version} `);
    if (t.finished) li.append(el("a", {href: `/replay/${t.id}`, text: "replay"}));
    else {
      li.append(el("a", {href: `/table/${t.id}`, text: "watch"}));
      if (t.free_seats > 0) {
        const b = el("button", {type: "button", "class": "secondary", text: `join (${t.free_seats} open)`});
        b.addEventListener("click", () => join(t.id));
        li.append(" ", b);
      }
    }
    ul.append(li);
  }
  box.replaceChildren(ul);
}

async function init() {
  GAMES = await (await fetch("/api/games")).json();
  for (const g of GAMES) $("game").append(el("option", {value: g.name, text: g.title}));
  $("game").addEventListener("change", renderGame);
  $("players").addEventListener("change", renderSeats);
  $("create").addEventListener("submit", create);
  renderGame();
  loadTables();
  setInterval(loadTables, 5000);
}
init();
