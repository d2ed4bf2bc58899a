"""Tests of T1 (forward identifiability) by Ky Fan and Stiefel descent."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lejepa_wm.numerics import verify_t1
from lejepa_wm.numerics.hermite import multi_indices
from lejepa_wm.numerics.spectral import hermite_quadratic_forms, ky_fan_minimum, stiefel_descent

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True)


def test_minimum_is_2n_one_minus_rho_and_minimizers_are_rotations() -> None:
    m = verify_t1.t1_measurements(dimensions=(1, 2, 3, 4, 5), rhos=(0.05, 0.3, 0.7, 0.95), max_degree=3,
                                  starts=4, random_encoders=500)
    for key in ("ky_fan_error", "descent_error", "ky_fan_nonlinear", "descent_nonlinear",
                "ky_fan_orthogonality", "descent_orthogonality"):
        assert m[key] <= 1e-9, key
    assert m["smallest_random_excess"] > 0
    assert m["smallest_margin_over_t3a"] >= -1e-12
    assert m["descent_distinct_rotations"] > 1e-3  # different starts reach different rotations Q


@SETTINGS
@given(n=st.integers(1, 4), rho=st.floats(0.01, 0.99))
def test_ky_fan_minimum_property(n: int, rho: float) -> None:
    loss_matrix = hermite_quadratic_forms(np.full(n, rho), multi_indices(n, 3, 1)).loss[0]
    solution = ky_fan_minimum(loss_matrix, n)
    assert abs(solution.value - 2 * n * (1 - rho)) <= 1e-9
    assert np.sum(solution.frame[n:] ** 2) <= 1e-18  # gap 2 rho (1 - rho) >= 0.0198 keeps the frame exact


def test_descent_converges_to_the_ky_fan_minimum() -> None:
    loss_matrix = hermite_quadratic_forms(np.full(2, 0.5), multi_indices(2, 4, 1)).loss[0]
    result = stiefel_descent(loss_matrix, 2, 3, seed=1)
    assert np.abs(result.values - ky_fan_minimum(loss_matrix, 2).value).max() <= 1e-12


def test_run_checks_all_pass() -> None:
    rows = verify_t1.run_checks()
    assert rows and all(row.passed for row in rows), [row for row in rows if not row.passed]
