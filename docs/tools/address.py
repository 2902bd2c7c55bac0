"""The page "The address, parameter by parameter" (docs/teach/address.md), made from the app's own code
while the site is built (docs/tools/computed.py's ``address`` and ``not-in-address`` tables):

* every URL parameter the app reads, with the control that sets it (its label as the app draws it),
  its values and its default;
* the controls of each page that a link does not carry.

The labels are read from the app itself: ``sidebar_labels`` and ``page_inputs`` run the pages in an
AppTest (no browser) and collect their widgets. The values and defaults come from ui.state, the parser
of the address. tests/docs/test_docs_address.py checks that the table names every parameter the code
reads from the address, and no other.
"""

from __future__ import annotations

from pathlib import Path

from rbfviz.classroom import format_code
from rbfviz.datasets import DATASET_LABELS, DEFAULT_NOISE, IRIS_SIZE, MAX_NOISE, NATURAL_K
from rbfviz.drawn import MAX_DRAWN
from rbfviz.i18n import LANGUAGES
from rbfviz.loader import MAX_ROWS
from rbfviz.views.common.kinds import KIND_CONTROL_LABELS
from rbfviz.views.common.palette import MAX_CLUSTERS
from rbfviz.views.explorer.picks import MAX_PICKS
from rbfviz.views.explorer.placed import MAX_PLACED
from rbfviz.views.lessons.arrays import STEPS as LESSON_STEPS
from rbfviz.views.step_by_step.arrays import MAX_STEPS, PLAY_STEPS, SPEEDS
from ui import classroom, session_keys, state
from ui.page import PAGES, ROOM_PARAM, SEAT_PARAM

ROOT = Path(__file__).resolve().parents[2]
# widgets that hold a value (buttons, links and downloads are actions, not state)
INPUTS = (
    "Selectbox",
    "Radio",
    "Slider",
    "SelectSlider",
    "NumberInput",
    "TextInput",
    "TextArea",
    "Checkbox",
    "Toggle",
    "Multiselect",
    "FileUploader",
    "ButtonGroup",
    "ColorPicker",
    "DateInput",
    "TimeInput",
    "ChatInput",
)


def _walk(node) -> list:
    """Every element under an AppTest block, depth first (tabs, columns, expanders and forms included)."""
    found = []
    for child in getattr(node, "children", {}).values():
        found.append(child)
        found.extend(_walk(child))
    return found


def _app_test(page: str, query: dict[str, str] | None = None):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.query_params.update(query or {})
    at.switch_page(page).run()
    if at.exception:
        raise RuntimeError(f"{page} raised while the docs read its controls: {at.exception}")
    return at


def sidebar_labels() -> dict[str, str]:
    """{Controls field: the sidebar widget's label}: Step by step (σ is a sidebar slider there) with the
    α-entmax map chosen (so the α slider is drawn)."""
    at = _app_test("pages/2_Step_by_step.py", {"kind": "entmax"})
    prefix = session_keys.widget("")
    return {
        element.key[len(prefix) :]: element.label
        for element in _walk(at.sidebar)
        if type(element).__name__ in INPUTS and (element.key or "").startswith(prefix)
    }


# Inputs of a page's main area that do write an address parameter (by the start of their label), and
# inputs that act once rather than hold a setting: neither is "a control a link does not carry".
WRITES_ADDRESS = {"Or type point numbers": "picks", "Step": "lesson"}
ACTIONS = ("Join a class", "Your resume code")


def page_inputs(page: str) -> list[str]:
    """The labels of the inputs in ``page``'s main area (not the sidebar) at its defaults, in page order."""
    at = _app_test(page)
    return [element.label for element in _walk(at.main) if type(element).__name__ in INPUTS]


def _choices(values: dict[str, str]) -> str:
    return ", ".join(f"`{value}` ({label})" for value, label in values.items())


def parameters(labels: dict[str, str]) -> list[tuple[str, str, str, str]]:
    """(parameter, the control that sets it, its values, its default) for every parameter the app reads."""
    default = state.Controls()
    init_values = {url: state.INIT_LABELS[init] for init, url in state._INIT_TO_URL.items()}
    natural_k = ", ".join(f"{name} {k}" for name, k in NATURAL_K.items())
    noise = ", ".join(f"{name} {value:g}" for name, value in DEFAULT_NOISE.items())
    sidebar = "sidebar: "
    return [
        (
            "dataset",
            sidebar + labels["dataset"],
            _choices(DATASET_LABELS) + f"; `{state.DRAWN}` (points drawn by hand, carried by `points`); "
            f"`{state.UPLOAD}` (your uploaded CSV file: it stays in the session that uploaded it, a link "
            "cannot carry it)",
            f"`{default.dataset}`",
        ),
        (
            "n",
            sidebar + labels["n"],
            f"an integer from {state.N_MIN} to {state.N_MAX} (iris: up to {IRIS_SIZE}; an upload: up to "
            f"{MAX_ROWS} rows)",
            f"{state.N_DEFAULT} (iris: {IRIS_SIZE})",
        ),
        ("noise", sidebar + labels["noise"], f"a number from 0 to {MAX_NOISE:g}", f"by data set: {noise}"),
        ("seed", sidebar + labels["seed"], f"an integer from 0 to {state.SEED_MAX}", str(default.seed)),
        (
            "k",
            sidebar + labels["k"],
            f"an integer from {state.K_MIN} to the smaller of n and {MAX_CLUSTERS}",
            f"the data set's natural k: {natural_k}",
        ),
        ("init", sidebar + labels["init"], _choices(init_values), f"`{state._INIT_TO_URL[default.init]}`"),
        (
            "picks",
            "clicks on the Explorer's plot (the start of initialisation `custom`)",
            f"up to {MAX_PICKS} different point numbers from 0 to n − 1, separated by commas",
            "none",
        ),
        (
            "centres",
            "centres placed or dragged on the plane (Explorer and Step by step: *On the plane*, the start "
            "of initialisation `placed`)",
            f"up to {MAX_PLACED} positions `x,y` in data units, separated by `;`",
            "none",
        ),
        (
            "points",
            "points drawn on the plane (Explorer and Step by step: *On the plane*; with `dataset=drawn`)",
            f"up to {MAX_DRAWN} points in the compact text of rbfviz.drawn (a grid step, then base64url)",
            "none",
        ),
        ("kind", sidebar + labels["kind"], _choices(KIND_CONTROL_LABELS), f"`{default.kind}`"),
        (
            "alpha",
            sidebar + labels["alpha"] + " (with `kind=entmax`)",
            f"a number from {state.ALPHA_MIN:g} to {state.ALPHA_MAX:g}",
            f"{state.ALPHA_DEFAULT:g}",
        ),
        ("dtype", sidebar + labels["dtype"], ", ".join(f"`{d}`" for d in state.DTYPES), f"`{default.dtype}`"),
        (
            "sigma",
            f"the σ slider above the figure (Explorer, Annealing, Stability, Equivalence), else {sidebar}"
            + labels["sigma"],
            "a positive number, taken to the nearest σ of the data's grid",
            "the data set's default σ",
        ),
        (
            "steps",
            "Step by step's E-step, M-step, Lloyd step and Reset buttons",
            f"up to {MAX_STEPS} letters E, M, L (Step by step only)",
            "none",
        ),
        (
            "at",
            "Step by step's Step back and its *Iteration shown* slider",
            "an integer from 0 to the number of steps taken (Step by step only)",
            "the last step taken",
        ),
        (
            "speed",
            "Step by step's *Speed (steps per second)*",
            ", ".join(f"`{speed:g}`" for speed in SPEEDS),
            f"`{state.SPEED_DEFAULT:g}`",
        ),
        ("play", "Step by step's *Play takes*", _choices(PLAY_STEPS), f"`{state.PLAY_DEFAULT}`"),
        ("presenter", sidebar + labels["presenter"], "`1` (on) or `0` (off)", "`0`"),
        (
            "lang",
            sidebar + labels["lang"],
            _choices(LANGUAGES),
            "the browser's language: `pt-BR` for any Portuguese, else `en`",
        ),
        (
            "lesson",
            "the Lessons page's step (its menu, Next and Back)",
            f"an integer from 1 to {len(LESSON_STEPS)}",
            "1, or the step this session last showed",
        ),
        (
            ROOM_PARAM,
            "the join link or QR code of a class session (Lessons)",
            f"a room's code, as printed ({format_code('7KQ2XM9D')}) or without the dash, any case",
            "none: not in a class",
        ),
        (
            SEAT_PARAM,
            "set by the app for a student in a class",
            "the student's anonymous seat (the app writes it; a reload keeps it)",
            "a new seat",
        ),
        (
            classroom.RESUME_PARAM,
            "the teacher's resume link (never projected)",
            "a room's secret; the app takes it out of the address at once",
            "none",
        ),
    ]


def address_table() -> str:
    """The markdown table of every URL parameter."""
    rows = ["| parameter | set by | values | default |", "|---|---|---|---|"]
    for name, control, values, default in parameters(sidebar_labels()):
        rows.append(f"| `{name}` | {control} | {values} | {default} |")
    return "\n".join(rows)


def not_in_address_table(inputs: dict[str, list[str]] | None = None) -> str:
    """The markdown table of each page's inputs that a link does not carry. ``inputs``: {page path: its
    ``page_inputs``}, read from the pages when not given."""
    rows = ["| page | controls a link does not carry (a link opens them at their defaults) |", "|---|---|"]
    for path, label, _ in PAGES:
        found = inputs[path] if inputs is not None else page_inputs(path)
        kept = [name for name in dict.fromkeys(found) if not name.startswith((*WRITES_ADDRESS, *ACTIONS))]
        if kept:
            rows.append(f"| {label} | {', '.join(f'*{name}*' for name in kept)} |")
    return "\n".join(rows)
