// The σ scrubber: a labelled range input that redraws a Plotly figure from precomputed levels.
//
// Payload (rbfviz/views/common/scrub.py): gzip of  "RBFS" | u32 header length | header JSON | blobs.
// Each level is a list of (path, value) pairs applied to the base figure, the HTML of the numbers
// beside the plot and one sentence. This file only selects and draws: every number was computed and
// formatted by the server, except the probe's (probe.js: one location's responsibilities, from the
// centres and σ of the level on screen). When the user stops moving σ (SETTLE_MS without input, pointer up),
// the level is committed with setStateValue("level"), which reruns the page script once.
// Its words come in the payload too (header "ui", in the reader's language; rbfviz.views.common.scrub's
// scrub_texts), with the decimal separator σ is written with ("decimal").
const SETTLE_MS = 500;
// Before a first payload is read (its error line), and for a payload without words: English.
const ENGLISH_TEXTS = { play: "▶ Play", pause: "❚❚ Pause", in_words: "In words:",
  error: "The σ figure could not be drawn ({error}). Reload the page." };
const TYPED = { f8: Float64Array, f4: Float32Array, u1: Uint8Array, u2: Uint16Array, u4: Uint32Array,
                i1: Int8Array, i2: Int16Array, i4: Int32Array };
const instances = new WeakMap();

async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function readPayload(bytes) {
  const raw = await inflate(bytes);
  if (String.fromCharCode(...raw.subarray(0, 4)) !== "RBFS") throw new Error("not a σ scrub payload");
  const length = new DataView(raw.buffer, raw.byteOffset).getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(raw.subarray(8, 8 + length)));
  const start = 8 + length + ((8 - ((8 + length) % 8)) % 8);
  const buffer = raw.buffer.slice(raw.byteOffset + start);  // 8-aligned copy: typed views need alignment
  const cache = new Map();
  const blob = (index) => {
    if (cache.has(index)) return cache.get(index);
    const entry = header.blobs[index];
    const Typed = TYPED[entry.dtype];
    const count = entry.shape.reduce((a, b) => a * b, 1);
    const flat = new Typed(buffer, entry.offset, count);
    let value = flat;
    if (entry.as === "rgb" || entry.as === "hex" || entry.as === "HEX") {
      const hex = (v) => (entry.as === "HEX" ? v.toString(16).toUpperCase() : v.toString(16)).padStart(2, "0");
      value = [];
      for (let i = 0; i < count; i += 3) {
        value.push(entry.as === "rgb" ? `rgb(${flat[i]},${flat[i + 1]},${flat[i + 2]})`
          : `#${hex(flat[i])}${hex(flat[i + 1])}${hex(flat[i + 2])}`);
      }
    } else if (entry.shape.length === 2) {
      const cols = entry.shape[1];
      value = [];
      for (let i = 0; i < entry.shape[0]; i++) value.push(flat.subarray(i * cols, (i + 1) * cols));
    }
    cache.set(index, value);
    return value;
  };
  const decode = (value) => {
    if (Array.isArray(value)) return value.map(decode);
    if (value && typeof value === "object") {
      if ("$blob" in value && Object.keys(value).length === 1) return blob(value.$blob);
      const out = {};
      for (const [key, item] of Object.entries(value)) out[key] = decode(item);
      return out;
    }
    return value;
  };
  header.figure = decode(header.figure);
  if (header.probe) header.probe.centers = decode(header.probe.centers);
  header.frames.forEach((frame) => { frame.set = frame.set.map(([path, value]) => [path, decode(value)]); });
  return header;
}

// A copy of obj with value at path; every container on the path is copied so Plotly.react sees the change.
function setPath(obj, path, value) {
  const copy = Array.isArray(obj) ? obj.slice() : { ...obj };
  const [key, ...rest] = path;
  copy[key] = rest.length ? setPath(obj[key] ?? (typeof rest[0] === "number" ? [] : {}), rest, value) : value;
  return copy;
}

function figureAt(payload, level) {
  let fig = payload.figure;
  for (const [path, value] of payload.frames[level].set) fig = setPath(fig, path, value);
  return fig;
}

// A child of the component's element: its innerHTML would also wipe the stylesheet Streamlit put there.
function build(parent) {
  const root = document.createElement("div");
  parent.appendChild(root);
  root.innerHTML = `
    <div class="scrub">
      <div class="scrub-control">
        <button class="scrub-play" type="button" hidden></button>
        <label class="scrub-label"></label>
        <input class="scrub-range" type="range" step="1">
        <output class="scrub-value" aria-live="off"></output>
        <span class="scrub-downloads" role="group">
          <button class="scrub-download" type="button" data-format="png">PNG</button>
          <button class="scrub-download" type="button" data-format="svg">SVG</button>
        </span>
      </div>
      <p class="scrub-status" role="status" hidden></p>
      <div class="scrub-body">
        <div class="scrub-plot"></div>
        <div class="scrub-aside">
          <div class="scrub-probe" role="group" hidden></div>
          <div class="scrub-side"></div>
        </div>
      </div>
      <p class="scrub-caption"></p>
      <p class="scrub-error" role="alert" hidden></p>
    </div>`;
  return {
    range: root.querySelector(".scrub-range"), label: root.querySelector(".scrub-label"),
    value: root.querySelector(".scrub-value"), play: root.querySelector(".scrub-play"),
    plot: root.querySelector(".scrub-plot"),
    side: root.querySelector(".scrub-side"), caption: root.querySelector(".scrub-caption"),
    error: root.querySelector(".scrub-error"), downloads: root.querySelector(".scrub-downloads"),
    status: root.querySelector(".scrub-status"), probe: root.querySelector(".scrub-probe"),
  };
}

// A page's settle rerun can mount the component anew: Streamlit gives it a new element when the
// elements before it change between runs (the σ panels draw their progress bars in a placeholder that
// is there on every run, ui.compute.progress_slot, so that they do not). The old one's DOM
// (slider, focus, drawn figure) is then parked here for a moment and moved into the new element, so
// the slider the user is on stays the same input, keeps its focus, and the figure is not redrawn.
const parked = new Map();  // location.pathname -> unmounted instance
const PARK_MS = 10000;

// Called by Streamlit's component frame on every render (ui/scrub.py), and once by the offline page
// (rbfviz.views.export), which has no server: its setStateValue and setTriggerValue do nothing, and it
// gives the σ the page opens at (component.sigma) and the data set's name (component.dataset).
export default function mountScrubber(component) {
  const { data, parentElement, setStateValue, setTriggerValue } = component;
  let inst = instances.get(parentElement);
  if (!inst) {
    const adopted = adopt(parentElement);
    inst = adopted ?? create(parentElement);
    instances.set(parentElement, inst);
    inst.sigma = component.sigma;
    inst.dataset = component.dataset;
    attach(inst, parentElement);
    if (adopted) refresh(inst);  // it may have missed a draw or a theme change while out of the page
  }
  inst.setStateValue = setStateValue;
  inst.setTriggerValue = setTriggerValue;
  if (data?.held === true) {
    // A settle rerun: the server sends no payload, this element has it (ui/scrub.py HELD). One that has
    // none (a new element, its old one's DOM gone) asks for it, once this render is done.
    if (!inst.bytes) setTimeout(() => setTriggerValue("resend", true), 0);
    return inst.cleanup;
  }
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data.buffer ?? data);
  if (inst.bytes && inst.bytes.length === bytes.length && inst.bytes.every((b, i) => b === bytes[i])) {
    return inst.cleanup;
  }
  inst.bytes = bytes;
  // The payload is kept even if the component is unmounted while it decodes: a remount on the same
  // page adopts this instance with the same bytes and draws it then (show() draws only in the page).
  // Payloads are drawn in the order they came, each as soon as it is decoded unless a newer one was
  // drawn already: a first part (some σ levels) is drawn while its complete payload, which follows it
  // closely, still decodes.
  const order = (inst.received = (inst.received ?? 0) + 1);
  const loading = (inst.loading = Promise.all([readPayload(bytes), loadPlotly()]));
  loading.then(([payload]) => {
    if (order > (inst.drawnOrder ?? 0)) {
      inst.drawnOrder = order;
      ready(inst, payload);
    }
  }).catch((err) => {
    if (inst.loading !== loading) return;
    inst.els.error.hidden = false;
    inst.els.error.textContent = fill(words(inst.payload).error, { error: err.message });
    console.error(err);
  });
  return inst.cleanup;
}

// A decoded payload: the slider's range and label, the images decoded, the committed level drawn.
// After a first part (payload.part: some levels of the grid), the complete payload keeps the σ on
// screen and the σ last committed, so a student who already moved σ stays there.
function ready(inst, payload) {
  const before = inst.payload?.part ? inst.payload : null;
  inst.payload = payload;
  const { range, label } = inst.els;
  range.min = 0;
  range.max = payload.sigmas.length - 1;
  label.textContent = payload.label;
  const ui = words(payload);
  inst.els.downloads.setAttribute("aria-label", ui.downloads ?? "");
  inst.els.probe.setAttribute("aria-label", ui.probe_group ?? "");
  inst.root.querySelector(".scrub").classList.toggle("scrub-large", payload.large);
  inst.els.play.hidden = !payload.play_ms || !!payload.part;
  stop(inst);
  inst.els.play.textContent = ui.play;
  showPart(inst, payload);
  inst.els.downloads.hidden = payload.large;  // a projector needs no downloads (as the page's own)
  range.setAttribute("aria-label", payload.label);
  inst.fields = fieldSubplots(payload.figure.layout);
  inst.els.probe.hidden = !payload.probe;
  inst.drawn = null;
  if (before && inst.level !== null) {
    inst.committed = levelOfSigma(payload, before.sigmas[inst.committed ?? inst.level]);
    inst.wanted = levelOfSigma(payload, before.sigmas[inst.level]);
    show(inst, inst.wanted);
  } else {
    inst.committed = levelFromAddress(payload, inst.sigma);
    show(inst, inst.committed);
  }
  // the other levels' images after the first figure: decoding them competes with its drawing
  setTimeout(() => { if (inst.payload === payload) predecode(inst); }, 0);
}

// A first part says so next to the slider: which σ it holds, and that the others are on their way.
function showPart(inst, payload) {
  const { status, range } = inst.els;
  const part = payload.part;
  status.hidden = !part;
  if (!part) {
    status.textContent = "";
    range.removeAttribute("aria-describedby");
    return;
  }
  const last = payload.texts.length - 1;
  status.id ||= `scrub-status-${Math.random().toString(36).slice(2)}`;
  status.textContent = fill(words(payload).part, { low: sigmaText(payload, last), high: sigmaText(payload, 0),
    count: payload.texts.length, total: part.of });
  range.setAttribute("aria-describedby", status.id);
}

// The position in the σ grid of a payload's level (a first part holds some positions only).
function gridPosition(payload, level) {
  return payload.part ? payload.part.levels[level] : level;
}

// A new scrubber: its DOM and the listeners on its own elements (they go away with the DOM).
function create(parentElement) {
  const els = build(parentElement);
  const inst = { els, root: els.range.closest(".scrub").parentElement, parent: parentElement, bytes: null,
    payload: null, level: null, timer: null, pointer: false, focused: false };
  const { range } = els;
  inst.commit = () => {
    clearTimeout(inst.timer);
    inst.timer = null;
    if (inst.payload && inst.level !== inst.committed) {
      inst.committed = inst.level;
      inst.setStateValue("level", gridPosition(inst.payload, inst.level));
    }
  };
  inst.schedule = () => {
    clearTimeout(inst.timer);
    inst.timer = inst.pointer ? null : setTimeout(inst.commit, SETTLE_MS);
  };
  // The first change in a frame is drawn at once; more changes in the same frame (a fast drag) are
  // drawn once, at the next frame, at the latest level: stale levels are dropped, never queued.
  const draw = () => {
    if (inst.frame) { inst.behind = true; return; }
    show(inst, inst.wanted);
    inst.frame = requestAnimationFrame(() => {
      inst.frame = null;
      if (inst.behind) {
        inst.behind = false;
        if (inst.wanted !== inst.level) draw();
      }
    });
  };
  range.addEventListener("input", () => {
    if (!inst.payload) return;
    inst.wanted = inst.payload.sigmas.length - 1 - Number(range.value);
    draw();
    inst.schedule();
  });
  range.addEventListener("pointerdown", () => { stop(inst); inst.pointer = true; clearTimeout(inst.timer); });
  range.addEventListener("keydown", () => stop(inst));
  range.addEventListener("focus", () => { inst.focused = true; });
  // a blur because the element leaves the document (Chromium blurs it just before React removes it
  // on a remount) is not the user leaving the slider
  range.addEventListener("blur", () => {
    inst.focused = false;
    queueMicrotask(() => { if (!range.isConnected) inst.focused = true; });
  });
  // Play: one level every play_ms from the largest σ (or from here), committed once at the end or on pause
  els.play.addEventListener("click", () => {
    if (inst.playing) { stop(inst); inst.commit(); return; }
    const last = inst.payload.sigmas.length - 1;
    let level = inst.level >= last ? 0 : inst.level;
    inst.playing = setInterval(() => {
      show(inst, level);
      if (level >= last) { stop(inst); inst.commit(); } else level += 1;
    }, inst.payload.play_ms);
    els.play.textContent = words(inst.payload).pause;
    els.play.setAttribute("aria-pressed", "true");
  });
  inst.release = () => { if (inst.pointer) { inst.pointer = false; inst.schedule(); } };
  range.addEventListener("pointerup", inst.release);
  range.addEventListener("pointercancel", inst.release);
  els.downloads.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-format]");
    if (button && inst.payload) rbfvizDownloadFigure(els.plot, button.dataset.format, fileName(inst));
  });
  return inst;
}

// The listeners and observers outside the component's own elements; cleanup removes them all.
function attach(inst, parentElement) {
  inst.parent = parentElement;
  const resize = () => {
    if (inst.payload?.large && inst.level !== null) { inst.drawn = null; show(inst, inst.level); }
  };
  window.addEventListener("pointerup", inst.release);
  window.addEventListener("resize", resize);
  const observer = watchTheme(inst, parentElement);
  inst.cleanup = () => {
    window.removeEventListener("pointerup", inst.release);
    window.removeEventListener("resize", resize);
    observer.disconnect();
    cancelAnimationFrame(inst.frame);
    inst.frame = null;
    inst.pointer = false;
    instances.delete(parentElement);
    park(inst);
  };
}

function park(inst) {
  const key = window.location.pathname;
  if (parked.has(key)) purge(parked.get(key));
  inst.pendingCommit = inst.timer !== null;
  clearTimeout(inst.timer);
  inst.timer = null;
  inst.parkTimer = setTimeout(() => purge(inst), PARK_MS);
  parked.set(key, inst);
}

// The same page mounting its scrubber again: take the parked DOM, focus and pending commit over.
// Scrubbers parked by other pages are let go.
function adopt(parentElement) {
  const key = window.location.pathname;
  for (const [page, old] of parked) if (page !== key) purge(old);
  const inst = parked.get(key);
  if (!inst) return null;
  parked.delete(key);
  clearTimeout(inst.parkTimer);
  parentElement.appendChild(inst.root);
  if (inst.focused) inst.els.range.focus({ preventScroll: true });
  if (inst.pendingCommit) inst.schedule();
  return inst;
}

function purge(inst) {
  clearTimeout(inst.parkTimer);
  clearTimeout(inst.timer);
  stop(inst);
  for (const [key, old] of parked) if (old === inst) parked.delete(key);
  if (window.Plotly && inst.els.plot) window.Plotly.purge(inst.els.plot);
  inst.root.remove();
}

function stop(inst) {
  if (!inst.playing) return;
  clearInterval(inst.playing);
  inst.playing = null;
  inst.els.play.textContent = words(inst.payload).play;
  inst.els.play.setAttribute("aria-pressed", "false");
}

// The page script writes the committed σ into the address on every run, before this element is drawn.
// Without one there, the σ the host gave (the offline page's), else the payload's initial level.
function levelFromAddress(payload, given) {
  const sigma = Number(new URLSearchParams(window.location.search).get("sigma")) || Number(given);
  if (!(sigma > 0)) return payload.initial ?? 0;
  return levelOfSigma(payload, sigma);
}

// The level whose σ is nearest sigma (on a log scale).
function levelOfSigma(payload, sigma) {
  let best = 0;
  payload.sigmas.forEach((s, i) => {
    if (Math.abs(Math.log(s / sigma)) < Math.abs(Math.log(payload.sigmas[best] / sigma))) best = i;
  });
  return best;
}

function show(inst, level) {
  const { payload, els } = inst;
  level = Math.max(0, Math.min(payload.sigmas.length - 1, level));
  inst.level = level;
  const text = `σ = ${sigmaText(payload, level)}`;
  els.range.value = String(payload.sigmas.length - 1 - level);
  els.range.setAttribute("aria-valuetext", text);
  els.value.textContent = text;
  const frame = payload.frames[level];
  els.side.innerHTML = frame.side;
  els.caption.innerHTML = frame.caption
    ? `<strong>${escapeHtml(words(payload).in_words)}</strong> ${escapeHtml(frame.caption)}` : "";
  // Out of the document (unmounted, or parked until its page mounts it again) there is no layout
  // and no computed theme to draw with: the figure is drawn when the scrubber is back (refresh).
  if (!inst.root.isConnected || !(inst.theme ??= themeOf(inst.parent))) {
    inst.pending = true;
    return;
  }
  inst.pending = false;
  const fig = themed(figureAt(payload, level), inst.theme, inst.fields);
  if (!payload.large) fitNarrow(fig, els.plot.clientWidth, payload.config);
  if (payload.large) fig.layout.height = presenterHeight(els);
  if (fig.layout.height) els.plot.style.minHeight = `${fig.layout.height}px`;  // no reflow while Plotly draws
  const updated = inst.drawn === payload && update(els.plot, payload, inst.drawnLevel, level, fig);
  if (!updated) {
    // a trace that fails half-way leaves Plotly's arrays consistent (each trace is all or nothing),
    // and react redraws from the level's figure; point templates are taken afresh from its drawing
    els.plot.__rbfvizPoints = null;
    // Plotly keeps the trace objects it is given as gd.data, which update() changes: give it copies,
    // never the payload's own objects
    const copies = (data) => data.map((trace) => ({ ...trace }));
    const primed = primeEmptyTraces(payload, level, fig, inst);
    window.Plotly.react(els.plot, copies(primed.fig.data), { ...fig.layout }, { responsive: true, ...payload.config });
    for (const index of primed.traces) {
      const templates = (els.plot.__rbfvizPoints ??= new Map());
      if (!redrawTrace(els.plot, index, fig.data[index], new Set(DIRECT_TRACE), templates)) {
        window.Plotly.react(els.plot, copies(fig.data), { ...fig.layout }, { responsive: true, ...payload.config });
        break;
      }
    }
  }
  inst.drawn = payload;
  inst.drawnLevel = level;
  els.plot.dataset.level = String(gridPosition(payload, level));  // the level's place in the whole σ grid
  els.plot.dataset.theme = inst.theme.dark ? "dark" : "light";
  els.plot.dataset.sigma = payload.texts[level];
  if (payload.select) attachSelection(inst);  // once Plotly has drawn (gd.on exists)
  if (payload.probe) showProbe(inst);
}

// --- the probe (probe.js) ----------------------------------------------------------------------------

// The probe follows the pointer resting on the plane (mouse, pen) and a tap or a touch drag (finger); it
// stays where it was last set, so moving σ afterwards (slider, keys) shows that location harden.
function attachProbe(inst) {
  const gd = inst.els.plot;
  if (gd.dataset.probeAttached) return;
  gd.dataset.probeAttached = "1";
  const set = (event) => {
    if (!inst.payload?.probe || (event.pointerType !== "mouse" && event.type === "pointermove" && !event.buttons)) return;
    const point = planePoint(gd, event.clientX, event.clientY);
    if (!point) return;
    inst.probePoint = point;
    showProbe(inst);
  };
  gd.addEventListener("pointermove", set);
  gd.addEventListener("pointerdown", set);
}

// The data coordinates of a client position inside the plane's axes (x and y), or null outside them.
function planePoint(gd, clientX, clientY) {
  const xa = gd._fullLayout?.xaxis, ya = gd._fullLayout?.yaxis;
  if (!xa?.p2c || !ya?.p2c) return null;
  const box = gd.getBoundingClientRect();
  const px = clientX - box.left - xa._offset, py = clientY - box.top - ya._offset;
  if (px < 0 || px > xa._length || py < 0 || py > ya._length) return null;
  return [xa.p2c(px), ya.p2c(py)];
}

// The probe panel at the level on screen, and its mark on the plane (a ring drawn over the plot).
function showProbe(inst) {
  const { payload, els } = inst;
  attachProbe(inst);
  drawProbe(els.probe, payload.probe, inst.level, payload.sigmas[inst.level], inst.probePoint, words(payload),
    payload.decimal);
  const gd = els.plot;
  let mark = gd.querySelector(":scope > .scrub-probe-mark");
  if (!inst.probePoint) { mark?.remove(); return; }
  const xa = gd._fullLayout?.xaxis, ya = gd._fullLayout?.yaxis;
  if (!xa?.c2p || !ya?.c2p) return;
  if (!mark) {
    mark = document.createElement("span");
    mark.className = "scrub-probe-mark";
    mark.setAttribute("aria-hidden", "true");
    gd.appendChild(mark);
  }
  mark.style.left = `${xa._offset + xa.c2p(inst.probePoint[0])}px`;
  mark.style.top = `${ya._offset + ya.c2p(inst.probePoint[1])}px`;
}

// Plotly draws nothing for a trace with no points, so a later level could not add points to it in
// place. For the full drawing, such a trace is given the points of the nearest level where it has
// some (when only its points and colours differ there); the caller then empties it in place, which
// keeps one point as the template for later levels.
function primeEmptyTraces(payload, level, fig, inst) {
  const empty = fig.data.map((trace, index) => index)
    .filter((index) => fig.data[index].type === "scatter" && !(fig.data[index].x?.length));
  if (!empty.length) return { fig, traces: [] };
  const data = fig.data.slice(), traces = [];
  for (const index of empty) {
    const order = payload.sigmas.map((_, other) => other)
      .sort((a, b) => Math.abs(a - level) - Math.abs(b - level));
    for (const other of order) {
      const trace = figureAt(payload, other).data[index];
      if (!trace?.x?.length) continue;
      const paths = changedPaths(payload, level, other)
        .filter((path) => path[0] === "data" && path[1] === index).map((path) => path.slice(2).join("."));
      if (paths.every((path) => DIRECT_TRACE.has(path))) {
        data[index] = themed({ data: [trace], layout: fig.layout }, inst.theme, inst.fields).data[0];
        traces.push(index);
      }
      break;
    }
  }
  return { fig: { ...fig, data }, traces };
}

// From one drawn level to another, only what differs between them, found from the two levels'
// (path, value) pairs and drawn straight into Plotly's SVG where that is safe:
// - a scatter trace's per-point colours and hover data: its points' fill, and the arrays hover reads;
// - a scatter trace's x and y (markers and straight lines): its points' positions (points added or
//   removed when the count changes) and its line's path, with the arrays hover and selection read;
// - a field image: the <image>'s href (decoded ahead of time, see predecode); the title and an
//   annotation's plain or bold text: their text nodes.
// What is left (an arrow annotation's ends, another layout entry) goes through one Plotly.relayout.
// Returns false where that does not apply (a trace this cannot draw, a whole trace list replaced);
// the caller then reacts. Subplots and traces that do not change are not touched.
const DIRECT_TRACE = new Set(["marker.color", "customdata", "x", "y"]);
const XLINK = "http://www.w3.org/1999/xlink";

function levelPairs(payload, level) {
  const out = new Map();
  for (const [path, value] of payload.frames[level].set) out.set(JSON.stringify(path), [path, value]);
  return out;
}

function changedPaths(payload, from, to) {
  const before = levelPairs(payload, from), after = levelPairs(payload, to), out = [];
  for (const [key, [path, value]] of after) if (!before.has(key) || before.get(key)[1] !== value) out.push(path);
  for (const [key, [path]] of before) if (!after.has(key)) out.push(path);
  return out;
}

function update(gd, payload, from, to, fig) {
  if (from === to) return true;
  if (!gd._fullLayout || !gd.calcdata) return false;
  const traces = new Map(), annotations = new Map(), images = new Set(), layout = {};
  let title = false;
  for (const path of changedPaths(payload, from, to)) {
    if (path[0] === "data" && typeof path[1] === "number" && path.length > 2) {
      if (!traces.has(path[1])) traces.set(path[1], new Set());
      traces.get(path[1]).add(path.slice(2).join("."));
    } else if (path[0] === "layout" && path[1] === "images" && typeof path[2] === "number" && path[3] === "source"
               && path.length === 4) {
      images.add(path[2]);
    } else if (path[0] === "layout" && path[1] === "annotations" && typeof path[2] === "number" && path.length === 4) {
      if (!annotations.has(path[2])) annotations.set(path[2], new Set());
      annotations.get(path[2]).add(path[3]);
    } else if (path[0] === "layout" && path[1] === "title" && path[2] === "text" && path.length === 3) {
      title = true;
    } else if (path[0] === "layout" && path.length > 1) {
      let value = fig.layout, key = "";
      for (const part of path.slice(1)) {
        value = value?.[part];
        key += typeof part === "number" ? `[${part}]` : (key ? "." : "") + part;
      }
      layout[key] = value ?? null;
    } else return false;
  }
  for (const index of traces.keys()) if (fig.data[index]?.type !== "scatter" || !gd.data[index]) return false;
  for (const index of annotations.keys()) {
    if (!fig.layout.annotations?.[index] || !gd.layout.annotations?.[index]) return false;
  }

  // traces first: if one cannot be drawn here, nothing has been touched yet and Plotly draws the level
  gd.__rbfvizPoints ??= new Map();
  for (const [index, attributes] of traces) {
    if (![...attributes].every((a) => DIRECT_TRACE.has(a))) return false;
  }
  for (const [index, attributes] of traces) {
    if (!redrawTrace(gd, index, fig.data[index], attributes, gd.__rbfvizPoints)) return false;
  }
  for (const index of images) {
    const source = fig.layout.images[index].source;
    if (!swapImage(gd, index, source)) layout[`images[${index}].source`] = source;
  }
  if (title) {
    const text = fig.layout.title?.text ?? "";
    if (!setTitle(gd, text)) layout["title.text"] = text;
  }
  const redrawn = [];
  for (const [index, keys] of annotations) {
    const want = fig.layout.annotations[index];
    if (keys.size === 1 && keys.has("text") && setAnnotationText(gd, index, want.text)) continue;
    if ([...keys].every((key) => key === "x" || key === "y") && moveArrowHead(gd, index, want)) continue;
    // Plotly marks an annotation's position and text as needing a full replot (calc) even on fixed
    // axes; its opacity only redraws that annotation, from gd.layout: set the new values there and
    // ask for that cheaper redraw.
    const have = { ...gd.layout.annotations[index] };
    for (const key of keys) have[key] = want[key];
    gd.layout.annotations = gd.layout.annotations.slice();
    gd.layout.annotations[index] = have;
    layout[`annotations[${index}].opacity`] = have.opacity ?? 1;
    redrawn.push([index, "opacity" in have]);
  }
  if (Object.keys(layout).length) {
    window.Plotly.relayout(gd, layout);
    for (const [index, had] of redrawn) if (!had) delete gd.layout.annotations[index].opacity;
  }
  return true;
}

// An arrow annotation whose head moves (tail, text and style unchanged), drawn as Plotly's annotation
// code draws it: the line runs from where it leaves the text box at the tail to the head; its dash
// array ("0, start backoff, visible length, length") hides the parts under the arrowheads, whose
// backoffs are read from the current drawing; the head is translated to the visible line's end and
// rotated along it. False where Plotly would draw it differently (an end outside its axes, an offset
// or rotated text, a head inside the text box, an arrow too short for its heads, a head at the start):
// Plotly then redraws it.
function moveArrowHead(gd, index, want) {
  const full = gd._fullLayout.annotations?.[index];
  const group = gd.querySelector(`g.annotation[data-index="${index}"]`);
  if (!full || !group || !full.showarrow || full.arrowside !== "end" || full.textangle || full.standoff
      || full.xshift || full.yshift || full.axref !== full.xref || full.ayref !== full.yref
      || (full.xanchor ?? "auto") !== "auto" || (full.yanchor ?? "auto") !== "auto") return false;
  const xa = gd._fullLayout[axisKey(full.xref, "x")], ya = gd._fullLayout[axisKey(full.yref, "y")];
  if (!xa?.r2p || !ya?.r2p || xa.type !== "linear" || ya.type !== "linear") return false;
  const x = Number(want.x), y = Number(want.y);
  const inside = (axis, value) => { const f = axis.r2fraction(value); return f >= 0 && f <= 1; };
  if (!inside(xa, x) || !inside(ya, y) || !inside(xa, full.ax) || !inside(ya, full.ay)) return false;
  const box = group.querySelector("rect.bg");
  const drawn = arrowDrawing(group);
  if (!drawn || !box) return false;
  const { line, head } = drawn;
  // the heads' backoffs: this arrow's own, or (hidden) those of a drawn arrow of the same style
  const key = ARROW_STYLE.map((name) => full[name]).join("|");
  const backOffs = (gd.__rbfvizBackOffs ??= new Map());
  if (head && !backOffs.has(key)) backOffs.set(key, drawn.backOffs);
  if (!backOffs.has(key)) {
    for (const [other, otherFull] of (gd._fullLayout.annotations || []).entries()) {
      const found = ARROW_STYLE.every((name) => otherFull[name] === full[name])
        && arrowDrawing(gd.querySelector(`g.annotation[data-index="${other}"]`));
      if (found?.head) { backOffs.set(key, found.backOffs); break; }
    }
  }
  if (!backOffs.has(key)) return false;
  const { start: startBackOff, end: backOff } = backOffs.get(key);
  const scale = (full.arrowwidth || 1) * (full.arrowsize || 1);

  const tailX = xa._offset + xa.r2p(full.ax), tailY = ya._offset + ya.r2p(full.ay);
  const headX = xa._offset + xa.r2p(x), headY = ya._offset + ya.r2p(y);
  const width = Number(box.getAttribute("width")), height = Number(box.getAttribute("height"));
  const left = tailX - 0.5 * width, right = left + width, top = tailY - 0.5 * height, bottom = top + height;
  const edges = [[left, top, left, bottom], [left, bottom, right, bottom], [right, bottom, right, top],
    [right, top, left, top]];
  if (edges.reduce((odd, e) => odd ^ !!segmentsIntersect(headX, headY, headX + 1e6, headY + 1e6, ...e), 0)) {
    return false;  // the head inside the text box: no arrow
  }
  let startX = tailX, startY = tailY;
  for (const e of edges) {
    const hit = segmentsIntersect(startX, startY, headX, headY, ...e);
    if (hit) [startX, startY] = [hit.x, hit.y];
  }
  // Plotly hides an arrow shorter than its heads' backoffs: no head, and a dash array that hides the line.
  // (Near that length, and for a hidden arrow that becomes visible, Plotly draws it.)
  const reach = Math.hypot(headX - startX, headY - startY) - startBackOff - backOff;
  if (!(Math.abs(reach) > 0.5) || (reach > 0 && !head)) return false;
  line.setAttribute("d", `M${startX},${startY}L${headX},${headY}`);
  if (reach < 0) {
    line.style.strokeDasharray = "0px,100px";
    head?.remove();
    return setArrowHead(gd, index, full, want);
  }
  const length = line.getTotalLength();
  const end0 = line.getPointAtLength(length), end1 = line.getPointAtLength(length - 0.1);
  const angle = (Math.atan2(end0.y - end1.y, end0.x - end1.x) * 180) / Math.PI;
  const end = line.getPointAtLength(Math.max(0, length - backOff));
  line.style.strokeDasharray = `0px,${startBackOff}px,${length - startBackOff - backOff}px,${length}px`;
  head.setAttribute("transform", `${end.x || end.y ? `translate(${end.x},${end.y})` : ""}`
    + `${angle ? `rotate(${angle})` : ""}${scale !== 1 ? `scale(${scale})` : ""}`);
  return setArrowHead(gd, index, full, want);
}

// What makes two arrows' heads alike (their backoffs are the same).
const ARROW_STYLE = ["arrowhead", "arrowsize", "arrowwidth", "standoff", "startarrowhead", "startarrowsize",
  "startstandoff", "arrowside"];

// An arrow annotation's line and head as Plotly drew them, with the heads' backoffs its dash array
// ("0, start backoff, visible length, length") gives; a hidden arrow (too short: "0, 100" and no head)
// has no backoffs to read. Null for any other drawing.
function arrowDrawing(group) {
  const paths = group ? group.querySelectorAll(":scope g.annotation-arrow-g > path") : [];
  const line = paths[0];
  const dash = line && (line.style.strokeDasharray || "").match(/[\d.e+-]+/g)?.map(Number);
  if (paths.length === 1 && dash?.length === 2 && dash[0] === 0 && dash[1] === 100) return { line, head: null };
  if (paths.length !== 2 || dash?.length !== 4 || dash[0] !== 0) return null;  // (no drag handle either)
  const backOffs = { start: dash[1], end: line.getTotalLength() - dash[1] - dash[2] };
  return backOffs.end >= 0 ? { line, head: paths[1], backOffs } : null;
}

function setArrowHead(gd, index, full, want) {
  gd.layout.annotations = gd.layout.annotations.slice();  // the payload's own array: never changed in place
  gd.layout.annotations[index] = { ...gd.layout.annotations[index], x: want.x, y: want.y };
  full.x = want.x;
  full.y = want.y;
  return true;
}

// Where segment (x1, y1)-(x2, y2) crosses segment (x3, y3)-(x4, y4), or null (Plotly's own rule).
function segmentsIntersect(x1, y1, x2, y2, x3, y3, x4, y4) {
  const a = x2 - x1, b = x3 - x1, c = x4 - x3, d = y2 - y1, e = y3 - y1, f = y4 - y3;
  const det = a * f - c * d;
  if (det === 0) return null;
  const t = (b * f - c * e) / det, u = (b * d - a * e) / det;
  if (u < 0 || u > 1 || t < 0 || t > 1) return null;
  return { x: x1 + a * t, y: y1 + d * t };
}

const finite = (values) => Array.prototype.every.call(values, (v) => v !== null && Number.isFinite(Number(v)));

// One scatter trace of markers and/or straight lines, in place: the points' positions and colours,
// the line's path, and the arrays Plotly's hover and selection read (gd.data, _fullData, calcdata).
// Plotly draws each point as a path.point translated to its pixel position, in data order, and a
// line as one path.js-line. Points are added as copies of one the trace had (kept in templates, so a
// trace that empties can fill again). False if the drawing is not what this expects (then Plotly
// draws the level).
function redrawTrace(gd, index, trace, attributes, templates) {
  const full = gd._fullData?.[index], cd = gd.calcdata?.[index];
  const group = traceGroup(gd, index);
  if (!full || !cd?.length || !group || full.visible !== true || full.type !== "scatter") return false;
  const mode = full.mode || "";
  if (/text/.test(mode) || (full.fill && full.fill !== "none") || full.error_x?.visible || full.error_y?.visible) {
    return false;
  }
  const moved = attributes.has("x") || attributes.has("y");
  const x = moved ? trace.x : full.x, y = moved ? trace.y : full.y;
  const n = x?.length ?? 0;
  const drawn = full._length ?? 0;
  if (y?.length !== n || !finite(x) || !finite(y) || (drawn && drawn !== cd.length)) return false;
  const colours = trace.marker?.color;
  const perPoint = Array.isArray(colours);
  if (perPoint && colours.length !== n) return false;
  const xa = gd._fullLayout[axisKey(full.xaxis, "x")], ya = gd._fullLayout[axisKey(full.yaxis, "y")];
  if (!xa?.c2p || !ya?.c2p) return false;
  const px = (j) => xa.c2p(Number(x[j])), py = (j) => ya.c2p(Number(y[j]));

  let points = [], layer = null;
  if (mode.includes("markers")) {
    layer = group.querySelector("g.points");
    points = layer ? Array.from(layer.querySelectorAll(":scope > path.point")) : [];
    if (!layer || points.length !== drawn) return false;
    if (points.length) templates.set(index, points[0].cloneNode(true));
    if (n !== drawn && (!templates.has(index) || Array.isArray(full.marker?.size)
        || Array.isArray(full.marker?.symbol) || Array.isArray(full.marker?.opacity))) return false;
  }
  let line = null;
  if (mode.includes("lines")) {
    line = group.querySelector("path.js-line");
    if (!line || (full.line?.shape && full.line.shape !== "linear")) return false;
  }
  if (layer) {
    while (points.length < n) points.push(layer.appendChild(templates.get(index).cloneNode(true)));
    while (points.length > n) points.pop().remove();
    points.forEach((point, j) => {
      point.setAttribute("transform", `translate(${px(j)},${py(j)})`);
      if (perPoint) point.style.fill = colours[j];
    });
  }
  if (line) {
    let d = "";
    for (let j = 0; j < n; j++) d += `${j ? "L" : "M"}${px(j)},${py(j)}`;
    line.setAttribute("d", d || "M0,0");
  }
  const { t, trace: fullTrace, node3, ...perPointKeys } = cd[cd.length - 1];  // per-point keys to copy
  for (let j = 0; j < n; j++) {
    const point = cd[j] ?? (cd[j] = { ...perPointKeys });
    point.x = Number(x[j]);
    point.y = Number(y[j]);
    point.i = j;
    if (perPoint) {
      point.mc = colours[j];
      if ("mcc" in point) point.mcc = colours[j];
    }
  }
  // Plotly keeps one entry for an empty trace, with no coordinates
  if (!n) Object.assign(cd[0], { x: undefined, y: undefined });
  cd.length = Math.max(n, 1);
  full._length = n;
  for (const target of [gd.data[index], full]) {
    target.x = x;
    target.y = y;
    if (perPoint || attributes.has("marker.color")) target.marker = { ...target.marker, color: colours };
    if ("customdata" in trace) target.customdata = trace.customdata;
    else if (attributes.has("customdata")) delete target.customdata;
  }
  return true;
}

// The <g class="trace"> Plotly drew trace ``index`` into: its calcdata keeps a handle to it, which a
// recomputation of the calcdata loses; the group's d3 datum names its trace.
function traceGroup(gd, index) {
  const group = gd.calcdata?.[index]?.[0]?.node3?.node?.();
  if (group?.isConnected) return group;
  return Array.from(gd.querySelectorAll(".scatterlayer g.trace"))
    .find((el) => el.__data__?.[0]?.trace?.index === index) ?? null;
}

function axisKey(ref, letter) {
  const name = axisName(ref ?? letter);
  return name ? `${letter}axis${name.slice(1)}` : null;
}

// A field image's new source: the <image> Plotly drew for layout.images[index] (its d3 datum holds
// the index) takes the new href; the image was decoded ahead of time.
function swapImage(gd, index, source) {
  const node = Array.from(gd.querySelectorAll("g.imagelayer image, g.layer-below image, g.layer-above image"))
    .find((el) => el.__data__?._index === index);
  if (!node || !gd._fullLayout.images?.[index]) return false;
  node.setAttributeNS(XLINK, "xlink:href", source);
  if (node.hasAttribute("href")) node.setAttribute("href", source);
  gd.layout.images = gd.layout.images.slice();  // the payload's own array: never changed in place
  gd.layout.images[index] = { ...gd.layout.images[index], source };
  gd._fullLayout.images[index].source = source;
  return true;
}

const PLAIN = /^[^<>&$]*$/;

// The title's text node, when both texts are plain (Plotly draws markup as tspans: left to it).
function setTitle(gd, text) {
  const node = gd.querySelector("text.gtitle");
  const old = gd._fullLayout.title?.text ?? "";
  if (!node || node.children.length || !PLAIN.test(text) || !PLAIN.test(old) || !text) return false;
  node.textContent = text;
  node.setAttribute("data-unformatted", text);
  gd.layout.title = { ...(gd.layout.title || {}), text };
  gd._fullLayout.title.text = text;
  return true;
}

// An annotation's text when old and new are both plain or both one <b>…</b>: its text (or bold tspan)
// node. Plotly draws annotation text centred on its box (text-anchor middle), so it stays centred.
function setAnnotationText(gd, index, text) {
  const full = gd._fullLayout.annotations?.[index];
  const node = gd.querySelector(`g.annotation[data-index="${index}"] text.annotation-text`);
  if (!full || !node || node.getAttribute("text-anchor") !== "middle" || typeof text !== "string") return false;
  const bold = (t) => t.match(/^<b>([^<>&$]*)<\/b>$/);
  const plain = (t) => (PLAIN.test(t) ? [t, t] : null);
  const now = bold(full.text) ?? plain(full.text), next = bold(text) ?? plain(text);
  if (!now || !next || !!bold(full.text) !== !!bold(text) || !next[1]) return false;
  const target = bold(text) ? node.querySelector("tspan") : node;
  if (!target || node.children.length !== (bold(text) ? 1 : 0) || target.children.length) return false;
  target.textContent = next[1];
  node.setAttribute("data-unformatted", text);
  gd.layout.annotations = gd.layout.annotations.slice();
  gd.layout.annotations[index] = { ...gd.layout.annotations[index], text };
  full.text = text;
  return true;
}

// Every field image of every level, decoded ahead, so a swap on a key press only repaints.
function predecode(inst) {
  inst.decoded = [];
  for (const frame of inst.payload.frames) {
    for (const [path, value] of frame.set) {
      if (path[1] === "images" && path[3] === "source" && typeof value === "string") {
        const image = new Image();
        image.src = value;
        image.decode().catch(() => {});
        inst.decoded.push(image);
      }
    }
  }
}

function attachSelection(inst) {
  const gd = inst.els.plot;
  if (gd.dataset.selectionAttached) return;
  gd.dataset.selectionAttached = "1";
  const send = (event) => {
    const ids = inst.payload.point_ids;
    const points = (event?.points ?? []).filter((p) => p.curveNumber === 0)
      .map((p) => (ids ? ids[p.pointNumber] : p.pointNumber));
    if (points.length) inst.setTriggerValue("selected", points);
  };
  gd.on("plotly_click", send);
  gd.on("plotly_selected", send);
}

// The payload's words (English without a payload or words), and a text's {name} fields filled in.
function words(payload) {
  return payload?.ui ?? ENGLISH_TEXTS;
}

function fill(template, fields) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in fields ? String(fields[name]) : whole));
}

// σ of a level as the reader writes it: the server's text with the language's decimal separator.
function sigmaText(payload, level) {
  const text = payload.texts[level];
  return payload.decimal && payload.decimal !== "." ? text.replace(".", payload.decimal) : text;
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// --- downloads ---------------------------------------------------------------------------------------

// rbfviz_<view>_<data set>_sigma-<σ>: the view from the page's title ("Explorer · rbfviz"), the data
// set and σ from the address and the level shown (the address holds every control).
function fileName(inst) {
  const slug = (text) => String(text).toLowerCase().replace(/[^a-z0-9.]+/g, "-").replace(/^-+|-+$/g, "");
  const view = slug(document.title.split("·")[0]) || "figure";
  const dataset = slug(new URLSearchParams(window.location.search).get("dataset") || inst.dataset || "data");
  return `rbfviz_${view}_${dataset}_sigma-${inst.payload.texts[inst.level]}`;
}

// --- light and dark theme ----------------------------------------------------------------------------
// The same rule as rbfviz.views.common.layout.themed_spec (which does it for st.plotly_chart through
// Streamlit's chart theme): backgrounds, text, grid, legend and hover labels take the theme's colours,
// ink colours become the text colour, except on subplots whose background is a (light) field image.
const INKS = new Set(__INK_COLORS__);
const FIELD_LEGEND = __FIELD_LEGEND__;

// The theme's colours, from the CSS custom properties Streamlit gives every component (--st-*); null
// for an element out of the document, which has no computed style (its colours read as "").
function themeOf(element) {
  if (!element?.isConnected) return null;
  const css = getComputedStyle(element);
  const probe = document.createElement("span");
  element.appendChild(probe);
  const rgb = (value, fallback) => {
    probe.style.color = "";
    probe.style.color = value || fallback;
    const parts = getComputedStyle(probe).color.match(/[\d.]+/g);
    return parts && parts.length >= 3 ? parts.slice(0, 3).map(Number) : null;
  };
  const text = rgb(css.getPropertyValue("--st-text-color").trim(), "#31333f");
  const background = rgb(css.getPropertyValue("--st-background-color").trim(), "#ffffff");
  probe.remove();
  if (!text || !background) return null;
  const luminance = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const css_ = ([r, g, b], alpha = 1) => `rgba(${r},${g},${b},${alpha})`;
  return {
    dark: luminance(background) < luminance(text), text: css_(text), background: css_(background),
    grid: css_(text, 0.12), line: css_(text, 0.45), key: `${text}|${background}`,
  };
}

// Redraws a scrubber in the page whose theme changed, or that could not draw while out of the page.
function refresh(inst) {
  if (!inst.payload || !inst.root.isConnected) return;
  const theme = themeOf(inst.parent);
  if (!theme) return;
  const changed = theme.key !== inst.theme?.key;
  if (changed) {
    inst.theme = theme;
    inst.drawn = null;
  }
  if (changed || inst.pending) show(inst, inst.level);
}

// A theme switch changes the classes (and so the --st-* values) of the component's wrappers: redraw.
// (The observer also watches document.body, which can change while the element is already out of the
// page and not yet unmounted: refresh then does nothing.)
function watchTheme(inst, element) {
  const observer = new MutationObserver(() => refresh(inst));
  for (let node = element, i = 0; node && i < 6; node = node.parentElement, i++) {
    observer.observe(node, { attributes: true, attributeFilter: ["class", "style"] });
  }
  observer.observe(document.body, { attributes: true, attributeFilter: ["class", "style"] });
  return observer;
}

function axisName(ref) {
  const match = typeof ref === "string" && ref.match(/^([xy])(?:axis)?(\d*)/);
  if (!match) return null;
  return match[1] + (match[2] === "" || match[2] === "1" ? "" : match[2]);
}

function fieldSubplots(layout) {
  const out = new Set();
  for (const image of layout.images || []) {
    if (image.layer === "below") out.add(`${axisName(image.xref ?? "x")}|${axisName(image.yref ?? "y")}`);
  }
  return out;
}

// A copy of value with its ink colours replaced (only containers that hold strings are copied).
function inked(value, ink) {
  if (typeof value === "string") return INKS.has(value.trim().toLowerCase().replace(/ /g, "")) ? ink : value;
  if (Array.isArray(value)) return value.some((v) => v && typeof v !== "number") ? value.map((v) => inked(v, ink)) : value;
  if (value && typeof value === "object" && !ArrayBuffer.isView(value)) {
    const out = {};
    for (const [key, item] of Object.entries(value)) out[key] = inked(item, ink);
    return out;
  }
  return value;
}

function themed(fig, theme, fields) {
  const onField = (x, y) => fields.has(`${axisName(x ?? "x")}|${axisName(y ?? "y")}`);
  const layout = { ...fig.layout, paper_bgcolor: theme.background, plot_bgcolor: theme.background,
    font: { ...(fig.layout.font || {}), color: theme.text } };
  for (const key of Object.keys(layout)) {
    if (/^[xy]axis\d*$/.test(key) && layout[key]) {
      layout[key] = { ...layout[key], gridcolor: theme.grid, linecolor: theme.line, zerolinecolor: theme.line };
    }
  }
  if (layout.legend) {
    layout.legend = fields.size
      ? { ...layout.legend, bgcolor: FIELD_LEGEND.bgcolor, font: { ...(layout.legend.font || {}), ...FIELD_LEGEND.font } }
      : { ...layout.legend, bgcolor: "rgba(0,0,0,0)" };
  }
  layout.hoverlabel = { ...(layout.hoverlabel || {}), bgcolor: theme.background, bordercolor: theme.line,
    font: { ...(layout.hoverlabel?.font || {}), color: theme.text } };
  for (const key of ["shapes", "annotations"]) {
    if (layout[key]) layout[key] = layout[key].map((item) => (onField(item.xref, item.yref) ? item : inked(item, theme.text)));
  }
  for (const key of ["sliders", "updatemenus"]) if (layout[key]) layout[key] = inked(layout[key], theme.text);
  const data = fig.data.map((trace) => (onField(trace.xaxis, trace.yaxis) ? trace : inked(trace, theme.text)));
  return { ...fig, data, layout };
}

// --- narrow screens (phones) -------------------------------------------------------------------------

const NARROW_PX = 600;

// Below NARROW_PX wide: a plane (y scaled to x) is only as tall as its width needs, so no empty band
// above and below it pushes the figure and the numbers down the screen, and a long title breaks at
// the comma nearest its middle instead of running off the edge, and starts below the mode bar (where
// the figure's config shows one: the Explorer's; 44 px tall on a touch screen) instead of under it.
function fitNarrow(fig, width, config) {
  const layout = fig.layout;
  if (!width || width >= NARROW_PX) return;
  const x = layout.xaxis, y = layout.yaxis, m = layout.margin || {};
  if (layout.height && y?.scaleanchor === "x" && x?.range && y?.range) {
    const plotWidth = width - (m.l ?? 80) - (m.r ?? 80);
    const plotHeight = (plotWidth * Math.abs(y.range[1] - y.range[0])) / Math.abs(x.range[1] - x.range[0]);
    const height = Math.min(layout.height, Math.round(plotHeight + (m.t ?? 100) + (m.b ?? 80)));
    // a legend below the plot is placed in fractions of the plot's height: keep it as many pixels below
    const was = layout.height - (m.t ?? 100) - (m.b ?? 80), now = height - (m.t ?? 100) - (m.b ?? 80);
    if (layout.legend?.y < 0 && now > 0) layout.legend = { ...layout.legend, y: (layout.legend.y * was) / now };
    layout.height = height;
  }
  const title = layout.title?.text;
  const fontSize = layout.title?.font?.size ?? 17;
  if (title && !title.includes("<br>") && title.length * fontSize * 0.5 > width) {
    const commas = [...title.matchAll(/, /g)].map((match) => match.index);
    if (commas.length) {
      const at = commas.reduce((a, b) => (Math.abs(b - title.length / 2) < Math.abs(a - title.length / 2) ? b : a));
      layout.title = { ...layout.title, text: `${title.slice(0, at + 1)}<br>${title.slice(at + 2)}` };
      layout.margin = { ...m, t: (m.t ?? 100) + fontSize };
      if (layout.height) layout.height += fontSize;
    }
  }
  if (layout.title?.text && config?.displayModeBar !== false) {
    const bar = window.matchMedia?.("(pointer: coarse)").matches ? 44 : 28;
    // Plotly places a title of several lines one line higher per extra line than its pad says
    const lines = layout.title.text.split("<br>").length;
    const pad = bar + 4 + (lines - 1) * (layout.title.font?.size ?? 17);
    layout.title = { ...layout.title, yref: "container", y: 1, yanchor: "top", pad: { t: pad } };
    layout.margin = { ...layout.margin, t: (layout.margin?.t ?? 100) + bar };
    if (layout.height) layout.height += bar;
  }
}

// --- presenter mode ----------------------------------------------------------------------------------

// The figure fills the window's height under Streamlit's header and the σ control row, so a class sees
// the whole plot, and the control, with the page scrolled to the slider.
function presenterHeight(els) {
  const header = document.querySelector('[data-testid="stHeader"]')?.offsetHeight ?? 0;
  const control = els.range.closest(".scrub-control")?.offsetHeight ?? 0;
  return Math.max(380, Math.round(window.innerHeight - header - control - 28));
}
