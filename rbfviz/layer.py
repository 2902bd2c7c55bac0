"""The RBF clustering layer: K-Means as a differentiable torch module."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from .maps import resp_from_sq_distances, sq_distances
from .validate import check_int, check_kind, check_sigma, check_sigma_for_dtype

# numpy dtype with the same exponent range, for checking that 2σ² is a normal number
_RANGE_DTYPE = {
    torch.float16: np.float16,
    torch.bfloat16: np.float32,
    torch.float32: np.float32,
    torch.float64: np.float64,
}


class RBFClusterLayer(nn.Module):
    """k Gaussian RBF centres in d dimensions whose responsibilities become K-Means as σ → 0.

    ``forward(x, sigma, kind, alpha)`` returns responsibilities r (n, k) with logits
    z_ij = -||x_i - c_j||² / (2σ²); ``loss(x, sigma, kind)`` returns
    L_σ = Σ_i Σ_j r_ij ||x_i - c_j||² (a sum over points, so η_j = 1/(2N_j) steps are exact).
    Gradients flow to the centres and to the inputs x, so the layer can sit on top of an encoder.
    kind: "softmax" | "entmax15" | "entmax" (with alpha in [1.05, 2]; its gradients are the ``entmax``
    package's formula) | "naive" | "hard", or an "entmax:<α>" spec.

    Parameters
    ----------
    k, d : number of centres and features.
    init : optional (k, d) tensor or array of starting centres; default N(0, 0.01²) noise.
    detach_resp : how ``loss`` treats r.
        True (default, EM-style): r is a constant, ∇_{c_j} L_σ = -2 Σ_i r_ij (x_i - c_j), whose
        η_j = 1/(2N_j) step is exactly the soft-centroid (and, as σ → 0, Lloyd) update.
        False (full autograd): r is differentiated too, which for softmax adds
        -2 Σ_i r_ij (d_ij - d̄_i)/(2σ²) (x_i - c_j) with d̄_i = Σ_l r_il d_il — a term that is O(1)
        only for points within a band of width ∝ σ² around a Voronoi edge, and moves the
        stationary points away from the soft-K-Means fixed points at finite σ.
    dtype : torch dtype of the centres (default float32).
    """

    def __init__(
        self,
        k: int,
        d: int,
        init=None,
        detach_resp: bool = True,
        dtype=torch.float32,
        seed: int | None = None,
    ):
        super().__init__()
        k = check_int(k, "k", 1)
        d = check_int(d, "d", 1)
        if init is None:
            gen = torch.Generator().manual_seed(seed) if seed is not None else None
            centers = 0.01 * torch.randn(k, d, generator=gen, dtype=dtype)
        else:
            centers = torch.as_tensor(init, dtype=dtype).clone()
            if centers.shape != (k, d):
                raise ValueError(f"init must have shape ({k}, {d}), got {tuple(centers.shape)}.")
            if not torch.isfinite(centers).all():
                raise ValueError("init contains NaN or infinite values; centres must be finite.")
        self.centers = nn.Parameter(centers)
        self.detach_resp = bool(detach_resp)

    def _check(self, x: torch.Tensor, sigma, kind: str, alpha) -> tuple[float, str]:
        if x.ndim != 2 or x.shape[1] != self.centers.shape[1]:
            raise ValueError(f"x must have shape (n, {self.centers.shape[1]}), got {tuple(x.shape)}.")
        kind = check_kind(kind, alpha=alpha)
        sigma = check_sigma(sigma)
        # As in responsibilities(): a 2σ² that is 0 or subnormal in the working dtype would give
        # 0/0 = NaN (softmax) or an index error inside entmax.
        work = torch.promote_types(x.dtype, self.centers.dtype)
        check_sigma_for_dtype(sigma, _RANGE_DTYPE.get(work, np.float64))
        return sigma, kind

    def forward(self, x: torch.Tensor, sigma: float, kind: str = "softmax", alpha=None) -> torch.Tensor:
        """Responsibilities (n, k) of x (n, d) at width σ."""
        sigma, kind = self._check(x, sigma, kind, alpha)
        return resp_from_sq_distances(sq_distances(x, self.centers), sigma, kind)

    def loss(
        self,
        x: torch.Tensor,
        sigma: float,
        kind: str = "softmax",
        detach_resp: bool | None = None,
        alpha=None,
    ) -> torch.Tensor:
        """L_σ = Σ_i Σ_j r_ij ||x_i - c_j||² (a scalar). ``detach_resp`` overrides the layer's option."""
        sigma, kind = self._check(x, sigma, kind, alpha)
        detach = self.detach_resp if detach_resp is None else detach_resp
        d = sq_distances(x, self.centers)
        resp = resp_from_sq_distances(d, sigma, kind)
        if detach:
            resp = resp.detach()
        return (resp * d).sum()

    def extra_repr(self) -> str:
        k, d = self.centers.shape
        return f"k={k}, d={d}, detach_resp={self.detach_resp}"
