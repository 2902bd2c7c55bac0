"""Argument checks shared by every public function, and the names of the maps and precisions.

Callers use them too: the app checks a value from the address or a form with the same function, and the
same message, as the library would (``check_points``, ``check_alpha``, ``entmax_kind``, ``DTYPES``,
``COMPARED_KINDS``, ...). Each check either returns a cleaned value or raises ``ValueError`` with a
message that says what was wrong and what is allowed. Public functions call these at their boundary, so
the numerical code behind them can assume well-formed input: the library's own inner calls go to the
``_private`` twin of a public function (``responsibilities`` → ``_responsibilities``), which trusts its
arguments.
"""

from __future__ import annotations

import math
from numbers import Integral, Real
from urllib.parse import urlsplit

import numpy as np

from rbfviz.i18n import Invalid

# Every name of a map, of a precision, defined once here.
KINDS = ("softmax", "entmax15", "naive", "hard")  # every map rbfviz computes
COMPARED_KINDS = KINDS[:3]  # the three the app and the experiments compare ("hard" is K-Means itself)
DTYPES = ("float64", "float32")  # the precisions, by name
FLOAT_DTYPES = (np.float32, np.float64)


# α-entmax, p = [(α-1) z - τ]₊^{1/(α-1)}: α -> 1 is softmax (never exactly sparse), α = 1.5 is "entmax15",
# α = 2 is sparsemax. Below 1.05 the exponent 1/(α-1) exceeds 20: float32 loses accuracy for no new picture.
ALPHA_MIN, ALPHA_MAX = 1.05, 2.0
ENTMAX_FAMILY = "entmax"  # kind="entmax" with a parameter α; carried as the map spec "entmax:<α>"
_FAMILY_PREFIX = ENTMAX_FAMILY + ":"


def check_alpha(alpha, name: str = "alpha") -> float:
    """α of α-entmax: a finite real number in [ALPHA_MIN, ALPHA_MAX] = [1.05, 2]."""
    bad = isinstance(alpha, bool) or not isinstance(alpha, (Real, np.floating, np.integer))
    value = math.nan if bad else float(alpha)
    if not (ALPHA_MIN <= value <= ALPHA_MAX):  # also False for NaN
        raise Invalid(
            "{name} must be a number in [{low}, {high}] (α = 1.5 is entmax-1.5, α = 2 is sparsemax; "
            "α -> 1 is softmax, which has its own kind), got {alpha!r}.",
            name=name,
            low=ALPHA_MIN,
            high=ALPHA_MAX,
            alpha=alpha,
        )
    return value


def entmax_kind(alpha) -> str:
    """The map spec of α-entmax, "entmax:<α>" (α checked; written with repr, so it reads back to the
    same float). Every function that takes ``kind`` accepts it."""
    return f"{_FAMILY_PREFIX}{check_alpha(alpha)!r}"


def entmax_alpha(kind: str) -> float | None:
    """α of a sparse map: 1.5 for "entmax15", α for an "entmax:<α>" spec, None for any other kind."""
    if kind == "entmax15":
        return 1.5
    if isinstance(kind, str) and kind.startswith(_FAMILY_PREFIX):
        return float(kind[len(_FAMILY_PREFIX) :])
    return None


def check_kind(kind, allowed=KINDS, alpha=None) -> str:
    """A known map name from ``allowed``, returned as the library passes it on.

    α-entmax is accepted wherever "entmax15" is: as kind="entmax" with ``alpha``, or as its spec
    "entmax:<α>" (``entmax_kind``); both come back as the spec. ``alpha`` with any other kind is an error.
    """
    if kind == ENTMAX_FAMILY or (isinstance(kind, str) and kind.startswith(_FAMILY_PREFIX)):
        if "entmax15" not in allowed:
            raise ValueError(f"kind={kind!r} is not allowed here; allowed: {', '.join(allowed)}.")
        if kind == ENTMAX_FAMILY:
            if alpha is None:
                raise ValueError('kind="entmax" needs alpha, a number in [1.05, 2].')
            return entmax_kind(alpha)
        try:
            spec_alpha = float(kind[len(_FAMILY_PREFIX) :])
        except ValueError:
            spec_alpha = kind
        spec = entmax_kind(spec_alpha)
        if alpha is not None and check_alpha(alpha) != entmax_alpha(spec):
            raise ValueError(f"kind={kind!r} already names α; alpha={alpha!r} contradicts it.")
        return spec
    if kind not in allowed:
        raise ValueError(
            f"kind={kind!r} is not a known map; allowed: {', '.join(allowed)}"
            + (', or "entmax" with alpha in [1.05, 2].' if "entmax15" in allowed else ".")
        )
    if alpha is not None:
        raise ValueError(f'alpha is a parameter of kind="entmax" only, not of kind={kind!r}.')
    return kind


def check_sigma(sigma, name: str = "sigma") -> float:
    """σ must be a finite positive real number (in data units)."""
    if isinstance(sigma, bool) or not isinstance(sigma, (Real, np.floating, np.integer)):
        raise Invalid("{name} must be a positive finite number, got {sigma!r}.", name=name, sigma=sigma)
    sigma = float(sigma)
    if not math.isfinite(sigma) or sigma <= 0:
        raise Invalid("{name} must be a positive finite number, got {sigma!r}.", name=name, sigma=sigma)
    return sigma


def check_sigma_for_dtype(sigma: float, dtype) -> None:
    """The temperature 2σ² must be a positive normal number in the working dtype."""
    info = np.finfo(dtype)
    temperature = 2.0 * sigma * sigma
    if not (float(info.tiny) <= temperature <= float(info.max)):
        raise Invalid(
            "sigma={sigma!r} is out of range for {dtype}: 2*sigma**2 = {temperature:.3g} must lie in "
            "[{tiny:.3g}, {largest:.3g}].",
            sigma=sigma,
            dtype=np.dtype(dtype).name,
            temperature=temperature,
            tiny=float(info.tiny),
            largest=float(info.max),
        )


def check_map_arguments(X, C, sigma, kind, alpha=None, centers_name: str = "C"):
    """(X, C, sigma, kind) as a map at σ takes them: points X (n, d), centres C (k, d) in X's dtype, σ
    whose temperature 2σ² is normal in that dtype, and a known kind (``check_kind``, with alpha)."""
    X = check_points(X, "X")
    C = check_centers(C, X, centers_name)
    sigma = check_sigma(sigma)
    kind = check_kind(kind, alpha=alpha)
    check_sigma_for_dtype(sigma, X.dtype)
    return X, C, sigma, kind


def check_map_arguments_on_grid(X, C, sigmas, kind, centers_name: str = "C"):
    """``check_map_arguments`` at every σ of a grid: (X, C, sigmas (m,) float64, kind), each σ's
    temperature normal in X's dtype."""
    X = check_points(X, "X")
    C = check_centers(C, X, centers_name)
    sigmas = check_sigmas(sigmas)
    kind = check_kind(kind)
    for sigma in sigmas:
        check_sigma_for_dtype(float(sigma), X.dtype)
    return X, C, sigmas, kind


def check_int(value, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise Invalid("{name} must be an integer, got {value!r}.", name=name, value=value)
    value = int(value)
    if value < low and high is None:
        raise Invalid("{name} must be >= {low}, got {value}.", name=name, low=low, value=value)
    if value < low or (high is not None and value > high):
        raise Invalid(
            "{name} must be between {low} and {high}, got {value}.",
            name=name,
            low=low,
            high=high,
            value=value,
        )
    return value


def check_points(X, name: str = "X", dtype=None) -> np.ndarray:
    """A finite 2-D float array of shape (n, d) with n >= 1, d >= 1.

    Float32 and float64 keep their dtype; integer and other real input becomes float64 unless
    ``dtype`` asks for something else.
    """
    arr = np.asarray(X)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise ValueError(f"{name} must be a numeric array, got dtype {arr.dtype}.")
    if np.iscomplexobj(arr):
        raise ValueError(f"{name} must be real, got a complex array.")
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
        raise ValueError(f"{name} must have shape (n, d) with n >= 1 and d >= 1, got shape {arr.shape}.")
    if dtype is not None:
        arr = arr.astype(dtype, copy=False)
    elif arr.dtype not in FLOAT_DTYPES:
        arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr).all(axis=1)))
        raise Invalid(
            "{name} contains NaN or infinite values in {bad} row(s); all values must be finite.",
            name=name,
            bad=bad,
        )
    # Squared distances between points in [-M, M]^d are at most 4·d·M²; past the dtype's max they
    # become inf, and the maps would compute inf - inf = NaN.
    limit = (
        math.sqrt(float(np.finfo(arr.dtype).max) / (4 * arr.shape[1]))
        if arr.dtype in FLOAT_DTYPES
        else math.inf
    )
    biggest = max(float(arr.max()), -float(arr.min()))
    if biggest > limit:
        raise Invalid(
            "{name} has a value of magnitude {biggest:.3g}; in {dtype} with {features} feature(s) values "
            "must be at most {limit:.3g} so that squared distances stay finite. Rescale the data.",
            name=name,
            biggest=biggest,
            dtype=arr.dtype.name,
            features=arr.shape[1],
            limit=limit,
        )
    return np.ascontiguousarray(arr)


def check_centers(C, X: np.ndarray, name: str = "C") -> np.ndarray:
    """Centres (k, d) matching X's feature count, cast to X's dtype; 1 <= k <= n."""
    C = check_points(C, name=name, dtype=X.dtype)
    if C.shape[1] != X.shape[1]:
        raise Invalid(
            "{name} has {features} feature(s) per centre but X has {data_features}; they must match.",
            name=name,
            features=C.shape[1],
            data_features=X.shape[1],
        )
    check_k(C.shape[0], X.shape[0])
    return C


def check_k(k, n: int) -> int:
    if isinstance(k, bool) or not isinstance(k, Integral):
        raise Invalid("k must be an integer, got {k!r}.", k=k)
    if k < 1 or k > n:
        raise Invalid("k must be between 1 and the number of points ({n}), got k={k}.", n=n, k=k)
    return int(k)


def check_sigmas(sigmas, name: str = "sigmas") -> np.ndarray:
    """A non-empty 1-D array of positive finite σ values (float64)."""
    arr = (
        np.asarray(sigmas, dtype=float)
        if not isinstance(sigmas, (Real, np.floating))
        else np.array([sigmas], float)
    )
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D sequence of positive numbers, got shape {arr.shape}."
        )
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"{name} must all be positive finite numbers.")
    return arr


def check_public_url(text: str) -> str:
    """The app's public address, as students open it: http(s)://host[/path] with no query or fragment.
    Returns it without surrounding spaces and trailing "/" (the app and the export add their own paths)."""
    address = str(text).strip()
    parts = urlsplit(address)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ValueError(
            f"{text!r} is not an address students can open: give http(s)://host[/path], e.g. "
            "https://rbfviz.example.edu"
        )
    return address.rstrip("/")
