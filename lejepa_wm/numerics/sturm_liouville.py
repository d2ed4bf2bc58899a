"""Spectral solver for the 1-D Langevin generator ``𝓛f = f'' + (log p)' f'`` on ``L2(p)``.

Problem
-------
``𝓛 phi_k = -lambda_k phi_k`` is the Sturm–Liouville problem
``-(p phi')' = lambda p phi``, self-adjoint on ``L2(p)`` (THEORY.md, T2). On the
real line it is truncated to ``[-L, L]`` with the natural (Neumann) condition
``phi'(±L) = 0``, i.e. zero probability flux ``p phi'`` through the ends; the
truncated eigenpairs converge to the full-line ones as ``L`` grows whenever the
full-line eigenvalue is isolated (below the essential spectrum).

Method
------
The unknown is the symmetrized eigenfunction ``psi = sqrt(p) phi``, which
solves the Schrödinger form ``-psi'' + W psi = lambda psi`` with
``W = (V')^2/4 + V''/2``, ``V = log p``. Unlike ``phi``, which may grow like
``exp(c |z|^beta)`` in the tails, ``psi`` is of order one where the mass is and
decays, so double precision resolves it everywhere. The flux is
``p phi' = sqrt(p) (psi' - V' psi / 2)``; the Neumann ends become
``psi' = V' psi / 2`` and an interior edge carries continuity of ``psi`` and of
``psi' - V' psi / 2`` (with one-sided scores, so a kink of ``p`` such as the
Laplace cusp is exact).

Discretization: Chebyshev spectral collocation on a few *elements* whose edges
include every point where the score is not smooth (``z = 0`` for ``|z|^beta``).
On each element the ``n + 1`` Chebyshev–Lobatto nodes carry the unknowns, the
equation is collocated at interior nodes, and the ``2E`` end conditions are
eliminated exactly, leaving a standard eigenproblem solved by
``scipy.linalg.eig``. Integrals use Clenshaw–Curtis weights on the same nodes
(exact for the polynomial interpolant).

Accuracy
--------
On smooth elements the error decays spectrally; the singular terms at
``z = 0`` (``|z|^beta``) sit at an element end, where Chebyshev clustering
gives algebraic decay in ``n``. Measured (``lejepa_wm.numerics.verify_t2``
prints the study): with 96 nodes per element and truncation
``p(L)/p(0) = exp(-60)``, Gaussian eigenvalues ``0..3`` to 8e-13,
``corr^2(phi_1, z) = 1`` at ``beta = 2`` to 5e-16, the uniform (Neumann) limit
``96/pi^4`` to 7e-14 and its ``phi_1 = sqrt(2) sin(pi z / 2a)`` to 3e-12; with
64 nodes, doubling both the nodes and the tail exponent changes ``lambda_1``
and ``corr^2(phi_1, z)`` by at most 5e-9 for ``beta`` in ``[1.1, 10]``
(largest at ``beta = 1.5``, where ``phi_1`` is least smooth at 0). Close to
``beta = 1`` the eigenfunction spreads far into the tails and needs larger
truncations (``beta = 1.05``: 7e-8 between ``T = 60`` and ``120``).

Missing spectral gap
--------------------
For ``beta <= 1`` the spectrum above 0 is essential and there is no isolated
``phi_1``; the truncated problem still returns eigenpairs, but they are box
modes whose eigenvalue drifts with ``L`` toward the essential threshold.
:func:`isolated_first_eigenpair` solves at two truncations and raises
:class:`NoIsolatedEigenvalueError` when ``lambda_1`` moves.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.polynomial import chebyshev
from numpy.typing import NDArray

from lejepa_wm.numerics import generalized_normal as gn

__all__ = [
    "DEFAULT_NODES_PER_ELEMENT", "DEFAULT_TAIL_EXPONENT", "MONOTONE_DENSITY_FLOOR",
    "Score", "NoIsolatedEigenvalueError", "GeneratorProblem", "GeneratorSpectrum", "chebyshev_lobatto",
    "solve_generator", "generalized_normal_problem", "uniform_problem", "linearity", "sign_changes", "bulk",
    "monotone_margin", "isolated_first_eigenpair"
]

DEFAULT_NODES_PER_ELEMENT = 96
DEFAULT_TAIL_EXPONENT = 60.0
MONOTONE_DENSITY_FLOOR = 1e-10
_DRIFT_TOLERANCE = 1e-7

Score = Callable[[NDArray[np.float64]], NDArray[np.float64]]


class NoIsolatedEigenvalueError(ValueError):
    """The first non-constant eigenvalue is not isolated: the spectrum above 0 is essential.

    ``candidates`` maps each truncation half-width ``L`` to the eigenvalue the
    truncated problem returned; ``threshold`` is the known bottom of the
    essential spectrum.
    """

    def __init__(self, message: str, candidates: dict[float, float], threshold: float) -> None:
        super().__init__(message)
        self.candidates = candidates
        self.threshold = threshold


@dataclass(frozen=True)
class GeneratorProblem:
    """The generator ``f'' + V'(z) f'`` on ``[edges[0], edges[-1]]`` with Neumann ends.

    ``score`` is ``V' = (log p)'`` and ``score_derivative`` is ``V''``;
    ``log_density`` is ``V = log p`` up to an additive constant. ``edges`` are
    increasing element boundaries and must contain every point where the score
    is not smooth; there the score is evaluated one-sidedly.
    """

    score: Score
    score_derivative: Score
    log_density: Score
    edges: tuple[float, ...]


@dataclass(frozen=True)
class GeneratorSpectrum:
    """Lowest eigenpairs of a :class:`GeneratorProblem`, in symmetrized form.

    ``nodes`` lists the collocation nodes of all elements (interior edges appear
    twice, once per element) and ``weights`` their Clenshaw–Curtis weights, so
    ``sum(weights * g)`` approximates ``int g dz``. ``sqrt_density`` is
    ``sqrt(p)`` at the nodes with ``p`` normalized. ``psi[k] = sqrt(p) phi_k``
    is normalized to ``int psi_k^2 = E_p phi_k^2 = 1`` and signed so that
    ``E_p[phi_k z] >= 0``; ``flux[k] = sqrt(p) phi_k' = psi_k' - V' psi_k / 2``,
    whose sign is the sign of ``phi_k'``.
    """

    eigenvalues: NDArray[np.float64]
    nodes: NDArray[np.float64]
    weights: NDArray[np.float64]
    sqrt_density: NDArray[np.float64]
    psi: NDArray[np.float64]
    flux: NDArray[np.float64]
    half_width: float


def chebyshev_lobatto(n: int) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Nodes ``x_j = -cos(j pi / n)`` on ``[-1, 1]`` (increasing), differentiation matrix and Clenshaw–Curtis weights.

    The differentiation matrix is the classical one of polynomial interpolation
    at the Lobatto nodes, with the diagonal set by the negative row sum (exact
    on constants). The weights solve ``sum_j w_j T_k(x_j) = int T_k`` for
    ``k = 0..n`` (exact for polynomials of degree ``<= n``).
    """
    x = -np.cos(np.pi * np.arange(n + 1) / n)
    c = np.where((np.arange(n + 1) == 0) | (np.arange(n + 1) == n), 2.0, 1.0) * (-1.0) ** np.arange(n + 1)
    d = np.outer(c, 1.0 / c) / (x[:, None] - x[None, :] + np.eye(n + 1))
    d -= np.diag(d.sum(axis=1))
    moments = np.zeros(n + 1)
    even = np.arange(0, n + 1, 2)
    moments[even] = 2.0 / (1.0 - even.astype(float) ** 2)
    weights = np.linalg.solve(chebyshev.chebvander(x, n).T, moments)
    return x, d, weights


def solve_generator(problem: GeneratorProblem, nodes_per_element: int = DEFAULT_NODES_PER_ELEMENT,
                    n_eigenpairs: int = 4) -> GeneratorSpectrum:
    """Lowest ``n_eigenpairs`` eigenpairs of ``-𝓛`` by multi-element Chebyshev collocation (see module docstring).

    ``n_eigenpairs`` must stay below half the interior unknowns (the checks ask for
    at most 4 of several hundred). Raises ``ValueError`` for a discretization whose
    low spectrum is not real. The matrices have a few hundred rows: callers run it with one BLAS thread, as
    ``lejepa-wm verify`` does (BLAS threads only add contention, up to 30x slower on a busy machine).
    """
    n, n_eig = nodes_per_element, n_eigenpairs
    edges = np.asarray(problem.edges, dtype=float)
    n_elem = edges.size - 1
    x, d_ref, w_ref = chebyshev_lobatto(n)
    size = n_elem * (n + 1)
    halves = 0.5 * (edges[1:] - edges[:-1])
    nodes = (edges[:-1, None] + halves[:, None] * (x + 1.0)).ravel()
    deriv = scipy.linalg.block_diag(*(d_ref / half for half in halves))
    weights = (w_ref * halves[:, None]).ravel()
    first = np.arange(n_elem) * (n + 1)
    last = first + n
    scores = problem.score(nodes)
    # Element end nodes: the score evaluated from inside their element.
    scores[first] = problem.score(np.nextafter(edges[:-1], edges[1:]))
    scores[last] = problem.score(np.nextafter(edges[1:], edges[:-1]))
    flux_operator = deriv - 0.5 * np.diag(scores)  # psi -> psi' - V' psi / 2 = sqrt(p) phi'

    ends = np.sort(np.concatenate([first, last]))
    interior = np.setdiff1d(np.arange(size), ends)
    potential = 0.25 * scores[interior] ** 2 + 0.5 * problem.score_derivative(nodes[interior])
    schroedinger = -(deriv @ deriv)[interior] + np.eye(size)[interior] * potential[:, None]

    # The 2E element-end conditions: zero flux at both ends, continuity of psi and of the flux inside.
    value_and_flux = np.stack([np.eye(size), flux_operator], axis=1)  # (size, 2, size)
    inside = value_and_flux[last[:-1]] - value_and_flux[first[1:]]
    cond = np.vstack([flux_operator[[first[0], last[-1]]], inside.reshape(-1, size)])
    # End values as a linear function of interior values: cond[:, ends] psi_e + cond[:, interior] psi_i = 0.
    ends_from_interior = -np.linalg.solve(cond[:, ends], cond[:, interior])
    reduced = schroedinger[:, interior] + schroedinger[:, ends] @ ends_from_interior

    values, vectors = scipy.linalg.eig(reduced)
    order = np.argsort(values.real)[:n_eig]
    values, vectors = values[order], vectors[:, order]
    if np.max(np.abs(values.imag)) > 1e-8 * max(1.0, float(np.max(np.abs(values.real)))):
        raise ValueError(f"discretized low spectrum is not real (eigenvalues {values!r}); "
                         f"increase nodes_per_element={n!r}")

    psi = np.empty((size, n_eig))
    psi[interior] = vectors.real
    psi[ends] = ends_from_interior @ vectors.real
    psi /= np.sqrt(weights @ psi**2)[None, :]
    log_p = problem.log_density(nodes)
    sqrt_p = np.exp(0.5 * (log_p - np.max(log_p)))
    sqrt_p /= math.sqrt(float(weights @ sqrt_p**2))
    signs = np.sign(weights @ (sqrt_p[:, None] * psi * nodes[:, None]))
    psi *= np.where(signs == 0.0, 1.0, signs)[None, :]
    return GeneratorSpectrum(values.real.copy(), nodes, weights, sqrt_p, psi.T.copy(),
                             (flux_operator @ psi).T.copy(), float(max(abs(edges[0]), abs(edges[-1]))))


def generalized_normal_problem(beta: float, tail_exponent: float = DEFAULT_TAIL_EXPONENT) -> GeneratorProblem:
    """Generator of the unit-variance generalized normal ``p_beta`` on ``[-L, L]``, ``p(L)/p(0) = exp(-T)``.

    Needs ``beta >= 1``: for ``beta < 1`` the score is unbounded at 0 and the
    symmetrized form does not apply (the spectrum above 0 is then essential
    from 0, see :func:`lejepa_wm.numerics.generalized_normal.essential_spectrum_threshold`).
    """
    half_width = gn.unit_variance_scale(beta) * tail_exponent ** (1.0 / beta)  # L = s T^(1/beta)
    return GeneratorProblem(score=lambda z: gn.score(z, beta), score_derivative=lambda z: gn.score_derivative(z, beta),
                            log_density=lambda z: gn.log_density(z, beta), edges=(-half_width, 0.0, half_width))


def uniform_problem(half_width: float = gn.UNIFORM_HALF_WIDTH) -> GeneratorProblem:
    """The ``beta -> inf`` limit: ``f''`` on ``[-a, a]`` with Neumann ends (uniform density, zero score)."""
    return GeneratorProblem(score=np.zeros_like, score_derivative=np.zeros_like, log_density=np.zeros_like,
                            edges=(-half_width, 0.0, half_width))


def linearity(spectrum: GeneratorSpectrum) -> float:
    """``l = corr^2(phi_1(z), z)`` under ``p``: the linear-probe R^2 of the best whitened feature.

    Expectations are ``E_p g = sum(weights * p * g)`` and, for ``phi_1 = psi_1 / sqrt(p)``,
    ``E_p[phi_1 g] = sum(weights * sqrt(p) * psi_1 * g)``.
    """
    weights, sqrt_p, z, psi = spectrum.weights, spectrum.sqrt_density, spectrum.nodes, spectrum.psi[1]
    mean_z = float(weights @ (sqrt_p**2 * z))
    var_z = float(weights @ (sqrt_p**2 * (z - mean_z) ** 2))
    mean_phi = float(weights @ (sqrt_p * psi))
    cov = float(weights @ (sqrt_p * psi * z)) - mean_phi * mean_z
    var_phi = float(weights @ psi**2) - mean_phi**2
    return (cov / math.sqrt(var_z * var_phi)) ** 2


def sign_changes(values: NDArray[np.float64], relative_floor: float = 1e-8) -> int:
    """Number of sign changes of a sequence, ignoring entries below ``relative_floor * max|values|``."""
    significant = values[np.abs(values) > relative_floor * np.max(np.abs(values))]
    return int(np.count_nonzero(np.diff(np.sign(significant)) != 0))


def bulk(spectrum: GeneratorSpectrum, density_floor: float = MONOTONE_DENSITY_FLOOR) -> NDArray[np.bool_]:
    """Nodes strictly inside ``(-L, L)`` where ``p >= density_floor * max p``.

    Outside, ``sqrt(p) phi'`` falls below the rounding level of the
    eigenvector, so its sign is not resolved in double precision.
    """
    p = spectrum.sqrt_density**2
    return (np.abs(spectrum.nodes) < spectrum.half_width * (1.0 - 1e-12)) & (p >= density_floor * p.max())


def monotone_margin(spectrum: GeneratorSpectrum, k: int = 1) -> float:
    """``min sqrt(p) phi_k' / max |sqrt(p) phi_k'|`` over the :func:`bulk` nodes.

    Positive iff ``phi_k`` increases at every bulk node.
    """
    flux = spectrum.flux[k]
    return float(np.min(flux[bulk(spectrum)]) / np.max(np.abs(flux)))


def isolated_first_eigenpair(beta: float, nodes_per_element: int = DEFAULT_NODES_PER_ELEMENT) -> GeneratorSpectrum:
    """Spectrum of ``p_beta`` whose ``lambda_1`` is certified isolated, else :class:`NoIsolatedEigenvalueError`.

    Solves at tail exponents ``T`` and ``2T`` (half-widths ``L`` and ``2^(1/beta) L``),
    ``T`` = :data:`DEFAULT_TAIL_EXPONENT`.
    An isolated eigenvalue is insensitive to the truncation (its eigenfunction
    decays in ``L2(p)``); a box mode of the essential spectrum drifts like
    ``1/L^2``. If ``|lambda_1(2T) - lambda_1(T)| > 1e-7 max(1, lambda_1)``
    the error is raised, reporting both candidates, the known essential
    threshold and the tail mass of the candidate eigenfunction. Returns the
    ``2T`` solution otherwise. Needs ``beta >= 1``, as
    :func:`generalized_normal_problem` does.
    """
    coarse, fine = (solve_generator(generalized_normal_problem(beta, k * DEFAULT_TAIL_EXPONENT), nodes_per_element, 2)
                    for k in (1.0, 2.0))
    lam_coarse, lam_fine = float(coarse.eigenvalues[1]), float(fine.eigenvalues[1])
    drift = abs(lam_fine - lam_coarse)
    if drift > _DRIFT_TOLERANCE * max(1.0, abs(lam_fine)):
        threshold = gn.essential_spectrum_threshold(beta)
        outer = np.abs(fine.nodes) > 0.5 * fine.half_width  # E_p[phi_1^2 ; |z| > L/2]: the mass near the ends
        tail_mass = float(fine.weights[outer] @ fine.psi[1][outer] ** 2)
        raise NoIsolatedEigenvalueError(
            f"beta={beta!r}: no isolated first eigenvalue above 0 (spectral gap missing, or too small to resolve "
            f"at these truncations): the candidate lambda_1 "
            f"moves from {lam_coarse:.6g} (L={coarse.half_width:.4g}) to {lam_fine:.6g} (L={fine.half_width:.4g}), "
            f"drift {drift:.3g} > {_DRIFT_TOLERANCE:g}; essential spectrum starts at {threshold:.6g}; "
            f"{tail_mass:.2f} of the candidate's L2(p) mass lies in the outer half of the box",
            candidates={coarse.half_width: lam_coarse, fine.half_width: lam_fine}, threshold=threshold)
    return fine
