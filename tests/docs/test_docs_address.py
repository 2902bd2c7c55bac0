"""The page "The address, parameter by parameter" (docs/teach/address.md) is made from the code while the
site is built (docs/tools/address.py): it names every parameter the app reads from the address, and no
other, each with its control's label as the app draws it; and it lists the page controls a link does not
carry. The pages run in AppTest (no browser)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "docs" / "tools") not in sys.path:
    sys.path.insert(0, str(ROOT / "docs" / "tools"))

import address  # noqa: E402  (docs/tools/address.py)

from ui import classroom, page, state  # noqa: E402

# every read of the address in the app's code: st.query_params.get(X) and st.query_params[X]
READ = re.compile(r"query_params(?:\.get\(|\[)\s*([\w\"']+)")


def parameters_the_code_reads() -> set[str]:
    constants = {
        "ROOM_PARAM": page.ROOM_PARAM,
        "SEAT_PARAM": page.SEAT_PARAM,
        "RESUME_PARAM": classroom.RESUME_PARAM,
    }
    found = set(state.QUERY_KEYS)  # ui.state reads these (the shared controls) from one to_dict()
    files = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "ui").glob("*.py"))]
    for path in files:
        for name in READ.findall(path.read_text(encoding="utf-8")):
            if name[0] in "\"'":
                found.add(name.strip("\"'"))
            elif name.isupper():  # a module's constant (a lower-case name is a loop over QUERY_KEYS)
                found.add(constants[name])
    return found


@pytest.fixture(scope="module")
def labels() -> dict[str, str]:
    return address.sidebar_labels()


def test_every_parameter_the_code_reads_is_on_the_page_and_no_other(labels):
    documented = [name for name, *_ in address.parameters(labels)]
    assert len(documented) == len(set(documented))
    assert set(documented) == parameters_the_code_reads()
    assert {"lesson", "room", "resume"} <= set(documented)


def test_the_labels_are_the_sidebars_own(labels):
    # the names the readers look for: the menu's label beside the URL's name
    assert labels["kind"] == "Map" and labels["dtype"] == "Precision" and labels["init"] == "Initialisation"
    rows = {name: (control, values, default) for name, control, values, default in address.parameters(labels)}
    assert rows["kind"][0] == "sidebar: Map" and "`entmax15` (entmax-1.5 (sparse))" in rows["kind"][1]
    assert rows["dtype"][0] == "sidebar: Precision" and rows["init"][0] == "sidebar: Initialisation"
    assert rows["dataset"][2] == f"`{state.Controls().dataset}`"


@pytest.fixture(scope="module")
def inputs() -> dict[str, list[str]]:
    return {path: address.page_inputs(path) for path, _, _ in page.PAGES}


def test_the_page_says_which_controls_a_link_does_not_carry(inputs):
    table = address.not_in_address_table(inputs)
    rows = dict(re.findall(r"^\| ([^|]+) \| ([^|]+) \|$", table, re.M))
    assert "*Field under the points*" in rows["Explorer"]  # the Explorer's field choice
    assert "*Centres to try, k_max*" in rows["How many clusters"]
    assert "*Epochs (full batch)*" in rows["Neural network"]  # the Neural network's forms
    # inputs that do write the address are not listed as left out
    assert "Or type point numbers" not in table and "*Step*" not in table
    for prefix in (*address.WRITES_ADDRESS, *address.ACTIONS):  # each exception still names a real input
        assert any(label.startswith(prefix) for labels in inputs.values() for label in labels), prefix


def test_the_page_is_in_the_site_with_both_tables():
    text = (ROOT / "docs" / "teach" / "address.md").read_text(encoding="utf-8")
    assert "<!-- computed:address -->" in text and "<!-- computed:not-in-address -->" in text
    assert "teach/address.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
