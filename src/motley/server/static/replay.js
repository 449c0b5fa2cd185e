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

// ---- the moves in words: a served replay reads the game's cards (/api/games); a replay file shows the codes ------
/** @type {Record<string, {name: string}>} */
let CARDS = {};

async function loadCards() {
  if (embedded) return;
  try {
    const [r, games] = await getJson("/api/games");
    if (r.ok) CARDS = games.find((g) => g.title === INDEX.title)?.cards || {};
  } catch { /* the moves stay as codes */ }
}

/** A card in a sentence: "the green 12", "the Fool". */
function cardWords(code) {
  const words = CARDS[code]?.name || code;
  return words.startsWith("the ") ? words : `the ${words}`;
}

/** Names or cards joined as a sentence: "a", "a and b", "a, b and c". */
function joinWords(words) {
  return words.length < 2 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

/** A log entry in words: "3. Ann played the green 12", "4. Bob had to pass", "5. Cy gave the red 3 and the blue 9",
 * with who made the move where it was not the seat's person ("out of time", "away: a bot played for them"); a move
 * the page has no words for is shown as its code ("6. Di: draw"). */
function logLine(e) {
  const who = `${e.n}. ${name(e.seat) || "seat " + (e.seat + 1)}`;
  const by = {timer: " (out of time: played for them)", away: " (away: a bot played for them)"}[e.actor] || "";
  if (e.move === null) return `${who} made a move you cannot see${by}`;
  const parts = e.move.split(" ");
  let text;
  if (e.move === "pass") text = e.forced ? "had to pass" : "passed";
  else if (parts[0] === "give" && parts.length > 1 && parts.slice(1).every((c) => c in CARDS)) {
    text = `gave ${joinWords(parts.slice(1).map(cardWords))}`;
  } else if (parts.every((c) => c in CARDS)) {
    text = `${e.forced ? "had to play" : "played"} ${joinWords(parts.map(cardWords))}`;
  } else return `${who}: ${e.move}${by}`;
  return `${who} ${text}${by}`;
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
    el("div", {text: logLine(e)})));
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
// The graph is drawn at the width of its box (in CSS pixels, so its points and words keep their size on a phone),
// and wider, its box then scrolling sideways, where its points would be less than STEP_PX apart: each point is a
// target of at least 24 px to tap.
const GRAPH = {width: 640, height: 170, left: 40, right: 14, top: 10, bottom: 14};
const STEP_PX = 28;
let analysis = null, polling = null;
/** Where the graph puts each replay step: [step, x] anchors (the start, each decision, the end), joined by lines. */
let anchors = [];

/** A new SVG element with these attributes (``text``: its text). */
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, String(v));
  }
  for (const c of children) e.append(c);
  return e;
}

function pct(x) { return `${Math.round(100 * x) + 0}%`; }
function signed(x) { const t = `${x >= 0 ? "+" : ""}${x.toFixed(1)}`; return t === "+0.0" || t === "-0.0" ? "0.0" : t; }

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

/** Whose moves are the seat's own (as the analysis's summary counts them): the person's where the seat has any,
 * else the bot's at a bot's seat; the others were a stand-in's (a bot for a person away, the timer). */
function ownActors(decisions) {
  return decisions.some((d) => (d.actor || "seat") === "seat") ? ["seat"] : ["bot"];
}

/** Who made a decision, in words, where it was not the seat's own (its person's, or its bot's at a bot's seat):
 * "" for the seat's own. */
function actorWords(d, own) {
  const actor = d.actor || "seat";
  if (own.includes(actor)) return "";
  return {away: "a stand-in bot played (the person was away)", timer: "the timer played (out of time)",
          bot: "a bot played"}[actor] || `${actor} played`;
}

function playedRow(d) { return d.moves.find((m) => m.move === d.played); }
function searchedEnough(m) { return m.enough !== false; }

/** The x of a replay step on the graph (along the anchors). */
function xAt(k) {
  for (let i = 1; i < anchors.length; i++) {
    const [s0, x0] = anchors[i - 1], [s1, x1] = anchors[i];
    if (k <= s1) return s1 === s0 ? x1 : x0 + (x1 - x0) * (k - s0) / (s1 - s0);
  }
  return anchors.length ? anchors[anchors.length - 1][1] : GRAPH.left;
}

/** The seat's estimated chance of winning the deal after each decision (the move played), one point a decision
 * in their order, as an inline SVG; a point is a button that jumps to the decision. A stand-in's decision is drawn
 * grey, a move searched too little to judge hollow. */
function analysisGraph(decisions) {
  const box = $("analysis-graph");
  const room = Math.max(280, Math.min(820, box.clientWidth || 640));
  const {height, left, right, top, bottom} = GRAPH;
  GRAPH.width = Math.max(room, left + right + STEP_PX * (decisions.length + 1));
  const width = GRAPH.width;
  const gap = (width - left - right) / (decisions.length + 1);
  const xs = decisions.map((_, k) => left + gap * (k + 1));
  anchors = [[0, left], ...decisions.map((d, k) => [d.index, xs[k]]), [Math.max(1, INDEX.moves), width - right]];
  const y = (p) => top + (height - top - bottom) * (1 - p);
  const chart = svg("svg", {viewBox: `0 0 ${width} ${height}`, width, height, class: "win-graph", role: "img",
                            "aria-label": `${name(analysis.seat)}'s estimated chance of winning the deal after each decision`});
  for (const p of [0, 0.5, 1]) {
    chart.append(svg("line", {x1: left, x2: width - right, y1: y(p), y2: y(p), class: "grid"}),
                 svg("text", {x: left - 6, y: y(p) + 4, "text-anchor": "end", class: "axis", text: pct(p)}));
  }
  for (const m of INDEX.marks) chart.append(svg("line", {x1: xAt(m.step), x2: xAt(m.step), y1: top, y2: height - bottom, class: "deal"}));
  chart.append(svg("line", {id: "graph-now", x1: xAt(step), x2: xAt(step), y1: top, y2: height - bottom, class: "now"}));
  chart.append(svg("polyline", {class: "win-line", points: decisions.map((d, k) => `${xs[k]},${y(playedRow(d).win)}`).join(" ")}));
  const own = ownActors(decisions);
  // Each point is pressed anywhere in its own slice of the plot (half-way to its neighbours): never less than
  // STEP_PX wide, and points never cover each other's target.
  decisions.forEach((d, k) => {
    const row = playedRow(d);
    const who = actorWords(d, own);
    const standIn = !own.includes(d.actor || "seat");
    const thin = !searchedEnough(row);
    const label = `Move ${d.index + 1}: ${d.played_words}, ${thin ? "not searched enough" : `${pct(row.win)} to win the deal`}` +
      `${d.mark ? ` (${d.mark})` : ""}${standIn ? ` (${who})` : ""}`;
    const from = xs[k] - gap / 2, to = xs[k] + gap / 2;
    const point = svg("g", {class: "point-hit", role: "button", tabindex: "0", "aria-label": label, "data-step": d.index},
                      svg("title", {text: label}),
                      svg("rect", {x: from, y: top, width: to - from, height: height - top - bottom}),
                      svg("circle", {cx: xs[k], cy: y(row.win), r: d.mark ? 7 : 5,
                                     class: `point ${d.mark || "fine"}${standIn ? " stand-in" : ""}${thin ? " thin" : ""}`}));
    const go = () => { pause(); show(d.index, 0); $("board").scrollIntoView({block: "nearest"}); };
    point.addEventListener("click", go);
    point.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); ev.stopPropagation(); go(); } });
    chart.append(point);
  });
  return chart;
}

function movesTable(d) {
  const best = new Set([d.choice, ...(d.as_good || [])]);
  return el("table", {class: "estimates"},
    el("tr", {}, ...["move", "deals searched", "win chance (95%)", "points"].map((h) => el("th", {text: h}))),
    ...d.moves.map((m) => el("tr", {class: m.move === d.played ? "played" : best.has(m.move) ? "choice" : ""},
      el("td", {text: `${m.words}${m.move === d.played ? " (played)" : ""}${m.move === d.choice ? " (best)" : best.has(m.move) ? " (as good)" : ""}`}),
      el("td", {text: String(m.visits)}),
      el("td", {text: searchedEnough(m) ? `${pct(m.win)} (${pct(m.win_low)}-${pct(m.win_high)})` : "? not searched enough"}),
      el("td", {text: searchedEnough(m) ? `${signed(m.points)} \u00b1 ${m.points_se.toFixed(1)}` : "?"}))));
}

function decisionItem(d, own) {
  const jump = el("button", {type: "button", class: "small", "aria-label": `Go to move ${d.index + 1}`, text: `move ${d.index + 1}`});
  jump.addEventListener("click", () => { pause(); show(d.index, 0); $("board").scrollIntoView({block: "nearest"}); });
  const who = actorWords(d, own);
  const standIn = !own.includes(d.actor || "seat");
  const tags = [];
  if (d.mark) tags.push(el("strong", {class: `mark ${d.mark}`, text: d.mark_on === "points" ? `${d.mark} (points)` : d.mark}), " ");
  if (who) tags.push(el("em", {class: standIn ? "actor stand-in" : "actor", text: standIn ? `${who}, left out of the figures:` : `${who}:`}), " ");
  if (!searchedEnough(playedRow(d))) tags.push(el("em", {class: "thin", text: "not searched enough:"}), " ");
  const details = el("details", {}, el("summary", {text: `${d.moves.length} moves`}), movesTable(d));
  return el("li", {"data-step": String(d.index), class: [d.mark || "", standIn ? "stand-in" : ""].join(" ").trim()},
            jump, " ", ...tags, el("span", {text: d.why}), details);
}

/** The per-seat figure in words: decisions reviewed, accuracy (the share not marked), the win chance and points
 * lost per decision on average, and the stand-in's decisions left out (a summary of the first format has only
 * the counts and the sums: the same figures are worked out from them). */
function summaryWords(a) {
  const s = a.summary, who = name(a.seat);
  const count = s.decisions;
  const standIn = s.stand_in ? ` ${s.stand_in} decision${s.stand_in === 1 ? "" : "s"} a stand-in made for them ${s.stand_in === 1 ? "is" : "are"} left out.` : "";
  if (!count) return `${who}: no decision of their own to review.${standIn}`;
  const accuracy = s.accuracy ?? 1 - s.marked / count;
  const win = s.win_lost_per_decision ?? s.win_lost / count;
  const points = s.points_lost_per_decision ?? s.points_lost / count;
  const marks = `${s.inaccuracies} inaccurac${s.inaccuracies === 1 ? "y" : "ies"}, ${s.mistakes} mistake${s.mistakes === 1 ? "" : "s"}`;
  return `${who}: accuracy ${pct(accuracy)} (${count} decision${count === 1 ? "" : "s"} reviewed: ${marks}); ` +
    `on average ${(100 * win).toFixed(1)} percentage points of win chance and ${points.toFixed(1)} points lost a decision.` +
    `${standIn} Reviewed by ${a.searcher_words || `a search of ${a.simulations} sampled deals per decision`}; the ` +
    `graph shows the win chance of the deal after each move played.`;
}

function drawAnalysis() {
  const graph = $("analysis-graph"), list = $("analysis-decisions");
  if (!analysis) { graph.replaceChildren(); list.replaceChildren(); $("analysis-summary").textContent = ""; return; }
  $("analysis-summary").textContent = summaryWords(analysis);
  graph.replaceChildren(analysisGraph(analysis.decisions));
  const own = ownActors(analysis.decisions);
  list.replaceChildren(...analysis.decisions.map((d) => decisionItem(d, own)));
  markAnalysis();
}

/** Show where the replay is on the graph and in the list of decisions. */
function markAnalysis() {
  const now = document.getElementById("graph-now");
  if (!now || !analysis) return;
  const at = xAt(step);
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
  await loadCards();
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
