"""Tests of Ky Fan's principle and of P5 (anisotropic rates)."""

from __future__ import annotations

import numpy as np
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from lejepa_wm.numerics import verify_p5
from lejepa_wm.numerics.hermite import multi_indices
from lejepa_wm.numerics.spectral import hermite_quadratic_forms, ky_fan_minimum, random_frames, stiefel_descent

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True)


@SETTINGS
@given(size=st.integers(1, 8), data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_axiom_ky_fan(size: int, data: st.DataObject, seed: int) -> None:
    """For symmetric M: max over orthonormal m-frames of tr(W^T M W) = sum of the m largest eigenvalues."""
    m = data.draw(st.integers(1, size))
    rng = np.random.default_rng(seed)
    raw = rng.standard_normal((size, size))
    if data.draw(st.booleans()):  # repeated eigenvalues: the maximizing frame is not unique
        vectors = np.linalg.qr(raw)[0]
        raw = vectors @ np.diag(np.round(rng.uniform(-2, 2, size))) @ vectors.T
    matrix = 0.5 * (raw + raw.T)
    top = float(np.sort(scipy.linalg.eigh(matrix, eigvals_only=True))[::-1][:m].sum())
    solution = ky_fan_minimum(-matrix, m)  # maximum of tr(W^T M W) = -minimum of tr(W^T (-M) W)
    assert abs(-solution.value - top) <= 1e-10 * max(1.0, abs(top))
    frame = solution.frame
    assert np.abs(frame.T @ frame - np.eye(m)).max() <= 1e-12
    assert abs(np.trace(frame.T @ matrix @ frame) - top) <= 1e-10 * max(1.0, abs(top))
    frames = random_frames(rng, 300, size, m)
    random_values = np.einsum("bkm,kl,blm->b", frames, matrix, frames)
    assert random_values.max() <= top + 1e-10
    descent = stiefel_descent(-matrix, m, 2, seed=seed % 1000, max_iterations=3000, gradient_tolerance=1e-10)
    assert np.abs(-descent.values - top).max() <= 1e-6 * max(1.0, abs(top))


@SETTINGS
@given(kappa_min=st.floats(0.1, 2.0), ratio=st.floats(1.0, 2.9), tau=st.floats(0.1, 2.0))
def test_linear_iff_rate_ratio_below_two(kappa_min: float, ratio: float, tau: float) -> None:
    """Two latents with rates kappa_min, ratio * kappa_min: the optimum is linear iff ratio < 2."""
    rho = np.exp(-np.array([kappa_min, ratio * kappa_min]) * tau)
    solution = ky_fan_minimum(hermite_quadratic_forms(rho, multi_indices(2, 4, 1)).loss[0], 2)
    nonlinear = float(np.sum(solution.frame[2:] ** 2))
    margin = rho.min() - rho.max() ** 2  # > 0 iff kappa_max < 2 kappa_min
    if margin > 1e-9:
        assert nonlinear <= 1e-10
    elif margin < -1e-9:
        assert abs(nonlinear - 1.0) <= 1e-10
    assert (margin > 0) == (ratio < 2) or abs(ratio - 2) < 1e-9


def test_sweep_switches_exactly_at_two() -> None:
    for n in (2, 3, 4):
        assert abs(verify_p5.switch_point(n) - 2.0) <= 1e-9
        assert verify_p5.optimum(n, 2.0)["gap"] <= 1e-12
        assert verify_p5.optimum(n, 1.9)["nonlinear_energy"] <= 1e-10
        assert abs(verify_p5.optimum(n, 2.1)["nonlinear_energy"] - 1.0) <= 1e-10


def test_run_checks_all_pass() -> None:
    rows = verify_p5.run_checks()
    assert rows and all(row.passed for row in rows), [row for row in rows if not row.passed]


def test_larger_ratios_bring_in_higher_harmonics() -> None:
    """Beyond the first crossing more than one harmonic of the slowest latent can enter (n = 3,
    kappa = (1, 3.1, 3.2)): the optimum is {H_1, H_2, H_3}(z_1), nonlinear energy 2, not just one swap."""
    rho = np.exp(-0.5 * np.array([1.0, 3.1, 3.2]))
    alphas = multi_indices(3, 4, 1)
    solution = ky_fan_minimum(hermite_quadratic_forms(rho, alphas).loss[0], 3)
    selected = {tuple(int(a) for a in alphas[i]) for i in np.flatnonzero(np.sum(solution.frame**2, axis=1) > 0.5)}
    assert selected == {(1, 0, 0), (2, 0, 0), (3, 0, 0)}
    assert abs(np.sum(solution.frame[3:] ** 2) - 2.0) <= 1e-10
