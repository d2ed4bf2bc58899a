"""Quadrature rules for Gaussian expectations, exact wherever the mathematics allows.

All weights are normalized to the probability measure (they sum to 1), so an
expectation is ``weights @ f(nodes)``.

- :func:`gauss_hermite_rule`: the ``N``-point Gauss–Hermite rule of
  ``gamma_1``; exact for polynomials of degree ``<= 2N - 1`` (nodes and weights
  from :func:`numpy.polynomial.hermite_e.hermegauss`, accurate to ~1e-15).
- :func:`split_legendre_rule`: composite Gauss–Legendre on ``[-L, L]`` with
  a panel edge at 0; for functions that are smooth except there
  (``|z|``, ``sign z``, ``max(z, 0)``), where Gauss–Hermite converges
  only algebraically.
- :func:`tensor_rule`: the product rule for ``gamma_n``.
- :func:`ou_pair_rule`: the Ornstein–Uhlenbeck pair ``(z, z')`` with
  ``z' = rho z + sqrt(1 - rho^2) xi`` as a tensor Gauss–Hermite rule in
  ``(z, xi)``; exact for every polynomial whose degree in each ``z_i`` and
  each ``xi_i`` is ``<= 2N - 1`` (so ``E[H_alpha(z') H_beta(z)]`` is exact for
  ``alpha_i + beta_i <= 2N - 1``).
- :func:`polar_pair_rule`: the 1-D OU pair as a 2-D Gaussian integral in polar
  coordinates with angular panel edges on the lines ``z = 0`` and ``z' = 0``,
  so functions with a kink or jump at 0 are integrated to ~1e-13.

Every rule records ``resolved_degree``: the largest ``D`` for which the Gram
matrix of ``H_0..H_D`` under the rule equals the identity to 1e-12 (measured
when the rule is built). Routines that project onto Hermite degrees refuse a
degree beyond it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache, reduce
from itertools import pairwise

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from numpy.polynomial.legendre import leggauss
from numpy.typing import ArrayLike, NDArray

from lejepa_wm.numerics.hermite import hermite_values
from lejepa_wm.validation import check_nonnegative_int, check_positive_int, check_rho

__all__ = [
    "Rule1D", "gauss_hermite_rule", "split_legendre_rule", "tensor_rule", "check_rhos", "ou_pair_rule",
    "polar_pair_rule"
]

_GRAM_TOLERANCE = 1e-12
"""Orthonormality error up to which a rule is said to resolve a Hermite degree."""


@dataclass(frozen=True)
class Rule1D:
    """A quadrature rule for ``gamma_1``: ``E f(z) ~ weights @ f(nodes)``.

    ``exact_degree`` is the polynomial degree integrated exactly in exact
    arithmetic (``None`` if none is guaranteed); ``resolved_degree`` the
    largest Hermite degree ``D`` with Gram error of ``H_0..H_D`` <= 1e-12.
    """

    nodes: NDArray[np.float64]
    weights: NDArray[np.float64]
    exact_degree: int | None
    resolved_degree: int

    @property
    def size(self) -> int:
        """Number of nodes."""
        return int(self.nodes.size)


def _resolved_degree(nodes: NDArray[np.float64], weights: NDArray[np.float64], cap: int) -> int:
    """Largest ``D <= cap`` whose Hermite Gram block ``(D+1) x (D+1)`` is the identity to ``_GRAM_TOLERANCE``."""
    values = hermite_values(cap, nodes)
    gram_error = np.abs((values * weights) @ values.T - np.eye(cap + 1))
    # The Gram matrix is symmetric, so the leading block's error is a running max of lower-triangle rows.
    block_error = np.maximum.accumulate(np.tril(gram_error).max(axis=1))
    return int(np.count_nonzero(block_error <= _GRAM_TOLERANCE)) - 1


def _read_only(*arrays: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
    """The arrays, made read-only (rules are cached and shared)."""
    for array in arrays:
        array.setflags(write=False)
    return arrays


@lru_cache(maxsize=64)
def gauss_hermite_rule(num_points: int) -> Rule1D:
    """The ``num_points``-point Gauss–Hermite rule of ``gamma_1`` (exact to degree ``2N - 1``)."""
    check_positive_int(num_points, "num_points")
    nodes, weights = hermegauss(num_points)
    nodes, weights = _read_only(nodes, weights / math.sqrt(2.0 * math.pi))
    return Rule1D(nodes, weights, 2 * num_points - 1, _resolved_degree(nodes, weights, num_points - 1))


@lru_cache(maxsize=64)
def split_legendre_rule(max_degree: int, points_per_panel: int = 24, panel_width: float = 1.0) -> Rule1D:
    """Composite Gauss–Legendre rule for ``gamma_1`` with a panel edge at the kink ``0``.

    The interval is ``[-L, L]`` with ``L = sqrt(4 max_degree + 2) + 9`` (beyond the
    turning point of ``H_max_degree``; the neglected Gaussian mass is below
    1e-18). A function that is analytic on each side of 0 is integrated with
    error decaying like ``exp(-c points_per_panel)``; the achieved Hermite
    resolution is measured and must reach ``max_degree``.
    """
    check_nonnegative_int(max_degree, "max_degree")
    check_positive_int(points_per_panel, "points_per_panel")
    if not panel_width > 0:
        raise ValueError(f"panel_width must be positive; got {panel_width!r}")
    half_width = math.sqrt(4 * max_degree + 2) + 9.0
    # Each half is cut into panels of width <= panel_width; a, b are the panels' ends (column vectors).
    panels = np.concatenate([np.linspace(left, right, max(1, math.ceil((right - left) / panel_width)) + 1)[:-1]
                             for left, right in pairwise((-half_width, 0.0, half_width))] + [[half_width]])
    a, b = panels[:-1, None], panels[1:, None]
    ref_nodes, ref_weights = leggauss(points_per_panel)
    x = 0.5 * (b - a) * ref_nodes + 0.5 * (a + b)
    node_array = x.ravel()
    weight_array = (0.5 * (b - a) * ref_weights * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)).ravel()
    resolved = _resolved_degree(node_array, weight_array, max_degree)
    if resolved < max_degree:
        raise ValueError(f"max_degree={max_degree} is not resolved by {points_per_panel} points per panel "
                         f"(only up to degree {resolved}); use more points per panel")
    return Rule1D(*_read_only(node_array, weight_array), None, resolved)


def tensor_rule(rule: Rule1D, n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Product rule for ``gamma_n``: nodes ``(N^n, n)`` in C order (axis 0 slowest), weights ``(N^n,)``."""
    check_positive_int(n, "n")
    grids = np.meshgrid(*([rule.nodes] * n), indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1), reduce(np.multiply.outer, [rule.weights] * n).ravel()


def check_rhos(rhos: ArrayLike) -> NDArray[np.float64]:
    """Return ``rhos`` as a 1-D float array after checking each lies in (0, 1)."""
    array = np.atleast_1d(np.asarray(rhos, dtype=float))
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"rhos must be a non-empty 1-D sequence; got shape {array.shape}")
    for i, value in enumerate(array):
        check_rho(value, f"rhos[{i}]")
    return array


def ou_pair_rule(rhos: ArrayLike, num_points: int) -> tuple[NDArray[np.float64], NDArray[np.float64],
                                                            NDArray[np.float64]]:
    """Exact rule for the (anisotropic) OU pair: returns ``z, z_prime`` of shape ``(M, n)`` and weights.

    ``z' = rho * z + sqrt(1 - rho^2) * xi`` coordinate-wise, with ``(z, xi)``
    on the tensor Gauss–Hermite grid of ``gamma_{2n}`` (``M = N^{2n}`` nodes).
    """
    rhos = check_rhos(rhos)
    n = rhos.size
    nodes, weights = tensor_rule(gauss_hermite_rule(num_points), 2 * n)
    z, xi = nodes[:, :n], nodes[:, n:]
    return z, rhos * z + np.sqrt(1.0 - rhos**2) * xi, weights


@lru_cache(maxsize=32)
def polar_pair_rule(rho: float, radial_panels: int = 12, radial_points: int = 20,
                    angular_points: int = 48) -> tuple[NDArray[np.float64], NDArray[np.float64],
                                                       NDArray[np.float64]]:
    """1-D OU pair ``(z, z')`` by polar quadrature of ``gamma_2``, split on the lines ``z = 0``, ``z' = 0``.

    With ``(u, v) ~ gamma_2``, ``z = u`` and ``z' = rho u + sqrt(1 - rho^2) v``;
    ``E g = (1/2pi) int dtheta int_0^inf g(r cos, r sin) r exp(-r^2/2) dr``.
    The radial integral uses composite Gauss–Legendre on ``[0, radial_panels]``
    (neglected mass ``exp(-radial_panels^2/2)``), the angular one Gauss–Legendre
    on each arc between the four rays where ``z`` or ``z'`` vanishes. Any
    ``h(z), h(z')`` with ``h`` analytic on each side of 0 gives an integrand
    analytic on every panel, so the rule converges exponentially (~1e-14 at the
    defaults). Returns ``z, z_prime, weights`` as flat arrays.
    """
    rho = check_rho(rho)
    s = math.sqrt(1.0 - rho * rho)
    kink = math.atan2(-rho, s) % math.pi  # direction of the line z' = 0
    cuts = np.sort(np.array([math.pi / 2, 3 * math.pi / 2, kink, kink + math.pi]) % (2 * math.pi))
    arcs = np.concatenate([cuts, [cuts[0] + 2 * math.pi]])
    t, wt = leggauss(angular_points)
    a, b = arcs[:-1, None], arcs[1:, None]
    theta, w_theta = (0.5 * (b - a) * t + 0.5 * (a + b)).ravel(), (0.5 * (b - a) * wt).ravel() / (2 * math.pi)
    x, wx = leggauss(radial_points)
    radius = np.concatenate([0.5 * x + 0.5 + k for k in range(radial_panels)])
    w_radius = np.tile(0.5 * wx, radial_panels) * radius * np.exp(-0.5 * radius**2)
    r, th = np.meshgrid(radius, theta, indexing="ij")
    u, v = r * np.cos(th), r * np.sin(th)
    weights = np.multiply.outer(w_radius, w_theta).ravel()
    return _read_only(u.ravel(), (rho * u + s * v).ravel(), weights)
