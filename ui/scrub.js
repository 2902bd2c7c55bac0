// The σ scrubber: a labelled range input that redraws a Plotly figure from precomputed levels.
//
// Payload (rbfviz/figures/scrub.py): gzip of  "RBFS" | u32 header length | header JSON | blobs.
// Each level is a list of (path, value) pairs applied to the base figure, the HTML of the numbers
// beside the plot and one sentence. This file only selects and draws: every number was computed and
// formatted by the server. When the user stops moving σ (SETTLE_MS without input, pointer up),
// the level is committed with setStateValue("level"), which reruns the page script once.
const SETTLE_MS = 500;
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

async function loadPlotly() {
  // Streamlit's own Plotly bundle (the one st.plotly_chart uses) defines window.Plotly when loaded.
  if (window.Plotly) return window.Plotly;
  const main = document.querySelector('script[type="module"][src*="/static/js/index"]');
  const url = new URL("__PLOTLY_CHUNK__", main ? main.src : new URL("static/js/", document.baseURI));
  await import(/* @vite-ignore */ url.href);
  if (!window.Plotly) throw new Error("Plotly did not load");
  return window.Plotly;
}

// A child of the component's element: its innerHTML would also wipe the stylesheet Streamlit put there.
function build(parent) {
  const root = document.createElement("div");
  parent.appendChild(root);
  root.innerHTML = `
    <div class="scrub">
      <div class="scrub-control">
        <button class="scrub-play" type="button" hidden>▶ Play</button>
        <label class="scrub-label"></label>
        <input class="scrub-range" type="range" step="1">
        <output class="scrub-value" aria-live="off"></output>
        <span class="scrub-downloads" role="group" aria-label="Download this figure">
          <button class="scrub-download" type="button" data-format="png">PNG</button>
          <button class="scrub-download" type="button" data-format="svg">SVG</button>
        </span>
      </div>
      <div class="scrub-body">
        <div class="scrub-plot"></div>
        <div class="scrub-side"></div>
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
  };
}

export default function (component) {
  const { data, parentElement, setStateValue, setTriggerValue } = component;
  let inst = instances.get(parentElement);
  if (!inst) {
    inst = { els: build(parentElement), bytes: null, payload: null, level: null, timer: null, pointer: false };
    instances.set(parentElement, inst);
    const { range } = inst.els;
    const commit = () => {
      clearTimeout(inst.timer);
      inst.timer = null;
      if (inst.payload && inst.level !== inst.committed) {
        inst.committed = inst.level;
        setStateValue("level", inst.level);
      }
    };
    const schedule = () => {
      clearTimeout(inst.timer);
      if (!inst.pointer) inst.timer = setTimeout(commit, SETTLE_MS);
    };
    // at most one draw per animation frame: a fast drag skips the levels it passes between frames
    range.addEventListener("input", () => {
      if (!inst.payload) return;
      inst.wanted = inst.payload.sigmas.length - 1 - Number(range.value);
      if (!inst.frame) {
        inst.frame = requestAnimationFrame(() => { inst.frame = null; show(inst, inst.wanted); });
      }
      schedule();
    });
    range.addEventListener("pointerdown", () => { stop(inst); inst.pointer = true; clearTimeout(inst.timer); });
    range.addEventListener("keydown", () => stop(inst));
    // Play: one level every play_ms from the largest σ (or from here), committed once at the end or on pause
    inst.els.play.addEventListener("click", () => {
      if (inst.playing) { stop(inst); commit(); return; }
      const last = inst.payload.sigmas.length - 1;
      let level = inst.level >= last ? 0 : inst.level;
      inst.playing = setInterval(() => {
        show(inst, level);
        if (level >= last) { stop(inst); commit(); } else level += 1;
      }, inst.payload.play_ms);
      inst.els.play.textContent = "❚❚ Pause";
      inst.els.play.setAttribute("aria-pressed", "true");
    });
    const release = () => { if (inst.pointer) { inst.pointer = false; schedule(); } };
    range.addEventListener("pointerup", release);
    range.addEventListener("pointercancel", release);
    window.addEventListener("pointerup", release);
    inst.els.downloads.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-format]");
      if (button && inst.payload) rbfvizDownloadFigure(inst.els.plot, button.dataset.format, fileName(inst));
    });
    watchTheme(inst, parentElement);
    window.addEventListener("resize", () => {
      if (inst.payload?.large && inst.level !== null) { inst.drawn = null; show(inst, inst.level); }
    });
    inst.setTriggerValue = setTriggerValue;
  }
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data.buffer ?? data);
  if (inst.bytes && inst.bytes.length === bytes.length && inst.bytes.every((b, i) => b === bytes[i])) return;
  inst.bytes = bytes;
  Promise.all([readPayload(bytes), loadPlotly()]).then(([payload]) => {
    inst.payload = payload;
    const { range, label } = inst.els;
    const count = payload.sigmas.length;
    range.min = 0;
    range.max = count - 1;
    label.textContent = payload.label;
    parentElement.querySelector(".scrub").classList.toggle("scrub-large", payload.large);
    inst.els.play.hidden = !payload.play_ms;
    inst.els.downloads.hidden = payload.large;  // a projector needs no downloads (as the page's own)
    range.setAttribute("aria-label", payload.label);
    inst.theme = themeOf(parentElement);
    inst.fields = fieldSubplots(payload.figure.layout);
    inst.committed = levelFromAddress(payload);
    show(inst, inst.committed);
    if (payload.select) attachSelection(inst);
  }).catch((err) => {
    inst.els.error.hidden = false;
    inst.els.error.textContent = `The σ figure could not be drawn (${err.message}). Reload the page.`;
    console.error(err);
  });
}

function stop(inst) {
  if (!inst.playing) return;
  clearInterval(inst.playing);
  inst.playing = null;
  inst.els.play.textContent = "▶ Play";
  inst.els.play.setAttribute("aria-pressed", "false");
}

// The page script writes the committed σ into the address on every run, before this element is drawn.
function levelFromAddress(payload) {
  const sigma = Number(new URLSearchParams(window.location.search).get("sigma"));
  if (!(sigma > 0)) return payload.initial ?? 0;
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
  const text = `σ = ${payload.texts[level]}`;
  els.range.value = String(payload.sigmas.length - 1 - level);
  els.range.setAttribute("aria-valuetext", text);
  els.value.textContent = text;
  const frame = payload.frames[level];
  els.side.innerHTML = frame.side;
  els.caption.innerHTML = frame.caption ? `<strong>In words:</strong> ${escapeHtml(frame.caption)}` : "";
  const fig = themed(figureAt(payload, level), inst.theme, inst.fields);
  if (payload.large) fig.layout.height = presenterHeight(els);
  if (fig.layout.height) els.plot.style.minHeight = `${fig.layout.height}px`;  // no reflow while Plotly draws
  if (!(inst.drawn === payload && update(els.plot, payload, inst.drawnLevel, level, fig))) {
    window.Plotly.react(els.plot, fig.data, fig.layout, { responsive: true, ...payload.config });
  }
  inst.drawn = payload;
  inst.drawnLevel = level;
  els.plot.dataset.level = String(level);
  els.plot.dataset.theme = inst.theme.dark ? "dark" : "light";
  els.plot.dataset.sigma = payload.texts[level];
}

// From one drawn level to another, only what differs between them:
// - a scatter trace whose only changes are its per-point colours and hover data is recoloured in
//   place (its SVG points' fill, and the arrays Plotly's hover reads): ~0.3 ms instead of ~30 ms;
// - other changed traces go through Plotly.animate without a redraw (about half of Plotly.react,
//   which redraws every trace), and changed layout entries through Plotly.relayout.
// Returns false where that does not apply (a whole trace list replaced, a trace type Plotly cannot
// animate); the caller then reacts.
const RECOLOURABLE = new Set(["marker.color", "customdata"]);

function update(gd, payload, from, to, fig) {
  if (from === to) return true;
  const paths = [...payload.frames[from].set, ...payload.frames[to].set].map(([path]) => path);
  const changed = new Map(), layout = {};
  for (const path of paths) {
    if (path[0] === "data" && typeof path[1] === "number" && path.length > 2) {
      if (!changed.has(path[1])) changed.set(path[1], new Set());
      changed.get(path[1]).add(path.slice(2).join("."));
    } else if (path[0] === "layout" && path.length > 1) {
      let value = fig.layout, key = "";
      for (const part of path.slice(1)) {
        value = value?.[part];
        key += typeof part === "number" ? `[${part}]` : (key ? "." : "") + part;
      }
      layout[key] = value ?? null;
    } else return false;
  }
  const animated = [];
  for (const [index, attributes] of changed) {
    if (fig.data[index].type !== "scatter") return false;
    if (![...attributes].every((a) => RECOLOURABLE.has(a)) || !recolour(gd, index, fig.data[index])) {
      animated.push(index);
    }
  }
  if (animated.length) {
    window.Plotly.animate(gd, { data: animated.map((i) => fig.data[i]), traces: animated },
      { mode: "immediate", transition: { duration: 0 }, frame: { duration: 0, redraw: false } });
  }
  if (Object.keys(layout).length) window.Plotly.relayout(gd, layout);
  return true;
}

// Plotly draws a scatter trace's markers as one path.point per point, in data order; its hover reads
// customdata from the trace and each point's colour from calcdata (mc). False if the drawing is not
// what this expects (then the trace is animated instead).
function recolour(gd, index, trace) {
  const layer = gd.querySelectorAll(".scatterlayer .trace")[index];
  const points = layer ? layer.querySelectorAll("path.point") : [];
  const colours = trace.marker?.color, calc = gd.calcdata?.[index], full = gd._fullData?.[index];
  if (!Array.isArray(colours) || !calc || !full || points.length !== colours.length || calc.length !== colours.length) {
    return false;
  }
  points.forEach((point, i) => { point.style.fill = colours[i]; });
  calc.forEach((point, i) => { point.mc = colours[i]; });
  for (const target of [gd.data[index], full]) {
    target.marker = { ...target.marker, color: colours };
    if ("customdata" in trace) target.customdata = trace.customdata;
  }
  return true;
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

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// --- downloads ---------------------------------------------------------------------------------------

// rbfviz_<view>_<data set>_sigma-<σ>: the view from the page's title ("Explorer · rbfviz"), the data
// set and σ from the address and the level shown (the address holds every control).
function fileName(inst) {
  const slug = (text) => String(text).toLowerCase().replace(/[^a-z0-9.]+/g, "-").replace(/^-+|-+$/g, "");
  const view = slug(document.title.split("·")[0]) || "figure";
  const dataset = slug(new URLSearchParams(window.location.search).get("dataset") || "data");
  return `rbfviz_${view}_${dataset}_sigma-${inst.payload.texts[inst.level]}`;
}

// --- light and dark theme ----------------------------------------------------------------------------
// The same rule as rbfviz.views.figures.layout.themed_spec (which does it for st.plotly_chart through
// Streamlit's chart theme): backgrounds, text, grid, legend and hover labels take the theme's colours,
// ink colours become the text colour, except on subplots whose background is a (light) field image.
const INKS = new Set(__INK_COLORS__);
const FIELD_LEGEND = __FIELD_LEGEND__;

// The theme's colours, from the CSS custom properties Streamlit gives every component (--st-*).
function themeOf(element) {
  const css = getComputedStyle(element);
  const probe = document.createElement("span");
  element.appendChild(probe);
  const rgb = (value, fallback) => {
    probe.style.color = "";
    probe.style.color = value || fallback;
    const parts = getComputedStyle(probe).color.match(/[\d.]+/g).map(Number);
    return parts.slice(0, 3);
  };
  const text = rgb(css.getPropertyValue("--st-text-color").trim(), "#31333f");
  const background = rgb(css.getPropertyValue("--st-background-color").trim(), "#ffffff");
  probe.remove();
  const luminance = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const css_ = ([r, g, b], alpha = 1) => `rgba(${r},${g},${b},${alpha})`;
  return {
    dark: luminance(background) < luminance(text), text: css_(text), background: css_(background),
    grid: css_(text, 0.12), line: css_(text, 0.45), key: `${text}|${background}`,
  };
}

// A theme switch changes the classes (and so the --st-* values) of the component's wrappers: redraw.
function watchTheme(inst, element) {
  const observer = new MutationObserver(() => {
    if (!inst.payload) return;
    const theme = themeOf(element);
    if (theme.key === inst.theme?.key) return;
    inst.theme = theme;
    inst.drawn = null;
    show(inst, inst.level);
  });
  for (let node = element, i = 0; node && i < 6; node = node.parentElement, i++) {
    observer.observe(node, { attributes: true, attributeFilter: ["class", "style"] });
  }
  observer.observe(document.body, { attributes: true, attributeFilter: ["class", "style"] });
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

// --- presenter mode ----------------------------------------------------------------------------------

// The figure fills the window's height under Streamlit's header and the σ control row, so a class sees
// the whole plot, and the control, with the page scrolled to the slider.
function presenterHeight(els) {
  const header = document.querySelector('[data-testid="stHeader"]')?.offsetHeight ?? 0;
  const control = els.range.closest(".scrub-control")?.offsetHeight ?? 0;
  return Math.max(380, Math.round(window.innerHeight - header - control - 28));
}
