"""axe-core in the browser tests: find the pinned engine (installing it from npm when it is missing),
inject it into a Playwright page, run it, and describe what it found so a developer can act.

The engine is the npm package ``axe-core`` at exactly ``AXE_VERSION``. Where it comes from, in order:

1. ``RBFVIZ_AXE_JS``: the path to an ``axe.min.js`` (CI's .ci/run installs the package and sets it);
2. ``artifacts/axe-core-<version>/node_modules/axe-core/axe.min.js``, a cache in the repository's
   git-ignored artifacts/ folder, filled on first use by ``npm install --prefix <that folder>``.

If neither gives the pinned version, the accessibility tests are skipped with the reason, unless
RBFVIZ_REQUIRE_BROWSER=1 (CI), where they fail: an audit must never pass without its engine.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from harness.settings import ROOT, axe_js

AXE_VERSION = "4.14.1"
AXE_CACHE = ROOT / "artifacts" / f"axe-core-{AXE_VERSION}"
NPM_TIMEOUT = 300  # seconds for `npm install` (one small package without dependencies)

# Impacts in axe's order, worst first; the first two fail the audit.
FAILING_IMPACTS = ("critical", "serious")
REPORTED_IMPACTS = ("moderate", "minor")


class AxeUnavailable(RuntimeError):
    """The pinned axe-core could not be found or installed (the message says why and what to do)."""


def _checked(script: Path) -> Path:
    """``script`` if it is axe.min.js of the pinned version (its package.json sits beside it)."""
    if not script.is_file():
        raise AxeUnavailable(f"{script} does not exist")
    package = script.parent / "package.json"
    version = json.loads(package.read_text())["version"] if package.is_file() else None
    if version != AXE_VERSION:
        raise AxeUnavailable(f"{script} is axe-core {version}, the tests pin {AXE_VERSION}")
    return script


def axe_script() -> Path:
    """The path of the pinned axe.min.js; installs it into the cache with npm if needed."""
    given = axe_js()
    if given:
        return _checked(Path(given))
    script = AXE_CACHE / "node_modules" / "axe-core" / "axe.min.js"
    try:
        return _checked(script)
    except AxeUnavailable:
        pass
    npm = shutil.which("npm")
    if npm is None:
        raise AxeUnavailable(
            f"axe-core {AXE_VERSION} is not in {AXE_CACHE} and npm is not installed "
            "(apt-get install -y npm, or set RBFVIZ_AXE_JS to an axe.min.js of that version)"
        )
    AXE_CACHE.mkdir(parents=True, exist_ok=True)
    command = [
        npm,
        "install",
        "--prefix",
        str(AXE_CACHE),
        "--no-save",
        "--no-package-lock",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        f"axe-core@{AXE_VERSION}",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=NPM_TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        raise AxeUnavailable(f"`{' '.join(command)}` did not finish in {NPM_TIMEOUT} s") from exc
    if done.returncode != 0:
        raise AxeUnavailable(
            f"`{' '.join(command)}` failed (exit code {done.returncode}):\n{done.stderr[-2000:]}"
        )
    return _checked(script)


# Runs in the page: axe on the whole document with the given tags, then drops the nodes of the
# exclusions (rule id + CSS selector of an element, or of an ancestor, that the app cannot change).
# Results are reduced to what a report needs (axe's full result is large).
_RUN_JS = """async ([tags, exclusions]) => {
  const result = await axe.run(document, {
    runOnly: { type: "tag", values: tags },
    resultTypes: ["violations", "incomplete"],
  });
  const excluded = (rule, node) => exclusions.some(([id, sel]) => {
    if (id !== rule) return false;
    const el = document.querySelector(node.target[0]);
    return el !== null && el.closest(sel) !== null;
  });
  const brief = (items) => items.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl, tags: v.tags,
    nodes: v.nodes.filter((n) => !excluded(v.id, n)).map((n) => ({
      target: n.target, html: n.html, summary: n.failureSummary || "",
      message: (n.any.concat(n.all, n.none).find((c) => c.message) || {}).message || "",
    })),
  })).filter((v) => v.nodes.length > 0);
  return {
    version: axe.version,
    violations: brief(result.violations),
    incomplete: brief(result.incomplete),
    passes: result.passes.length,
  };
}"""


def run_axe(page, script: Path, tags: list[str], exclusions: list[tuple[str, str]] = ()) -> dict:
    """Inject ``script`` (axe.min.js) into ``page`` and audit the document against ``tags``.

    Returns {"version", "violations", "incomplete", "passes"}: per rule its id, impact, help, helpUrl,
    tags and nodes (target selectors, html, axe's failure summary), without the ``exclusions``
    ((rule id, CSS selector) pairs).
    """
    # once per document: the audits of the states one page load goes through share the engine
    if page.evaluate("() => typeof window.axe") != "object":
        page.add_script_tag(path=str(script))
    return page.evaluate(_RUN_JS, [list(tags), [list(e) for e in exclusions]])


# Runs in the page: every text that Plotly drew in a figure's SVG (titles, tick labels, axis titles,
# legend, annotations, colour bars, menu buttons; not the hover labels), its fill colour and the colour
# behind it, both composited over what lies beneath (opacity, the box of a legend, annotation or button,
# the plot area, the paper, the page behind a transparent paper). axe leaves such SVG text "incomplete"
# (it cannot tell what is behind it), so this test measures it.
_FIGURE_TEXT_JS = """() => {
  const parse = (c) => { const m = (c || "").match(/[\\d.]+/g); if (!m || m.length < 3) return null;
    return { r: +m[0], g: +m[1], b: +m[2], a: m.length > 3 ? +m[3] : 1 }; };
  const over = (fg, bg) => ({ r: fg.r * fg.a + bg.r * (1 - fg.a), g: fg.g * fg.a + bg.g * (1 - fg.a),
    b: fg.b * fg.a + bg.b * (1 - fg.a), a: 1 });
  const hex = (c) => "#" + [c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
  const white = { r: 255, g: 255, b: 255, a: 1 };
  const pageBg = (el) => { for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor); if (c && c.a > 0) return over(c, white); }
    return white; };
  const out = [];
  const sel = "[data-testid='stPlotlyChart'] .js-plotly-plot, div.scrub-plot.js-plotly-plot";
  document.querySelectorAll(sel).forEach((gd, index) => {
    const svg = gd.querySelector(".main-svg"); if (!svg) return;
    const paperFill = parse(getComputedStyle(svg).backgroundColor), behind = pageBg(gd.parentElement);
    const paper = paperFill ? over(paperFill, behind) : behind;
    const title = (gd.querySelector(".gtitle") || {}).textContent || `number ${index + 1} (untitled)`;
    const plots = Array.from(gd.querySelectorAll(".bglayer .bg")).map((r) => {
      const f = parse(getComputedStyle(r).fill);
      const a = f ? f.a * +getComputedStyle(r).fillOpacity : 0;
      return { box: r.getBoundingClientRect(), fill: f && { ...f, a } };
    });
    gd.querySelectorAll(".main-svg text").forEach((t) => {
      const text = t.textContent.trim(), cs = getComputedStyle(t), fill = parse(cs.fill);
      if (!text || !fill || t.closest(".hoverlayer")) return;
      if (cs.display === "none" || cs.visibility === "hidden") return;
      let alpha = fill.a * +cs.fillOpacity;
      for (let e = t; e && e !== gd; e = e.parentElement) alpha *= +getComputedStyle(e).opacity;
      const box = t.getBoundingClientRect();
      if (alpha === 0 || box.width === 0) return;
      let bg = paper, where = "paper";
      const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
      for (const p of plots) {
        const inside = cx >= p.box.left && cx <= p.box.right && cy >= p.box.top && cy <= p.box.bottom;
        if (inside && p.fill && p.fill.a > 0) { bg = over(p.fill, paper); where = "plot area"; }
      }
      const group = t.closest(".legend, .annotation, .colorbar, .updatemenu-button");
      const rect = group && group.querySelector("rect.bg, rect.updatemenu-item-rect");
      if (rect) { const f = parse(getComputedStyle(rect).fill);
        const a = f ? f.a * +getComputedStyle(rect).fillOpacity : 0;
        if (a > 0) { bg = over({ ...f, a }, bg); where = group.classList[0] + " box"; } }
      out.push({ figure: title.slice(0, 80), text: text.slice(0, 60),
        fg: hex(over({ ...fill, a: alpha }, bg)), bg: hex(bg), where,
        size: parseFloat(cs.fontSize), bold: +cs.fontWeight >= 700 || cs.fontWeight === "bold" });
    });
  });
  return out;
}"""


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of an opaque "#rrggbb" colour."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio of two opaque "#rrggbb" colours, from 1 (same) to 21 (black on white)."""
    high, low = sorted((relative_luminance(foreground), relative_luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def required_ratio(size_px: float, bold: bool) -> float:
    """WCAG 1.4.3 (AA): 4.5:1, or 3:1 for large text (18 pt = 24 px, or 14 pt = 18.67 px bold)."""
    return 3.0 if size_px >= 24 or (bold and size_px >= 18.66) else 4.5


def figure_texts(page) -> list[dict]:
    """Every text drawn in the page's Plotly figures with its composited colour, the colour behind it,
    its contrast ratio and the ratio WCAG AA requires: {figure, text, fg, bg, where, size, bold,
    ratio, required}."""
    texts = page.evaluate(_FIGURE_TEXT_JS)
    for item in texts:
        item["ratio"] = round(contrast_ratio(item["fg"], item["bg"]), 2)
        item["required"] = required_ratio(item["size"], item["bold"])
    return texts


def describe_texts(texts: list[dict], max_items: int = 12) -> str:
    lines = [
        f"- figure {t['figure']!r}: text {t['text']!r} ({t['size']:.0f} px{', bold' if t['bold'] else ''}) "
        f"{t['fg']} on {t['bg']} ({t['where']}): {t['ratio']}:1, needs {t['required']}:1"
        for t in texts[:max_items]
    ]
    if len(texts) > max_items:
        lines.append(f"  … and {len(texts) - max_items} more")
    return "\n".join(lines)


def describe(rules: list[dict], max_nodes: int = 8) -> str:
    """A readable list of ``rules`` (violations or incomplete): rule id, impact, help and its URL,
    then each offending element's selector, its HTML and what axe says to fix."""
    lines = []
    for rule in rules:
        lines.append(
            f"- {rule['id']} [{rule['impact']}] {rule['help']} ({len(rule['nodes'])} element(s))\n"
            f"  {rule['helpUrl']}"
        )
        for node in rule["nodes"][:max_nodes]:
            target = " >>> ".join(str(t) for t in node["target"])
            html = " ".join(node["html"].split())[:300]
            fix = " ".join((node["summary"] or node["message"]).split())[:400]
            lines.append(f"    at {target}\n      {html}\n      {fix}")
        if len(rule["nodes"]) > max_nodes:
            lines.append(f"    … and {len(rule['nodes']) - max_nodes} more")
    return "\n".join(lines)
