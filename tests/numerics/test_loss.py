"""Tests of the closed-form alignment loss."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lejepa_wm.numerics import verify_loss
from lejepa_wm.numerics.degree_projection import project_onto_degrees
from lejepa_wm.numerics.gaussian_quadrature import gauss_hermite_rule, ou_pair_rule, polar_pair_rule
from lejepa_wm.numerics.hermite import hermite_features, multi_indices
from lejepa_wm.numerics.spectral import closed_form_loss

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)


def test_closed_form_matches_direct_quadrature_for_nonlinear_functions() -> None:
    table = verify_loss.loss_discrepancies()
    assert len({key.split("@")[0] for key in table}) >= 6
    assert max(entry["difference"] + entry["truncation_bound"] for entry in table.values()) <= 1e-8


@pytest.mark.parametrize("rho", [0.1, 0.5, 0.9])
def test_sign_loss_matches_arcsine_law(rho: float) -> None:
    """``E(sign z' - sign z)^2 = 2 - (4/pi) asin rho`` (Sheppard), a third independent value."""
    assert abs(verify_loss.direct_loss(np.sign, *polar_pair_rule(rho)) - (2 - 4 / np.pi * np.arcsin(rho))) <= 1e-13


@SETTINGS
@given(n=st.integers(1, 3), degree=st.integers(1, 3), rho=st.floats(0.01, 0.99), seed=st.integers(0, 2**32 - 1))
def test_closed_form_for_random_hermite_encoders(n: int, degree: int, rho: float, seed: int) -> None:
    """Random ``h = C Phi`` (with a constant term): direct quadrature = closed form, both from coefficients
    and from the degree projection of ``h`` evaluated as a function."""
    rng = np.random.default_rng(seed)
    alphas = multi_indices(n, degree)
    coefficients = rng.standard_normal((2, len(alphas)))

    def h(z: np.ndarray) -> np.ndarray:
        return hermite_features(alphas, z) @ coefficients.T

    direct = verify_loss.direct_loss(h, *ou_pair_rule(np.full(n, rho), degree + 1))
    energies = np.bincount(alphas.sum(axis=1), weights=np.sum(coefficients**2, axis=0))
    projected = project_onto_degrees(h, n, degree, gauss_hermite_rule(degree + 1))
    scale = max(1.0, direct)
    assert abs(direct - closed_form_loss(energies, rho)) <= 1e-11 * scale
    assert abs(direct - closed_form_loss(projected.energies, rho)) <= 1e-11 * scale


def test_run_checks_all_pass() -> None:
    rows = verify_loss.run_checks()
    assert rows and all(row.passed for row in rows), [row for row in rows if not row.passed]
