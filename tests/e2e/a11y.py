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
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
    given = os.environ.get("RBFVIZ_AXE_JS")
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
    page.add_script_tag(path=str(script))
    return page.evaluate(_RUN_JS, [list(tags), [list(e) for e in exclusions]])


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
