#!/usr/bin/env node
// An example motley external bot in JavaScript (protocol motley-bot/1, docs/external_bots.md).
// It reads one JSON object per line on stdin and answers one move per line on stdout.
// In The Fool's Errand it plays its Joker when the cards in play are worth at least 15 points;
// in any other game (or decision) it answers a random legal move.
"use strict";
const readline = require("readline");

const POINTS = { A: 1, J: 10, Q: 10, K: 10 };
function cardPoints(code) {
  const rank = code.slice(0, -1);
  return POINTS[rank] !== undefined ? POINTS[rank] : Number(rank);
}

function choose(msg) {
  const moves = msg.legal_moves;
  if (msg.game === "fools_errand" && moves.includes("play joker")) {
    const pot = msg.observation.in_play.reduce((sum, entry) => sum + cardPoints(entry.card), 0);
    if (pot >= 15) return "play joker";
    const other = moves.find((m) => m !== "play joker");
    if (other) return other;
  }
  return moves[Math.floor(Math.random() * moves.length)];
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "act") process.stdout.write(JSON.stringify({ move: choose(msg) }) + "\n");
});
