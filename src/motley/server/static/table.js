"use strict";
const $ = (id) => document.getElementById(id);
const tableId = location.pathname.split("/").pop();
const token = new URLSearchParams(location.search).get("token");
let ws = null;
let last = null;
let retry = 500;
let deadlineAt = null;
let stopped = false;

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function seatLabel(msg, s) {
  if (msg.seat === s) return "You";
  const info = msg.seats[s];
  return info ? `${info.name} (seat ${s})` : `Seat ${s}`;
}

function showSeats(msg) {
  const rows = [el("tr", {}, el("th", {text: "seat"}), el("th", {text: "points"}), el("th", {text: ""}))];
  msg.seats.forEach((s, i) => {
    const state = s.kind === "bot" ? "bot" : s.away ? "away: bot plays" : s.connected ? "online" : "offline";
    rows.push(el("tr", {}, el("td", {text: seatLabel(msg, i)}), el("td", {text: String(msg.scores[i])}),
                 el("td", {text: state})));
  });
  $("scores").replaceChildren(el("table", {"class": "scores"}, ...rows));
}

function statusText(msg) {
  if (msg.terminal) return "The match is over.";
  const p = msg.current_player;
  if (p === msg.seat) return "Your turn";
  return `Waiting for ${seatLabel(msg, p)}`;
}

function render(msg) {
  last = msg;
  document.title = `motley - ${msg.title}`;
  $("title").textContent = msg.title;
  $("who").textContent = msg.seat === null ? "watching (public view)" : `you are seat ${msg.seat}`;
  if (msg.svg) $("board").innerHTML = msg.svg;
  const status = $("status");
  status.textContent = statusText(msg);
  status.className = !msg.terminal && msg.current_player === msg.seat ? "yours" : "";
  status.dataset.version = String(msg.version);
  deadlineAt = msg.deadline === null ? null : Date.now() + msg.deadline * 1000;
  const moves = $("moves");
  moves.replaceChildren();
  if (msg.legal.length) {
    for (const m of msg.legal) {
      const b = el("button", {type: "button", "class": "move", "data-move": m.move, "data-action": String(m.action),
                              title: m.move});
      if (m.svg) { const span = el("span"); span.innerHTML = m.svg; b.append(span); }
      else b.textContent = m.move;
      b.addEventListener("click", () => sendMove(m.action));
      moves.append(b);
    }
  } else {
    moves.append(el("span", {"class": "muted", text: msg.terminal ? "no more moves" : msg.seat === null ? "spectators do not move" : "not your turn"}));
  }
  showSeats(msg);
  const log = $("log");
  log.replaceChildren(...msg.log.slice().reverse().map((e) => el("div", {"class": "entry",
    text: `${e.n}. ${seatLabel(msg, e.seat)}${e.actor === "seat" ? "" : " [" + e.actor + "]"}: ${e.move === null ? "(a hidden move)" : e.move}`})));
  const banner = $("banner");
  if (msg.terminal) {
    let verdict = "";
    if (msg.seat !== null && msg.returns) {
      const r = msg.returns[msg.seat];
      verdict = r > 0 ? " You win!" : r < 0 ? " You lose." : " A draw.";
    }
    banner.replaceChildren(el("div", {"class": "banner", id: "match-over",
      text: `Match over. Final points: ${msg.scores.join(" / ")}.${verdict}`}),
      el("p", {}, el("a", {href: `/replay/${tableId}`, text: "replay this match"}), " - ", el("a", {href: "/", text: "back to the lobby"})));
  } else banner.replaceChildren();
}

function sendMove(action) {
  if (!ws || ws.readyState !== WebSocket.OPEN || !last) return;
  $("error").textContent = "";
  ws.send(JSON.stringify({type: "move", version: last.version, action}));
  for (const b of document.querySelectorAll("#moves button")) b.disabled = true;
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const q = new URLSearchParams({svg: "1"});
  if (token) q.set("token", token);
  ws = new WebSocket(`${proto}://${location.host}/ws/${tableId}?${q}`);
  ws.onopen = () => { $("conn").textContent = "connected"; retry = 500; };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "state") render(msg);
    else if (msg.type === "seats" && last) { last.seats = msg.seats; showSeats(last); }
    else if (msg.type === "error") {
      $("error").textContent = msg.message;
      if (msg.code === "bad_token" || msg.code === "no_table") stopped = true;
      for (const b of document.querySelectorAll("#moves button")) b.disabled = false;
    }
  };
  ws.onclose = () => {
    $("conn").textContent = stopped ? "closed" : "reconnecting...";
    if (!stopped) { setTimeout(connect, retry); retry = Math.min(retry * 2, 8000); }
  };
}

setInterval(() => {
  if (deadlineAt !== null && last && !last.terminal) {
    const left = Math.max(0, Math.round((deadlineAt - Date.now()) / 1000));
    $("status").textContent = `${statusText(last)} - ${left}s left`;
  }
}, 500);
connect();
