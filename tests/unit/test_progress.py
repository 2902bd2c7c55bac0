"""A progress bar moves at most every ``BAR_SECONDS`` and always at its end, once (ui.progress.throttled):
the levels of a new setting stop by the dozen within a fraction of a second, and every move is a message."""

from __future__ import annotations

from ui import progress


def test_a_throttled_bar_moves_first_then_every_bar_seconds_and_at_the_end(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    moves = []
    moved = progress.throttled(lambda done, total: moves.append((done, total)))
    step = 0.26 * progress.BAR_SECONDS  # the 4th call after a move is the first at BAR_SECONDS or more
    for done in range(10):
        moved(done, 10)
        clock[0] += step
    moved(10, 10)  # the end, however soon
    moved(10, 10)  # the same end again, as soon: drawn already
    clock[0] += 1.5 * progress.BAR_SECONDS
    moved(10, 10)  # and again later: a move as any other
    assert moves == [(0, 10), (4, 10), (8, 10), (10, 10), (10, 10)]


def test_an_end_reported_at_every_step_moves_the_bar_every_bar_seconds(monkeypatch):
    """The Explorer reports (total, total) once per σ level drawn, a few milliseconds apart: the bar moves
    at the first of them, then every BAR_SECONDS, and again at a new end (another total)."""
    clock = [0.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    moves = []
    moved = progress.throttled(lambda done, total: moves.append((done, total)))
    for _ in range(40):
        moved(36, 36)
        clock[0] += 0.26 * progress.BAR_SECONDS  # the 4th call after a move is the first at BAR_SECONDS
    moved(5, 5)
    assert moves == [(36, 36)] * 10 + [(5, 5)]


def test_a_throttled_bar_moves_at_every_call_when_calls_are_far_apart(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    moves = []
    moved = progress.throttled(lambda done, total: moves.append(done))
    for done in range(5):
        moved(done, 5)
        clock[0] += 2 * progress.BAR_SECONDS
    assert moves == [0, 1, 2, 3, 4]
