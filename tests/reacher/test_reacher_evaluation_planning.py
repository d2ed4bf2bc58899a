"""Probes, pixel baselines, data diagnostics and planning metrics on synthetic cases with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from lejepa_wm.experiments.reacher.evaluation import (PixelBasis, flatten_pixels, interpolate, knn_decode,
                                                      pair_diagnostics, path_metrics, pixel_baselines, plan,
                                                      probe_report, wrap)


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


def _frames(angles: np.ndarray, rng: np.random.Generator, signal: float) -> np.ndarray:
    """8×8×3 uint8 'frames' whose pixels are a fixed linear image of the angles (weight ``signal``) plus noise."""
    mixing = np.random.default_rng(99).normal(size=(2, 8 * 8 * 3))
    pixels = 128 + signal * angles @ mixing + rng.normal(0.0, 8.0, (len(angles), 8 * 8 * 3))
    return np.clip(pixels, 0, 255).astype(np.uint8).reshape(-1, 8, 8, 3)


def test_principal_components_are_orthonormal_and_reproduce_the_fit_sample():
    rng = np.random.default_rng(0)
    frames = _frames(rng.normal(0.0, 0.5, (60, 2)), rng, 20.0)
    basis = PixelBasis.fit(frames)
    np.testing.assert_allclose(basis.components @ basis.components.T, np.eye(len(basis.singular)), atol=1e-8)
    assert np.all(np.diff(basis.singular) <= 0) and len(basis.singular) <= 59  # centred: rank below the sample size
    coordinates = basis.project(frames)
    np.testing.assert_allclose(coordinates @ basis.components + basis.mean, flatten_pixels(frames), atol=1e-8)


def test_pixel_baselines_find_linear_pixels_and_fail_on_noise():
    rng = np.random.default_rng(1)
    samples = {}
    for split in ("fit", "validation", "test"):
        angles = rng.normal(0.0, 0.5, (200, 2))
        samples[split] = (_frames(angles, rng, 20.0), angles)
    found = pixel_baselines(samples["fit"], samples["validation"], samples["test"], (2, 50),
                            PixelBasis.fit(samples["fit"][0]))
    assert set(found) == {"pca2", "pca50", "pixels", "best"}
    assert found["best"] in ("pca2", "pca50", "pixels")
    assert found["pca2"]["components"] == 2 and found["pca2"]["test"]["r2_total"] > 0.9
    assert found[found["best"]]["validation"]["r2_total"] == max(
        found[name]["validation"]["r2_total"] for name in ("pca2", "pca50", "pixels"))
    noise = {split: (_frames(np.zeros((200, 2)), rng, 0.0), rng.normal(0.0, 0.5, (200, 2)))
             for split in ("fit", "validation", "test")}
    blind = pixel_baselines(noise["fit"], noise["validation"], noise["test"], (2,), PixelBasis.fit(noise["fit"][0]))
    assert blind[blind["best"]]["test"]["r2_total"] < 0.1  # pixels that do not see the angles


def test_unpenalized_pixel_probe_is_the_minimum_norm_least_squares_probe():
    rng = np.random.default_rng(2)
    fit, test = ((_frames(a, rng, 5.0), a) for a in (rng.normal(0.0, 0.5, (40, 2)), rng.normal(0.0, 0.5, (40, 2))))
    x_fit, y_fit = flatten_pixels(fit[0]), wrap(fit[1])
    weights = np.linalg.pinv(x_fit - x_fit.mean(axis=0), rcond=1e-8) @ (y_fit - y_fit.mean(axis=0))
    prediction = y_fit.mean(axis=0) + (flatten_pixels(test[0]) - x_fit.mean(axis=0)) @ weights  # 40 frames, 192 pixels
    target = wrap(test[1])
    expected = 1 - ((target - prediction) ** 2).sum() / ((target - target.mean(axis=0)) ** 2).sum()
    scores = pixel_baselines(fit, test, test, (2,), PixelBasis.fit(fit[0]))["pixels"]["penalty_scores"]  # on test
    assert scores["0.0"] == pytest.approx(expected, abs=1e-8)

