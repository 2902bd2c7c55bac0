"""Step by step: replay a sequence of E-steps, M-steps and Lloyd steps from starting centres.

A sequence is a string of letters, one per step (``"EMEML"``):

* ``E``  E-step: r ← the responsibilities at the current centres, at width σ, with the chosen map;
* ``M``  M-step: every centre to its soft centroid under the current r (a centre without mass stays);
* ``L``  Lloyd step: r ← the hard assignment (nearest centre), then every centre to its cluster's mean.

The state is (centres C, responsibilities r). It starts at the given centres with r computed there, so
the points are coloured from the first frame. An E-step changes only r, an M-step only C; a Lloyd step
changes both (its r is the hard assignment it used, i.e. at the centres before it moved them).

``replay`` runs a sequence and returns every centre set and, after each half-step, L_σ and J at the
current centres (``rbfviz.measures.gamma_gap``: L_σ(C) = Σ_i Σ_j r_ij(C) ‖x_i − c_j‖² with r computed
at C, J(C) = Σ_i min_j ‖x_i − c_j‖²). Both depend on the centres only, so an E-step leaves them unchanged.
``soft_vs_lloyd`` measures how far one soft step (E then M) lands from one Lloyd step from the same
centres: it vanishes as σ → 0, where the soft step *is* Lloyd's.

The replay computes in X's dtype (float32 or float64), so a shared link gives the same bits;
returned arrays are float64 for display.

Playing: ``play_step`` is the step Play takes next ("em": E and M by turns, "lloyd": Lloyd steps),
``advance`` one tick of Play (forward through the iterations already taken, then one new step), and
``settled`` says when a new step would change nothing visible, where Play stops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rbfviz.i18n import N_, Invalid
from rbfviz.maps import _responsibilities
from rbfviz.measures import _gamma_gap
from rbfviz.steps import _m_step, _soft_centroid_step
from rbfviz.validate import (
    check_centers,
    check_kind,
    check_map_arguments,
    check_map_arguments_on_grid,
    check_points,
    check_sigma,
    check_sigma_for_dtype,
    check_sigmas,
)

# Each step's name, shown as tr(STEP_NAMES[letter]).
STEP_NAMES = {"E": N_("E-step"), "M": N_("M-step"), "L": N_("Lloyd step")}
MAX_STEPS = 200  # a shared link replays every step on each view: this bounds the work and the URL
# What Play takes: soft EM half-steps by turns, or hard Lloyd steps.
PLAY_STEPS = {"em": N_("E-step, M-step, E-step, …"), "lloyd": N_("Lloyd steps")}  # shown as tr(label)
# Play's speeds, in steps per second. Each step is a server run, so the fastest is kept at 2 per second.
SPEEDS = (0.5, 1.0, 2.0)
# Play stops once a step moves no centre by more than this fraction of the data's extent: far below
# a pixel of the plot, so nothing would change on screen.
SETTLED = 1e-6


def check_steps(steps) -> str:
    """A step sequence as upper-case letters E, M, L (lower case accepted), at most ``MAX_STEPS`` long."""
    if not isinstance(steps, str):
        raise Invalid("steps must be a string of the letters E, M and L, got {steps}.", steps=repr(steps))
    letters = steps.strip().upper()
    wrong = sorted({ch for ch in letters if ch not in STEP_NAMES})
    if wrong:
        raise Invalid(
            "steps may only use the letters E (E-step), M (M-step) and L (Lloyd step); found {found}.",
            found=", ".join(repr(ch) for ch in wrong),
        )
    if len(letters) > MAX_STEPS:
        raise Invalid("steps may hold at most {most} steps, got {count}.", most=MAX_STEPS, count=len(letters))
    return letters


@dataclass(frozen=True)
class Replay:
    """A replayed sequence, all float64.

    steps: the letters; sigma, kind: the width and map of its E-steps; centers (s + 1, k, d): the
    start, then the centres after each step; resp (n, k): the responsibilities after the last step;
    loss, distortion (s + 1,): L_σ and J at centers[t]; resp_by: the step that computed resp ("E",
    "L": the hard assignment of a Lloyd step, "" for the start's E-step); resp_index: the t of the
    centres it was computed at.
    """

    steps: str
    sigma: float
    kind: str
    centers: np.ndarray
    resp: np.ndarray
    loss: np.ndarray
    distortion: np.ndarray
    resp_by: str
    resp_index: int

    @property
    def count(self) -> int:
        return len(self.steps)

    @property
    def current(self) -> np.ndarray:
        return self.centers[-1]

    @property
    def previous(self) -> np.ndarray:
        """The centres before the last step (the start when no step was taken)."""
        return self.centers[-2] if self.count else self.centers[0]

    @property
    def resp_current(self) -> bool:
        """Whether resp was computed at the current centres (False once an M-step or a Lloyd step
        moved them)."""
        return bool(np.array_equal(self.centers[self.resp_index], self.current, equal_nan=True))

    def pair_start(self) -> tuple[np.ndarray, bool]:
        """(centres, after_pair): the centres before the last E+M pair if the sequence ends with one,
        else the current centres. ``soft_vs_lloyd`` from there compares the pair just taken (or the
        next one) with a Lloyd step from the same centres."""
        if self.steps.endswith("EM"):
            return self.centers[-3], True
        return self.current, False


def replay(X, C0, sigma, kind: str, steps: str, prefix: Replay | None = None) -> Replay:
    """Replay ``steps`` (letters E, M, L) from centres C0 (k, d) on points X (n, d) at width σ.

    kind: the map of the E-steps ("softmax", "entmax15", "naive", "hard"); Lloyd steps are always hard.
    Computed in X's dtype. A "naive" map that fails (NaN rows) gives NaN centres, shown, never hidden.
    prefix: a replay of the first steps of ``steps`` on the same X from the same C0, σ and map; the
    replay then continues from where it ended (the same bits as replaying from the start, since its
    float64 arrays hold X's dtype exactly). One more step then costs one step, not the whole sequence.
    """
    X, C, sigma, kind = check_map_arguments(X, C0, sigma, kind, centers_name="C0")
    steps = check_steps(steps)
    if prefix is None:
        resp = _responsibilities(X, C, sigma, kind)
        resp_index, resp_by = 0, ""  # the start's E-step
        centers = [C]
        gaps = [_loss_and_distortion(X, C, sigma, kind)]
    else:
        same_start = np.array_equal(prefix.centers[0], C.astype(np.float64), equal_nan=True)
        if not (
            steps.startswith(prefix.steps) and prefix.sigma == sigma and prefix.kind == kind and same_start
        ):
            raise ValueError(
                "prefix must be a replay of the first steps of this sequence from the same start, σ and map."
            )
        resp = prefix.resp.astype(X.dtype)
        resp_index, resp_by = prefix.resp_index, prefix.resp_by
        centers = list(prefix.centers.astype(X.dtype))
        gaps = list(zip(prefix.loss, prefix.distortion))
        C = centers[-1]
    for letter in steps[len(centers) - 1 :]:
        if letter == "E":
            resp = _responsibilities(X, C, sigma, kind)
            resp_index, resp_by = len(centers) - 1, letter
        elif letter == "M":
            C = _m_step(X, resp, C)
        else:
            resp = _responsibilities(X, C, sigma, "hard")
            resp_index, resp_by = len(centers) - 1, letter
            C = _m_step(X, resp, C)
        centers.append(C)
        gaps.append(_loss_and_distortion(X, C, sigma, kind))
    return Replay(
        steps=steps,
        sigma=sigma,
        kind=kind,
        centers=np.stack(centers).astype(np.float64),
        resp=resp.astype(np.float64),
        loss=np.array([float(g[0]) for g in gaps]),
        distortion=np.array([float(g[1]) for g in gaps]),
        resp_by=resp_by,
        resp_index=resp_index,
    )


def _loss_and_distortion(X: np.ndarray, C: np.ndarray, sigma: float, kind: str) -> tuple[float, float]:
    if not np.isfinite(C).all():  # a failed naive map: no loss to measure
        return float("nan"), float("nan")
    with np.errstate(invalid="ignore"):  # NaN responsibilities (naive) give a NaN loss, shown as such
        gap = _gamma_gap(X, C, sigma, kind)
    return gap.loss, gap.distortion


def soft_vs_lloyd(X, C, sigmas, kind: str = "softmax") -> np.ndarray:
    """max_jd |soft step − Lloyd step| (data units) from centres C (k, d), at each σ of ``sigmas``.

    The soft step is an E-step at σ with ``kind`` then an M-step (``soft_centroid_step``); the Lloyd
    step is the hard one. Computed in X's dtype; NaN where the soft step fails (naive map).
    """
    X, C, sigmas, kind = check_map_arguments_on_grid(X, C, sigmas, kind)
    lloyd = _soft_centroid_step(X, C, 1.0, "hard").astype(np.float64)
    out = np.empty(len(sigmas))
    for i, sigma in enumerate(sigmas):
        soft = _soft_centroid_step(X, C, float(sigma), kind).astype(np.float64)
        out[i] = np.max(np.abs(soft - lloyd))
    return out


@dataclass(frozen=True)
class LloydComparison:
    """One soft step (E then M) and one Lloyd step from the same centres, all float64.

    start (k, d): the centres both steps start from, the centres before the replay's last E+M pair
    when it ends with one (after_pair), else its current centres; soft, lloyd (k, d): where the two
    steps land; difference: max |soft − lloyd| at the replay's σ; sigmas, differences (m,): the same
    measured at other σ (``soft_vs_lloyd``).
    """

    start: np.ndarray
    after_pair: bool
    soft: np.ndarray
    lloyd: np.ndarray
    difference: float
    sigmas: np.ndarray
    differences: np.ndarray


def compare_with_lloyd(X, run: Replay, sigma, kind: str, sigmas) -> LloydComparison:
    """Compare the replay's last E+M pair (or the next one, if it does not end with a pair) with one
    Lloyd step from the same centres, at σ and at each σ of ``sigmas``. Computed in X's dtype."""
    X = check_points(X, "X")
    sigma = check_sigma(sigma)
    kind = check_kind(kind)
    check_sigma_for_dtype(sigma, X.dtype)
    start, after_pair = run.pair_start()
    C = check_centers(start, X, "the pair's start") if np.isfinite(start).all() else None
    if C is None:  # a failed naive map left NaN centres: nothing to compare
        nan = np.full_like(start, np.nan)
        sigmas = check_sigmas(sigmas)
        return LloydComparison(
            start, after_pair, nan, nan, float("nan"), sigmas, np.full(len(sigmas), np.nan)
        )
    soft = _soft_centroid_step(X, C, sigma, kind).astype(np.float64)
    lloyd = _soft_centroid_step(X, C, 1.0, "hard").astype(np.float64)
    with np.errstate(invalid="ignore"):
        difference = float(np.max(np.abs(soft - lloyd)))
    sigmas = check_sigmas(sigmas)
    return LloydComparison(
        start, after_pair, soft, lloyd, difference, sigmas, soft_vs_lloyd(X, C, sigmas, kind)
    )


def play_step(steps: str, play: str) -> str:
    """The letter Play takes after ``steps``: "L" for play="lloyd"; for play="em" an M-step after an
    E-step, else an E-step (so E and M alternate, and a Lloyd step is followed by a fresh E-step)."""
    if play not in PLAY_STEPS:
        raise ValueError(f"play={play!r} is unknown; allowed: {', '.join(PLAY_STEPS)}.")
    if play == "lloyd":
        return "L"
    return "M" if steps.endswith("E") else "E"


def advance(steps: str, shown: int, play: str) -> tuple[str, int] | None:
    """One tick of Play from iteration ``shown`` (0 <= shown <= len(steps)) of the sequence ``steps``.

    Returns (steps, shown) after the tick: the next iteration already taken if ``shown`` is behind the
    end, else ``steps`` with one more ``play_step`` and shown at its end; None when the sequence is full
    (``MAX_STEPS``), where Play stops.
    """
    steps = check_steps(steps)
    if not (isinstance(shown, int) and 0 <= shown <= len(steps)):
        raise ValueError(f"shown must be an iteration from 0 to {len(steps)}, got {shown!r}.")
    if shown < len(steps):
        return steps, shown + 1
    if len(steps) >= MAX_STEPS:
        return None
    steps += play_step(steps, play)
    return steps, len(steps)


def settled(run: Replay, extent: float, play: str) -> bool:
    """Whether Play (taking ``play_step``s of ``play``) should stop after ``run``: its last step that
    moves centres is the kind Play takes (M for "em", Lloyd for "lloyd") and it moved no centre by more
    than ``SETTLED`` × extent (the data's extent, data units); or the centres are no longer finite (the
    naive map failed). A settled soft EM can still move under Lloyd steps, hence the kind."""
    if not np.isfinite(run.current).all():
        return True
    moving = [t for t, letter in enumerate(run.steps, start=1) if letter in "ML"]
    if not moving or run.steps[moving[-1] - 1] != ("L" if play == "lloyd" else "M"):
        return False
    t = moving[-1]
    return float(np.max(np.abs(run.centers[t] - run.centers[t - 1]))) <= SETTLED * extent
