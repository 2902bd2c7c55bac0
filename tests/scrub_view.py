"""What a σ-scrubbing view shows, read from an AppTest: the component's payload (every σ level), the
level the session has committed, and that level's figure and numbers as the browser draws them.

    header = payload(at)                 # rbfviz.views.common.scrub.read_payload of the page's component
    spec = figure_shown(at)              # the figure dict at the committed σ (arrays as numpy)
    numbers = metrics_shown(at)          # {label: value text} beside the plot at the committed σ
"""

from __future__ import annotations

import html
import math
import re

from rbfviz.views.common.scrub import figure_at, read_payload

STATE_KEY = "_rbfviz_controls"


def payload(at, index: int = 0) -> dict:
    components = at.get("bidi_component")
    assert len(components) > index, "the page has no σ scrubbing component"
    return read_payload(components[index].proto.bytes)


def payload_bytes(at, index: int = 0) -> int:
    return len(at.get("bidi_component")[index].proto.bytes)


def level(at, header: dict) -> int:
    """The level of the session's committed σ (what the browser opens at: the address's σ)."""
    sigma = at.session_state[STATE_KEY].sigma
    return min(range(len(header["sigmas"])), key=lambda i: abs(math.log(header["sigmas"][i] / sigma)))


def figure_shown(at, index: int = 0, at_level: int | None = None) -> dict:
    header = payload(at, index)
    return figure_at(header, level(at, header) if at_level is None else at_level)


def side(header: dict, at_level: int) -> dict:
    """{label: value} of the metrics beside the plot at a level, and "notes": the note lines."""
    text = header["frames"][at_level]["side"]
    labels = re.findall(r'class="scrub-metric-label">(.*?)</div>', text)
    values = re.findall(r'class="scrub-metric-value">(.*?)</div>', text)
    out = {html.unescape(label): html.unescape(value) for label, value in zip(labels, values)}
    out["notes"] = [html.unescape(note) for note in re.findall(r'class="scrub-note"[^>]*>(.*?)</p>', text)]
    return out


def metrics_shown(at, index: int = 0) -> dict:
    header = payload(at, index)
    return side(header, level(at, header))


def caption_shown(at, index: int = 0) -> str:
    header = payload(at, index)
    return header["frames"][level(at, header)]["caption"]


def grid(at, index: int = 0) -> list[float]:
    """The σ values of the scrubber's levels (the decreasing grid)."""
    return payload(at, index)["sigmas"]


def commit(at, sigma: float) -> None:
    """What a settled scrub does before its rerun (ui.scrub's callback): the controls take σ; then rerun."""
    from dataclasses import replace

    at.session_state[STATE_KEY] = replace(at.session_state[STATE_KEY], sigma=float(sigma))
    at.run()


def as_json(fig: dict) -> str:
    """A figure dict (arrays included) as comparable text."""
    import json

    import numpy as np

    return json.dumps(fig, sort_keys=True, default=lambda a: np.asarray(a).tolist())
