// @ts-check
// "Play with friends": one screen for a game's table. The number of players, each seat (you at seat 1, then a
// friend with an invite link, an open seat, or a bot), the table options folded under "Table options" with a
// line of what differs from the rules' defaults, and after "Create table" the links to send. Seats are
// numbered from 1, as at the table. What was typed is kept while the player count changes. A module of the
// first page (lobby.js opens it: openFriends, and wires it once: wireFriends).
import { $, el } from "/static/dom.js";
import { keepMyName, lobby, myName, postTable, rememberMade, showError, showRefusal, unfinishedOffer } from "/static/lobby_parts.js";

/** What the lobby does for this screen: ``back`` shows the screen the address names, ``made`` redraws the tables
 * after a table was made. */
let hooks = {back: () => {}, made: () => {}};

let FRIENDS = null;  // {game, seats: [{kind, name, strength}] for every seat the game may have}

/** The words for each seat choice; a bot kind the server offers that is not here is shown by its name. */
const SEAT_WORDS = {friend: "Friend", open: "Open seat", heuristic: "Bot", best: "Strongest bot",
                    ismcts: "Searching bot", random: "Random bot"};

/** @param {import("./schema/messages").GameInfo} game */
function seatChoices(game) {
  return ["friend", "open", ...game.bots];
}

/** Show the friends' screen of ``game``; the seats typed for the same game before are kept.
 * @param {import("./schema/messages").GameInfo} game */
export function openFriends(game) {
  if (!FRIENDS || FRIENDS.game.name !== game.name) {
    const seats = [];
    for (let i = 0; i < game.max_players; i++) seats.push({kind: "friend", name: "", strength: 300});
    FRIENDS = {game, seats};
    $("created").replaceChildren();
    renderPlayers(game);
    renderOptions(game);
    fillTimers();
  }
  document.title = `Play ${game.title} with friends - motley`;
  $("friends-title").textContent = `Play ${game.title} with friends`;
  renderSeats();
  showDiffers();
  $("friends-title").scrollIntoView({block: "start"});
}

/** @param {import("./schema/messages").GameInfo} game */
function renderPlayers(game) {
  const select = $("players");
  select.replaceChildren();
  for (let n = game.min_players; n <= game.max_players; n++) select.append(el("option", {value: String(n), text: String(n)}));
  select.value = String(game.usual_players);
  const fixed = game.min_players === game.max_players;
  $("players-label").hidden = fixed;
  $("players-fixed").hidden = !fixed;
  $("players-fixed").textContent = `${game.min_players} players.`;
}

function playerCount() { return Number($("players").value); }

/** Seat 1 is you (your name); every other seat a choice and, for a friend, their name. */
function seatItem(i) {
  const seat = FRIENDS.seats[i];
  const li = el("li", {"class": "seat-item", "data-seat": String(i)}, el("span", {"class": "seat-number", text: `Seat ${i + 1}`}));
  if (i === 0) {
    const name = el("input", {type: "text", id: "my-name", "class": "seat-name", maxlength: "30", autocomplete: "nickname",
                              placeholder: "Player 1", "aria-label": "Your name (seat 1)", value: myName()});
    name.addEventListener("input", () => keepMyName(name.value.trim()));
    li.append(el("span", {"class": "seat-you", text: "You"}), name);
    return li;
  }
  const kind = el("select", {"class": "seat-kind", "aria-label": `Seat ${i + 1}`});
  for (const c of seatChoices(FRIENDS.game)) kind.append(el("option", {value: c, text: SEAT_WORDS[c] || `${c} bot`}));
  kind.value = seat.kind;
  const name = el("input", {type: "text", "class": "seat-name", maxlength: "30", placeholder: `Player ${i + 1}`,
                            "aria-label": `Seat ${i + 1} name`, value: seat.name});
  const strength = el("input", {type: "number", "class": "seat-strength", min: "10", step: "10",
                                max: String(FRIENDS.game.max_simulations), value: String(seat.strength),
                                "aria-label": `Seat ${i + 1} bot strength (searches a move)`});
  const show = () => {
    name.hidden = !(kind.value === "friend" || kind.value === "open");
    strength.hidden = kind.value !== "ismcts";
  };
  kind.addEventListener("change", () => { seat.kind = kind.value; show(); });
  name.addEventListener("input", () => { seat.name = name.value; });
  strength.addEventListener("input", () => { seat.strength = Number(strength.value); });
  show();
  li.append(kind, name, strength);
  return li;
}

/** The first ``playerCount()`` seats; the others keep what was typed for when the count goes up again. */
function renderSeats() {
  const items = [];
  for (let i = 0; i < playerCount(); i++) items.push(seatItem(i));
  $("seats").replaceChildren(...items);
}

/** @returns {import("./schema/messages").SeatRequest[]} */
function seatRequests() {
  /** @type {import("./schema/messages").SeatRequest[]} */
  const out = [{kind: "human", name: $("my-name").value.trim()}];
  for (let i = 1; i < playerCount(); i++) {
    const s = FRIENDS.seats[i];
    if (s.kind === "friend" || s.kind === "open") out.push({kind: "human", name: s.name.trim(), open: s.kind === "open"});
    else if (s.kind === "ismcts") out.push({kind: "bot", bot: "ismcts", strength: s.strength});
    else out.push({kind: "bot", bot: s.kind});
  }
  return out;
}

// ---- table options, grouped and folded --------------------------------------------------------------------

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

/** An option's value in words: its choice's words, on/off, or the value itself. */
function valueWords(o, value) {
  const i = o.choices.findIndex((c) => JSON.stringify(c) === JSON.stringify(value));
  if (i >= 0) return o.choice_labels[i];
  if (o.kind === "bool") return value ? "on" : "off";
  if (isGrid(value)) return "changed";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function optionInput(o) {
  let input;
  if (o.choices.length) {
    input = el("select", {name: o.name});
    o.choices.forEach((c, i) => {
      const words = o.choice_labels[i] + (JSON.stringify(c) === JSON.stringify(o.default) ? " (rules default)" : "");
      const option = el("option", {value: JSON.stringify(c), text: words});
      if (o.seats && typeof c === "number") option.dataset.seat = String(c);  // a seat from 0, worded from 1
      input.append(option);
    });
    input.value = input.dataset.default = JSON.stringify(o.default);
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
    input = el("input", {type: "text", name: o.name, size: "24",
                         value: o.kind === "json" ? JSON.stringify(o.default) : String(o.default)});
  }
  input.classList.add("option");
  return input;
}

/** The explanation, the rule ids and the note on an assumed default: only inside the row's "Details". */
function optionDetails(o) {
  const details = el("details", {"class": "option-details"}, el("summary", {text: "Details"}),
                     el("span", {"class": "doc", text: o.explanation}));
  if (o.rules.length) details.append(el("span", {"class": "note", text: `Rule ${o.rules.join(", ")}`}));
  if (o.assumed) {
    details.append(el("span", {"class": "assumed", text: "The rules leave this open: the default is an assumption."}));
  }
  return details;
}

function optionRow(o) {
  const input = optionInput(o);
  const row = el("div", {"class": "option-row", "data-option": o.name});
  const label = el("label", {"class": "option-label"}, el("span", {"class": "option-name", text: o.label}), " ");
  if (input.tagName === "TABLE") row.append(label, input); else { label.append(input); row.append(label); }
  if (!o.choices.length) row.append(el("span", {"class": "default-note", text: `Rules default: ${valueWords(o, o.default)}`}));
  row.append(optionDetails(o));
  return row;
}

/** @param {import("./schema/messages").GameInfo} game */
function renderOptions(game) {
  const match = new Set(game.match_options || []);
  const grouped = (inMatch) => game.options.filter((o) => match.has(o.name) === inMatch).map(optionRow);
  $("match-options").replaceChildren(...grouped(true));
  $("options").replaceChildren(...grouped(false));
  $("match-options").closest("fieldset").hidden = !match.size;
  limitSeats();
}

/** An option naming a seat offers the seats of the chosen player count only (a seat chosen beyond it goes back to
 * the rules' default). */
function limitSeats() {
  for (const select of /** @type {NodeListOf<HTMLSelectElement>} */ (document.querySelectorAll("#table-options select.option"))) {
    for (const option of select.options) {
      if (option.dataset.seat === undefined) continue;
      option.hidden = option.disabled = Number(option.dataset.seat) >= playerCount();
      if (option.disabled && option.selected) select.value = select.dataset.default;
    }
  }
}

function optionValue(input, o) {
  if (input.tagName === "TABLE") return gridValue(input);
  if (input.tagName === "SELECT") return JSON.parse(input.value);
  if (input.type === "checkbox") return input.checked;
  if (o.kind === "int") return Number(input.value);
  return input.value;
}

/** The options that differ from the rules' defaults: {name: value}. */
function readOptions() {
  const out = {};
  const game = FRIENDS.game;
  for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll("#table-options .option"))) {
    const name = input.name || input.dataset.name;
    const o = game.options.find((x) => x.name === name);
    const v = optionValue(input, o);
    if (JSON.stringify(v) !== JSON.stringify(o.default)) out[o.name] = v;
  }
  return out;
}

// ---- timers: the server's defaults, sent only when changed ------------------------------------------------

function fillTimers() {
  $("move_time").value = lobby.defaults.move_time == null ? "" : String(lobby.defaults.move_time);
  $("grace").value = String(lobby.defaults.grace ?? 30);
  const expiries = lobby.defaults.expiries_to_stand_in;
  $("expiries_to_stand_in").value = expiries === null ? "" : String(expiries ?? 2);
  $("bot_delay").value = String(lobby.defaults.bot_delay ?? 0.8);
  $("wait_for_people").checked = lobby.defaults.wait_for_people ?? true;
  $("hints").checked = lobby.defaults.hints ?? false;
  $("spectator_chat").checked = lobby.defaults.spectator_chat ?? false;
}

/** The timers that differ from the server's defaults, as request fields, with words for the summary line. */
function readTimers() {
  const fields = {}, words = [];
  const moveTime = $("move_time").value === "" ? null : Number($("move_time").value);
  if (moveTime !== (lobby.defaults.move_time ?? null)) {
    fields.move_time = moveTime;
    words.push(moveTime === null ? "no time limit" : `${moveTime} s per move`);
  }
  for (const [key, label] of [["grace", "s to reconnect"], ["bot_delay", "s bot delay"]]) {
    const v = Number($(key).value);
    if ($(key).value !== "" && v !== lobby.defaults[key]) { fields[key] = v; words.push(`${v} ${label}`); }
  }
  const expiries = $("expiries_to_stand_in").value === "" ? null : Number($("expiries_to_stand_in").value);
  if (expiries !== (lobby.defaults.expiries_to_stand_in === undefined ? 2 : lobby.defaults.expiries_to_stand_in)) {
    fields.expiries_to_stand_in = expiries;
    words.push(expiries === null ? "no bot for timers run out" : `a bot plays after ${expiries} timers run out`);
  }
  if ($("wait_for_people").checked !== (lobby.defaults.wait_for_people ?? true)) {
    fields.wait_for_people = $("wait_for_people").checked;
    words.push(fields.wait_for_people ? "bots wait for everyone" : "bots start at once");
  }
  if ($("hints").checked !== (lobby.defaults.hints ?? false)) {
    fields.hints = $("hints").checked;
    words.push(fields.hints ? "hints on" : "no hints");
  }
  if ($("spectator_chat").checked !== (lobby.defaults.spectator_chat ?? false)) {
    fields.spectator_chat = $("spectator_chat").checked;
    words.push(fields.spectator_chat ? "spectators chat" : "only players chat");
  }
  return {fields, words};
}

/** The line under the options: what this table changes from the rules' defaults and the server's timers. */
function showDiffers() {
  if (!FRIENDS) return;
  let changed;
  try {
    const options = readOptions();
    changed = FRIENDS.game.options.filter((o) => o.name in options)
      .map((o) => `${o.label}: ${valueWords(o, options[o.name])}`);
  } catch (e) { changed = ["an option that is not valid JSON"]; }
  changed.push(...readTimers().words);
  $("differs").textContent = changed.length ? `Changed from the defaults: ${changed.join("; ")}.`
    : "The rules' defaults (open Table options to change them).";
}

// ---- create the table, then the links to send --------------------------------------------------------------

async function createTable(ev) {
  ev.preventDefault();
  showError("");
  const status = $("create-status");
  status.textContent = "";
  status.classList.remove("refused");
  const game = FRIENDS.game;
  let options;
  try { options = readOptions(); } catch (e) {
    showRefusal({message: "an option is not valid JSON: " + e.message, code: "bad_request"}, status, "create");
    return;
  }
  const body = {game: game.name, players: playerCount(), options, seats: seatRequests(), ...readTimers().fields};
  $("create-button").disabled = true;
  try {
    const data = await postTable(body);
    rememberMade(data, game);
    showCreated(data);
    hooks.made();
  } catch (e) {
    const more = e.code === "too_many_tables" ? await unfinishedOffer(() => {
      status.textContent = "A table was cancelled: press Create table again.";
      hooks.made();
    }) : [];
    showRefusal(e, status, "create", more);
  } finally {
    $("create-button").disabled = false;
  }
}

/** Copy ``text``: the Clipboard API where the page may use it, else a selected field and the copy command. */
async function copyText(text, field) {
  try { await navigator.clipboard.writeText(text); return true; } catch (e) { /* not a secure page: fall back */ }
  field.select();
  return document.execCommand && document.execCommand("copy");
}

/** One seat's invite: the link in a read-only field, Copy, and Share where the browser has the Web Share API. */
function inviteItem(seat, gameTitle) {
  const url = location.origin + seat.link;
  const who = `Seat ${seat.seat + 1} (${seat.name})`;
  const field = el("input", {type: "text", readonly: "", "class": "invite", value: url, "aria-label": `Invite link for ${who}`});
  const copy = el("button", {type: "button", "class": "secondary small", "aria-label": `Copy link for ${who}`, text: "Copy"});
  copy.addEventListener("click", async () => {
    copy.textContent = (await copyText(url, field)) ? "Copied" : "Select and copy";
  });
  const li = el("li", {"data-seat": String(seat.seat)}, el("span", {"class": "invite-who", text: who + (seat.open ? ", open to anyone" : "")}),
                el("span", {"class": "invite-line"}, field, copy));
  if (navigator.share) {
    const share = el("button", {type: "button", "class": "secondary small", "aria-label": `Share link for ${who}`, text: "Share"});
    share.addEventListener("click", () => navigator.share({title: `${gameTitle} at motley`, text: `Your seat at ${gameTitle}`, url})
      .catch(() => { /* the player closed the share sheet */ }));
    li.querySelector(".invite-line").append(share);
  }
  return li;
}

function showCreated(data) {
  const game = FRIENDS.game;
  const others = data.seats.filter((s) => s.link && s.seat !== 0);
  const box = $("created");
  box.replaceChildren(el("h3", {text: "Your table is ready"}));
  if (others.length) {
    box.append(el("p", {text: "Send each friend their own link (it is their seat: keep it between you)."}),
               el("ul", {"class": "links"}, ...others.map((s) => inviteItem(s, game.title))));
  }
  box.append(el("p", {}, "People who only watch: ", el("a", {href: data.spectate, text: location.origin + data.spectate})));
  box.append(el("p", {}, el("a", {href: data.seats[0].link, id: "play-now", "class": "button"}, "Go to my seat")));
  box.scrollIntoView({block: "nearest"});
}

/** Wire the screen's controls once; ``given``: the lobby's hooks (see ``hooks``). */
export function wireFriends(given) {
  hooks = given;
  $("players").addEventListener("change", () => { renderSeats(); limitSeats(); showDiffers(); });
  $("create").addEventListener("submit", createTable);
  $("table-options").addEventListener("input", showDiffers);
  $("table-options").addEventListener("change", showDiffers);
  $("back").addEventListener("click", (ev) => { ev.preventDefault(); history.pushState(null, "", location.pathname); hooks.back(); });
}
