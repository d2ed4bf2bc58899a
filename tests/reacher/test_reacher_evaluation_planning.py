"""Probes, data diagnostics and planning metrics on synthetic cases with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from lejepa_wm.experiments.reacher.evaluation import pair_diagnostics, probe_report, wrap
from lejepa_wm.experiments.reacher.planning import interpolate, knn_decode, path_metrics, plan


def test_wrap_maps_into_the_half_open_interval():
    np.testing.assert_allclose(wrap(np.array([0.5, 0.5 + 2 * np.pi, -0.5 - 4 * np.pi])), [0.5, 0.5, -0.5])
    assert wrap(np.array([np.pi]))[0] == pytest.approx(-np.pi)


def test_probe_of_a_rotated_embedding_is_perfect_and_of_noise_is_not():
    rng = np.random.default_rng(0)
    angles = rng.normal(0.0, 0.5, size=(2000, 2))  # inside (−π, π): wrapping changes nothing
    rotation = np.array([[0.6, -0.8], [0.8, 0.6]])
    good = probe_report(angles[:1000] @ rotation, angles[:1000], angles[1000:] @ rotation, angles[1000:])
    assert good["r2_total"] == pytest.approx(1.0) and good["r2_wrist"] == pytest.approx(1.0)
    noise = rng.normal(size=(2000, 2))
    bad = probe_report(noise[:1000], angles[:1000], noise[1000:], angles[1000:])
    assert bad["r2_total"] < 0.02


def test_diagnostics_detect_bimodality_lag_asymmetry_and_wraps():
    rng = np.random.default_rng(1)
    n = 50_000
    shoulder = rng.normal(0.0, 0.5, n)
    wrist = np.where(rng.random(n) < 0.5, -1.5, 1.5) + rng.normal(0.0, 0.2, n)
    angles = np.column_stack([shoulder, wrist])
    angles_pos = np.column_stack([0.9 * shoulder + np.sqrt(1 - 0.81) * rng.normal(0.0, 0.5, n), wrist])
    out = pair_diagnostics(angles, angles_pos)
    assert out["bimodality_shoulder"] == pytest.approx(1 / 3, abs=0.02)  # Gaussian
    assert out["bimodality_wrist"] > 5 / 9
    assert out["lag_corr_shoulder"] == pytest.approx(0.9, abs=0.01)
    assert out["lag_corr_wrist"] == pytest.approx(1.0)
    assert out["wraps_shoulder"] == 0 and sum(out["histogram_wrist"]) == n
    crossing = pair_diagnostics(np.array([[3.1, 0.0], [0.0, 0.0]]), np.array([[-3.1, 0.0], [0.1, 0.0]]))
    assert crossing["wraps_shoulder"] == 1 and crossing["wraps_wrist"] == 0


def test_path_metrics_of_a_known_detour():
    start, goal = np.array([0.0, 0.0]), np.array([2.0, 0.0])
    detour = path_metrics(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]]), start, goal)
    assert detour["deviation"] == pytest.approx(1.0)
    assert detour["length_ratio"] == pytest.approx(np.sqrt(2))
    assert detour["cost_ratio"] == pytest.approx(2.0)  # 2 * (2 + 2) / 2²
    straight = path_metrics(interpolate(start, goal, 8), start, goal)
    assert straight == {"deviation": 0.0, "max_deviation": 0.0, "length_ratio": pytest.approx(1.0),
                        "cost_ratio": pytest.approx(1.0)}
    with pytest.raises(ValueError, match="coincide"):
        path_metrics(np.zeros((3, 2)), start, start)


def _grid(spacing: float = 0.02) -> np.ndarray:
    axis = np.arange(-1.5, 1.5 + 1e-9, spacing)
    return np.stack(np.meshgrid(axis, axis), axis=-1).reshape(-1, 2)


def test_identity_and_linear_encoders_plan_the_oracle_line_and_a_nonlinear_one_curves():
    reference = _grid()
    start, goal = np.array([-1.0, -0.8]), np.array([1.0, 0.9])
    mixing = np.array([[2.0, 0.5], [0.0, 0.7]])  # invertible, not orthogonal: still maps lines to lines
    encoders = {"identity": lambda a: a, "linear": lambda a: a @ mixing.T, "cubic": lambda a: a**3}
    metrics = {}
    for name, encode in encoders.items():
        _, metrics[name] = plan(encode(start), encode(goal), start, goal, encode(reference), reference, 20, 1)
    for name in ("identity", "linear"):
        assert metrics[name]["deviation"] < 0.02
        assert metrics[name]["cost_ratio"] == pytest.approx(1.0, abs=0.02)
    assert metrics["cubic"]["deviation"] > 0.1
    assert metrics["cubic"]["cost_ratio"] > 1.2


def test_knn_decode_uses_the_circular_mean():
    reference = np.array([[3.1, 0.0], [-3.1, 0.0]])
    decoded = knn_decode(np.zeros((1, 2)), np.zeros((2, 2)), reference, 2)
    assert abs(wrap(decoded[0, 0] - np.pi)) < 1e-9
    with pytest.raises(ValueError, match="knn"):
        knn_decode(np.zeros((1, 2)), np.zeros((2, 2)), reference, 3)
