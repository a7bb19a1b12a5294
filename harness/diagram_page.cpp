#include "harness/diagram_page.h"

namespace harness {

namespace {

// Layout constants live in the script: lanes are rows, time runs left to right. After drawing,
// the script records where each lane's swatch landed on the page (data-swatch-x/y), where the time
// axis lies (body[data-plot]) and sets body[data-rendered], so a headless browser test can find
// lanes and periods in a screenshot.
constexpr const char* page_head = R"PAGE(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>electsim diagram</title>
<style>
  body { font: 13px/1.4 "DejaVu Sans", "Liberation Sans", Arial, sans-serif; margin: 0; color: #222; background: #fff; }
  header { padding: 8px 12px 4px; border-bottom: 1px solid #ddd; }
  h1 { font-size: 16px; margin: 0 0 4px; }
  .controls { margin-bottom: 4px; }
  .controls label { margin-right: 10px; white-space: nowrap; }
  .controls input[type=number] { width: 7em; }
  #legend span { display: inline-block; margin-right: 12px; font-size: 12px; }
  #legend i { display: inline-block; width: 14px; height: 10px; margin-right: 4px; vertical-align: middle; border: 1px solid #888; }
  #plot { padding: 4px 0; user-select: none; }
  #tip { position: fixed; pointer-events: none; background: #fffbe6; border: 1px solid #c9b458; padding: 4px 6px;
         max-width: 560px; display: none; font-size: 12px; white-space: pre-wrap; z-index: 2; }
  svg text { font-size: 11px; fill: #222; }
  svg .lane-name { font-size: 12px; font-weight: bold; }
  svg .msg { stroke-width: 1.2; fill: none; }
  svg .msg.hot { stroke-width: 3; }
  svg .lost { stroke-dasharray: 4 3; }
  #note { color: #a33; }
</style>
</head>
<body>
<header>
  <h1 id="title">electsim diagram</h1>
  <div class="controls">
    <label>from <input id="from" type="number" step="any"> s</label>
    <label>to <input id="to" type="number" step="any"> s</label>
    <button id="zoom">zoom</button>
    <button id="reset">whole run</button>
    <label><input type="checkbox" id="heartbeats"> pings and heartbeats</label>
    <span id="categories"></span>
    <span id="count"></span> <span id="note"></span>
  </div>
  <div id="legend"></div>
  <div style="font-size:12px;color:#666">Drag across the diagram to zoom in, double-click to see the whole run; hover an arrow or a mark for details.</div>
</header>
<div id="plot"><svg id="diagram" xmlns="http://www.w3.org/2000/svg"></svg></div>
<div id="tip"></div>
<script type="application/json" id="electsim-data">)PAGE";

constexpr const char* page_script = R"PAGE(</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("electsim-data").textContent);
const NS = "http://www.w3.org/2000/svg";
const LABEL_W = 64, TOP = 36, LANE_H = 30, RIGHT = 16;
const ROLE_COLORS = {zk: "#1f77b4", i: "#2ca02c", es: "#ff7f0e", w: "#7f7f7f", node: "#9467bd"};
// kind: [colour, opacity, legend, top offset from the lane's middle, height]
const BANDS = {
  "zk-LOOKING": ["#f4c7c3", 0.9, "ZooKeeper LOOKING", -9, 18],
  "zk-FOLLOWING": ["#c6dbef", 0.9, "ZooKeeper FOLLOWING", -9, 18],
  "zk-LEADING": ["#f2b701", 1, "ZooKeeper LEADING", -9, 18],
  "latch-leader": ["#31a354", 1, "LeaderLatch leader", -7, 14],
  "selector-leader": ["#74c476", 1, "LeaderSelector leader", -7, 14],
  "job-leader": ["#8e44ad", 1, "ElasticJob leader", -7, 14],
  "es-master": ["#e6550d", 1, "Elasticsearch master", -7, 14],
  "naive-master": ["#17becf", 1, "holds /master", -7, 14],
  "exec": ["#9e9ac8", 1, "job item running", 8, 4],
  "down": ["#444", 0.55, "down (crashed, powered off)", -14, 28],
  "paused": ["#888", 0.45, "paused (GC stall)", -14, 28],
  "cut": ["url(#hatch)", 1, "cut off from most nodes", -14, 28],
  "cut-some": ["url(#hatch)", 1, "lost some links", -14, 6],
  "disconnected": ["url(#hatch)", 0.8, "not connected to ZooKeeper (a belief then does not count)", -4, 8],
};
const CATEGORIES = {election: "#d62728", zab: "#1f77b4", client: "#2ca02c", es: "#ff7f0e", tcp: "#7f7f7f", message: "#444"};
const MARKS = {fault: "#000", state: "#08519c", session: "#238b8e", watch: "#756bb1", job: "#8e44ad", es: "#a63603"};

const svg = document.getElementById("diagram");
const tip = document.getElementById("tip");
const view = {from: 0, to: Math.max(D.end, 1)};
const hidden = new Set();

function el(name, attributes, parent) {
  const node = document.createElementNS(NS, name);
  for (const key in attributes) node.setAttribute(key, attributes[key]);
  if (parent) parent.appendChild(node);
  return node;
}
function seconds(ns, digits) { return (ns / 1e9).toFixed(digits === undefined ? 6 : digits) + "s"; }
function plotWidth() { return Math.max(600, (window.innerWidth || 1200) - LABEL_W - RIGHT - 8); }
function x(t) { return LABEL_W + (t - view.from) / (view.to - view.from) * plotWidth(); }
function timeAt(px) { return view.from + (px - LABEL_W) / plotWidth() * (view.to - view.from); }
function laneY(i) { return TOP + i * LANE_H + LANE_H / 2; }
function visible(from, to) { return to >= view.from && from <= view.to; }

function tickStep(span) {
  const rough = span / 10;
  const power = Math.pow(10, Math.floor(Math.log10(rough)));
  for (const m of [1, 2, 5, 10]) if (m * power >= rough) return m * power;
  return 10 * power;
}

function drawAxis(root, height) {
  const step = tickStep(view.to - view.from);
  const digits = Math.max(0, Math.min(9, -Math.floor(Math.log10(step / 1e9))));
  for (let t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
    el("line", {x1: x(t), x2: x(t), y1: TOP - 6, y2: height - 4, stroke: "#eee"}, root);
    el("text", {x: x(t) + 2, y: TOP - 10}, root).textContent = seconds(t, digits);
  }
}

function drawLanes(root) {
  D.lanes.forEach((lane, i) => {
    const g = el("g", {class: "lane", id: "lane-" + lane.name, "data-node": lane.name, "data-role": lane.role}, root);
    el("line", {x1: LABEL_W, x2: LABEL_W + plotWidth(), y1: laneY(i), y2: laneY(i), stroke: "#bbb"}, g);
    el("rect", {class: "swatch", x: 4, y: laneY(i) - 6, width: 12, height: 12, fill: ROLE_COLORS[lane.role] || ROLE_COLORS.node}, g);
    el("text", {class: "lane-name", x: 20, y: laneY(i) + 4}, g).textContent = lane.name;
  });
}

function drawBands(root) {
  for (const [lane, kind, label, from, to] of D.bands) {
    const style = BANDS[kind];
    if (!style || !visible(from, to)) continue;
    const left = Math.max(x(from), LABEL_W), right = Math.min(x(to), LABEL_W + plotWidth());
    el("rect", {class: "band " + kind, x: left, y: laneY(lane) + style[3], width: Math.max(right - left, 1), height: style[4],
                fill: style[0], "fill-opacity": style[1],
                "data-tip": label + "\n" + seconds(from) + " .. " + seconds(to) + " (" + seconds(to - from, 3) + ")"}, root);
  }
}

function drawMarks(root, height) {
  for (const [lane, t, kind, label] of D.marks) {
    if (t < view.from || t > view.to) continue;
    const colour = MARKS[kind] || "#333", tipText = seconds(t) + "  " + (lane < 0 ? "" : D.lanes[lane].name + ": ") + label;
    if (lane < 0) {
      el("line", {x1: x(t), x2: x(t), y1: TOP - 4, y2: height - 4, stroke: colour, "stroke-dasharray": "2 4", "data-tip": tipText}, root);
      el("text", {x: x(t) + 3, y: height - 6, "data-tip": tipText}, root).textContent = label;
      continue;
    }
    const y = laneY(lane) - 12;
    const shape = kind === "fault" ? el("path", {d: `M${x(t)} ${y + 6} l-5 -8 h10 z`}, root) : el("circle", {cx: x(t), cy: y + 2, r: 3}, root);
    shape.setAttribute("fill", colour);
    shape.setAttribute("class", "mark " + kind);
    shape.setAttribute("data-tip", tipText);
  }
}

function drawMessages(root) {
  let drawn = 0;
  for (const m of D.messages) {
    const [from, to, sent, received, category, heartbeat, what, lost] = m;
    const end = received === null ? sent : received;
    if ((heartbeat && !document.getElementById("heartbeats").checked) || hidden.has(category) || !visible(sent, end)) continue;
    const colour = CATEGORIES[category] || CATEGORIES.message;
    // A message that never arrived and was never dropped (its connection was gone, or a cut link
    // still held it at the end) has no end point: a short stub towards its receiver, not an arrow
    // across the rest of the run.
    const x1 = x(sent), y1 = laneY(from);
    const x2 = received === null ? x1 + 24 : x(end), y2 = received === null ? y1 + (laneY(to) - y1) * 0.4 : laneY(to);
    const fate = lost ? "NOT DELIVERED: " + lost + (received === null ? "" : " (at " + seconds(received) + ")")
                      : "delivered " + seconds(received) + " (" + seconds(received - sent, 6) + " later)";
    const line = el("line", {class: "msg" + (lost ? " lost" : ""), x1: x1, y1: y1, x2: x2, y2: y2, stroke: colour,
                             "marker-end": lost ? "" : "url(#arrow-" + (CATEGORIES[category] ? category : "message") + ")",
                             "data-tip": D.lanes[from].name + " -> " + D.lanes[to].name + "  [" + category + "]\n" + what +
                                         "\nsent " + seconds(sent) + ", " + fate}, root);
    // A red cross is a fault's loss (a cut link, a power-off, a reset); a segment that reached a
    // socket its receiver had closed (a FIN after a clean close) is no fault: a grey dot.
    if (lost && lost.indexOf("closed its end") < 0) {
      el("path", {d: `M${x2 - 4} ${y2 - 4} l8 8 m0 -8 l-8 8`, stroke: "#c00", "stroke-width": 1.5, fill: "none", class: "lost-mark"}, root);
    } else if (lost) {
      el("circle", {cx: x2, cy: y2, r: 2.5, fill: "#999", class: "closed-mark"}, root);
    }
    drawn++;
  }
  return drawn;
}

function drawViolations(root, height) {
  for (const [t, text] of D.violations) {
    if (t < view.from || t > view.to) continue;
    const tipText = "VIOLATION at " + seconds(t) + "\n" + text;
    el("line", {class: "violation", x1: x(t), x2: x(t), y1: TOP - 4, y2: height - 4, stroke: "#e00", "stroke-width": 2, "data-tip": tipText}, root);
    el("path", {d: `M${x(t)} ${TOP - 2} l-6 -10 h12 z`, fill: "#e00", "data-tip": tipText}, root);
  }
}

function defs() {
  const d = el("defs", {}, svg);
  const hatch = el("pattern", {id: "hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)"}, d);
  el("rect", {width: 3, height: 6, fill: "#d62728", "fill-opacity": 0.45}, hatch);
  for (const category in CATEGORIES) {
    const marker = el("marker", {id: "arrow-" + category, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse"}, d);
    el("path", {d: "M0 0 L10 5 L0 10 z", fill: CATEGORIES[category]}, marker);
  }
  const clip = el("clipPath", {id: "plot-area"}, d);
  el("rect", {x: LABEL_W, y: 0, width: plotWidth(), height: TOP + D.lanes.length * LANE_H + 40}, clip);
}

function render() {
  const height = TOP + D.lanes.length * LANE_H + 20;
  svg.innerHTML = "";
  svg.setAttribute("width", LABEL_W + plotWidth() + RIGHT);
  svg.setAttribute("height", height);
  defs();
  const plot = el("g", {"clip-path": "url(#plot-area)"}, svg);
  drawAxis(plot, height);
  drawLanes(svg);
  drawBands(plot);
  drawMarks(plot, height);
  const drawn = drawMessages(plot);
  drawViolations(plot, height);
  el("rect", {id: "selection", x: 0, y: TOP - 4, width: 0, height: height - TOP, fill: "#3182bd", "fill-opacity": 0.15}, svg);
  document.getElementById("from").value = (view.from / 1e9).toFixed(6);
  document.getElementById("to").value = (view.to / 1e9).toFixed(6);
  document.getElementById("count").textContent = drawn + " of " + D.messages.length + " messages shown";
  for (const lane of document.querySelectorAll("g.lane")) {
    const box = lane.querySelector(".swatch").getBoundingClientRect();
    lane.setAttribute("data-swatch-x", Math.round(box.left + box.width / 2 + window.scrollX));
    lane.setAttribute("data-swatch-y", Math.round(box.top + box.height / 2 + window.scrollY));
  }
  // Where time maps to page pixels, for tests that look at a screenshot: "left width from to" (ns).
  const svgBox = svg.getBoundingClientRect();
  document.body.setAttribute("data-plot", [Math.round(svgBox.left + window.scrollX + LABEL_W), plotWidth(), view.from, view.to].join(" "));
  document.body.setAttribute("data-rendered", String(D.lanes.length));
  document.body.setAttribute("data-messages-drawn", String(drawn));
}

function setView(from, to) {
  if (!(to > from)) return;
  view.from = Math.max(0, from);
  view.to = Math.min(Math.max(D.end, 1), to);
  if (!(view.to > view.from)) { view.from = 0; view.to = Math.max(D.end, 1); }
  render();
}

function controls() {
  document.getElementById("title").textContent = D.title;
  document.title = D.title + " - electsim diagram";
  const skipped = D.skipped.messages + D.skipped.marks;
  if (skipped > 0) document.getElementById("note").textContent = "(the run was too long to draw whole: " + D.skipped.messages + " messages and " + D.skipped.marks + " marks left out)";
  const categories = document.getElementById("categories");
  for (const category of [...new Set(D.messages.map(m => m[4]))].sort()) {
    const label = document.createElement("label");
    label.innerHTML = `<input type="checkbox" checked> <span style="color:${CATEGORIES[category] || "#444"}">${category}</span>`;
    label.querySelector("input").addEventListener("change", e => { e.target.checked ? hidden.delete(category) : hidden.add(category); render(); });
    categories.appendChild(label);
  }
  const legend = document.getElementById("legend");
  const kinds = new Set(D.bands.map(b => b[1]));
  for (const kind in BANDS) {
    if (!kinds.has(kind)) continue;
    const colour = BANDS[kind][0].startsWith("url") ? "repeating-linear-gradient(45deg,#e8a0a0 0 3px,#fff 3px 6px)" : BANDS[kind][0];
    legend.insertAdjacentHTML("beforeend", `<span><i style="background:${colour}"></i>${BANDS[kind][2]}</span>`);
  }
  if (D.violations.length) legend.insertAdjacentHTML("beforeend", `<span><i style="background:#e00"></i>property violation</span>`);
  document.getElementById("heartbeats").addEventListener("change", render);
  document.getElementById("zoom").addEventListener("click", () => setView(+document.getElementById("from").value * 1e9, +document.getElementById("to").value * 1e9));
  document.getElementById("reset").addEventListener("click", () => setView(0, D.end));
  svg.addEventListener("dblclick", () => setView(0, D.end));
  let dragFrom = null;
  const px = e => e.clientX - svg.getBoundingClientRect().left;
  svg.addEventListener("mousedown", e => { if (px(e) > LABEL_W) dragFrom = px(e); });
  svg.addEventListener("mousemove", e => {
    const target = e.target.closest ? e.target.closest("[data-tip]") : null;
    for (const hot of svg.querySelectorAll(".hot")) hot.classList.remove("hot");
    if (target) {
      if (target.classList.contains("msg")) target.classList.add("hot");
      tip.textContent = target.getAttribute("data-tip");
      tip.style.display = "block";
      tip.style.left = Math.min(e.clientX + 14, window.innerWidth - 420) + "px";
      tip.style.top = (e.clientY + 14) + "px";
    } else {
      tip.style.display = "none";
    }
    if (dragFrom !== null) {
      const selection = document.getElementById("selection");
      selection.setAttribute("x", Math.min(dragFrom, px(e)));
      selection.setAttribute("width", Math.abs(px(e) - dragFrom));
    }
  });
  window.addEventListener("mouseup", e => {
    if (dragFrom === null) return;
    const to = px(e), from = dragFrom;
    dragFrom = null;
    if (Math.abs(to - from) > 4) setView(timeAt(Math.min(from, to)), timeAt(Math.max(from, to)));
    else render();
  });
  window.addEventListener("resize", render);
}

controls();
render();
</script>
</body>
</html>
)PAGE";

}  // namespace

std::string script_safe(const std::string& json) {
  std::string safe;
  safe.reserve(json.size());
  for (char c : json) {
    if (c == '<') safe += "\\u003c";
    else safe += c;
  }
  return safe;
}

std::string diagram_page(const nlohmann::ordered_json& data) {
  return std::string(page_head) + script_safe(data.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)) + page_script;
}

}  // namespace harness
