"""Tests of C1 (inherited dynamics)."""

from __future__ import annotations

import numpy as np
import pytest

from lejepa_wm.numerics import verify_c1
from lejepa_wm.numerics.spectral import random_frames


def random_rotation(n: int, seed: int) -> np.ndarray:
    """A Haar-random orthogonal ``n x n`` matrix from a fixed seed."""
    return random_frames(np.random.default_rng(seed), 1, n, n)[0]


@pytest.mark.parametrize(("n", "rho"), [(1, 0.05), (2, 0.5), (3, 0.95)])
def test_conditional_law_exact(n: int, rho: float) -> None:
    assert verify_c1.exact_factorization_error(random_rotation(n, n), rho) <= 1e-10


def test_regression_recovers_rho_and_residual_covariance() -> None:
    result = verify_c1.monte_carlo_regression(random_rotation(2, 5), 0.3, 100_000, seed=11)
    assert max(result["max_abs_z_slope"], result["max_abs_z_residual_cov"], result["max_abs_z_intercept"]) <= 5
    assert result["min_ks_pvalue_times_n"] >= 1e-3


def test_non_orthogonal_map_breaks_the_conditional_law() -> None:
    """Negative control: for h = A z with A not orthogonal, the residual is not independent standard normal."""
    a = random_rotation(2, 3) * [[2.0], [0.5]]
    assert verify_c1.exact_factorization_error(a, 0.5) > 0.1


def test_run_checks_all_pass() -> None:
    rows = verify_c1.run_checks()
    assert rows and all(row.passed for row in rows), [row for row in rows if not row.passed]
