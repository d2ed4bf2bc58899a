"""Tests of T4: LQR and sampling-based planning in true, rotated and skewed latent coordinates."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lejepa_wm.numerics import planning as pl
from lejepa_wm.numerics import verify_t4

SMALL_CEM = pl.CEMSettings(horizon=6, samples=64, elites=8, iterations=4)
dimensions = st.integers(min_value=1, max_value=6)
seeds = st.integers(min_value=0, max_value=10_000)


def lqr_setup(n: int, seed: int) -> tuple[pl.LinearQuadratic, np.ndarray]:
    return pl.random_linear_quadratic(n, max(1, n // 2), seed=seed), pl.random_orthogonal(n, seed=seed + 1)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(n=dimensions, seed=seeds)
def test_riccati_solution_rotates_with_the_coordinates(n: int, seed: int) -> None:
    model, Q = lqr_setup(n, seed)
    P, K = pl.solve_lqr(model)
    P_Q, K_Q = pl.solve_lqr(model.in_coordinates(Q))
    np.testing.assert_allclose(P_Q, Q @ P @ Q.T, atol=1e-9 * np.abs(P).max())
    np.testing.assert_allclose(K_Q, K @ Q.T, atol=1e-9 * max(1.0, np.abs(K).max()))
    z = np.random.default_rng(seed).standard_normal(n)
    assert (Q @ z) @ P_Q @ (Q @ z) == pytest.approx(z @ P @ z, rel=1e-9)  # V^Q(Qz) = V(z)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(n=dimensions, seed=seeds)
def test_lqr_rollouts_match_with_rotated_noise(n: int, seed: int) -> None:
    model, Q = lqr_setup(n, seed)
    _, K = pl.solve_lqr(model)
    _, K_Q = pl.solve_lqr(model.in_coordinates(Q))
    rng = np.random.default_rng(seed + 2)
    z0, noise = rng.standard_normal(n), 0.1 * rng.standard_normal((30, n))
    true_run = pl.lqr_rollout(model, K, z0, noise)
    rotated_run = pl.lqr_rollout(model.in_coordinates(Q), K_Q, Q @ z0, noise @ Q.T)
    scale = max(1.0, np.abs(true_run.stage_costs).max())
    np.testing.assert_allclose(rotated_run.actions, true_run.actions, atol=1e-9 * scale)
    np.testing.assert_allclose(rotated_run.stage_costs, true_run.stage_costs, atol=1e-9 * scale)
    np.testing.assert_allclose(rotated_run.states, true_run.states @ Q.T, atol=1e-9 * scale)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(n=dimensions, seed=seeds)
def test_cem_plans_match_in_rotated_coordinates(n: int, seed: int) -> None:
    model = pl.random_nonlinear_model(n, n, seed=seed)
    Q = pl.random_orthogonal(n, seed=seed + 1)
    start = np.zeros(n)
    goal = np.random.default_rng(seed + 2).standard_normal(n)
    plan, cost = pl.cem_plan(model.step, start, goal, n, seed=seed, settings=SMALL_CEM)
    plan_Q, cost_Q = pl.cem_plan(pl.conjugate_step(model.step, Q), Q @ start, Q @ goal, n, seed=seed,
                                 settings=SMALL_CEM)
    np.testing.assert_allclose(plan_Q, plan, atol=1e-9)
    assert cost_Q == pytest.approx(cost, abs=1e-9 * max(1.0, cost))


@settings(max_examples=20, deadline=None, derandomize=True)
@given(n=st.integers(min_value=2, max_value=6), seed=seeds)
def test_conjugated_cost_makes_any_invertible_change_equivalent(n: int, seed: int) -> None:
    """The general statement: conjugating dynamics *and* cost preserves the optimum for any bijection."""
    model = pl.random_linear_quadratic(n, max(1, n // 2), seed=seed)
    M = pl.random_nonorthogonal(n, seed=seed + 1)
    M_inv = np.linalg.inv(M)
    P, K = pl.solve_lqr(model)
    P_M, K_M = pl.solve_lqr(model.in_coordinates(M, conjugate_cost=True))
    np.testing.assert_allclose(P_M, M_inv.T @ P @ M_inv, atol=1e-8 * np.abs(P_M).max())
    np.testing.assert_allclose(K_M @ M, K, atol=1e-8 * max(1.0, np.abs(K).max()))


@settings(max_examples=20, deadline=None, derandomize=True)
@given(n=st.integers(min_value=2, max_value=6), seed=seeds)
def test_same_cost_formula_in_skewed_coordinates_is_never_better(n: int, seed: int) -> None:
    """LQR optimality: the policy planned in skewed coordinates costs at least the optimum in the true ones."""
    model = pl.random_linear_quadratic(n, max(1, n // 2), seed=seed)
    M = pl.random_nonorthogonal(n, seed=seed + 1)
    _, K = pl.solve_lqr(model)
    _, K_M = pl.solve_lqr(model.in_coordinates(M))
    optimal = np.trace(pl.closed_loop_value(model, K))
    skewed = np.trace(pl.closed_loop_value(model, K_M @ M))
    assert skewed >= optimal * (1 - 1e-10)


@pytest.mark.parametrize("n", [2, 3, 5, 6])
def test_nonorthogonal_change_visibly_breaks_lqr(n: int) -> None:
    """Seeded systems as in ``verify`` (how visibly depends on the system: 0.1 % to 100 % over random ones)."""
    model = pl.random_linear_quadratic(n, (n + 1) // 2, seed=n)
    M = pl.random_nonorthogonal(n, seed=200 + n, condition_number=10.0)
    P, K = pl.solve_lqr(model)
    P_M, K_M = pl.solve_lqr(model.in_coordinates(M))
    M_inv = np.linalg.inv(M)
    assert np.abs(P_M - M_inv.T @ P @ M_inv).max() > 1e-2 * np.abs(P_M).max()
    gap = np.trace(pl.closed_loop_value(model, K_M @ M)) / np.trace(pl.closed_loop_value(model, K)) - 1.0
    assert gap > verify_t4.VISIBLE_GAP


@pytest.mark.parametrize("n", [2, 3, 5])
def test_nonorthogonal_change_visibly_breaks_cem(n: int) -> None:
    model = pl.random_nonlinear_model(n, n, seed=n)
    M = pl.random_nonorthogonal(n, seed=50 + n, condition_number=10.0)
    start, goal = np.zeros(n), 1.5 * np.random.default_rng(n).standard_normal(n)
    plan, cost = pl.cem_plan(model.step, start, goal, n, seed=n)
    plan_M, _ = pl.cem_plan(pl.conjugate_step(model.step, M), M @ start, M @ goal, n, seed=n)
    assert np.abs(plan_M - plan).max() > 0.1
    true_cost_M = pl.goal_costs(model.step, start, goal, plan_M[None], pl.CEMSettings().action_weight)[0]
    assert true_cost_M > (1.0 + verify_t4.VISIBLE_GAP) * cost


@pytest.mark.parametrize("n", [1, 2, 5])
def test_coordinate_changes_are_orthogonal_or_skewed_as_asked(n: int) -> None:
    Q = pl.random_orthogonal(n, seed=7)
    np.testing.assert_allclose(Q @ Q.T, np.eye(n), atol=1e-12)
    M = pl.random_nonorthogonal(n, seed=7, condition_number=9.0)
    singular = np.linalg.svd(M, compute_uv=False)
    expected = [3.0] if n == 1 else [3.0, 1 / 3.0]
    np.testing.assert_allclose([singular.max(), singular.min()][: len(expected)], expected, rtol=1e-12)
    np.testing.assert_allclose(pl.random_orthogonal(n, seed=7), Q)  # seeded


def test_run_checks_rows_all_pass() -> None:
    rows = verify_t4.run_checks()
    assert {row.claim for row in rows} == {"T4"}
    assert len({row.name for row in rows}) == len(rows) >= 6
    failed = [(row.name, row.measured) for row in rows if not row.passed]
    assert not failed


# --- bad input -----------------------------------------------------------------------------------
