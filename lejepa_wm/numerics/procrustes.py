"""Polar factor, Procrustes distance and whitening defect: the matrix quantities of T3 (approximate identifiability).

For ``A = U diag(sigma) V^T`` the polar factor is ``Q = U V^T``; it minimizes
``||A - Q'||_F`` over orthogonal ``Q'`` (orthogonal Procrustes) with
``||A - Q||_F^2 = sum (sigma_i - 1)^2 <= sum (sigma_i^2 - 1)^2 = ||A A^T - I||_F^2``.
Computed by batched ``numpy.linalg.svd`` (backward stable: errors ~1e-15 ||A||).

For an encoder ``h = C Phi`` in orthonormal Hermite features without the
constant (so ``E h = 0``), with the first ``n`` features the linear ones
``z_1..z_n``, T3 reads off everything from ``C`` and the loss ``L(h)``
(:func:`lejepa_wm.numerics.verify_t3.t3_measurements` does):
``s = ||C||_F^2``, ``Cov h = C C^T``, ``A = C[:, :n]``, nonlinear energy
``||C[:, n:]||_F^2`` and ``min_Q E||h - Qz||^2 = ||A - Q_polar||_F^2 + ||C[:, n:]||_F^2``
(degree 1 is orthogonal to degrees >= 2), evaluated as ``sum (sigma_i - 1)^2``
plus the nonlinear energy so that it never rounds below 0.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["polar_factor", "procrustes_distance_sq", "whitening_defect"]


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
