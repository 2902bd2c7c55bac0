// The probe: the responsibility vector of one location on a plane, computed in the browser from the centres
// and σ of the level on screen (the payload's "probe" entry, rbfviz/views/common/scrub.py), so it follows σ
// with no server round trip. The maps are those of rbfviz/maps.py, written the same way in float64:
//   d_j = ||p - c_j||²,  T = 2σ²,  z_j = -(d_j - min_l d_l) / T  (the largest logit is exactly 0)
//   softmax   r = exp(z) / Σ exp(z)
//   entmax15  r = [z/2 - τ]₊², τ from the sorted half-logits (exact zeros off the support)
//   entmax:α  r = [(α-1) z - τ]₊^(1/(α-1)), τ by Newton's method from τ = -1 (exact zeros off the support)
//   naive     r = exp(-d/T) / Σ exp(-d/T) (0/0 = NaN once every term underflows, as the library shows)
//   hard      one-hot at the nearest centre (ties to the lowest index)
// tests/e2e/test_e2e_probe.py compares these numbers with rbfviz.responsibilities.

const PROBE_LOGIT_FLOOR = -1.0e4;  // rbfviz.maps.LOGIT_FLOOR: the clamp changes no weight
const PROBE_NEWTON_EPS = 4 * Number.EPSILON;  // rbfviz.maps._ENTMAX_STEP_EPS units in the last place
const PROBE_MAX_NEWTON = 64;

// r (k,) of the location (x, y) for centres (k × [cx, cy]) at width sigma under the map spec kind.
function probeResponsibilities(x, y, centers, sigma, kind) {
  const d = centers.map(([cx, cy]) => (cx - x) ** 2 + (cy - y) ** 2);
  const T = 2 * (sigma * sigma);
  if (kind === "naive") {
    const phi = d.map((dj) => Math.exp(dj / -T));
    const total = phi.reduce((a, b) => a + b, 0);
    return phi.map((p) => p / total);
  }
  if (kind === "hard") {
    const nearest = d.indexOf(Math.min(...d));
    return d.map((_, j) => (j === nearest ? 1 : 0));
  }
  const dmin = Math.min(...d);
  const shifted = d.map((dj) => dj - dmin);
  if (kind === "softmax") {
    const e = shifted.map((s) => Math.exp(s * (-1 / T)));
    const inverse = 1 / e.reduce((a, b) => a + b, 0);
    return e.map((v) => v * inverse);
  }
  if (kind === "entmax15") {
    return entmax15(shifted.map((s) => Math.max(s * (-0.5 / T), 0.5 * PROBE_LOGIT_FLOOR)));
  }
  const alpha = probeAlpha(kind);
  if (alpha === null) throw new Error(`unknown map ${kind}`);
  return alphaEntmax(shifted.map((s) => Math.max(s * (-1 / T), PROBE_LOGIT_FLOOR)), alpha);
}

// α of a map spec: 1.5 for entmax15, α for "entmax:<α>", null otherwise (rbfviz.validate.entmax_alpha).
function probeAlpha(kind) {
  if (kind === "entmax15") return 1.5;
  if (typeof kind === "string" && kind.startsWith("entmax:")) return Number(kind.slice(7));
  return null;
}

// 1.5-entmax of half-logits h (largest 0): the sort-based exact threshold (rbfviz.maps._entmax15_columns_).
function entmax15(h) {
  const sorted = h.slice().sort((a, b) => b - a);
  let s1 = 0, s2 = 0, support = 0, s1At = 0, s2At = 0;
  sorted.forEach((value, index) => {
    const rho = index + 1;
    s1 += value;
    s2 += value * value;
    if ((value * rho - s1 - s1) * value + s2 <= 1) { support = rho; s1At = s1; s2At = s2; }
  });
  const mean = s1At / support;
  const tau = mean - Math.sqrt(Math.max(mean * mean - (s2At - 1) / support, 0));
  return h.map((value) => Math.max(value - tau, 0) ** 2);
}

// α-entmax of logits z (largest 0), α in (1, 2]: Newton's method on τ from τ = -1, as
// rbfviz.maps._alpha_entmax_columns_ (it climbs monotonically to the root), then normalised.
function alphaEntmax(z, alpha) {
  const beta = 1 / (alpha - 1);
  const x = z.map((value) => value * (alpha - 1));
  let tau = -1;
  for (let i = 0; i < PROBE_MAX_NEWTON; i++) {
    let slope = 0, mass = 0;
    for (const value of x) {
      const u = Math.max(value - tau, 0);
      const term = beta === 1 ? (u > 0 ? 1 : 0) : u ** (beta - 1);
      slope += term;
      mass += term * u;
    }
    const norm = mass ** (1 / beta);
    const step = Math.max(((norm - 1) * mass) / (norm * slope), 0);
    tau += step;
    if (!(step > PROBE_NEWTON_EPS)) break;
  }
  const p = x.map((value) => { const u = Math.max(value - tau, 0); return beta === 1 ? u : u ** beta; });
  const inverse = 1 / p.reduce((a, b) => a + b, 0);
  return p.map((value) => value * inverse);
}

// The centres (k × [cx, cy]) of one level: rows of the payload's (S, k, 2) float64 blob.
function probeCenters(probe, level) {
  const k = probe.colors.length, flat = probe.centers, out = [];
  for (let j = 0; j < k; j++) out.push([flat[(level * k + j) * 2], flat[(level * k + j) * 2 + 1]]);
  return out;
}

// --- drawing ---------------------------------------------------------------------------------------------

// A weight as the bars label it: exact zeros say so (entmax's sparsity), tiny weights keep their size.
// ui: the payload's words (rbfviz.views.common.scrub's scrub_texts), with its decimal separator.
function probeLabel(r, ui, decimal) {
  if (Number.isNaN(r)) return "NaN (0/0)";
  if (r === 0) return ui.probe_zero;
  if (r === 1) return "1";
  return probeNumber(r < 0.001 ? r.toExponential(1) : r.toFixed(3), decimal);
}

function probeNumber(text, decimal) {
  return decimal && decimal !== "." ? text.replace(".", decimal) : text;
}

function probeFill(template, fields) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in fields ? String(fields[name]) : whole));
}

function probeEscape(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

// The probe panel at one level: a line saying where, one bar per centre in its colour, and for k = 3 the
// point in the probability simplex. Without a location yet, a line saying how to set one.
function drawProbe(panel, probe, level, sigma, point, ui, decimal) {
  panel.hidden = false;
  if (!point) {
    panel.innerHTML = `<p class="scrub-probe-title">${probeEscape(ui.probe)}</p>`
      + `<p class="scrub-note">${probeEscape(ui.probe_hint)}</p>`;
    delete panel.dataset.resp;
    return;
  }
  const centers = probeCenters(probe, level);
  const [x, y] = point;
  const usable = centers.every(([cx, cy]) => Number.isFinite(cx) && Number.isFinite(cy));
  const r = usable ? probeResponsibilities(x, y, centers, sigma, probe.kind) : centers.map(() => NaN);
  panel.dataset.x = String(x);
  panel.dataset.y = String(y);
  panel.dataset.sigma = String(sigma);
  panel.dataset.resp = JSON.stringify(r.map((v) => (Number.isNaN(v) ? null : v)));
  const rows = r.map((value, j) => {
    const width = Number.isNaN(value) ? 0 : 100 * value;
    return `<div class="scrub-probe-row"><span class="scrub-probe-name">r<sub>${j}</sub></span>`
      + `<span class="scrub-probe-track"><span class="scrub-probe-bar" style="width:${width}%;`
      + `background:${probe.colors[j]}"></span></span><span class="scrub-probe-value">${probeEscape(probeLabel(value, ui, decimal))}</span></div>`;
  });
  // a decimal comma: the coordinates are separated by a semicolon
  const comma = decimal === ",";
  const where = `(${probeNumber(x.toFixed(2), decimal)}${comma ? ";" : ","} ${probeNumber(y.toFixed(2), decimal)})`;
  const note = usable ? "" : `<p class="scrub-note">${probeEscape(ui.probe_nan)}</p>`;
  const values = r.map((v, j) => `r${j} = ${probeLabel(v, ui, decimal)}`).join(comma ? "; " : ", ");
  panel.innerHTML = `<p class="scrub-probe-title">${probeEscape(probeFill(ui.probe_at, { where }))}</p>`
    + `<div class="scrub-probe-bars" role="img" aria-label="${probeEscape(probeFill(ui.probe_bars, { where, values }))}">`
    + `${rows.join("")}</div>`
    + (r.length === 3 && usable ? simplexSvg(r, probe.colors, ui) : "") + note;
}

// The probability simplex for k = 3: a triangle whose corners are the three one-hot vectors (in the
// centres' colours) and the probe's r as a point (its barycentric coordinates).
function simplexSvg(r, colors, ui) {
  const corners = [[60, 8], [8, 98], [112, 98]];
  const finite = r.every((v) => Number.isFinite(v));
  const [px, py] = finite ? [0, 1].map((axis) => r.reduce((sum, w, j) => sum + w * corners[j][axis], 0)) : [0, 0];
  const dots = corners.map(([cx, cy], j) => `<circle cx="${cx}" cy="${cy}" r="6" fill="${colors[j]}"/>`).join("");
  const point = finite ? `<circle class="scrub-probe-point" cx="${px}" cy="${py}" r="4.5"/>` : "";
  return '<svg class="scrub-probe-simplex" viewBox="0 0 120 106" width="120" height="106" role="img" '
    + `aria-label="${probeEscape(ui.probe_simplex)}">`
    + `<polygon points="${corners.map((c) => c.join(",")).join(" ")}"/>${dots}${point}</svg>`;
}
