"""Tests of Mehler's formula and of the stationarity of the OU channel."""

from __future__ import annotations

import math

import numpy as np
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from lejepa_wm.numerics import verify_mehler
from lejepa_wm.numerics.gaussian_quadrature import ou_pair_rule
from lejepa_wm.numerics.hermite import hermite_features, multi_indices
from lejepa_wm.numerics.spectral import mehler_eigenvalues, pair_moments

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True)
RHOS = (0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99)


def test_axiom_mehler_formula() -> None:
    """``E[H_alpha(z') H_beta(z)] = delta rho^|alpha|`` for |alpha|, |beta| <= 10, 1-D and 2-D, and anisotropic."""
    assert verify_mehler.mehler_error_1d(RHOS, 10) <= 1e-10
    for rho in RHOS:
        assert verify_mehler.mehler_error(np.array([rho, rho]), 10) <= 1e-10
    for rhos in ((0.2, 0.9), (0.99, 0.05), (0.5, 0.6)):
        assert verify_mehler.mehler_error(np.array(rhos), 10) <= 1e-10
    assert verify_mehler.mehler_error(np.array([0.3, 0.6, 0.9]), 4) <= 1e-10  # 3-D anisotropic


def test_axiom_ou_stationary() -> None:
    """``z' = rho z + sqrt(1-rho^2) xi`` has law gamma_n: exact Hermite moments and a KS test."""
    for n, max_degree in ((1, 20), (2, 8), (3, 4)):
        alphas = multi_indices(n, max_degree)
        for rho in (0.1, 0.5, 0.95):
            z, z_prime, weights = ou_pair_rule(np.full(n, rho), max_degree + 1)
            features = hermite_features(alphas, z_prime)
            means = weights @ features
            expected = np.zeros(len(alphas))
            expected[0] = 1.0  # E H_alpha(z') = delta_{alpha 0}: all moments of gamma_n
            assert np.abs(means - expected).max() <= 1e-12
            gram = (features * weights[:, None]).T @ features
            assert np.abs(gram - np.eye(len(alphas))).max() <= 1e-10
    rng = np.random.default_rng(7)
    z = rng.standard_normal((50_000, 2))
    for rho in (0.2, 0.8):
        z_prime = rho * z + math.sqrt(1 - rho**2) * rng.standard_normal(z.shape)
        direction = np.array([0.6, 0.8])
        for sample in (z_prime[:, 0], z_prime[:, 1], z_prime @ direction):
            assert scipy.stats.kstest(sample, "norm").pvalue > 1e-3


def test_reversibility_cross_moments_symmetric() -> None:
    moments = pair_moments(list(RHOS), 12)
    assert np.abs(moments.cross - np.swapaxes(moments.cross, 1, 2)).max() <= 1e-12


@SETTINGS
@given(n=st.integers(1, 3), rho=st.floats(0.001, 0.999), data=st.data())
def test_mehler_property(n: int, rho: float, data: st.DataObject) -> None:
    """Hypothesis draws dimension, rho (possibly anisotropic) and the degrees."""
    anisotropic = data.draw(st.booleans())
    rhos = np.array(data.draw(st.lists(st.floats(0.001, 0.999), min_size=n, max_size=n))) if anisotropic \
        else np.full(n, rho)
    max_degree = data.draw(st.integers(1, {1: 12, 2: 6, 3: 3}[n]))
    alphas = multi_indices(n, max_degree)
    i, j = data.draw(st.integers(0, len(alphas) - 1)), data.draw(st.integers(0, len(alphas) - 1))
    z, z_prime, weights = ou_pair_rule(rhos, max_degree + 1)
    value = weights @ (hermite_features(alphas[[i]], z_prime)[:, 0] * hermite_features(alphas[[j]], z)[:, 0])
    expected = float(mehler_eigenvalues(rhos, alphas[[i]])[0]) if i == j else 0.0
    assert abs(value - expected) <= 1e-10


def test_monte_carlo_agrees_within_confidence_interval() -> None:
    z_scores = verify_mehler.monte_carlo_z_scores(np.array([0.3, 0.9]), 3, 100_000, np.random.default_rng(3))
    assert np.abs(z_scores).max() <= verify_mehler.Z_MAX
    assert np.mean(np.abs(z_scores) > 2.576) <= 0.1  # roughly 1 % expected outside the 99 % interval


def test_run_checks_all_pass() -> None:
    rows = verify_mehler.run_checks()
    assert rows and all(row.passed for row in rows), [row for row in rows if not row.passed]
