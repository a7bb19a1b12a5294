"use strict";
// electsim's run viewer (harness/view_page.h). ElectsimView(root, data, options) draws one run into
// `root`; options.hash keeps the view in the URL; options.onCursor(view) is told of every move.
const SVGNS = "http://www.w3.org/2000/svg";
const FIELD_ORDER = ["status", "role", "vote", "round", "heard", "leader", "epoch", "logged", "committed", "connection", "session",
                     "curator", "latch", "selector", "job leader", "running", "naive", "master", "follows", "applied", "sessions"];
const ROLE_COLORS = {LOOKING: "#f4c7c3", FOLLOWING: "#c6dbef", LEADING: "#f2b701", OBSERVING: "#dadaeb"};
const BELIEFS = {latch: "#31a354", selector: "#74c476", "job leader": "#8e44ad", naive: "#17becf", master: "#e6550d"};
const TOPIC_COLORS = ["#1f77b4", "#31a354", "#8e44ad", "#e6550d", "#17becf", "#238b8e", "#756bb1", "#000", "#d62728", "#999"];
const CATEGORY_COLORS = {election: "#d62728", zab: "#1f77b4", client: "#2ca02c", es: "#ff7f0e", tcp: "#7f7f7f", message: "#444"};
const CLIENT_BURST = 60;  // client messages in view beyond which they are drawn as bursts
const MESSAGES_DRAWN_MAX = 1500;  // messages in view beyond which every kind is drawn as bursts
const ITEM_LANES_MAX = 32;  // ElasticJob items drawn as lanes (more are said, not drawn)
const SERVER_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
                       "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173"];
// A message the network lost to a fault ends in a red cross; one that reached a closed socket
// (a FIN after a clean close) is no fault, and ends in a grey dot.
function lostToFault(reason) { return !!reason && reason.indexOf("closed its end") < 0; }
function secs(ns, digits) { return (ns / 1e9).toFixed(digits === undefined ? 6 : digits) + " s"; }
function esc(text) { return String(text).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"}[c])); }
function svg(name, attributes, parent) {
  const node = document.createElementNS(SVGNS, name);
  for (const key in attributes) node.setAttribute(key, attributes[key]);
  if (parent) parent.appendChild(node);
  return node;
}

function ElectsimView(root, D, options) {
  options = options || {};
  const steps = D.steps, lanes = D.lanes, n = steps.length;
  // Messages come as arrays (view.cpp): [step, from, to, sent, received, what, category, heartbeat, lost].
  const messages = D.messages.map(a => ({s: a[0], f: a[1], to: a[2], t: a[3], r: a[4], w: a[5], c: a[6], hb: a[7] === 1, lost: a[8] || ""}));
  const self = this;
  const laneIndex = {};
  lanes.forEach((lane, i) => { laneIndex[lane.name] = i; });
  const stepTimes = steps.map(s => s.t);
  // The state before step 0 is empty; states[i] is after step i. Keyframes every 256 steps, the rest
  // replayed from the nearest (a copy per keyframe keeps memory at n/256 snapshots).
  const KEY = 256, keyframes = [];
  (function buildKeyframes() {
    let state = {};
    for (let i = 0; i < n; i++) {
      apply(state, steps[i].d);
      if (i % KEY === 0) keyframes.push(JSON.parse(JSON.stringify(state)));
    }
  })();
  function apply(state, changes) {
    for (const [lane, field, value] of changes) {
      const key = String(lane);
      if (!state[key]) state[key] = {};
      if (value === "") delete state[key][field]; else state[key][field] = value;
    }
  }
  function stateAt(i) {
    const k = Math.floor(i / KEY);
    const state = JSON.parse(JSON.stringify(keyframes[k]));
    for (let j = k * KEY + 1; j <= i; j++) apply(state, steps[j].d);
    return state;
  }
  // Band segments per lane and field, for the picture: [from step, to step, value].
  const segments = {};
  (function buildSegments() {
    const open = {};
    for (let i = 0; i < n; i++) {
      for (const [lane, field, value] of steps[i].d) {
        const key = lane + "\u0000" + field;
        if (open[key]) { open[key][1] = i; delete open[key]; }
        if (value !== "") {
          const segment = [i, n - 1, value];
          (segments[key] = segments[key] || []).push(segment);
          open[key] = segment;
        }
      }
    }
  })();
  function segs(lane, field) { return segments[lane + "\u0000" + field] || []; }
  // ElasticJob's items, each a lane of who runs it when: [{name: "order-sync 3", segs: [[from, to, lane]]}].
  const items = (function buildItems() {
    const map = {};
    lanes.forEach((lane, i) => segs(i, "running").forEach(([a, b, value]) => {
      for (const part of value.split("; ")) {
        const match = /^(.*) items ((?:\d+ ?)+)$/.exec(part);
        if (!match) continue;
        for (const item of match[2].trim().split(" ")) (map[match[1] + " " + item] = map[match[1] + " " + item] || []).push([a, b, i]);
      }
    }));
    const number = name => +name.slice(name.lastIndexOf(" ") + 1);
    return Object.keys(map).sort((p, q) => (p.slice(0, p.lastIndexOf(" ")) < q.slice(0, q.lastIndexOf(" ")) ? -1 : p.slice(0, p.lastIndexOf(" ")) > q.slice(0, q.lastIndexOf(" ")) ? 1 : number(p) - number(q)))
                               .map(name => ({name: name, segs: map[name]}));
  })();
  // The step index at or after a time: messages arrive between steps.
  function stepAtTime(t) {
    let lo = 0, hi = n - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (stepTimes[mid] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }
  const violationSteps = [];
  steps.forEach((s, i) => { if (s.k === "property.violation") violationSteps.push(i); });
  // Marks another tool placed on the run (electsim diff: where the two runs part).
  const marks = (D.marks || []).map(m => ({step: stepAtTime(m.t), t: m.t, x: m.x}));

  const view = {cursor: 0, from: 0, to: Math.min(n - 1, 150), mode: "steps", hidden: new Set(), query: "", size: 14, heartbeats: false};
  if (violationSteps.length) { view.cursor = violationSteps[0]; view.from = Math.max(0, view.cursor - 80); view.to = Math.min(n - 1, view.cursor + 20); }
  if (marks.length) { view.cursor = marks[0].step; view.from = Math.max(0, view.cursor - 60); view.to = Math.min(n - 1, view.cursor + 40); }
  if (options.hash) readHash();

  root.classList.add("electsim-view");
  root.innerHTML =
    '<div class="bar">' +
    '<button data-act="first" title="first step (Home)">|◀</button><button data-act="prev" title="previous step (p, ←)">◀</button>' +
    '<button data-act="next" title="next step (n, →)">▶</button><button data-act="last" title="last step (End)">▶|</button>' +
    ' <span class="where"></span> ' +
    '<button data-act="violation" title="next violation (v)">⚠ violation</button>' +
    (D.marks && D.marks.length ? ' <button data-act="mark" title="where the runs part (d)">⇥ divergence</button>' : '') +
    ' <button data-act="prevnode" title="previous step of this node (shift+←)">◀ node</button><button data-act="nextnode" title="next step of this node (shift+→)">node ▶</button>' +
    ' <button data-act="prevkind" title="previous step of this kind (K)">◀ kind</button><button data-act="nextkind" title="next step of this kind (k)">kind ▶</button>' +
    ' <input class="query" placeholder="search: text, node or kind (f)" size="24"> <button data-act="find">find ▶</button>' +
    ' <select class="mode"><option value="steps">axis: steps</option><option value="time">axis: time</option></select>' +
    ' <button data-act="zoomin" title="zoom in (+)">+</button><button data-act="zoomout" title="zoom out (-)">−</button><button data-act="fit" title="around the cursor (0)">fit</button><button data-act="whole" title="whole run">whole</button>' +
    ' <label><input type="checkbox" class="hb"> heartbeats</label>' +
    ' <button data-act="smaller" title="smaller text">A−</button><button data-act="larger" title="larger text (projector)">A+</button>' +
    '</div>' +
    '<div class="overview" title="the whole run: click to move there"><svg></svg></div>' +
    '<div class="main"><div class="left"><div class="plot"><svg class="diagram"></svg></div>' +
    '<div class="lanes-filter"></div><div class="notes"></div><div class="story"></div></div>' +
    '<div class="panel"></div></div>' +
    '<div class="tip"></div>';
  const $ = selector => root.querySelector(selector);
  const plot = $(".diagram"), panel = $(".panel"), story = $(".story"), tip = $(".tip"), overview = $(".overview svg");
  $(".mode").value = view.mode;
  $(".hb").checked = view.heartbeats;
  $(".query").value = view.query;

  const notes = [];
  if (D.steps_told > n) notes.push("This page shows " + n.toLocaleString() + " of the " + D.steps_told.toLocaleString() +
      " steps told: the start, around the first violations and the end. Each ▒ folded step stands for the steps left out, with their state changes (the panel stays exact); " +
      "to see a stretch in full: electsim run FILE --view OUT.html --view-from=T1 --view-to=T2.");
  if (D.messages_skipped > 0) notes.push(D.messages_skipped.toLocaleString() + " messages of the shown steps are not drawn (the page's limit); their steps are.");
  $(".notes").textContent = notes.join(" ");

  lanes.forEach((lane, i) => {
    const label = document.createElement("label");
    label.innerHTML = '<input type="checkbox" checked data-lane="' + i + '"> ' + esc(lane.name);
    $(".lanes-filter").appendChild(label);
  });
  $(".lanes-filter").querySelectorAll("input").forEach(box => {
    box.checked = !view.hidden.has(lanes[+box.dataset.lane].name);
    box.addEventListener("change", () => {
      const name = lanes[+box.dataset.lane].name;
      if (box.checked) view.hidden.delete(name); else view.hidden.add(name);
      render();
    });
  });

  // Moving the cursor.
  function visibleStep(i) { const s = steps[i]; return s.l < 0 || !view.hidden.has(lanes[s.l].name); }
  function seek(from, direction, test) {
    for (let i = from + direction; i >= 0 && i < n; i += direction) if (visibleStep(i) && test(steps[i], i)) return i;
    return from;
  }
  function matches(s, q) {
    q = q.toLowerCase();
    return (s.x || "").toLowerCase().indexOf(q) >= 0 || s.k.toLowerCase().indexOf(q) >= 0 || (s.l >= 0 && lanes[s.l].name.toLowerCase() === q);
  }
  function act(what) {
    const c = view.cursor, s = steps[c];
    if (what === "first") go(0);
    else if (what === "last") go(n - 1);
    else if (what === "next") go(seek(c, 1, () => true));
    else if (what === "prev") go(seek(c, -1, () => true));
    else if (what === "nextnode") go(seek(c, 1, t => t.l === s.l));
    else if (what === "prevnode") go(seek(c, -1, t => t.l === s.l));
    else if (what === "nextkind") go(seek(c, 1, t => t.k === s.k));
    else if (what === "prevkind") go(seek(c, -1, t => t.k === s.k));
    else if (what === "mark") { if (marks.length) go(marks[0].step); }
    else if (what === "violation") { const next = violationSteps.find(v => v > c); go(next !== undefined ? next : (violationSteps[0] || c)); }
    else if (what === "find") { if (view.query) go(seek(c, 1, t => matches(t, view.query))); }
    else if (what === "zoomin" || what === "zoomout") zoom(what === "zoomin" ? 0.5 : 2);
    else if (what === "fit") { view.from = Math.max(0, c - 60); view.to = Math.min(n - 1, c + 60); render(); }
    else if (what === "whole") { view.from = 0; view.to = n - 1; render(); }
    else if (what === "smaller" || what === "larger") { view.size = Math.max(10, Math.min(28, view.size + (what === "larger" ? 2 : -2))); render(); }
  }
  function go(i) {
    view.cursor = Math.max(0, Math.min(n - 1, i));
    if (view.cursor < view.from || view.cursor > view.to) {
      const half = Math.max(10, Math.floor((view.to - view.from) / 2));
      view.from = Math.max(0, view.cursor - half);
      view.to = Math.min(n - 1, view.from + 2 * half);
    }
    render();
    if (options.onCursor) options.onCursor(self);
  }
  function zoom(factor) {
    const c = view.cursor, half = Math.max(5, Math.round((view.to - view.from) * factor / 2));
    view.from = Math.max(0, c - half);
    view.to = Math.min(n - 1, c + half);
    render();
  }
  root.querySelectorAll("button[data-act]").forEach(b => b.addEventListener("click", () => act(b.dataset.act)));
  $(".mode").addEventListener("change", e => { view.mode = e.target.value; render(); });
  $(".hb").addEventListener("change", e => { view.heartbeats = e.target.checked; render(); });
  $(".query").addEventListener("keydown", e => { if (e.key === "Enter") { view.query = e.target.value; act("find"); } e.stopPropagation(); });
  root.tabIndex = 0;
  this.keys = function (e) {
    if (e.target && e.target.tagName === "INPUT" && e.target.type !== "checkbox") return false;
    const key = e.key;
    if (key === "n" || (key === "ArrowRight" && !e.shiftKey)) act("next");
    else if (key === "p" || (key === "ArrowLeft" && !e.shiftKey)) act("prev");
    else if (key === "ArrowRight" && e.shiftKey) act("nextnode");
    else if (key === "ArrowLeft" && e.shiftKey) act("prevnode");
    else if (key === "k") act("nextkind");
    else if (key === "K") act("prevkind");
    else if (key === "v") act("violation");
    else if (key === "d") act("mark");
    else if (key === "Home") act("first");
    else if (key === "End") act("last");
    else if (key === "+" || key === "=") act("zoomin");
    else if (key === "-") act("zoomout");
    else if (key === "0") act("fit");
    else if (key === "f") { $(".query").focus(); }
    else return false;
    e.preventDefault();
    return true;
  };

  // The axis: x of a step (steps mode) or of a time (time mode), and back.
  const LABEL_W = 70, TOP = 30, RIGHT = 12;
  function laneHeight() { return Math.round(view.size * 2.3); }
  function width() { return Math.max(420, plot.parentNode.clientWidth - 8); }
  function span() { return Math.max(1, view.to - view.from); }
  function tFrom() { return stepTimes[view.from]; }
  function tTo() { return Math.max(stepTimes[view.to], tFrom() + 1); }
  function xStep(i) {
    if (view.mode === "time") return xTime(stepTimes[Math.max(0, Math.min(n - 1, i))]);
    return LABEL_W + (i - view.from) / span() * (width() - LABEL_W - RIGHT);
  }
  function xTime(t) {
    if (view.mode === "time") return LABEL_W + (t - tFrom()) / (tTo() - tFrom()) * (width() - LABEL_W - RIGHT);
    // Between steps i-1 and i, proportionally in time: a message arrives between two steps.
    const i = stepAtTime(t);
    if (i === 0 || stepTimes[i] === stepTimes[i - 1]) return xStep(i);
    const f = (t - stepTimes[i - 1]) / (stepTimes[i] - stepTimes[i - 1]);
    return xStep(i - 1) + Math.max(0, Math.min(1, f)) * (xStep(i) - xStep(i - 1));
  }
  function shownLanes() { return lanes.map((lane, i) => i).filter(i => !view.hidden.has(lanes[i].name)); }

  function render() {
    root.style.setProperty("--fs", view.size + "px");
    drawPlot();
    drawOverview();
    drawPanel();
    drawStory();
    const s = steps[view.cursor];
    $(".where").innerHTML = 'step <b class="cursor-step">' + view.cursor + '</b> of ' + (n - 1) + ' · <b class="cursor-time">' + secs(s.t) + '</b>';
    if (options.hash) writeHash();
    root.dataset.rendered = "1";
    root.dataset.cursor = view.cursor;
  }

  function drawPlot() {
    while (plot.firstChild) plot.removeChild(plot.firstChild);
    const shown = shownLanes(), H = laneHeight(), W = width();
    const y = {};
    shown.forEach((lane, row) => { y[lane] = TOP + H + row * H + H / 2; });
    const itemRows = Math.min(items.length, ITEM_LANES_MAX), itemH = Math.round(H * 0.55);
    const itemsTop = TOP + H * (shown.length + 1) + 4;
    const height = itemsTop + itemRows * itemH + (items.length > ITEM_LANES_MAX ? itemH : 0) + 16;
    plot.setAttribute("width", W);
    plot.setAttribute("height", height);
    const defs = svg("defs", {}, plot);
    const hatch = svg("pattern", {id: "hatch-" + (options.id || "v"), width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)"}, defs);
    svg("line", {x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#999", "stroke-width": 2}, hatch);
    const hatchUrl = "url(#hatch-" + (options.id || "v") + ")";
    // Axis labels: the time of a few steps.
    const ticks = 8;
    for (let k = 0; k <= ticks; k++) {
      const i = Math.round(view.from + k * span() / ticks);
      const x = xStep(i);
      svg("line", {x1: x, x2: x, y1: TOP - 4, y2: height - 10, stroke: "#eee"}, plot);
      svg("text", {x: x + 2, y: TOP - 8, class: "axis"}, plot).textContent = secs(stepTimes[i], 3);
    }
    // The leader lane: which servers lead, from their roles; two at once is drawn red.
    const leaderY = TOP + H / 2;
    svg("text", {x: 4, y: leaderY + 4, class: "lane-name"}, plot).textContent = "leader";
    const leading = [];
    lanes.forEach((lane, i) => segs(i, "role").forEach(([a, b, value]) => { if (value === "LEADING") leading.push([a, b, lane.name]); }));
    leading.forEach(([a, b, name]) => {
      if (b < view.from || a > view.to) return;
      const overlap = leading.some(([c, d, other]) => other !== name && c < b && a < d);
      const x1 = xStep(Math.max(a, view.from)), x2 = xStep(Math.min(b, view.to));
      svg("rect", {x: x1, y: leaderY - H * 0.3, width: Math.max(1, x2 - x1), height: H * 0.6, fill: overlap ? "#d62728" : "#f2b701", class: "leader-band"}, plot);
      if (x2 - x1 > 30) svg("text", {x: x1 + 3, y: leaderY + 4}, plot).textContent = name + (overlap ? " (two leaders)" : "");
    });
    // Folded stretches: hatched across every lane.
    steps.forEach((s, i) => {
      if (!s.gap || i < view.from || i > view.to) return;
      const x = xStep(i);
      const r = svg("rect", {x: x - 4, y: TOP, width: 8, height: height - TOP - 10, fill: hatchUrl, class: "gap"}, plot);
      hover(r, s.gap.toLocaleString() + " steps folded, " + secs(s.t) + " to " + secs(s.t2));
    });
    shown.forEach(lane => {
      const yy = y[lane], name = lanes[lane].name;
      svg("line", {x1: LABEL_W, x2: W - RIGHT, y1: yy, y2: yy, stroke: "#bbb"}, plot);
      const label = svg("text", {x: 4, y: yy + 4, class: "lane-name", "data-lane": name}, plot);
      label.textContent = name;
      band(lane, "role", yy, H, value => ROLE_COLORS[value] || "#dadaeb", 0.8, false);
      // Beliefs: solid while the node is connected, hatched while it believes without a connection
      // (the checkers count only live, unpaused, connected believers).
      for (const field in BELIEFS) band(lane, field, yy, H, () => BELIEFS[field], 1, true, hatchUrl);
      // A server's vote while LOOKING: a thin strip in the colour of the server it votes for.
      segs(lane, "vote").forEach(([a, b, value]) => {
        if (b < view.from || a > view.to) return;
        const match = /^zk(\d+)/.exec(value);
        const color = match ? SERVER_COLORS[(+match[1] - 1) % SERVER_COLORS.length] : "#999";
        const x1 = xStep(Math.max(a, view.from)), x2 = xStep(Math.min(b, view.to));
        const r = svg("rect", {x: x1, y: yy + H * 0.28, width: Math.max(1, x2 - x1), height: 4, fill: color, class: "vote"}, plot);
        hover(r, name + " votes for " + value);
        if (x2 - x1 > 40) svg("text", {x: x1 + 2, y: yy + H * 0.28 - 1, class: "vote-label"}, plot).textContent = "→" + match[0];
      });
      band(lane, "status", yy, H, () => "#444", 0.5, false, null, value => value !== "up");
    });
    // Messages. A client's requests and their answers, when many are in view (ElasticJob reads
    // its caches in bursts of hundreds), are drawn as one band per pair of nodes and stretch of the
    // axis, its width growing with the count and its tooltip saying how many and what; so is every
    // kind of message when the view holds more than the page can draw quickly (a Zab write load
    // between two steps). A message lost to a fault is always drawn on its own.
    let drawn = 0;
    const inView = messages.filter(m => m.s >= view.from && m.s <= view.to + 1 && (!m.hb || view.heartbeats) && m.f in y && m.to in y);
    const burstClients = inView.filter(m => m.c === "client").length > CLIENT_BURST;
    const burstAll = inView.length > MESSAGES_DRAWN_MAX;
    const bursts = {};
    for (const m of inView) {
      if ((burstAll || (burstClients && m.c === "client")) && !lostToFault(m.lost)) {
        const key = m.f + ">" + m.to + ">" + m.c + ">" + Math.floor(xTime(m.t) / 14);
        const b = bursts[key] || (bursts[key] = {f: m.f, to: m.to, c: m.c, x1: xTime(m.t), x2: xTime(m.t), count: 0, what: {}});
        b.x2 = Math.max(b.x2, m.r === null ? xTime(m.t) : xTime(m.r));
        b.count++;
        const word = m.w.split(" ")[0];
        b.what[word] = (b.what[word] || 0) + 1;
        continue;
      }
      const x1 = xTime(m.t), x2 = m.r === null ? W - RIGHT : xTime(m.r);
      const color = CATEGORY_COLORS[m.c] || "#444";
      const line = svg("line", {x1: x1, y1: y[m.f], x2: x2, y2: y[m.to], stroke: color, "stroke-width": 1.1, class: "msg" + (m.lost ? " lost" : "")}, plot);
      hover(line, lanes[m.f].name + " → " + lanes[m.to].name + ": " + m.w + "\nsent " + secs(m.t) +
            (m.r === null ? ", still in flight" : (m.lost ? ", lost at " + secs(m.r) + ": " + m.lost : ", delivered " + secs(m.r))));
      if (m.lost && lostToFault(m.lost)) {
        svg("path", {d: "M" + (x2 - 4) + "," + (y[m.to] - 4) + "l8,8m0,-8l-8,8", stroke: "#d62728", "stroke-width": 2, class: "lost-mark"}, plot);
      } else if (m.lost) {
        svg("circle", {cx: x2, cy: y[m.to], r: 2.5, fill: "#999", class: "closed-mark"}, plot);
      }
      drawn++;
    }
    for (const key in bursts) {
      const b = bursts[key];
      const line = svg("line", {x1: b.x1, y1: y[b.f], x2: b.x2, y2: y[b.to], stroke: CATEGORY_COLORS[b.c] || "#444", "stroke-width": Math.min(7, 1 + Math.log2(b.count)),
                                opacity: 0.6, class: "msg burst"}, plot);
      hover(line, lanes[b.f].name + " → " + lanes[b.to].name + ": " + b.count + " " + b.c + " messages, folded (zoom in to see each): " +
                  Object.entries(b.what).sort((p, q) => q[1] - p[1]).slice(0, 5).map(([w, c]) => w + " " + c).join(", "));
      drawn += b.count;
    }
    // ElasticJob's items as lanes: who runs each item when (from the instances' "running" fields).
    items.slice(0, itemRows).forEach((item, row) => {
      const yy = itemsTop + row * itemH + itemH / 2;
      svg("text", {x: 4, y: yy + 4, class: "axis"}, plot).textContent = item.name;
      item.segs.forEach(([a, b, lane]) => {
        if (b < view.from || a > view.to || !(lane in y)) return;
        const x1 = xStep(Math.max(a, view.from)), x2 = xStep(Math.min(b, view.to));
        const r = svg("rect", {x: x1, y: yy - itemH * 0.35, width: Math.max(1, x2 - x1), height: itemH * 0.7, class: "item",
                               fill: SERVER_COLORS[lane % SERVER_COLORS.length], opacity: 0.75}, plot);
        hover(r, item.name + " runs on " + lanes[lane].name + ", " + secs(stepTimes[a]) + " .. " + secs(stepTimes[b]));
        if (x2 - x1 > 28) svg("text", {x: x1 + 2, y: yy + 4, class: "vote-label"}, plot).textContent = lanes[lane].name;
      });
    });
    if (items.length > ITEM_LANES_MAX) {
      svg("text", {x: 4, y: itemsTop + itemRows * itemH + itemH / 2 + 4, class: "axis"}, plot).textContent =
          (items.length - ITEM_LANES_MAX) + " more items are not drawn as lanes; each instance's running items are in the panel";
    }
    // The steps as dots; violations as red lines; the cursor.
    for (let i = view.from; i <= view.to; i++) {
      const s = steps[i];
      if (s.k === "property.violation") {
        const x = xStep(i);
        const line = svg("line", {x1: x, x2: x, y1: TOP, y2: height - 10, stroke: "#d62728", "stroke-width": 2, class: "violation"}, plot);
        hover(line, s.x);
      }
      if (s.l < 0 || !(s.l in y)) continue;
      const dot = svg("circle", {cx: xStep(i), cy: y[s.l], r: 3, fill: TOPIC_COLORS[Math.log2(s.p & -s.p) | 0] || "#444", class: "step"}, plot);
      dot.addEventListener("click", () => go(i));
      hover(dot, secs(s.t) + " " + lanes[s.l].name + ": " + s.x);
    }
    marks.forEach(m => {
      if (m.step < view.from || m.step > view.to) return;
      const x = xTime(m.t);
      const line = svg("line", {x1: x, x2: x, y1: TOP, y2: height - 10, stroke: "#08519c", "stroke-width": 2.5, "stroke-dasharray": "6 3", class: "mark"}, plot);
      hover(line, m.x);
    });
    const cx = xStep(view.cursor);
    svg("line", {x1: cx, x2: cx, y1: TOP - 4, y2: height - 10, stroke: "#000", "stroke-width": 1.5, "stroke-dasharray": "3 2", class: "cursor"}, plot);
    const c = steps[view.cursor];
    if (c.l >= 0 && c.l in y) svg("circle", {cx: cx, cy: y[c.l], r: 7, fill: "none", stroke: "#000", "stroke-width": 2}, plot);
    plot.dataset.messages = drawn;
    plot.onclick = e => {
      if (e.target.tagName !== "svg") return;
      const box = plot.getBoundingClientRect(), px = e.clientX - box.left;
      let best = view.from, bestDistance = Infinity;
      for (let i = view.from; i <= view.to; i++) { const d = Math.abs(xStep(i) - px); if (d < bestDistance) { best = i; bestDistance = d; } }
      go(best);
    };
  }
  function band(lane, field, yy, H, color, opacity, belief, hatchUrl, drawn) {
    segs(lane, field).forEach(([a, b, value]) => {
      if (b < view.from || a > view.to) return;
      if (drawn && !drawn(value)) return;
      if (belief && field === "latch" && value.indexOf("LEADER") < 0) return;
      const x1 = xStep(Math.max(a, view.from)), x2 = xStep(Math.min(b, view.to));
      const h = belief ? H * 0.32 : H * 0.62, top = belief ? yy - H * 0.1 - h / 2 : yy - h / 2;
      const r = svg("rect", {x: x1, y: top, width: Math.max(1, x2 - x1), height: h, fill: color(value), opacity: opacity, class: "band band-" + field.replace(" ", "-")}, plot);
      hover(r, lanes[lane].name + " " + field + ": " + value + "\n" + secs(stepTimes[a]) + " .. " + secs(stepTimes[b]));
      if (belief) {
        // Hatch the stretches where the believer was not connected.
        segs(lane, "connection").forEach(([c, d, state]) => {
          if (state.indexOf("CONNECTED") === 0) return;
          const from = Math.max(a, c, view.from), to = Math.min(b, d, view.to);
          if (from >= to) return;
          const xa = xStep(from), xb = xStep(to);
          const cover = svg("rect", {x: xa, y: top, width: Math.max(1, xb - xa), height: h, fill: "#fff", opacity: 0.75, class: "disconnected"}, plot);
          svg("rect", {x: xa, y: top, width: Math.max(1, xb - xa), height: h, fill: hatchUrl}, plot);
          hover(cover, lanes[lane].name + " believes it leads but is " + state + " (not counted by the checker)");
        });
      }
    });
  }
  function hover(node, text) {
    node.addEventListener("mousemove", e => { tip.style.display = "block"; tip.style.left = (e.clientX + 12) + "px"; tip.style.top = (e.clientY + 12) + "px"; tip.textContent = text; });
    node.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  }

  function drawOverview() {
    while (overview.firstChild) overview.removeChild(overview.firstChild);
    const W = width(), H = 22;
    overview.setAttribute("width", W);
    overview.setAttribute("height", H);
    const end = Math.max(D.end, 1);
    const x = t => LABEL_W + t / end * (W - LABEL_W - RIGHT);
    svg("rect", {x: LABEL_W, y: 6, width: W - LABEL_W - RIGHT, height: 10, fill: "#f3f3f3"}, overview);
    svg("text", {x: 4, y: 15, class: "axis"}, overview).textContent = secs(D.end, 0);
    steps.forEach(s => {
      if (s.gap) svg("rect", {x: x(s.t), y: 6, width: Math.max(2, x(s.t2) - x(s.t)), height: 10, fill: "#ccc"}, overview);
      else if (s.k.indexOf("fault.") === 0) svg("rect", {x: x(s.t), y: 4, width: 2, height: 14, fill: "#000"}, overview);
    });
    D.violations.forEach(v => svg("rect", {x: x(v.t), y: 2, width: 2, height: 18, fill: "#d62728"}, overview));
    marks.forEach(m => svg("rect", {x: x(m.t), y: 0, width: 3, height: 22, fill: "#08519c"}, overview));
    const a = x(stepTimes[view.from]), b = x(stepTimes[view.to]);
    svg("rect", {x: a, y: 3, width: Math.max(2, b - a), height: 16, fill: "none", stroke: "#08519c", "stroke-width": 2}, overview);
    svg("rect", {x: x(steps[view.cursor].t) - 1, y: 1, width: 2, height: 20, fill: "#000"}, overview);
    overview.onclick = e => {
      const box = overview.getBoundingClientRect();
      const t = (e.clientX - box.left - LABEL_W) / (W - LABEL_W - RIGHT) * end;
      go(stepAtTime(t));
    };
  }

  function drawPanel() {
    const state = stateAt(view.cursor), changed = new Set(steps[view.cursor].d.map(([lane, field]) => lane + "\u0000" + field));
    let html = "";
    const rows = shownLanes().concat([-1]);
    for (const lane of rows) {
      const fields = state[String(lane)] || {};
      const names = Object.keys(fields).sort((a, b) => order(a) - order(b) || (a < b ? -1 : 1));
      if (!names.length && lane >= 0) {
        html += '<div class="node" data-lane="' + esc(lanes[lane].name) + '"><b>' + esc(lanes[lane].name) + '</b> <i>not started</i></div>';
        continue;
      }
      html += '<div class="node' + (lane === steps[view.cursor].l ? ' current' : '') + '" data-lane="' + (lane < 0 ? "cluster" : esc(lanes[lane].name)) + '"><b>' +
              (lane < 0 ? "cluster" : esc(lanes[lane].name)) + '</b>';
      for (const field of names) {
        const hot = changed.has(lane + "\u0000" + field);
        html += '<div class="field' + (hot ? ' changed' : '') + '" data-field="' + esc(field) + '"><span class="name">' + esc(field) +
                '</span> <span class="value">' + esc(fields[field]) + '</span></div>';
      }
      html += '</div>';
    }
    const gone = steps[view.cursor].d.filter(([lane, field, value]) => value === "" && (lane < 0 || !view.hidden.has(lanes[lane].name)));
    if (gone.length) html += '<div class="gone">cleared here: ' + gone.map(([lane, field]) => esc((lane < 0 ? "cluster" : lanes[lane].name) + " " + field)).join(", ") + '</div>';
    panel.innerHTML = html;
  }
  function order(field) { const i = FIELD_ORDER.indexOf(field); return i < 0 ? FIELD_ORDER.length : i; }

  function drawStory() {
    // A window of sentences around the cursor: the page stays quick with tens of thousands of steps.
    const before = 60, after = 140;
    let html = "";
    for (let i = Math.max(0, view.cursor - before); i < Math.min(n, view.cursor + after); i++) {
      if (!visibleStep(i)) continue;
      const s = steps[i];
      const node = s.l < 0 ? "" : lanes[s.l].name;
      const text = s.gap ? "▒ " + s.gap.toLocaleString() + " steps folded (" + secs(s.t) + " to " + secs(s.t2) + "): " +
                   Object.entries(s.kinds).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, c]) => k + " " + c.toLocaleString()).join(", ") +
                   (s.m ? "; " + s.m.toLocaleString() + " messages" : "")
                   : s.x;
      const hit = view.query && matches(s, view.query);
      html += '<div class="line' + (i === view.cursor ? ' current' : '') + (s.k === "property.violation" ? ' violation' : '') + (hit ? ' hit' : '') +
              '" data-step="' + i + '"><span class="t">' + secs(s.t) + '</span> <span class="who">' + esc(node) + '</span> ' + esc(text) + '</div>';
    }
    story.innerHTML = html;
    story.querySelectorAll(".line").forEach(line => line.addEventListener("click", () => go(+line.dataset.step)));
    const current = story.querySelector(".current");
    if (current) story.scrollTop = current.offsetTop - story.offsetTop - story.clientHeight / 3;
  }

  function writeHash() {
    const parts = ["step=" + view.cursor, "from=" + view.from, "to=" + view.to, "axis=" + view.mode, "size=" + view.size];
    if (view.hidden.size) parts.push("hide=" + Array.from(view.hidden).map(encodeURIComponent).join(","));
    if (view.query) parts.push("q=" + encodeURIComponent(view.query));
    if (view.heartbeats) parts.push("hb=1");
    history.replaceState(null, "", "#" + parts.join("&"));
  }
  function readHash() {
    const hash = (location.hash || "").replace(/^#/, "");
    if (!hash) return;
    const p = {};
    hash.split("&").forEach(part => { const eq = part.indexOf("="); if (eq > 0) p[part.slice(0, eq)] = decodeURIComponent(part.slice(eq + 1)); });
    const clamp = v => Math.max(0, Math.min(n - 1, v | 0));
    if ("step" in p) view.cursor = clamp(+p.step);
    if ("from" in p) view.from = clamp(+p.from);
    if ("to" in p) view.to = Math.max(view.from, clamp(+p.to));
    if (view.cursor < view.from || view.cursor > view.to) { view.from = Math.max(0, view.cursor - 60); view.to = Math.min(n - 1, view.cursor + 60); }
    if (p.axis === "time" || p.axis === "steps") view.mode = p.axis;
    if ("size" in p) view.size = Math.max(10, Math.min(28, +p.size || 14));
    if (p.hide) p.hide.split(",").forEach(name => view.hidden.add(decodeURIComponent(name)));
    if (p.q) view.query = p.q;
    view.heartbeats = p.hb === "1";
  }

  // Follow another view to a time, without telling it back (the diff page's two runs move together).
  this.follow = function (t) {
    const saved = options.onCursor;
    options.onCursor = null;
    go(stepAtTime(t));
    options.onCursor = saved;
  };
  this.view = view;
  this.steps = steps;
  this.go = go;
  this.stateAt = stateAt;
  this.render = render;
  render();
}
