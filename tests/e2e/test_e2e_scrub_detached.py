"""The σ scrubber while it is out of the page: no JavaScript error, and the figure drawn when it is back.

A rerun can take the scrubber's element out of the document (a refused upload's error box above it,
another view opened) while its payload still decodes, and its theme observer (which also watches
document.body) can fire between the element leaving the document and the component's cleanup. A
detached element has no computed style, so reading the theme there must not be tried. The loaded
machine where that happened is simulated in the page:

* while the test holds them, σ payloads' decodes wait until it lets them go, so reruns happen while
  they decode (a hold for a fixed time can end before a busy machine's rerun);
* whenever a scrubber leaves the document, document.body's class changes at once, in the next task
  and in the next frame, so its observer fires in exactly that window.

The student uploads a file, then a broken one while the first file's payload still decodes, then opens
another view and comes back while that view's payload decodes. Checked: no uncaught error and no
console error from the scrubber, no scrubber error message, and the scrubber draws the uploaded data
and follows the keyboard.
"""

from __future__ import annotations

import pytest
from test_e2e_classroom import SECTION, good_csv

pytestmark = pytest.mark.e2e

STRESS_INIT = """(() => {
  window.__held = null; window.__decoding = 0;
  window.__scrubRemovals = 0; window.__removedWhileDecoding = 0;
  window.__holdDecodes = () => {
    window.__held = new Promise((resolve) => {
      window.__releaseDecodes = () => { window.__held = null; resolve(); };
    });
  };
  const arrayBuffer = Response.prototype.arrayBuffer;
  Response.prototype.arrayBuffer = async function () {
    const out = await arrayBuffer.call(this);
    // a Response built in the page (rbfviz/views/common/web/scrub.js inflates its payload through
    // one) has no URL
    if (this.url === "" && window.__held) {
      window.__decoding += 1;
      await window.__held;
      window.__decoding -= 1;
    }
    return out;
  };
  const poke = () => { for (let i = 0; i < 2; i++) document.body.classList.toggle("rbfviz-poke"); };
  new MutationObserver((records) => {
    for (const record of records) for (const node of record.removedNodes) {
      if (node.nodeType !== 1 || !(node.matches(".scrub") || node.querySelector(".scrub"))) continue;
      window.__scrubRemovals += 1;
      if (window.__decoding) window.__removedWhileDecoding += 1;
      poke(); setTimeout(poke, 0); requestAnimationFrame(poke);
    }
  }).observe(document, { childList: true, subtree: true });
})()"""

# The scrubber has drawn the level it shows (its plot's data-level), with this text in the title.
DRAWN_JS = """(part) => { const plots = document.querySelectorAll("div.scrub-plot");
  if (plots.length !== 1) return false;
  const p = plots[0], L = p._fullLayout;
  return p.dataset.level !== undefined && !!L && ((L.title && L.title.text) || "").includes(part); }"""


def test_no_error_while_the_scrubber_is_out_of_the_page(server, student):
    page = student.page
    console_errors: list[str] = []
    page.on(
        "console", lambda message: console_errors.append(message.text) if message.type == "error" else None
    )
    page.add_init_script(STRESS_INIT)
    student.open(f"{server.url}/Explorer")
    page.wait_for_function(DRAWN_JS, arg="blobs")

    # a file, then a broken one while the first file's payload decodes: the refusal's rerun draws an
    # error box and takes the scrubber out of the page; the payload arrives later
    data, X = good_csv(rows=41, seed=7)
    bad = data.replace(b"\n", b"\nhello,1.0\n", 1)
    page.evaluate("() => window.__holdDecodes()")
    student.upload(SECTION, "detached.csv", data)
    student.upload(SECTION, "broken.csv", bad)
    page.evaluate("() => window.__releaseDecodes()")
    page.wait_for_function(DRAWN_JS, arg="detached.csv")
    assert page.evaluate("() => window.__scrubRemovals") >= 1, (
        "the refused upload did not remount the scrubber"
    )

    # another view opened while the Explorer's payload decodes, and back before it has been drawn
    page.evaluate("() => window.__holdDecodes()")
    student.go_to("Annealing")
    student.go_to("Explorer")
    page.evaluate("() => window.__releaseDecodes()")
    page.wait_for_function(DRAWN_JS, arg="detached.csv")
    removed_while_decoding = page.evaluate("() => window.__removedWhileDecoding")
    assert removed_while_decoding >= 1, "no scrubber left the page while its payload decoded"

    # the scrubber on the page works: one key press moves σ one level
    level = int(page.locator("div.scrub-plot").get_attribute("data-level"))
    page.locator("input.scrub-range").focus()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "(l) => Number(document.querySelector('div.scrub-plot').dataset.level) === l + 1", arg=level
    )
    assert page.locator("p.scrub-error:not([hidden])").count() == 0, page.locator(
        "p.scrub-error"
    ).all_inner_texts()
    assert page.evaluate("() => document.querySelectorAll('div.scrub').length") == 1
    problems = [p for p in student.problems() if "broken.csv was not loaded." not in p]
    assert not problems, problems
    scrub_errors = [e for e in console_errors if "σ" in e or "scrub" in e.lower() or "TypeError" in e]
    assert not scrub_errors, scrub_errors
