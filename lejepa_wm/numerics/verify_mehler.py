"""Checks of Mehler's formula ``E[H_alpha(z') H_beta(z)] = delta_{alpha beta} rho^{|alpha|}`` and OU stationarity.

Exact side: the expectation is a polynomial in ``(z, xi)`` of degree
``<= 2 * 10`` per coordinate, so the tensor Gauss–Hermite rule with 11 points
per axis computes it exactly (up to rounding). In 2-D the full 4-D rule is used
directly (not the 1-D factorization), so the product structure is tested too.

Independent side: a Monte Carlo estimate with its standard error; every entry
must lie within ``Z_MAX`` standard errors (Bonferroni-safe for the number of
entries tested: the false-alarm probability is below 1e-3). Degrees stay <= 4:
products of higher-degree Hermite polynomials are so heavy-tailed that the
sample standard deviation underestimates the true one at 1e5 samples and the
normal approximation of the mean breaks down (|z| ~ 9 seen at degree 6).
"""

from __future__ import annotations

import math

import numpy as np

from lejepa_wm.numerics.check_rows import at_most
from lejepa_wm.numerics.gaussian_quadrature import ou_pair_rule
from lejepa_wm.numerics.hermite import hermite_features, multi_indices
from lejepa_wm.numerics.spectral import mehler_eigenvalues, pair_moments
from lejepa_wm.records import CheckResult

__all__ = ["Z_MAX", "mehler_error_1d", "mehler_error", "monte_carlo_z_scores", "run_checks"]

_CLAIM = "MEHLER"
_SEED = 20260530
_RHO_GRID = tuple(np.round(np.concatenate([[0.01, 0.05], np.arange(0.1, 0.95, 0.1), [0.95, 0.99]]), 2))
Z_MAX = 5.0


def mehler_error_1d(rhos: tuple[float, ...], max_degree: int) -> float:
    """``max |E[H_a(z')H_b(z)] - delta_ab rho^a|`` over ``a, b <= max_degree`` and the given ``rhos``."""
    moments = pair_moments(rhos, max_degree)
    expected = np.asarray(rhos)[:, None] ** np.arange(max_degree + 1)
    return float(np.abs(moments.cross - expected[:, :, None] * np.eye(max_degree + 1)).max())


def mehler_error(rhos: np.ndarray, max_degree: int) -> float:
    """Same as :func:`mehler_error_1d` for one (anisotropic) channel in ``n`` dimensions, on the full rule."""
    alphas = multi_indices(rhos.size, max_degree)
    z, z_prime, weights = ou_pair_rule(rhos, max_degree + 1)
    cross = (hermite_features(alphas, z_prime) * weights[:, None]).T @ hermite_features(alphas, z)
    return float(np.abs(cross - np.diag(mehler_eigenvalues(rhos, alphas))).max())


def monte_carlo_z_scores(rhos: np.ndarray, max_degree: int, samples: int,
                         rng: np.random.Generator) -> np.ndarray:
    """``(estimate - delta rho^alpha) / standard error`` for every entry with ``1 <= |alpha|, |beta| <= max_degree``.

    The constant ``H_0`` is left out: ``E[H_0 H_0] = 1`` has no sampling error.
    """
    alphas = multi_indices(rhos.size, max_degree, min_degree=1)
    z = rng.standard_normal((samples, rhos.size))
    z_prime = rhos * z + np.sqrt(1.0 - rhos**2) * rng.standard_normal(z.shape)
    products = hermite_features(alphas, z_prime)[:, :, None] * hermite_features(alphas, z)[:, None, :]
    mean = products.mean(axis=0)
    standard_error = products.std(axis=0, ddof=1) / math.sqrt(samples)
    return (mean - np.diag(mehler_eigenvalues(rhos, alphas))) / standard_error


def run_checks() -> list[CheckResult]:
    """Rows of the MEHLER claim."""
    rng = np.random.default_rng(_SEED)
    two_d = {f"rho={r}": mehler_error(np.array([r, r]), 10) for r in (0.05, 0.3, 0.6, 0.9, 0.99)}
    anisotropic = {f"rho={r}": mehler_error(np.array(r), 10) for r in ((0.2, 0.9), (0.5, 0.7), (0.95, 0.1))}
    z_scores = {"1d": monte_carlo_z_scores(np.array([0.7]), 4, 200_000, rng),
                "2d_anisotropic": monte_carlo_z_scores(np.array([0.4, 0.8]), 3, 100_000, rng)}
    worst = max(float(np.abs(s).max()) for s in z_scores.values())
    # z' has the Hermite moments of gamma_1: max |E[H_a(z')H_b(z')] - delta_ab| by the exact rule.
    stationarity = float(np.abs(pair_moments(_RHO_GRID, 20).gram_prime - np.eye(21)).max())
    return [
        at_most(_CLAIM, "exact_1d_deg10", f"max error, a,b <= 10, {len(_RHO_GRID)} rho in [0.01, 0.99]",
                mehler_error_1d(_RHO_GRID, 10), 1e-10, {"rhos": list(_RHO_GRID)}),
        at_most(_CLAIM, "exact_2d_deg10", "max error, |alpha|,|beta| <= 10, n = 2, 5 rho", max(two_d.values()),
                1e-10, two_d),
        at_most(_CLAIM, "exact_anisotropic_2d", "max error vs prod rho_i^alpha_i, |alpha| <= 10",
                max(anisotropic.values()), 1e-10, anisotropic),
        at_most(_CLAIM, "ou_stationary_deg20", "max |E[H_a(z')H_b(z')] - delta_ab|, a,b <= 20",
                stationarity, 1e-10),
        at_most(_CLAIM, "monte_carlo_cross_check", "max |z-score| of MC estimates (2e5 / 1e5 pairs)", worst, Z_MAX,
                {k: {"entries": int(v.size), "max_abs_z": float(np.abs(v).max()),
                     "fraction_outside_99_ci": float(np.mean(np.abs(v) > 2.576))} for k, v in z_scores.items()}),
    ]
