"""The Mehler operator in the Hermite basis, the alignment loss as a quadratic form, and its minimizers.

An encoder in Hermite coordinates is ``h(z) = C Phi(z)`` with
``Phi = (H_alpha)_{alpha in alphas}`` and ``C`` of shape ``(m, K)``. Then
``L(h) = tr(C M C^T)`` with the *loss matrix*
``M = E[(Phi(z') - Phi(z))(Phi(z') - Phi(z))^T]`` and ``Cov h = C G C^T`` with
``G = E[Phi Phi^T]``. Both are computed here by exact quadrature of the OU
pair, never from Mehler's formula, so that comparing them with the closed form
``M = 2 diag(1 - rho^alpha)`` is a check of that formula and not a restatement.

Because the coordinates of ``(z, z')`` are independent pairs, every matrix is
the entrywise product over coordinates of 1-D pair matrices
``S_i[a, b] = E[H_a(z'_i) H_b(z_i)]``, each computed by the 2-D Gauss–Hermite
rule of :func:`~lejepa_wm.numerics.gaussian_quadrature.ou_pair_rule`, exact for
``a, b <= D`` with ``D + 1`` points (rounding ~1e-15).

Whitened minimization (``G = I``, ``C C^T = I_m``): by Ky Fan,
``min tr(C M C^T) = sum of the m smallest eigenvalues of M``, attained by the
corresponding eigenvectors (:func:`ky_fan_minimum`, via ``scipy.linalg.eigh``,
backward stable: eigenvalue errors ~1e-15 ||M||). :func:`stiefel_descent` finds
minimizers independently by Riemannian gradient descent from random starts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from lejepa_wm.numerics.gaussian_quadrature import gauss_hermite_rule, tensor_rule
from lejepa_wm.numerics.hermite import hermite_values

__all__ = [
    "PairMoments", "pair_moments", "HermiteQuadraticForms", "hermite_quadratic_forms", "mehler_eigenvalues",
    "closed_form_loss", "KyFanSolution", "ky_fan_minimum", "DescentResult", "random_frames", "stiefel_descent"
]


@dataclass(frozen=True)
class PairMoments:
    """1-D OU pair moments for a batch of ``rho``: arrays of shape ``(B, D + 1, D + 1)``.

    ``cross[b, a, c] = E[H_a(z') H_c(z)]``, ``gram[b, a, c] = E[H_a(z) H_c(z)]``,
    ``gram_prime[b, a, c] = E[H_a(z') H_c(z')]``.
    """

    cross: NDArray[np.float64]
    gram: NDArray[np.float64]
    gram_prime: NDArray[np.float64]


def pair_moments(rhos: ArrayLike, max_degree: int) -> PairMoments:
    """Exact 1-D OU pair moments of ``H_0..H_D`` for every ``rho`` in ``rhos`` (batched).

    ``E[H_a(z') H_b(z)]`` has degree ``<= 2D`` in each of ``z`` and ``xi``, so the
    ``D + 1``-point rule, the fewest that make it exact, is used.
    """
    rhos = np.asarray(rhos, dtype=float)
    nodes, weights = tensor_rule(gauss_hermite_rule(max_degree + 1), 2)
    z, xi = nodes.T
    z_prime = rhos[:, None] * z + np.sqrt(1.0 - rhos**2)[:, None] * xi  # (B, P)
    h_z = hermite_values(max_degree, z) * weights  # (D+1, P), weighted once
    h_zp = np.moveaxis(hermite_values(max_degree, z_prime), 0, 1)  # (B, D+1, P)
    cross = h_zp @ h_z.T
    gram_prime = (h_zp * weights) @ np.swapaxes(h_zp, 1, 2)
    gram = np.broadcast_to(h_z @ hermite_values(max_degree, z).T, cross.shape)
    return PairMoments(cross, np.array(gram), gram_prime)


@dataclass(frozen=True)
class HermiteQuadraticForms:
    """Quadratic forms of an encoder ``h = C Phi`` in Hermite features, shape ``(B, K, K)``.

    ``gram = E[Phi Phi^T]`` and ``loss = E[(Phi(z') - Phi(z))(Phi(z') - Phi(z))^T]``
    ``= E[Phi(z') Phi(z')^T] + gram - cross - cross^T`` with the Mehler operator ``cross = E[Phi(z') Phi(z)^T]``.
    """

    gram: NDArray[np.float64]
    loss: NDArray[np.float64]


def hermite_quadratic_forms(rhos: ArrayLike, alphas: NDArray[np.int64]) -> HermiteQuadraticForms:
    """Exact quadrature of the OU pair forms for features ``H_alpha``.

    ``rhos`` is either ``(n,)`` (one anisotropic channel) or ``(B, n)`` (a batch
    of channels); the result always has a leading batch axis.
    """
    rho_array = np.atleast_2d(np.asarray(rhos, dtype=float))
    max_degree = int(alphas.max())
    # Entry [b, j, k] of each form is prod_i S_i[b, alphas[j, i], alphas[k, i]] over the 1-D pair moments S_i.
    moments = [pair_moments(rho_array[:, i], max_degree) for i in range(alphas.shape[1])]
    cross, gram, gram_prime = np.prod([np.stack([m.cross, m.gram, m.gram_prime])[:, :, a[:, None], a[None, :]]
                                       for m, a in zip(moments, alphas.T, strict=True)], axis=0)
    loss = gram_prime + gram - cross - np.swapaxes(cross, 1, 2)
    return HermiteQuadraticForms(gram, loss)


def mehler_eigenvalues(rhos: ArrayLike, alphas: ArrayLike) -> NDArray[np.float64]:
    """Closed-form Mehler eigenvalues ``rho^alpha = prod_i rho_i^{alpha_i}``."""
    return np.prod(np.asarray(rhos, dtype=float) ** np.asarray(alphas), axis=-1)


def closed_form_loss(energies: NDArray[np.float64], rho: float) -> float:
    """``L = 2 sum_{d>=1} (1 - rho^d) ||h_d||^2`` for degree energies ``energies[d]``."""
    return float(2.0 * np.sum((1.0 - rho ** np.arange(energies.size)) * energies))


@dataclass(frozen=True)
class KyFanSolution:
    """Minimum of ``tr(W^T M W)`` over orthonormal ``m``-frames ``W`` (``K x m``).

    ``value`` is the sum of the ``m`` smallest eigenvalues, ``frame`` their
    eigenvectors and ``gap = lambda_{m+1} - lambda_m`` (0 means the minimizing
    subspace is not unique; ``inf`` when ``m = K``).
    """

    value: float
    frame: NDArray[np.float64]
    gap: float


def ky_fan_minimum(matrix: NDArray[np.float64], m: int) -> KyFanSolution:
    """Ky Fan minimum of a symmetric ``K x K`` matrix over orthonormal ``m``-frames."""
    eigenvalues, vectors = scipy.linalg.eigh(0.5 * (matrix + matrix.T))
    gap = float(eigenvalues[m] - eigenvalues[m - 1]) if m < eigenvalues.size else float("inf")
    return KyFanSolution(float(eigenvalues[:m].sum()), vectors[:, :m], gap)


@dataclass(frozen=True)
class DescentResult:
    """Frames ``(starts, K, m)`` found by :func:`stiefel_descent` and their values."""

    frames: NDArray[np.float64]
    values: NDArray[np.float64]


def _orthonormalize(matrices: NDArray[np.float64]) -> NDArray[np.float64]:
    """Q factors of a batch of QR decompositions, signed so that ``R`` has a positive diagonal."""
    q, r = np.linalg.qr(matrices)
    return q * np.sign(np.diagonal(r, axis1=1, axis2=2))[:, None, :]


def random_frames(rng: np.random.Generator, count: int, size: int, m: int) -> NDArray[np.float64]:
    """``count`` Haar-random orthonormal ``m``-frames in ``R^size`` (QR of Gaussian matrices, sign-fixed)."""
    return _orthonormalize(rng.standard_normal((count, size, m)))


def stiefel_descent(matrix: NDArray[np.float64], m: int, starts: int, seed: int, max_iterations: int = 5000,
                    gradient_tolerance: float = 1e-12) -> DescentResult:
    """Riemannian gradient descent of ``f(W) = tr(W^T M W)`` on the Stiefel manifold, many starts at once.

    Step ``W <- qr(W - eta grad f)`` with ``grad f = 2 (I - W W^T) M W`` and
    ``eta = 1 / (2 (lambda_max - lambda_min))`` (the Riemannian Hessian's
    eigenvalues are differences of eigenvalues of ``M``, so this step is stable); stops when every start has
    ``||grad f||_F <= gradient_tolerance`` or after ``max_iterations``. From
    Haar-random starts it converges to the minimizing subspace with probability
    one (linear rate ``1 - eta * gap``).
    """
    frames = random_frames(np.random.default_rng(seed), starts, matrix.shape[0], m)
    spectrum = scipy.linalg.eigvalsh(matrix)
    step = 0.5 / max(float(spectrum[-1] - spectrum[0]), 1e-300)  # shift-invariant, stable for any spectrum
    for _ in range(max_iterations):
        mw = matrix @ frames
        gradient = 2.0 * (mw - frames @ (np.swapaxes(frames, 1, 2) @ mw))
        if np.linalg.norm(gradient, axis=(1, 2)).max() <= gradient_tolerance:
            break
        frames = _orthonormalize(frames - step * gradient)
    values = np.einsum("skm,kl,slm->s", frames, matrix, frames)
    return DescentResult(frames, values)
