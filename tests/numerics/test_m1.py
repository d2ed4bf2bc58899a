"""Tests of M1 (output dimension m != n)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lejepa_wm.numerics import verify_m1
from lejepa_wm.numerics.hermite import multi_indices
from lejepa_wm.numerics.spectral import hermite_quadratic_forms, ky_fan_minimum

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True)


@SETTINGS
@given(n=st.integers(1, 4), data=st.data(), rho=st.floats(0.02, 0.98))
def test_top_m_selection_property(n: int, data: st.DataObject, rho: float) -> None:
    m = data.draw(st.integers(1, n + n * (n + 1) // 2))
    alphas = multi_indices(n, 3, 1)
    solution = ky_fan_minimum(hermite_quadratic_forms(np.full(n, rho), alphas).loss[0], m)
    assert abs(solution.value - verify_m1.expected_minimum(n, m, rho)) <= 1e-9
    if m >= n:  # the selected subspace contains all of degree 1 whenever it has room for it
        linear = solution.frame[:n]
        assert np.abs(linear @ linear.T - np.eye(n)).max() <= 1e-9
        assert np.sum(solution.frame[alphas.sum(axis=1) == 3] ** 2) <= 1e-12


def test_measurements_match_the_proposition() -> None:
    table = verify_m1.m1_measurements(seed=5)
    for key, entry in table.items():
        assert max(entry["ky_fan_error"], entry["descent_error"], entry["degree1_energy_error"],
                   entry["degree2_energy_error"], entry["degree3_energy"]) <= 1e-9, key
        if "partial_rotation_defect" in entry:
            assert entry["partial_rotation_defect"] <= 1e-9, key
        else:
            assert entry["min_exact_probe_r2"] >= 1 - 1e-9 and entry["min_sampled_probe_r2"] >= 1 - 1e-9, key


def test_run_checks_all_pass() -> None:
    rows = verify_m1.run_checks()
    assert rows and all(row.passed for row in rows), [row for row in rows if not row.passed]
