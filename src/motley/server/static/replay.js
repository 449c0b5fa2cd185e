// @ts-check
// The replay viewer, the replay page's module. Served at /replay/ID it reads the server's replay routes; written by
// `motley replay RECORD --html FILE` the same module reads the steps embedded in the page (#replay-data), with
// dom.js inlined before it in place of its import.
import { $, el } from "/static/dom.js";

const params = new URLSearchParams(location.search);
const tableId = location.pathname.split("/").pop();
const embedded = $("replay-data");
/** @typedef {import("./schema/messages").ReplayIndex} ReplayIndex */
/** @typedef {import("./schema/messages").ReplayStep} ReplayStep */
/** @type {ReplayIndex | null} */
let INDEX = null;
/** @type {ReplayStep | null} */
let current = null;
/** @type {Map<string, Promise<ReplayStep>>} */
const cache = new Map();
let step = 0, sub = 0, view = "public", timer = null;

// ---- where the steps come from: the server, or the data embedded in this file --------------------------
async function embeddedData() {
  if (embedded.dataset.encoding !== "gzip+base64") return JSON.parse(embedded.textContent);
  const bytes = Uint8Array.from(atob(embedded.textContent.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).json();
}

/** The replay embedded in a one-file viewer: the index and every step of every view ("public", "0", "1"...).
 * @type {{index: ReplayIndex, steps: Record<string, ReplayStep[]>} | null} */
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

/** @returns {Promise<ReplayIndex>} */
async function loadIndex() {
  if (embedded) { DATA = await embeddedData(); return DATA.index; }
  const [r, d] = await getJson(`/api/tables/${tableId}/replay`);
  if (!r.ok) throw new Error(d.error?.message || "no replay");
  return d;
}

/** @param {number} k @param {string} v @returns {Promise<ReplayStep>} */
async function loadStep(k, v) {
  if (DATA) return DATA.steps[v][k];
  const key = `${v}/${k}`;
  if (!cache.has(key)) {
    const q = v === "public" ? "" : `?view=${v}`;
    cache.set(key, getJson(`/api/tables/${tableId}/replay/${k}${q}`).then(([r, d]) => {
      if (!r.ok) { cache.delete(key); throw new Error(d.error?.message || "no such step"); }
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
  markAnalysis();
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

// ---- the analysis of one seat's decisions (a served replay: /api/tables/ID/analysis) ----------------------
const SVG_NS = "http://www.w3.org/2000/svg";
// the graph is drawn at the width of its box (in CSS pixels, so its points and words keep their size on a phone)
const GRAPH = {width: 640, height: 170, left: 40, right: 12, top: 10, bottom: 14};
let analysis = null, polling = null;

/** A new SVG element with these attributes (``text``: its text). */
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, String(v));
  }
  for (const c of children) e.append(c);
  return e;
}

function pct(x) { return `${Math.round(100 * x)}%`; }
function signed(x) { return `${x >= 0 ? "+" : ""}${x.toFixed(1)}`; }

async function askAnalysis(method) {
  const r = await fetch(`/api/tables/${tableId}/analysis?seat=${$("analysis-seat").value}`, {method});
  const d = await r.json();
  if (!r.ok) throw new Error(d.error?.message || "the analysis is not available");
  return d;
}

function analysisState(d) {
  const bar = $("analysis-progress");
  bar.hidden = d.status !== "running";
  $("analyse").disabled = d.status === "running" || d.status === "done";
  $("analyse").textContent = d.status === "done" ? "Analysed" : "Analyse";
  const words = {
    none: "Not analysed yet: Analyse searches each decision of this seat (about a minute for a long match).",
    running: d.total ? `Analysing: decision ${d.done} of ${d.total}.` : "Analysing: reading the match.",
    failed: `The analysis failed: ${d.error || "unknown error"}.`, done: ""};
  $("analysis-status").textContent = words[d.status] || "";
  if (d.status === "running") { bar.max = Math.max(1, d.total); bar.value = d.done; }
  analysis = d.status === "done" ? d.result : null;
  drawAnalysis();
}

async function pollAnalysis(method) {
  clearTimeout(polling);
  try {
    const d = await askAnalysis(method);
    analysisState(d);
    if (d.status === "running") polling = setTimeout(() => pollAnalysis("GET"), 700);
  } catch (err) {
    $("analysis-status").textContent = err.message;
  }
}

/** The seat's estimated chance of winning the deal after each decision (the move played), one point a decision,
 * as an inline SVG; a point is a button that jumps to the decision. */
function analysisGraph(decisions) {
  GRAPH.width = Math.max(280, Math.min(820, $("analysis-graph").clientWidth || 640));
  const {width, height, left, right, top, bottom} = GRAPH;
  const moves = Math.max(1, INDEX.moves);
  const x = (k) => left + (width - left - right) * k / moves;
  const y = (p) => top + (height - top - bottom) * (1 - p);
  const chart = svg("svg", {viewBox: `0 0 ${width} ${height}`, class: "win-graph", role: "img",
                            "aria-label": `${name(analysis.seat)}'s estimated chance of winning the deal after each decision`});
  for (const p of [0, 0.5, 1]) {
    chart.append(svg("line", {x1: left, x2: width - right, y1: y(p), y2: y(p), class: "grid"}),
                 svg("text", {x: left - 6, y: y(p) + 4, "text-anchor": "end", class: "axis", text: pct(p)}));
  }
  for (const m of INDEX.marks) chart.append(svg("line", {x1: x(m.step), x2: x(m.step), y1: top, y2: height - bottom, class: "deal"}));
  chart.append(svg("line", {id: "graph-now", x1: x(step), x2: x(step), y1: top, y2: height - bottom, class: "now"}));
  const played = (d) => d.moves.find((m) => m.move === d.played);
  chart.append(svg("polyline", {class: "win-line", points: decisions.map((d) => `${x(d.index)},${y(played(d).win)}`).join(" ")}));
  // Each point is pressed anywhere in its own slice of the plot (half-way to its neighbours, at most 12 px either
  // side), so points that lie close together never cover each other's target.
  const xs = decisions.map((d) => x(d.index));
  decisions.forEach((d, k) => {
    const row = played(d);
    const label = `Move ${d.index + 1}: ${d.played_words}, ${pct(row.win)} to win the deal${d.mark ? ` (${d.mark})` : ""}`;
    const from = k > 0 ? Math.max((xs[k - 1] + xs[k]) / 2, xs[k] - 12) : Math.max(left, xs[k] - 12);
    const to = k + 1 < xs.length ? Math.min((xs[k] + xs[k + 1]) / 2, xs[k] + 12) : Math.min(width - right, xs[k] + 12);
    const point = svg("g", {class: "point-hit", role: "button", tabindex: "0", "aria-label": label, "data-step": d.index},
                      svg("title", {text: label}),
                      svg("rect", {x: from, y: top, width: Math.max(1, to - from), height: height - top - bottom}),
                      svg("circle", {cx: xs[k], cy: y(row.win), r: d.mark ? 7 : 5, class: `point ${d.mark || "fine"}`}));
    const go = () => { pause(); show(d.index, 0); $("board").scrollIntoView({block: "nearest"}); };
    point.addEventListener("click", go);
    point.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); ev.stopPropagation(); go(); } });
    chart.append(point);
  });
  return chart;
}

function movesTable(d) {
  return el("table", {class: "estimates"},
    el("tr", {}, ...["move", "deals searched", "win chance (95%)", "points"].map((h) => el("th", {text: h}))),
    ...d.moves.map((m) => el("tr", {class: m.move === d.played ? "played" : m.move === d.choice ? "choice" : ""},
      el("td", {text: `${m.words}${m.move === d.played ? " (played)" : ""}${m.move === d.choice ? " (choice)" : ""}`}),
      el("td", {text: String(m.visits)}),
      el("td", {text: `${pct(m.win)} (${pct(m.win_low)}-${pct(m.win_high)})`}),
      el("td", {text: `${signed(m.points)} \u00b1 ${m.points_se.toFixed(1)}`}))));
}

function decisionItem(d) {
  const jump = el("button", {type: "button", class: "small", "aria-label": `Go to move ${d.index + 1}`, text: `move ${d.index + 1}`});
  jump.addEventListener("click", () => { pause(); show(d.index, 0); $("board").scrollIntoView({block: "nearest"}); });
  const mark = d.mark ? el("strong", {class: `mark ${d.mark}`, text: d.mark}) : "";
  const details = el("details", {}, el("summary", {text: `${d.moves.length} moves`}), movesTable(d));
  return el("li", {"data-step": String(d.index), class: d.mark || ""}, jump, " ", mark, d.mark ? " " : "",
            el("span", {text: d.why}), details);
}

function drawAnalysis() {
  const graph = $("analysis-graph"), list = $("analysis-decisions");
  if (!analysis) { graph.replaceChildren(); list.replaceChildren(); $("analysis-summary").textContent = ""; return; }
  const s = analysis.summary;
  $("analysis-summary").textContent = `${name(analysis.seat)}: ${s.decisions} decisions reviewed, ${s.agreed} as the search ` +
    `would play; ${s.inaccuracies} inaccurac${s.inaccuracies === 1 ? "y" : "ies"}, ${s.mistakes} mistake${s.mistakes === 1 ? "" : "s"}` +
    (s.marked ? `, which cost ${s.points_lost.toFixed(1)} points by the estimate` + (s.win_lost > 0 ? ` (and ` +
                `${Math.round(100 * s.win_lost)} percentage points of the deals' win chances, added up).` : ".") : ".") +
    ` (${analysis.simulations} deals searched a decision; the graph shows the win chance after the move played.)`;
  graph.replaceChildren(analysisGraph(analysis.decisions));
  list.replaceChildren(...analysis.decisions.map(decisionItem));
  markAnalysis();
}

/** Show where the replay is on the graph and in the list of decisions. */
function markAnalysis() {
  const now = document.getElementById("graph-now");
  if (!now || !analysis) return;
  const {width, left, right} = GRAPH;
  const at = left + (width - left - right) * step / Math.max(1, INDEX.moves);
  now.setAttribute("x1", String(at)); now.setAttribute("x2", String(at));
  for (const li of /** @type {HTMLCollectionOf<HTMLElement>} */ ($("analysis-decisions").children)) li.classList.toggle("current", Number(li.dataset.step) === step);
}

function initAnalysis() {
  if (embedded || !INDEX.finished) return;
  $("analysis-panel").hidden = false;
  INDEX.names.forEach((n, i) => $("analysis-seat").append(el("option", {value: String(i), text: n})));
  const wanted = params.get("seat") ?? params.get("view");
  if (wanted !== null && INDEX.names[Number(wanted)] !== undefined) $("analysis-seat").value = wanted;
  $("analyse").addEventListener("click", () => pollAnalysis("POST"));
  $("analysis-seat").addEventListener("change", () => pollAnalysis("GET"));
  pollAnalysis("GET");
  let resized = null;
  window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(drawAnalysis, 150); });
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
  initAnalysis();
  const wanted = params.get("view");
  if (wanted !== null && [...$("view").options].some((o) => o.value === wanted)) view = wanted;
  await show(Number(params.get("step") || 0), "all");
}
init();
