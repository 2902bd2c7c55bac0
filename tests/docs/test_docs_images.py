"""The documentation's screenshots (docs/images/, written by docs/tools/screenshots.py): one per shot
of the script, at the script's size, and none a blank frame."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

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
