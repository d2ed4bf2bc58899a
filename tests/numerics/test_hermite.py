"""Tests of the Hermite basis, multi-indices and the degree projection."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial.hermite_e import hermeval

from lejepa_wm.numerics import verify_hermite
from lejepa_wm.numerics.degree_projection import project_onto_degrees
from lejepa_wm.numerics.gaussian_quadrature import gauss_hermite_rule, split_legendre_rule
from lejepa_wm.numerics.hermite import hermite_features, hermite_values, multi_indices

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)


def test_axiom_hermite_orthonormal_and_complete() -> None:
    """Orthonormal to 1e-12 up to degree 30; Parseval exact for polynomials, convergent otherwise."""
    assert verify_hermite.orthonormality_error(30) <= 1e-12
    rng = np.random.default_rng(0)
    for n in (1, 2, 3):
        assert verify_hermite.polynomial_parseval_error(n, 4, 2, rng) <= 1e-10
    report = verify_hermite.nonpolynomial_convergence(200)
    for name, entry in report.items():
        assert entry["most_negative_deficit"] >= -1e-13, name  # Bessel's inequality
        assert entry["largest_increase"] <= 1e-13, name  # partial sums only grow
        assert entry["second_moment_error"] <= 1e-12, name
    assert report["sign"]["deficit_at_max_degree"] < 0.05  # ~ D^(-1/2): the jump converges slowly
    assert report["abs"]["deficit_at_max_degree"] < 1e-4  # ~ D^(-3/2)
    assert report["tanh"]["deficit_at_max_degree"] < 1e-12
    assert report["sin"]["deficit_at_max_degree"] < 1e-13
    assert abs(report["sign"]["decay_exponent"] - 0.5) < 0.1
    assert abs(report["abs"]["decay_exponent"] - 1.5) < 0.1


def test_sin_coefficients_match_closed_form() -> None:
    """``E[sin(z) H_k(z)] = (-1)^((k-1)/2) e^(-1/2) / sqrt(k!)`` for odd ``k``, 0 for even ``k``."""
    projection = project_onto_degrees(lambda z: np.sin(z[:, 0]), 1, 30, gauss_hermite_rule(60))
    expected = np.array([0.0 if k % 2 == 0 else (-1) ** ((k - 1) // 2) * math.exp(-0.5) / math.sqrt(math.factorial(k))
                         for k in range(31)])
    assert np.abs(projection.coefficients[:, 0] - expected).max() <= 1e-14


def test_multivariate_nonsmooth_parseval_converges() -> None:
    """2-D and 3-D non-smooth functions: deficits non-negative, non-increasing, shrinking."""
    cases = {
        2: (lambda z: np.stack([np.sign(z[:, 0]) * np.tanh(z[:, 1]), np.abs(z[:, 0] * z[:, 1])], axis=1), 24,
            split_legendre_rule(24, points_per_panel=16, panel_width=2.0), 0.15),
        3: (lambda z: np.abs(z[:, 0]) * np.sin(z[:, 1]) + np.sign(z[:, 2]), 12,
            split_legendre_rule(12, points_per_panel=16, panel_width=3.0), 0.5),
    }
    for n, (function, max_degree, rule, shrink) in cases.items():
        projection = project_onto_degrees(function, n, max_degree, rule)
        deficits = projection.parseval_deficits
        assert deficits.min() >= -1e-12
        assert np.diff(deficits).max() <= 1e-12
        assert deficits[-1] < shrink * deficits[1]


@SETTINGS
@given(max_degree=st.integers(0, 40), points=st.lists(st.floats(-12, 12), min_size=1, max_size=20))
def test_recurrence_matches_numpy(max_degree: int, points: list[float]) -> None:
    x = np.array(points)
    ours = hermite_values(max_degree, x)
    for k in range(max_degree + 1):
        reference = hermeval(x, np.eye(max_degree + 1)[k]) / math.sqrt(math.factorial(k))
        assert np.all(np.abs(ours[k] - reference) <= 1e-9 * np.maximum(1.0, np.abs(reference)))


@SETTINGS
@given(n=st.integers(1, 5), max_degree=st.integers(0, 6), min_degree=st.integers(0, 3))
def test_multi_indices_are_complete_and_ordered(n: int, max_degree: int, min_degree: int) -> None:
    alphas = multi_indices(n, max_degree, min_degree)
    expected = sum(math.comb(d + n - 1, n - 1) for d in range(min_degree, max_degree + 1))
    assert alphas.shape == (expected, n)
    assert len({tuple(a) for a in alphas}) == expected
    degrees = alphas.sum(axis=1)
    assert np.all(np.diff(degrees) >= 0) and (degrees.size == 0 or (degrees.min() >= min_degree
                                                                    and degrees.max() <= max_degree))
    if min_degree <= 1 <= max_degree:
        first = np.flatnonzero(degrees == 1)
        assert np.array_equal(alphas[first], np.eye(n, dtype=int))


@SETTINGS
@given(n=st.integers(1, 3), degree=st.integers(0, 4), seed=st.integers(0, 2**32 - 1))
def test_parseval_exact_for_random_polynomials(n: int, degree: int, seed: int) -> None:
    assert verify_hermite.polynomial_parseval_error(n, degree, 2, np.random.default_rng(seed)) <= 1e-10


def test_features_are_products_of_one_dimensional_values() -> None:
    z = np.random.default_rng(1).standard_normal((7, 3))
    alphas = multi_indices(3, 4)
    features = hermite_features(alphas, z)
    tables = [hermite_values(4, z[:, i]) for i in range(3)]
    expected = np.stack([tables[0][a[0]] * tables[1][a[1]] * tables[2][a[2]] for a in alphas], axis=1)
    assert np.allclose(features, expected, rtol=1e-14, atol=1e-14)


def test_run_checks_all_pass() -> None:
    rows = verify_hermite.run_checks()
    assert rows and all(row.passed for row in rows), [row for row in rows if not row.passed]
    assert all(row.claim == "HERMITE" for row in rows)
