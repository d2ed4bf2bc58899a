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

The rules take the checks' fixed settings without re-checking them; the checks
themselves show what each rule resolves (the orthonormality and Parseval rows
of ``verify``).
"""

from __future__ import annotations

import math
from functools import lru_cache, reduce
from itertools import pairwise
from typing import NamedTuple

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from numpy.polynomial.legendre import leggauss
from numpy.typing import NDArray

__all__ = ["Rule1D", "gauss_hermite_rule", "split_legendre_rule", "tensor_rule", "ou_pair_rule", "polar_pair_rule"]


class Rule1D(NamedTuple):
    """A quadrature rule for ``gamma_1``: ``E f(z) ~ weights @ f(nodes)`` (arrays read-only: rules are cached)."""

    nodes: NDArray[np.float64]
    weights: NDArray[np.float64]


def _read_only(*arrays: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
    """The arrays, made read-only (rules are cached and shared)."""
    for array in arrays:
        array.setflags(write=False)
    return arrays


@lru_cache(maxsize=64)
def gauss_hermite_rule(num_points: int) -> Rule1D:
    """The ``num_points``-point Gauss–Hermite rule of ``gamma_1`` (exact to degree ``2N - 1``)."""
    nodes, weights = hermegauss(num_points)
    return Rule1D(*_read_only(nodes, weights / math.sqrt(2.0 * math.pi)))


@lru_cache(maxsize=64)
def split_legendre_rule(max_degree: int, points_per_panel: int = 24, panel_width: float = 1.0) -> Rule1D:
    """Composite Gauss–Legendre rule for ``gamma_1`` with a panel edge at the kink ``0``.

    The interval is ``[-L, L]`` with ``L = sqrt(4 max_degree + 2) + 9`` (beyond the
    turning point of ``H_max_degree``; the neglected Gaussian mass is below
    1e-18). A function that is analytic on each side of 0 is integrated with
    error decaying like ``exp(-c points_per_panel)``.
    """
    half_width = math.sqrt(4 * max_degree + 2) + 9.0
    # Each half is cut into panels of width <= panel_width; a, b are the panels' ends (column vectors).
    panels = np.concatenate([np.linspace(left, right, max(1, math.ceil((right - left) / panel_width)) + 1)[:-1]
                             for left, right in pairwise((-half_width, 0.0, half_width))] + [[half_width]])
    a, b = panels[:-1, None], panels[1:, None]
    ref_nodes, ref_weights = leggauss(points_per_panel)
    x = 0.5 * (b - a) * ref_nodes + 0.5 * (a + b)
    weights = 0.5 * (b - a) * ref_weights * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    return Rule1D(*_read_only(x.ravel(), weights.ravel()))


def tensor_rule(rule: Rule1D, n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Product rule for ``gamma_n``: nodes ``(N^n, n)`` in C order (axis 0 slowest), weights ``(N^n,)``."""
    grids = np.meshgrid(*([rule.nodes] * n), indexing="ij")
    return np.stack([g.ravel() for g in grids], axis=1), reduce(np.multiply.outer, [rule.weights] * n).ravel()


def ou_pair_rule(rhos: NDArray[np.float64], num_points: int) -> tuple[NDArray[np.float64], NDArray[np.float64],
                                                            NDArray[np.float64]]:
    """Exact rule for the (anisotropic) OU pair with ``rhos`` of shape ``(n,)``: returns ``z, z_prime`` of shape
    ``(M, n)`` and weights.

    ``z' = rho * z + sqrt(1 - rho^2) * xi`` coordinate-wise, with ``(z, xi)``
    on the tensor Gauss–Hermite grid of ``gamma_{2n}`` (``M = N^{2n}`` nodes).
    """
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
