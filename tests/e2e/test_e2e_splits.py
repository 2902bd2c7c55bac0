"""A student opens the Annealing view and sees every split's predicted σ on the bifurcation diagram:
one diamond per split, inside the plotted σ range, as many as the "In words" sentence counts, and the
first on the first-split line."""

import json
import math
import re

import pytest

from rbfviz.views.annealing.figures import CRITICAL_PREDICTED, SPLIT_MEASURED, SPLIT_PREDICTED

pytestmark = pytest.mark.e2e

# The drawn bifurcation diagram: its traces and shapes as Plotly holds them, and the log σ axis range.
_DIAGRAM_JS = """(name) => {
  for (const el of document.querySelectorAll("[data-testid='stPlotlyChart'] .js-plotly-plot")) {
    const traces = (el.data || []).filter((t) => t.name === name);
    if (!traces.length) continue;
    const L = el._fullLayout;
    const points = el.querySelectorAll(".scatterlayer .trace .points path").length;
    return { x: Array.from(traces[0].x), y: Array.from(traces[0].y), range: L.xaxis.range,
             names: (el.data || []).map((t) => t.name), points,
             shapes: (L.shapes || []).map((s) => ({ name: s.name, x0: s.x0 })) };
  }
  return null;
}"""


def test_the_bifurcation_diagram_marks_every_predicted_split(server, student):
    student.open(f"{server.url}/Annealing?dataset=blobs&n=150&k=4&kind=entmax15")
    student.wait_for_figures(2)
    student.page.wait_for_function(f"(fn) => ({_DIAGRAM_JS})(fn) !== null", arg=SPLIT_PREDICTED)
    drawn = student.page.evaluate(_DIAGRAM_JS, SPLIT_PREDICTED)
    assert SPLIT_MEASURED in drawn["names"]
    xs = drawn["x"]
    words = re.search(r"(\d+) splits? on this path", student.text())
    assert words, "the In words caption counts the splits"
    assert len(xs) == int(words.group(1)) >= 2
    # every marker lies inside the drawn σ axis (log10 range, reversed: large σ on the left)
    high, low = drawn["range"]
    assert all(low <= math.log10(x) <= high for x in xs), (xs, drawn["range"])
    # split 1 is on the first-split line
    line = [s["x0"] for s in drawn["shapes"] if s["name"] == CRITICAL_PREDICTED]
    assert line and xs[0] == pytest.approx(line[0], rel=1e-9)
    assert drawn["points"] > 0 and all(math.isfinite(y) for y in drawn["y"]), json.dumps(drawn)
    student.assert_no_problems()
