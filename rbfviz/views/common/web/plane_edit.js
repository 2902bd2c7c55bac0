// The plane editor: a Plotly plane (rbfviz.views.common.editing: trace 0 the points, trace 1 the centres)
// on which a student places and drags centres, or draws and erases points, by mouse, pen or finger.
// Every change is drawn at once, here; the page hears of it through the component's state:
//   mode "centres": "centres" = every centre [[x, y], ...] after a drag or a placement,
//   mode "draw" / "erase": "points" = every point [[x, y], ...] after each click or tap.
// The whole list is sent, numbered (seq), so a click made while the page still reruns for the previous
// one is never lost: it is drawn at once and waits for the page's answer (data.seq, the last list the
// page applied), then goes with every change since in one list. Sent earlier, it would rerun the page
// with the page's other controls as the browser had them before that answer (the dataset before a first
// click made the points a drawing, say), and Streamlit would take those stale values for changes. A
// figure the page drew before it had the editor's last list (its seq is older) does not replace the
// editor's own lists. Data from the page (ui/plane_edit.py):
//   { figure: Plotly JSON, points and centres: the figure's traces 0 and 1 as [[x, y], ...], mode,
//     k: the centres wanted (a placement adds one until there are k), colors: centre j in colors[j],
//     max_points: the most points a drawing holds }.
const editors = new WeakMap();
const GRAB_PX = { mouse: 18, pen: 18, touch: 30 };  // how near a centre or a point a press must be
const TAP_PX = 8;  // a press that moves further than this is a drag, not a click

export default function mountPlaneEditor(component) {
  const { data, parentElement, setStateValue } = component;
  let ed = editors.get(parentElement);
  if (!ed) {
    const root = document.createElement("div");
    root.innerHTML = '<p class="plane-edit-hint" aria-live="polite"></p><div class="plane-edit-plot"></div>';
    parentElement.appendChild(root);
    ed = { root, gd: root.querySelector(".plane-edit-plot"), hint: root.querySelector(".plane-edit-hint"),
      json: null, selected: 0 };
    editors.set(parentElement, ed);
    listen(ed);
  }
  ed.setStateValue = setStateValue;
  ed.mode = data.mode;
  ed.k = data.k;
  ed.colors = data.colors;
  ed.maxPoints = data.max_points ?? Infinity;
  ed.texts = data.texts;
  if (ed.json !== data.figure) {
    ed.json = data.figure;
    const fig = JSON.parse(data.figure);
    if (!((ed.seq ?? 0) > (data.seq ?? 0))) {  // the page has every change made here: its lists win
      ed.points = data.points.map(([x, y]) => [x, y]);
      ed.centres = data.centres.map(([x, y]) => [x, y]);
      ed.seq = data.seq ?? 0;
    }
    if (ed.selected >= Math.max(ed.k, 1)) ed.selected = 0;
    loadPlotly().then(() => draw(ed, fig)).catch((err) => { ed.hint.textContent = say(ed, "error", { error: err.message }); });
  } else {
    hint(ed);
  }
  ed.answered = Math.max(ed.answered ?? 0, data.seq ?? 0);
  // a change that waited goes once the answer is on screen: sent within the same task as this call, it was
  // seen to rerun the page with the dataset as it was before the answer
  requestAnimationFrame(() => setTimeout(() => flush(ed), 0));
  return () => editors.delete(parentElement);
}

function themeColours(element) {
  const css = getComputedStyle(element);
  return { text: css.getPropertyValue("--st-text-color").trim() || "#31333f",
    background: css.getPropertyValue("--st-background-color").trim() || "#ffffff" };
}

function draw(ed, fig) {
  const { text, background } = themeColours(ed.root);
  const layout = { ...fig.layout, paper_bgcolor: background, plot_bgcolor: background,
    font: { ...(fig.layout.font || {}), color: text } };
  // While drawing, the plane stays where it is as long as every point is inside it: a plane that rescaled
  // at each point would move what is under the pointer between two clicks.
  const kept = ed.ranges?.mode === ed.mode && inside(ed.points.concat(ed.centres), ed.ranges);
  if (kept) {
    layout.xaxis = { ...layout.xaxis, range: ed.ranges.x.slice() };
    layout.yaxis = { ...layout.yaxis, range: ed.ranges.y.slice() };
  } else {
    ed.ranges = { mode: ed.mode, x: layout.xaxis.range.slice(), y: layout.yaxis.range.slice() };
  }
  fitNarrow(layout, ed.gd.clientWidth);
  // doubleClick off: two quick clicks or taps are two points, never Plotly's zoom reset (which would rescale
  // the plane to its data between two taps, and keep that scale across reruns: the figure's uirevision).
  window.Plotly.react(ed.gd, fig.data, layout,
    { displayModeBar: false, scrollZoom: false, doubleClick: false, responsive: true });
  ed.gd.dataset.mode = ed.mode;
  ed.gd.dataset.points = String(ed.points.length);
  restyle(ed);
  hint(ed);
}

// The traces from the editor's own lists (a change shows at once, before the page hears of it).
function restyle(ed) {
  const m = ed.centres.length;
  window.Plotly.restyle(ed.gd, { x: [ed.points.map((p) => p[0]), ed.centres.map((c) => c[0])],
    y: [ed.points.map((p) => p[1]), ed.centres.map((c) => c[1])] }, [0, 1]);
  window.Plotly.restyle(ed.gd, {
    "marker.line.width": [ed.centres.map((_, j) => (ed.mode === "centres" && j === ed.selected ? 5 : 2))],
    "marker.color": [ed.colors.slice(0, m)], text: [ed.centres.map((_, j) => String(j))] }, [1]);
  ed.gd.dataset.points = String(ed.points.length);
  ed.gd.dataset.centres = JSON.stringify(ed.centres);
  ed.gd.dataset.pointList = JSON.stringify(ed.points);
  if (m === 0) ed.selected = 0;
}

// The page's words (ui/plane_edit.py's editor_texts, in the reader's language), each {name} filled in.
function say(ed, what, fields) {
  const template = ed.texts?.[what] ?? "";
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in fields ? String(fields[name]) : whole));
}

function hint(ed) {
  const next = ed.centres.length < ed.k ? ed.centres.length : ed.selected;
  ed.hint.textContent = say(ed, ed.mode, { next, count: ed.points.length });
}

function inside(list, ranges) {
  const [x0, x1] = ranges.x, [y0, y1] = ranges.y;
  return list.every(([x, y]) => x >= Math.min(x0, x1) && x <= Math.max(x0, x1) && y >= Math.min(y0, y1)
    && y <= Math.max(y0, y1));
}

// Data coordinates of a pointer event inside the plane's axes, with its pixel position there; null outside.
function at(gd, event) {
  const xa = gd._fullLayout?.xaxis, ya = gd._fullLayout?.yaxis;
  if (!xa?.p2c || !ya?.p2c) return null;
  const box = gd.getBoundingClientRect();
  const px = event.clientX - box.left - xa._offset, py = event.clientY - box.top - ya._offset;
  if (px < 0 || px > xa._length || py < 0 || py > ya._length) return null;
  return { x: xa.p2c(px), y: ya.p2c(py), px, py, xa, ya };
}

// The index of the item of list nearest the pointer, within grab pixels, or -1.
function nearest(list, where, grab) {
  let best = -1, bestDistance = grab;
  list.forEach(([x, y], i) => {
    const distance = Math.hypot(where.xa.c2p(x) - where.px, where.ya.c2p(y) - where.py);
    if (distance <= bestDistance) { best = i; bestDistance = distance; }
  });
  return best;
}

function listen(ed) {
  const gd = ed.gd;
  let press = null;
  gd.addEventListener("pointerdown", (event) => {
    const where = at(gd, event);
    if (!where || !ed.mode) return;
    const grab = GRAB_PX[event.pointerType] ?? GRAB_PX.mouse;
    const centre = ed.mode === "centres" ? nearest(ed.centres, where, grab) : -1;
    press = { id: event.pointerId, x0: event.clientX, y0: event.clientY, centre, dragged: false, grab };
    gd.setPointerCapture?.(event.pointerId);
    event.preventDefault();  // no mouse events for Plotly, no scrolling or text selection
    event.stopPropagation();
  }, true);
  // Plotly's drag element hears touches, not pointer events: a finger's press the editor took (pointerdown
  // comes first) stops here, as a mouse's does (no mousedown follows a cancelled pointerdown).
  gd.addEventListener("touchstart", (event) => { if (press) event.stopPropagation(); }, true);
  gd.addEventListener("pointermove", (event) => {
    if (!press || event.pointerId !== press.id) return;
    if (Math.hypot(event.clientX - press.x0, event.clientY - press.y0) > TAP_PX) press.dragged = true;
    if (press.centre < 0 || !press.dragged) return;
    const where = at(gd, event);
    if (!where) return;
    ed.centres[press.centre] = [where.x, where.y];
    ed.selected = press.centre;
    restyle(ed);
    event.preventDefault();
  }, true);
  const release = (event) => {
    if (!press || event.pointerId !== press.id) return;
    const done = press;
    press = null;
    if (event.type === "pointercancel") return;
    const where = at(gd, event);
    if (done.centre >= 0 && done.dragged) {
      send(ed, "centres");
    } else if (done.centre >= 0) {
      ed.selected = done.centre;  // a click on a centre chooses it
      restyle(ed);
      hint(ed);
    } else if (where && !done.dragged) {
      click(ed, where, done.grab);
    }
  };
  gd.addEventListener("pointerup", release, true);
  gd.addEventListener("pointercancel", release, true);
}

function click(ed, where, grab) {
  if (ed.mode === "centres") {
    if (ed.centres.length < ed.k) {
      ed.centres.push([where.x, where.y]);
      ed.selected = ed.centres.length < ed.k ? ed.centres.length : 0;
    } else {
      ed.centres[ed.selected] = [where.x, where.y];
      ed.selected = (ed.selected + 1) % Math.max(ed.centres.length, 1);
    }
    send(ed, "centres");
  } else if (ed.mode === "draw") {
    if (ed.points.length >= ed.maxPoints) {
      ed.hint.textContent = say(ed, "full", { count: ed.points.length });
      return;
    }
    ed.points.push([where.x, where.y]);
    send(ed, "points");
  } else if (ed.mode === "erase") {
    const index = nearest(ed.points, where, grab);
    if (index < 0) return;
    ed.points.splice(index, 1);
    send(ed, "points");
  }
}

function send(ed, what) {
  restyle(ed);
  hint(ed);
  ed.seq = (ed.seq ?? 0) + 1;
  ed.unsent = what;
  flush(ed);
}

// The editor's last list, unless the page has not answered the one sent before (its answer sends it).
function flush(ed) {
  if (!ed.unsent || (ed.sent ?? 0) > (ed.answered ?? 0)) return;
  const what = ed.unsent;
  ed.unsent = null;
  ed.sent = ed.seq;
  ed.setStateValue(what, { seq: ed.seq, list: what === "centres" ? ed.centres : ed.points });
}

// On a phone (below 600 px) the plane is only as tall as its width needs, without its legend, and a long
// title breaks at the comma or colon nearest its middle (as the σ scrubber's figures do).
function fitNarrow(layout, width) {
  if (!width || width >= 600) return;
  const x = layout.xaxis, y = layout.yaxis, m = layout.margin || {};
  if (layout.height && x?.range && y?.range) {
    const plotWidth = width - (m.l ?? 80) - (m.r ?? 80);
    const plotHeight = (plotWidth * Math.abs(y.range[1] - y.range[0])) / Math.abs(x.range[1] - x.range[0]);
    layout.height = Math.min(layout.height, Math.round(plotHeight + (m.t ?? 100) + (m.b ?? 80)));
  }
  layout.showlegend = false;  // the line above the plane says what the marks are and what to do
  const title = layout.title?.text;
  const breaks = title ? [...title.matchAll(/[,:] /g)].map((match) => match.index) : [];
  const at = breaks.reduce((a, b) => (Math.abs(b - title.length / 2) < Math.abs(a - title.length / 2) ? b : a), -1);
  if (title && at > 0 && title.length * 8.5 > width) {
    layout.title = { ...layout.title, text: `${title.slice(0, at + 1)}<br>${title.slice(at + 2)}` };
    layout.margin = { ...m, t: (m.t ?? 100) + 18 };
    layout.height += 18;
  }
}
