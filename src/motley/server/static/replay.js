"use strict";
const id = location.pathname.split("/").pop();
let step = 0, total = 0;
document.getElementById("record").href = `/api/tables/${id}/record`;
async function show(k) {
  const r = await fetch(`/api/tables/${id}/replay/${k}`);
  const d = await r.json();
  if (!r.ok) { document.getElementById("error").textContent = d.detail; return; }
  step = d.step; total = d.moves;
  document.getElementById("title").textContent = `Replay - ${d.title}`;
  document.getElementById("board").innerHTML = d.svg;
  document.getElementById("where").textContent = `move ${step} of ${total} - points ${d.scores.join(" / ")}`;
  const log = document.getElementById("log");
  log.replaceChildren(...d.log.slice().reverse().map((e) => {
    const div = document.createElement("div");
    div.textContent = `${e.n}. seat ${e.seat}: ${e.move === null ? "(a hidden move)" : e.move}`;
    return div;
  }));
}
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(Math.max(0, step - 1));
document.getElementById("next").onclick = () => show(step + 1);
document.getElementById("end").onclick = () => show(total);
show(0);
