"use strict";
// The replay viewer. Served at /replay/ID it reads the server's replay routes; written by
// `motley replay RECORD --html FILE` the same script reads the steps embedded in the page (#replay-data).
// $ and el come from dom.js, loaded before this script.
const params = new URLSearchParams(location.search);
const tableId = location.pathname.split("/").pop();
const embedded = $("replay-data");
let INDEX = null;
let step = 0, sub = 0, view = "public", current = null, timer = null, cache = new Map();

// ---- where the steps come from: the server, or the data embedded in this file --------------------------
async function embeddedData() {
  if (embedded.dataset.encoding !== "gzip+base64") return JSON.parse(embedded.textContent);
  const bytes = Uint8Array.from(atob(embedded.textContent.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).json();
}

let DATA = null;
// GET one of the server's JSON answers: [response, data]. A 429 (this address has too many replays being
// built at once) is asked again after the Retry-After it gives, up to 10 times.
async function getJson(url) {
  for (let tries = 1; ; tries++) {
    const r = await fetch(url);
    if (r.status === 429 && tries < 10) {
      await new Promise((done) => setTimeout(done, 1000 * (Number(r.headers.get("Retry-After")) || 1)));
      continue;
    }
    return [r, await r.json()];
  }
}

async function loadIndex() {
  if (embedded) { DATA = await embeddedData(); return DATA.index; }
  const [r, d] = await getJson(`/api/tables/${tableId}/replay`);
  if (!r.ok) throw new Error(d.detail || "no replay");
  return d;
}

async function loadStep(k, v) {
  if (DATA) return DATA.steps[v][k];
  const key = `${v}/${k}`;
  if (!cache.has(key)) {
    const q = v === "public" ? "" : `?view=${v}`;
    cache.set(key, getJson(`/api/tables/${tableId}/replay/${k}${q}`).then(([r, d]) => {
      if (!r.ok) { cache.delete(key); throw new Error(d.detail || "no such step"); }
      return d;
    }));
  }
  return cache.get(key);
}

// ---- drawing --------------------------------------------------------------------------------------------
function name(seat) {
  return INDEX.names[seat] !== undefined && seat >= 0 ? INDEX.names[seat] : "";
}

function eventWords(e) {
  if (e === null || typeof e !== "object") return String(e);
  const what = String(e.event || e.type || "").replace(/_/g, " ");
  const cards = e.card || e.cards || "";
  const who = typeof e.seat === "number" && e.seat >= 0 ? name(e.seat) + " " : "";
  const extra = Object.entries(e).filter(([k, x]) => !["event", "type", "seat", "card", "cards"].includes(k) &&
                                                     (typeof x === "number" || typeof x === "string"))
    .map(([k, x]) => `${k.replace(/_/g, " ")} ${x}`).join(", ");
  return `${who}${what}${cards ? " " + cards : ""}${extra ? " (" + extra + ")" : ""}`;
}

function scoreRow(cells, head) {
  return el("tr", {}, ...cells.map((c) => el(head ? "th" : "td", {text: String(c)})));
}

function drawSheet() {
  const sheet = $("sheet");
  sheet.replaceChildren(scoreRow(["", ...INDEX.names], true),
                        ...INDEX.sheet.map((r) => scoreRow([r.stage, ...r.scores], false)));
}

function draw() {
  const d = current;
  $("board").innerHTML = d.svg;
  $("scores").replaceChildren(scoreRow(INDEX.names, true), scoreRow(d.scores, false));
  const events = d.events || [];
  $("events-panel").hidden = events.length === 0;
  $("events").replaceChildren(...events.map((e, i) => el("li", {"class": i < sub ? (i === sub - 1 ? "shown current" : "shown") : "later",
                                                              text: eventWords(e)})));
  const subText = events.length ? ` - event ${sub} of ${events.length}` : "";
  $("where").textContent = `move ${d.step} of ${d.moves}${subText} - ${d.stage}`;
  $("log").replaceChildren(...d.log.slice().reverse().map((e) =>
    el("div", {text: `${e.n}. ${name(e.seat) || "seat " + e.seat}: ${e.move === null ? "(a hidden move)" : e.move}`})));
  const mark = INDEX.marks.filter((m) => m.step <= d.step).pop();
  if (mark) $("jump").value = String(mark.step);
  $("view").value = view;
  const link = shareLink();
  $("share").href = link;
  if (!embedded) history.replaceState(null, "", link);
}

function shareLink() {
  const q = new URLSearchParams({step: String(step)});
  if (view !== "public") q.set("view", view);
  return `${location.pathname}?${q}`;
}

async function show(k, subStep) {
  $("error").textContent = "";
  try {
    const d = await loadStep(Math.max(0, Math.min(k, INDEX.moves)), view);
    step = d.step;
    current = d;
    const n = (d.events || []).length;
    sub = subStep === "all" ? n : Math.max(0, Math.min(subStep || 0, n));
    draw();
  } catch (err) {
    $("error").textContent = err.message;
    pause();
  }
}

// ---- stepping, playing, keys ------------------------------------------------------------------------------
function atEnd() { return step >= INDEX.moves && sub >= (current.events || []).length; }

async function forward() {
  if (sub < (current.events || []).length) { sub += 1; draw(); return; }
  if (step < INDEX.moves) await show(step + 1, 0);
}

async function back() {
  if (sub > 0 && sub < (current.events || []).length) { sub -= 1; draw(); return; }
  if (step > 0) await show(step - 1, "all");
}

function pause() {
  if (timer !== null) clearTimeout(timer);
  timer = null;
  $("play").textContent = "play";
  $("play").setAttribute("aria-label", "Play");
}

function tick() {
  if (atEnd()) { pause(); return; }
  forward().then(() => { if (timer !== null) timer = setTimeout(tick, Number($("speed").value)); });
}

function play() {
  if (timer !== null) { pause(); return; }
  if (atEnd()) show(0, 0);
  $("play").textContent = "pause";
  $("play").setAttribute("aria-label", "Pause");
  timer = setTimeout(tick, Number($("speed").value));
}

function onKey(ev) {
  if (ev.target instanceof HTMLSelectElement || ev.target instanceof HTMLInputElement) return;
  const keys = {ArrowRight: forward, ArrowLeft: back, " ": play, Home: () => show(0, 0),
                End: () => show(INDEX.moves, "all")};
  const act = keys[ev.key];
  if (!act) return;
  ev.preventDefault();
  if (ev.target instanceof HTMLButtonElement) ev.target.blur();  // so the key does not also press the button
  if (ev.key !== " ") pause();
  act();
}

async function init() {
  try { INDEX = await loadIndex(); } catch (err) { $("error").textContent = err.message; return; }
  $("title").textContent = `Replay - ${INDEX.title}`;
  document.title = `${INDEX.title} - replay`;
  if (embedded) { $("record").hidden = true; $("lobby-link").hidden = true; }
  else $("record").href = `/api/tables/${tableId}/record`;
  $("jump").append(...INDEX.marks.map((m) => el("option", {value: String(m.step), text: `${m.stage} (move ${m.step})`})));
  $("jump").disabled = INDEX.marks.length === 0;
  $("view").append(el("option", {value: "public", text: "public (what a spectator saw)"}));
  if (INDEX.finished) INDEX.names.forEach((n, i) => $("view").append(el("option", {value: String(i), text: `${n}'s view (hand shown)`})));
  drawSheet();
  $("first").addEventListener("click", () => { pause(); show(0, 0); });
  $("prev").addEventListener("click", () => { pause(); back(); });
  $("next").addEventListener("click", () => { pause(); forward(); });
  $("end").addEventListener("click", () => { pause(); show(INDEX.moves, "all"); });
  $("play").addEventListener("click", play);
  $("jump").addEventListener("change", () => { pause(); show(Number($("jump").value), 0); });
  $("view").addEventListener("change", () => { view = $("view").value; show(step, sub); });
  document.addEventListener("keydown", onKey);
  const wanted = params.get("view");
  if (wanted !== null && [...$("view").options].some((o) => o.value === wanted)) view = wanted;
  await show(Number(params.get("step") || 0), "all");
}
init();
