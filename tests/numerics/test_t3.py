"""Tests of T3 (approximate identifiability) and of the polar factor it rests on."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from lejepa_wm.numerics import verify_t3
from lejepa_wm.numerics.gaussian_quadrature import gauss_hermite_rule, ou_pair_rule, tensor_rule
from lejepa_wm.numerics.procrustes import polar_factor, procrustes_distance_sq, whitening_defect

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True)


@SETTINGS
@given(n=st.integers(1, 6), seed=st.integers(0, 2**32 - 1), scale=st.floats(0.01, 3.0),
       singular=st.booleans())
def test_axiom_procrustes_polar(n: int, seed: int, scale: float, singular: bool) -> None:
    """Polar factor Q of A: ||A - Q||^2 = sum (sigma - 1)^2 <= ||A A^T - I||^2, and Q minimizes ||A - Q'|| over O(n)."""
    rng = np.random.default_rng(seed)
    a = scale * rng.standard_normal((n, n))
    if singular and n > 1:
        a[:, 0] = a[:, 1]  # rank-deficient: the polar factor is not unique, the minimum still is
    q = polar_factor(a)
    assert np.abs(q @ q.T - np.eye(n)).max() <= 1e-12
    distance = float(np.linalg.norm(a - q) ** 2)
    sigma = np.linalg.svd(a, compute_uv=False)
    assert abs(distance - float(np.sum((sigma - 1) ** 2))) <= 1e-10 * max(1.0, distance)
    assert abs(distance - float(procrustes_distance_sq(a))) <= 1e-10 * max(1.0, distance)
    assert distance <= float(whitening_defect(a)) ** 2 + 1e-12
    q_scipy, _ = scipy.linalg.orthogonal_procrustes(np.eye(n), a)
    assert distance <= float(np.linalg.norm(a - q_scipy) ** 2) + 1e-10
    rotations = scipy.stats.ortho_group.rvs(n, size=200, random_state=rng) if n > 1 else np.array([[[1.0]], [[-1.0]]])
    assert distance <= float((np.linalg.norm(a[None] - rotations.reshape(-1, n, n), axis=(1, 2)) ** 2).min()) + 1e-12


def test_bound_holds_and_is_tight_on_many_encoders() -> None:
    m = verify_t3.t3_measurements({"generic": 3000, "degree2": 1500, "near_orthogonal": 1000,
                                   "large_whitening_error": 1000}, seed=99)
    assert m["count"] >= 10_000
    assert m["max_part_a_violation"] <= 0.0  # both include the rounding allowance on D
    assert m["max_bound_violation"] <= 0.0
    assert m["min_d_plus_allowance"] >= 0.0
    assert 0.999 <= m["max_ratio"] <= 1 + verify_t3.RATIO_ROUNDING
    assert m["quadrature_mismatch"] <= 1e-10
    assert m["min_random_minus_polar"] >= 0


@pytest.mark.parametrize("strength", [0.0, 0.01, 0.1, 0.5])
def test_bound_for_a_smooth_nonpolynomial_encoder(strength: float) -> None:
    """h = Q z + strength * (tanh network, centred): all T3 quantities by quadrature, no Hermite truncation."""
    n, rho = 2, 0.6
    rng = np.random.default_rng(4)
    q0 = scipy.stats.ortho_group.rvs(n, random_state=rng)
    w1, w2 = rng.standard_normal((5, n)), rng.standard_normal((n, 5)) / math.sqrt(5)
    nodes, weights = tensor_rule(gauss_hermite_rule(60), n)
    mean = weights @ np.tanh(nodes @ w1.T) @ w2.T

    def h(z: np.ndarray) -> np.ndarray:
        return z @ q0.T + strength * (np.tanh(z @ w1.T) @ w2.T - mean)

    values = h(nodes)
    second_moment = float(weights @ np.sum(values**2, axis=1))
    covariance = (values * weights[:, None]).T @ values
    linear = (values * weights[:, None]).T @ nodes  # A = E[h z^T]
    z, z_prime, pair_weights = ou_pair_rule(np.full(n, rho), 30)
    loss = float(pair_weights @ np.sum((h(z_prime) - h(z)) ** 2, axis=1))
    eps = float(np.linalg.norm(covariance - np.eye(n)))
    d_value = (loss - 2 * (1 - rho) * second_moment) / (2 * rho * (1 - rho))
    nonlinear_energy = second_moment - float(np.sum(linear**2))  # Parseval: E||h||^2 = ||A||^2 + sum_{d>=2}
    q = polar_factor(linear)
    error = float(weights @ np.sum((values - nodes @ q.T) ** 2, axis=1))
    assert nonlinear_energy <= d_value + 1e-12
    assert error <= d_value + (eps + d_value) ** 2 + 1e-12
    if strength == 0.0:
        assert error <= 1e-12 and d_value <= 1e-12


def test_run_checks_all_pass() -> None:
    rows = verify_t3.run_checks()
    assert rows and all(row.passed for row in rows), [row for row in rows if not row.passed]
