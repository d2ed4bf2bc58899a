"""Polar factor and the quantities of T3 (approximate identifiability).

For ``A = U diag(sigma) V^T`` the polar factor is ``Q = U V^T``; it minimizes
``||A - Q'||_F`` over orthogonal ``Q'`` (orthogonal Procrustes) with
``||A - Q||_F^2 = sum (sigma_i - 1)^2 <= sum (sigma_i^2 - 1)^2 = ||A A^T - I||_F^2``.
Computed by batched ``numpy.linalg.svd`` (backward stable: errors ~1e-15 ||A||).

For an encoder ``h = C Phi`` in orthonormal Hermite features without the
constant (so ``E h = 0``), with the first ``n`` features the linear ones
``z_1..z_n``, T3 reads off everything from ``C`` and the loss ``L(h)``:
``s = ||C||_F^2``, ``Cov h = C C^T``, ``A = C[:, :n]``, nonlinear energy
``||C[:, n:]||_F^2`` and ``min_Q E||h - Qz||^2 = ||A - Q_polar||_F^2 + ||C[:, n:]||_F^2``
(degree 1 is orthogonal to degrees >= 2), evaluated as ``sum (sigma_i - 1)^2``
plus the nonlinear energy so that it never rounds below 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lejepa_wm.numerics.t3 import error_bound, nonlinear_energy_bound

__all__ = ["polar_factor", "procrustes_distance_sq", "whitening_defect", "T3Quantities", "t3_quantities"]


def polar_factor(matrix: ArrayLike) -> NDArray[np.float64]:
    """Orthogonal polar factor ``U V^T`` of a square matrix (or a batch ``(..., n, n)``)."""
    u, _, vt = np.linalg.svd(np.asarray(matrix, dtype=float))
    return u @ vt


def procrustes_distance_sq(matrix: ArrayLike) -> NDArray[np.float64]:
    """``min_{Q in O(n)} ||A - Q||_F^2 = sum_i (sigma_i - 1)^2`` (batched over leading axes)."""
    sigma = np.linalg.svd(np.asarray(matrix, dtype=float), compute_uv=False)
    return np.sum((sigma - 1.0) ** 2, axis=-1)


def whitening_defect(matrix: ArrayLike) -> NDArray[np.float64]:
    """``||A A^T - I||_F`` (batched over leading axes)."""
    matrix = np.asarray(matrix, dtype=float)
    return np.linalg.norm(matrix @ np.swapaxes(matrix, -1, -2) - np.eye(matrix.shape[-2]), axis=(-2, -1))


@dataclass(frozen=True)
class T3Quantities:
    """Per-encoder quantities of T3 (all arrays of shape ``(B,)``).

    ``delta = L - 2(1 - rho) s``, ``eps = ||Cov h - I||_F``,
    ``D = delta / (2 rho (1 - rho))``, ``error = min_Q E||h - Qz||^2`` and
    ``bound = D + (eps + D)^2``.
    """

    second_moment: NDArray[np.float64]
    delta: NDArray[np.float64]
    eps: NDArray[np.float64]
    D: NDArray[np.float64]
    nonlinear_energy: NDArray[np.float64]
    error: NDArray[np.float64]
    bound: NDArray[np.float64]

    @property
    def ratio(self) -> NDArray[np.float64]:
        """``error / bound`` (the bound is tight where it approaches 1)."""
        return self.error / self.bound


def t3_quantities(coefficients: ArrayLike, delta: ArrayLike, rho: ArrayLike, n: int) -> T3Quantities:
    """T3 quantities for encoders ``h = C Phi`` given ``C`` ``(B, n, K)``, ``delta`` ``(B,)`` and ``rho`` ``(B,)``.

    ``delta = L(h) - 2(1 - rho) E||h||^2`` is passed in rather than ``L(h)``:
    forming it as a difference of two O(n) numbers loses ~1e-16 n absolute,
    which matters when ``D`` is tiny; callers that have the loss matrix ``M``
    should evaluate ``C (M - 2(1 - rho) G) C^T`` instead (see
    :func:`lejepa_wm.numerics.verify_t3.alignment_gaps`). The features must be
    orthonormal, exclude the constant, and start with the ``n`` linear ones (as
    :func:`~lejepa_wm.numerics.hermite.multi_indices` orders them for
    ``min_degree = 1``).
    """
    coefficients = np.asarray(coefficients, dtype=float)
    delta, rho = np.asarray(delta, dtype=float), np.asarray(rho, dtype=float)
    second_moment = np.sum(coefficients**2, axis=(1, 2))
    eps = whitening_defect(coefficients)  # ||C C^T - I||_F = ||Cov h - I||_F
    nonlinear_energy = np.sum(coefficients[:, :, n:] ** 2, axis=(1, 2))
    error = procrustes_distance_sq(coefficients[:, :, :n]) + nonlinear_energy
    return T3Quantities(second_moment, delta, eps, nonlinear_energy_bound(delta, rho), nonlinear_energy, error,
                        error_bound(delta, eps, rho))
