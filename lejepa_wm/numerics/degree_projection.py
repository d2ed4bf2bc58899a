"""Hermite coefficients, degree decomposition and Parseval for functions of ``n <= 3`` variables.

For ``h : R^n -> R^m`` the Hermite coefficients are ``c_alpha = E[h(z) H_alpha(z)]``
and the degree energies ``||h_d||^2 = sum_{|alpha| = d} ||c_alpha||^2``.
Parseval (completeness) says ``E||h||^2 = sum_d ||h_d||^2``; with the sum cut
at degree ``D`` the *Parseval deficit* ``E||h||^2 - sum_{d<=D} ||h_d||^2`` is the
energy above degree ``D`` (non-negative by Bessel's inequality).

The coefficients come from a tensor rule ``(rule)^n``: ``h`` is evaluated once
on the grid and contracted axis by axis with the weighted Hermite table, so the
cost is ``N^n`` evaluations plus ``n N^n (D + 1)`` multiply-adds. Accuracy: for a
polynomial ``h`` of degree ``p`` on a Gauss–Hermite rule with ``p + D <= 2N - 1``
the result is exact up to rounding (~1e-14 relative); for other ``h`` it is the
quadrature error of ``E[h H_alpha]`` (use :func:`split_legendre_rule` for
functions with kinks on coordinate hyperplanes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lejepa_wm.numerics.gaussian_quadrature import Rule1D, tensor_rule
from lejepa_wm.numerics.hermite import hermite_values

__all__ = ["Encoder", "HermiteProjection", "project_onto_degrees"]

Encoder = Callable[[NDArray[np.float64]], NDArray[np.float64]]
"""A function of points ``(M, n)`` returning values ``(M,)`` or ``(M, m)``."""


@dataclass(frozen=True)
class HermiteProjection:
    """Degree decomposition of one function.

    ``coefficients[a_1, ..., a_n, k]`` is ``c_alpha`` of output ``k`` for every
    ``alpha`` in the box ``[0, D]^n``; ``energies[d] = ||h_d||^2`` for
    ``d = 0..D``; ``second_moment = E||h||^2`` by the same rule.
    """

    coefficients: NDArray[np.float64]
    energies: NDArray[np.float64]
    second_moment: float

    @property
    def parseval_deficits(self) -> NDArray[np.float64]:
        """``E||h||^2 - sum_{d <= D'} ||h_d||^2`` for every cut ``D' = 0..D``."""
        return self.second_moment - np.cumsum(self.energies)


def project_onto_degrees(h: Encoder, n: int, max_degree: int, rule: Rule1D) -> HermiteProjection:
    """Hermite coefficients of ``h`` up to total degree ``max_degree`` by the tensor rule ``rule^n``.

    The grid has ``N^n`` points, so ``n`` stays small (at most 3 in the checks);
    ``rule`` must resolve Hermite degree ``max_degree`` (its Gram matrix of
    ``H_0..H_D`` the identity), which the checks' settings do.
    """
    nodes, weights = tensor_rule(rule, n)
    values = np.asarray(h(nodes), dtype=float).reshape(nodes.shape[0], -1)
    second_moment = float(weights @ np.sum(values**2, axis=1))
    table = hermite_values(max_degree, rule.nodes) * rule.weights  # (D + 1, N)
    grid = values.reshape(*([rule.nodes.size] * n), values.shape[1])
    for axis in range(n):
        grid = np.moveaxis(np.tensordot(table, grid, axes=([1], [axis])), 0, axis)
    degree_grid = np.indices((max_degree + 1,) * n).sum(axis=0)  # |alpha| on the box [0, D]^n
    energies = np.bincount(degree_grid.ravel(), weights=np.sum(grid**2, axis=-1).ravel(), minlength=n * max_degree + 1)
    return HermiteProjection(grid, energies[: max_degree + 1], second_moment)
