"""The documentation's screenshots (docs/images/, written by docs/tools/screenshots.py): one per shot
of the script, at the script's size, none a blank frame, each with the page's text beside it (which CI's
``screenshots.py --check`` compares with the page it shows now)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

from rbfviz.i18n import translator

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("screenshots", ROOT / "docs" / "tools" / "screenshots.py")
screenshots = sys.modules.setdefault("screenshots", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(screenshots)

IMAGES = ROOT / "docs" / "images"
# A blank or half-drawn frame (a white page, a spinner, the sidebar alone, Streamlit's grey skeleton)
# has few colours and almost nothing far from its background. Measured on the real shots: at least
# 1.7 % of the pixels far from the background, 489 colours, a grey-level spread of 20.
MIN_GREY_STD = 12.0  # grey levels (0-255)
MIN_DRAWN = 0.01  # share of the pixels more than 40 levels (in some channel) from the commonest colour
MIN_COLOURS = 200


def frame_problems(path: Path, size: tuple[int, int]) -> list[str]:
    """Why the PNG at ``path`` is not a usable screenshot of ``size`` (width, height) pixels; [] if it is."""
    if not path.is_file():
        return [f"{path.name} is missing (run docs/tools/screenshots.py)"]
    with Image.open(path) as image:
        if image.format != "PNG":
            return [f"{path.name} is {image.format}, not PNG"]
        problems = []
        if image.size != size:
            problems.append(
                f"{path.name} is {image.size[0]}×{image.size[1]}, the script takes {size[0]}×{size[1]}"
            )
        rgb = np.asarray(image.convert("RGB"))
    grey = rgb.astype(np.float64) @ np.array([0.299, 0.587, 0.114])
    if grey.std() < MIN_GREY_STD:
        problems.append(f"{path.name}: grey-level spread {grey.std():.1f} < {MIN_GREY_STD} (a blank frame?)")
    pixels = rgb.reshape(-1, 3).astype(np.int32)
    packed = (pixels[:, 0] << 16) | (pixels[:, 1] << 8) | pixels[:, 2]  # one int per colour: a fast unique
    colours, counts = np.unique(packed, return_counts=True)
    commonest = colours[counts.argmax()]
    background = np.array([commonest >> 16, (commonest >> 8) & 255, commonest & 255])
    drawn = (np.abs(pixels - background).max(axis=1) > 40).mean()
    if drawn < MIN_DRAWN:
        problems.append(f"{path.name}: only {drawn:.2%} of it differs from its background (a blank frame?)")
    if counts.size < MIN_COLOURS:
        problems.append(f"{path.name}: only {counts.size} colours (a blank frame?)")
    return problems


SIZE = (screenshots.VIEWPORT["width"], screenshots.VIEWPORT["height"])


@pytest.mark.parametrize("shot", screenshots.SHOTS, ids=lambda s: s.name)
def test_every_screenshot_is_there_and_drawn(shot):
    assert frame_problems(IMAGES / f"{shot.name}.png", SIZE) == []


def test_no_image_that_the_script_does_not_make():
    made = {f"{s.name}.png" for s in screenshots.SHOTS}
    assert {p.name for p in IMAGES.glob("*.png")} == made
    assert len(made) == len(screenshots.SHOTS)  # names are unique
    assert {p.name for p in IMAGES.glob("*.txt")} == {f"{s.name}.txt" for s in screenshots.SHOTS}


# a word each page's text must hold: its title as the app draws it
TITLES = {
    "home": "rbfviz",
    "explorer": "Explorer",
    "step-by-step": "Step by step",
    "annealing": "Annealing",
    "how-many-clusters": "How many clusters",
    "stability": "Stability",
    "equivalence": "Equivalence",
    "gaussian-mixture": "Gaussian mixture",
    "lessons": "Lessons",
    "neural-network": "Neural network",
    "explorer-presenter": "Explorer",
    "explorer-dark": "Explorer",
    "class-session": "Lessons",
    "class-question": "Ask the class",
}


@pytest.mark.parametrize("shot", screenshots.SHOTS, ids=lambda s: s.name)
def test_every_screenshot_has_its_pages_text(shot):
    text = (IMAGES / f"{shot.name}.txt").read_text(encoding="utf-8")
    # a Portuguese shot (<name>.pt-BR) holds its page's title in Portuguese, the catalog's translation
    name, portuguese = shot.name.removesuffix(".pt-BR"), shot.name.endswith(".pt-BR")
    title = translator("pt-BR")(TITLES[name]) if portuguese else TITLES[name]
    assert not portuguese or name == "home" or title != TITLES[name], f"{TITLES[name]!r} is not translated"
    assert title in text
    assert text.endswith("\n") and "\n\n" not in text  # as page_text writes it
    for pattern, placeholder in screenshots.VOLATILE:  # what changes from run to run is a placeholder
        assert pattern.sub(placeholder, text) == text, pattern.pattern


class _Body:
    def __init__(self, text: str):
        self.text = text

    def evaluate(self, script: str) -> None:
        assert script == screenshots._HIDE_TICKS_JS

    def locator(self, selector: str):
        assert selector == "body"
        return SimpleNamespace(inner_text=lambda: self.text)


def test_the_page_text_leaves_out_what_changes_between_runs():
    page = _Body("Room 7KQ2-XM9D\n\n  Join: http://127.0.0.1:43117/Lessons?room=7KQ2XM9D  \nσ = 0.21\n")
    assert (
        screenshots.page_text(page)
        == "Room ROOM-CODE\n  Join: http://127.0.0.1:PORT/Lessons?room=ROOM\nσ = 0.21\n"
    )


def test_a_changed_page_text_is_reported_with_its_lines():
    assert screenshots.text_change("lessons", "a\nb\n", "a\nb\n") == ""
    change = screenshots.text_change(
        "lessons", "Eight short steps\nStep 1 of 9\n", "Nine short steps\nStep 1 of 9\n"
    )
    assert "-Eight short steps" in change and "+Nine short steps" in change
    assert screenshots.text_change("home", None, "x\n") == "home.txt: no committed text\n"


def test_a_last_digit_rounded_the_other_way_is_no_change_but_any_other_number_is():
    # another processor's kernels may round a printed last digit the other way; the page is the same
    assert screenshots.text_change("explorer", "J = 0.529\nn = 500\n", "J = 0.530\nn = 500\n") == ""
    assert screenshots.text_change("explorer", "σ = 1,234.5\n", "σ = 1,234.6\n") == ""
    assert "+1,235 points" in screenshots.text_change("explorer", "1,234 points\n", "1,235 points\n")
    assert "+J = 0.531" in screenshots.text_change("explorer", "J = 0.529\n", "J = 0.531\n")
    assert "+Step 1 of 10" in screenshots.text_change("lessons", "Step 1 of 9\n", "Step 1 of 10\n")
    assert "+n = 5000" in screenshots.text_change("explorer", "n = 500\n", "n = 5000\n")


def test_what_the_processor_decides_is_no_change():
    # AVX2 and AVX-512 kernels: another count of EM iterations to the tolerance, another rounding error
    old = "at this σ (34 EM iterations, converged).\nThe identity holds to rounding: 2.1e-15 against ε.\n"
    new = "at this σ (31 EM iterations, converged).\nThe identity holds to rounding: 3.3e-15 against ε.\n"
    assert screenshots.text_change("explorer", old, new) == ""
    pt = "neste σ (34 iterações de EM, convergiu).\nA identidade vale: 2,1e-15 contra ε.\n"
    assert (
        screenshots.text_change("explorer.pt-BR", pt, pt.replace("34", "31").replace("2,1", "3,3"), True)
        == ""
    )
    # but not a rounding error grown out of rounding level, nor other words around the count
    assert "+The identity holds to rounding: 3.3e-05" in screenshots.text_change(
        "explorer", old, new.replace("e-15", "e-05")
    )
    assert "+at this σ (31 EM iterations, not converged)." in screenshots.text_change(
        "explorer", old, new.replace("converged", "not converged")
    )


def test_the_check_refuses_blank_and_wrong_frames(tmp_path):
    Image.new("RGB", SIZE, "white").save(tmp_path / "white.png")
    assert len(frame_problems(tmp_path / "white.png", SIZE)) == 3
    half = np.full((SIZE[1], SIZE[0], 3), 255, np.uint8)
    half[:, : SIZE[0] // 10] = 30  # a dark sidebar and nothing drawn
    Image.fromarray(half).save(tmp_path / "sidebar.png")
    assert any("only 2 colours" in p for p in frame_problems(tmp_path / "sidebar.png", SIZE))
    skeleton = np.full((SIZE[1], SIZE[0], 3), 255, np.uint8)
    skeleton[100:110, 300:1300] = (np.arange(1000) % 256).astype(np.uint8)[None, :, None]  # a thin bar
    Image.fromarray(skeleton).save(tmp_path / "skeleton.png")
    assert any("differs from its background" in p for p in frame_problems(tmp_path / "skeleton.png", SIZE))
    noise = np.random.default_rng(0).integers(0, 256, (100, 100, 3), dtype=np.uint8)
    Image.fromarray(noise).save(tmp_path / "small.png")
    assert frame_problems(tmp_path / "small.png", SIZE) == [
        f"small.png is 100×100, the script takes {SIZE[0]}×{SIZE[1]}"
    ]
    Image.fromarray(noise).save(tmp_path / "shot.jpg", format="JPEG")
    (tmp_path / "jpeg.png").write_bytes((tmp_path / "shot.jpg").read_bytes())
    assert frame_problems(tmp_path / "jpeg.png", SIZE) == ["jpeg.png is JPEG, not PNG"]
    assert frame_problems(tmp_path / "none.png", SIZE) == [
        "none.png is missing (run docs/tools/screenshots.py)"
    ]
