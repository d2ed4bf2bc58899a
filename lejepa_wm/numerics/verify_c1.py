"""Checks of C1 (inherited dynamics): for ``h = Qz``, ``h(z') | h(z) ~ N(rho h(z), (1 - rho^2) I_n)``.

- Exact: with ``u = h(z)`` and the standardized residual
  ``e = (h(z') - rho h(z)) / sqrt(1 - rho^2)``, the joint Hermite moments
  ``E[H_alpha(e) H_beta(u)]`` of degree ``<= 4`` equal those of
  ``gamma_n (x) gamma_n`` (``delta_{alpha 0} delta_{beta 0}``): the residual is
  standard Gaussian and independent of ``h(z)`` up to that degree. Computed by
  the exact pair rule, so any error is rounding.
- Monte Carlo: least-squares regression of ``h(z')`` on ``h(z)`` (with
  intercept) returns ``rho I`` and residual covariance ``(1 - rho^2) I``
  within sampling error (every entry within ``_Z_MAX`` standard errors), and a
  Kolmogorov–Smirnov test does not reject normality of each residual coordinate.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.stats

from lejepa_wm.numerics.check_rows import at_least, at_most
from lejepa_wm.numerics.gaussian_quadrature import ou_pair_rule
from lejepa_wm.numerics.hermite import hermite_features, multi_indices
from lejepa_wm.numerics.spectral import random_frames
from lejepa_wm.records import CheckResult

__all__ = ["exact_factorization_error", "monte_carlo_regression", "run_checks"]

_CLAIM = "C1"
_SEED = 20260601
_N = 3
_RHO = 0.6
_SAMPLES = 200_000
_Z_MAX = 5.0


def exact_factorization_error(q: np.ndarray, rho: float, max_degree: int = 4) -> float:
    """``max |E[H_alpha(e) H_beta(u)] - delta_{alpha 0} delta_{beta 0}|`` over ``|alpha|, |beta| <= max_degree``."""
    n = q.shape[0]
    z, z_prime, weights = ou_pair_rule(np.full(n, rho), max_degree + 1)
    u, u_prime = z @ q.T, z_prime @ q.T
    residual = (u_prime - rho * u) / math.sqrt(1.0 - rho * rho)
    alphas = multi_indices(n, max_degree)
    joint = (hermite_features(alphas, residual) * weights[:, None]).T @ hermite_features(alphas, u)
    joint[0, 0] -= 1.0  # minus the moments of gamma_n x gamma_n
    return float(np.abs(joint).max())


def monte_carlo_regression(q: np.ndarray, rho: float, samples: int, seed: int) -> dict[str, float]:
    """Regression of ``h(z')`` on ``h(z)``: max |z-score| of slope and residual covariance, KS p-value."""
    n = q.shape[0]
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((samples, n))
    z_prime = rho * z + math.sqrt(1.0 - rho * rho) * rng.standard_normal((samples, n))
    u, u_prime = z @ q.T, z_prime @ q.T
    design = np.hstack([np.ones((samples, 1)), u])
    solution, *_ = np.linalg.lstsq(design, u_prime, rcond=None)
    intercept, slope = solution[0], solution[1:].T
    residual = u_prime - design @ solution
    covariance = residual.T @ residual / (samples - n - 1)
    variance = 1.0 - rho * rho
    slope_se = math.sqrt(variance / samples)
    cov_se = variance * np.where(np.eye(n, dtype=bool), math.sqrt(2.0 / samples), math.sqrt(1.0 / samples))
    ks_p = min(scipy.stats.kstest(residual[:, i] / math.sqrt(variance), "norm").pvalue for i in range(n))
    return {
        "max_abs_z_slope": float(np.abs(slope - rho * np.eye(n)).max() / slope_se),
        "max_abs_z_intercept": float(np.abs(intercept).max() / slope_se),
        "max_abs_z_residual_cov": float(np.abs((covariance - variance * np.eye(n)) / cov_se).max()),
        "min_ks_pvalue_times_n": float(min(1.0, n * ks_p)),
        "max_slope_error": float(np.abs(slope - rho * np.eye(n)).max()),
        "max_residual_cov_error": float(np.abs(covariance - variance * np.eye(n)).max()),
    }


def run_checks() -> list[CheckResult]:
    """Rows of the C1 claim."""
    q = random_frames(np.random.default_rng(_SEED), 1, _N, _N)[0]  # a Haar-random rotation
    mc = monte_carlo_regression(q, _RHO, _SAMPLES, _SEED + 1)
    worst_z = max(mc["max_abs_z_slope"], mc["max_abs_z_intercept"], mc["max_abs_z_residual_cov"])
    return [
        at_most(_CLAIM, "exact_conditional_law", f"max Hermite-moment error of (residual, h), deg<=4, n={_N}",
                exact_factorization_error(q, _RHO), 1e-10),
        at_most(_CLAIM, "monte_carlo_regression", f"max |z| of slope vs rho I, cov vs (1-rho^2)I, {_SAMPLES} pairs",
                worst_z, _Z_MAX, mc),
        at_least(_CLAIM, "monte_carlo_residual_normal", "KS p-value of residuals (Bonferroni x n)",
                 mc["min_ks_pvalue_times_n"], 1e-3, mc),
    ]
