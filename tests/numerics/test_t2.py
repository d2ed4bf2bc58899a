"""Tests of T2: the Sturm–Liouville solver, the generalized normal family and the T2 checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.special import factorial

from lejepa_wm.numerics import generalized_normal as gn
from lejepa_wm.numerics import sturm_liouville as sl
from lejepa_wm.numerics import verify_t2

FAST_NODES = 64


def first_eigenpair(beta: float, nodes: int = FAST_NODES,
                    tail: float = sl.DEFAULT_TAIL_EXPONENT) -> sl.GeneratorSpectrum:
    """Lowest two eigenpairs of the generator of ``p_beta``."""
    return sl.solve_generator(sl.generalized_normal_problem(beta, tail), nodes, 2)


# --- the axiom the Lean ledger cites -------------------------------------------------------------

@settings(max_examples=12, deadline=None, derandomize=True)
@given(beta=st.floats(min_value=1.1, max_value=10.0, allow_nan=False))
@example(beta=1.1)
@example(beta=1.5)
@example(beta=2.0)
@example(beta=3.0)
@example(beta=4.0)
@example(beta=8.0)
@example(beta=10.0)
def test_axiom_sturm_liouville_monotone_ground_state(beta: float) -> None:
    """Sturm–Liouville oscillation: the first non-constant eigenfunction of ``f'' + (log p)' f'`` is strictly
    monotone with exactly one sign change (checked on the nodes where ``p >= 1e-10 max p``), and it is
    odd for the symmetric ``p_beta``; the higher eigenfunctions ``phi_2``, ``phi_3`` have 2 and 3 sign changes."""
    spectrum = sl.solve_generator(sl.generalized_normal_problem(beta), FAST_NODES, 4)
    bulk = sl.bulk(spectrum)
    assert sl.monotone_margin(spectrum, 1) > 0.0
    assert np.all(spectrum.flux[1][bulk] > 0.0)
    for k in (1, 2, 3):
        assert sl.sign_changes(spectrum.psi[k][bulk]) == k
    half = spectrum.nodes.size // 2  # the two elements mirror each other node by node
    np.testing.assert_allclose(spectrum.psi[1][:half], -spectrum.psi[1][half:][::-1], atol=1e-8)
    assert 0.0 < spectrum.eigenvalues[1] < spectrum.eigenvalues[2] < spectrum.eigenvalues[3]


# --- Gaussian ------------------------------------------------------------------------------------

def test_gaussian_eigenvalues_are_the_integers() -> None:
    spectrum = sl.solve_generator(sl.generalized_normal_problem(2.0), sl.DEFAULT_NODES_PER_ELEMENT, 4)
    np.testing.assert_allclose(spectrum.eigenvalues, [0.0, 1.0, 2.0, 3.0], atol=1e-6)


def test_gaussian_eigenfunctions_are_hermite_polynomials() -> None:
    spectrum = sl.solve_generator(sl.generalized_normal_problem(2.0), sl.DEFAULT_NODES_PER_ELEMENT, 4)
    z = spectrum.nodes
    inside = np.abs(z) < 6.0
    for k in range(4):
        hermite = np.polynomial.hermite_e.hermeval(z, [0.0] * k + [1.0]) / math.sqrt(factorial(k))
        phi = spectrum.psi[k] / spectrum.sqrt_density
        sign = np.sign(phi[inside] @ hermite[inside])
        np.testing.assert_allclose(sign * phi[inside], hermite[inside], atol=1e-8)


def test_gaussian_linearity_is_one() -> None:
    assert abs(sl.linearity(first_eigenpair(2.0, sl.DEFAULT_NODES_PER_ELEMENT)) - 1.0) <= 1e-8


# --- uniform limit -------------------------------------------------------------------------------

def test_uniform_limit_linearity_is_96_over_pi4() -> None:
    a = gn.UNIFORM_HALF_WIDTH
    spectrum = sl.solve_generator(sl.uniform_problem(a), sl.DEFAULT_NODES_PER_ELEMENT, 3)
    assert abs(sl.linearity(spectrum) - 96.0 / math.pi**4) <= 1e-5
    np.testing.assert_allclose(spectrum.eigenvalues, [0.0, (math.pi / (2 * a)) ** 2, (math.pi / a) ** 2],
                               atol=1e-9)
    phi = spectrum.psi[1] / spectrum.sqrt_density
    np.testing.assert_allclose(phi, math.sqrt(2.0) * np.sin(np.pi * spectrum.nodes / (2 * a)), atol=1e-9)


def test_large_beta_approaches_uniform_limit() -> None:
    ells = [sl.linearity(first_eigenpair(beta)) for beta in (10.0, 20.0, 40.0)]
    gaps = [abs(ell - 96.0 / math.pi**4) for ell in ells]
    assert gaps[0] > gaps[1] > gaps[2]


# --- linearity below one, maximum at the Gaussian ------------------------------------------------

def test_linearity_below_one_off_gaussian_with_maximum_at_two() -> None:
    grid = verify_t2.beta_grid()
    ell = np.array([sl.linearity(first_eigenpair(float(beta))) for beta in grid])
    assert grid[np.argmax(ell)] == 2.0
    assert np.all(ell[grid != 2.0] < 1.0 - 1e-6)
    assert np.all(ell > 0.0)


@pytest.mark.parametrize(("beta", "reference"), sorted(verify_t2.THEORY_REFERENCE_LINEARITY.items()))
def test_linearity_matches_theory_reference(beta: float, reference: float) -> None:
    assert sl.linearity(first_eigenpair(beta)) == pytest.approx(reference, abs=5e-4)


@pytest.mark.parametrize("beta", [1.1, 1.5, 4.0, 10.0])
def test_solver_converges_under_refinement(beta: float) -> None:
    coarse = first_eigenpair(beta, FAST_NODES, sl.DEFAULT_TAIL_EXPONENT)
    fine = first_eigenpair(beta, 2 * FAST_NODES, 2 * sl.DEFAULT_TAIL_EXPONENT)
    assert abs(fine.eigenvalues[1] - coarse.eigenvalues[1]) <= 1e-7
    assert abs(sl.linearity(fine) - sl.linearity(coarse)) <= 1e-7


# --- Laplace: no spectral gap --------------------------------------------------------------------

def test_laplace_missing_gap_is_reported_not_returned() -> None:
    with pytest.raises(sl.NoIsolatedEigenvalueError, match=r"beta=1\.0.*spectral gap missing") as info:
        sl.isolated_first_eigenpair(1.0)
    threshold = gn.essential_spectrum_threshold(1.0)
    assert info.value.threshold == pytest.approx(0.5, abs=1e-14) == threshold
    (short, lam_short), (long, lam_long) = sorted(info.value.candidates.items())
    assert long > short
    assert threshold < lam_long < lam_short  # box modes drift down onto the essential threshold


def test_isolated_eigenpair_is_returned_above_beta_one() -> None:
    spectrum = sl.isolated_first_eigenpair(1.5, FAST_NODES)
    assert spectrum.eigenvalues[1] == pytest.approx(first_eigenpair(1.5).eigenvalues[1], abs=1e-7)


def test_essential_spectrum_threshold_by_tail() -> None:
    assert gn.essential_spectrum_threshold(0.5) == 0.0
    assert gn.essential_spectrum_threshold(1.5) == math.inf


# --- generalized normal family -------------------------------------------------------------------

@pytest.mark.parametrize("beta", [1.0, 1.5, 2.0, 3.0, 8.0])
def test_generalized_normal_is_a_unit_variance_density(beta: float) -> None:
    def density(z: float) -> float:
        return float(np.exp(gn.log_density(z, beta)))

    mass = quad(density, -np.inf, np.inf)[0]
    variance = 2 * quad(lambda z: z**2 * density(z), 0, np.inf)[0]
    assert mass == pytest.approx(1.0, abs=1e-9)
    assert variance == pytest.approx(1.0, abs=1e-9)


def test_gaussian_member_is_the_standard_normal() -> None:
    z = np.linspace(-4, 4, 17)
    np.testing.assert_allclose(np.exp(gn.log_density(z, 2.0)), np.exp(-z**2 / 2) / math.sqrt(2 * math.pi), rtol=1e-13)
    np.testing.assert_allclose(gn.score(z, 2.0), -z, atol=1e-13)


@pytest.mark.parametrize("beta", [1.0, 1.5, 3.0])
def test_score_and_its_derivative_differentiate_the_log_density(beta: float) -> None:
    z = np.array([-1.3, -0.4, 0.3, 0.9, 2.1])
    h = 1e-5
    numeric_score = (gn.log_density(z + h, beta) - gn.log_density(z - h, beta)) / (2 * h)
    numeric_derivative = (gn.score(z + h, beta) - gn.score(z - h, beta)) / (2 * h)
    np.testing.assert_allclose(gn.score(z, beta), numeric_score, rtol=1e-8)
    np.testing.assert_allclose(gn.score_derivative(z, beta), numeric_derivative, rtol=1e-6, atol=1e-8)


# --- Chebyshev building blocks -------------------------------------------------------------------

def test_chebyshev_differentiation_and_weights_are_exact_on_polynomials() -> None:
    n = 12
    x, d, w = sl.chebyshev_lobatto(n)
    for k in range(n + 1):
        np.testing.assert_allclose(d @ x**k, k * x ** max(k - 1, 0) if k else 0.0, atol=1e-10)
        assert w @ x**k == pytest.approx((1 - (-1) ** (k + 1)) / (k + 1), abs=1e-13)


# --- symbolic step and verify rows ---------------------------------------------------------------

def test_symbolic_affine_score_implies_gaussian() -> None:
    steps = verify_t2.symbolic_affine_score_implies_gaussian()
    assert steps and all(steps.values()), steps


def test_run_checks_rows_all_pass() -> None:
    rows = verify_t2.run_checks()
    assert {row.claim for row in rows} == {"T2"}
    assert len({row.name for row in rows}) == len(rows) >= 9
    failed = [(row.name, row.measured) for row in rows if not row.passed]
    assert not failed


# --- bad input -----------------------------------------------------------------------------------
