"""Held-out metrics against closed forms: probe R², Procrustes, orthogonality and T3's quantities."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ortho_group

from lejepa_wm.experiments.metrics import linear_probe_r2, orthogonality_error, procrustes_error, t3_from_samples


def _rotation(dim: int, seed: int) -> np.ndarray:
    return ortho_group.rvs(dim, random_state=seed) if dim > 1 else np.array([[-1.0]])


def _ou_pairs(rng: np.random.Generator, samples: int, dim: int, rho: float) -> tuple[np.ndarray, np.ndarray]:
    z = rng.standard_normal((samples, dim))
    return z, rho * z + np.sqrt(1 - rho**2) * rng.standard_normal((samples, dim))


# ---------------------------------------------------------------- linear probe


def test_probe_r2_is_one_for_an_exact_affine_map_held_out() -> None:
    rng = np.random.default_rng(0)
    weights, offset = rng.standard_normal((5, 3)), rng.standard_normal(3)
    h_fit, h_eval = rng.standard_normal((200, 5)), rng.standard_normal((100, 5))
    total, per_coordinate = linear_probe_r2(h_fit, h_fit @ weights + offset, h_eval, h_eval @ weights + offset)
    assert total == pytest.approx(1.0, abs=1e-12)
    assert per_coordinate == pytest.approx(np.ones(3), abs=1e-12)


def test_probe_r2_near_zero_for_independent_data() -> None:
    rng = np.random.default_rng(1)
    total, per_coordinate = linear_probe_r2(rng.standard_normal((20_000, 4)), rng.standard_normal((20_000, 2)),
                                            rng.standard_normal((20_000, 4)), rng.standard_normal((20_000, 2)))
    assert abs(total) < 0.005 and np.all(np.abs(per_coordinate) < 0.005)


def test_probe_r2_per_coordinate_separates_a_decodable_from_a_random_latent() -> None:
    rng = np.random.default_rng(2)
    h_fit, h_eval = rng.standard_normal((5000, 2)), rng.standard_normal((5000, 2))
    z_fit = np.column_stack([h_fit[:, 0], rng.standard_normal(5000)])
    z_eval = np.column_stack([h_eval[:, 0], rng.standard_normal(5000)])
    total, per_coordinate = linear_probe_r2(h_fit, z_fit, h_eval, z_eval)
    assert per_coordinate[0] == pytest.approx(1.0, abs=1e-12) and abs(per_coordinate[1]) < 0.01
    assert total == pytest.approx(0.5, abs=0.02)  # equal variances: the mean of the two


def test_probe_r2_matches_the_closed_form_for_a_noisy_linear_latent() -> None:
    """z = h + sigma * noise with h, noise ~ N(0,1): population R² = 1 / (1 + sigma²)."""
    rng = np.random.default_rng(3)
    sigma = 0.5
    h_fit, h_eval = rng.standard_normal((50_000, 1)), rng.standard_normal((50_000, 1))
    z_fit = h_fit + sigma * rng.standard_normal((50_000, 1))
    z_eval = h_eval + sigma * rng.standard_normal((50_000, 1))
    total, _ = linear_probe_r2(h_fit, z_fit, h_eval, z_eval)
    assert total == pytest.approx(1 / (1 + sigma**2), abs=0.01)


def test_probe_accepts_torch_tensors() -> None:
    h = torch.randn(100, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float32)
    total, per_coordinate = linear_probe_r2(h[:50], 2 * h[:50], h[50:], 2 * h[50:])
    assert isinstance(total, float) and per_coordinate.dtype == np.float64
    assert total == pytest.approx(1.0, abs=1e-5)


# ---------------------------------------------------------------- Procrustes and orthogonality


def test_procrustes_recovers_a_known_rotation() -> None:
    rng = np.random.default_rng(4)
    q = _rotation(4, 5)
    z = rng.standard_normal((500, 4))
    error, estimate = procrustes_error(z @ q.T + 3.0, z - z.mean(axis=0))  # shift removed by centring h
    assert error == pytest.approx(0.0, abs=1e-20)
    assert estimate == pytest.approx(q, abs=1e-12)


def test_procrustes_error_of_a_scaled_map_by_hand() -> None:
    """h = 2 z (z centred, sample covariance C): the best Q is I and the error is tr C."""
    rng = np.random.default_rng(6)
    z = rng.standard_normal((1000, 3))
    z -= z.mean(axis=0)
    error, estimate = procrustes_error(2 * z, z)
    assert estimate == pytest.approx(np.eye(3), abs=1e-12)
    assert error == pytest.approx(np.mean(np.sum(z**2, axis=1)), rel=1e-12)


def test_orthogonality_error_by_hand() -> None:
    assert orthogonality_error(_rotation(5, 7)) == pytest.approx(0.0, abs=1e-12)
    assert orthogonality_error(np.diag([2.0, 1.0])) == pytest.approx(3.0)  # ||diag(4, 1) - I||_F
    assert orthogonality_error(np.array([[1.0, 1.0], [0.0, 0.0]])) == pytest.approx(np.sqrt(2.0))


# ---------------------------------------------------------------- T3


def test_t3_for_an_orthogonal_encoder() -> None:
    """h = Q z: delta, eps and the error vanish up to sampling; bound >= error within that noise."""
    rho, samples, dim = 0.8, 40_000, 3
    rng = np.random.default_rng(8)
    z, z_pos = _ou_pairs(rng, samples, dim, rho)
    q = _rotation(dim, 9)
    values = t3_from_samples(z @ q.T, z_pos @ q.T, z, rho)
    per_pair = np.sum((z_pos - z) ** 2, axis=1) - 2 * (1 - rho) * np.sum(z**2, axis=1)
    noise = 4 * per_pair.std() / np.sqrt(samples)  # 4 standard errors of delta
    assert abs(values["delta"]) < noise
    assert values["s"] == pytest.approx(dim, rel=0.03)
    assert values["loss"] == pytest.approx(2 * dim * (1 - rho), rel=0.03)
    assert values["eps"] < 0.05
    assert values["error"] < 10 * dim / samples  # only the mean of z is left after centring
    assert values["bound"] + noise / (2 * rho * (1 - rho)) >= values["error"]


@pytest.mark.parametrize("b", [0.5, 0.8])
def test_t3_closed_form_for_a_whitened_nonlinear_encoder(b: float) -> None:
    """h = (a z1 + b H2(z1), z2) with a² + b² = 1: Cov h = I, delta = 2 rho (1-rho) b², D = b²,
    error = (1 - a)² + b² <= bound = b² + b⁴."""
    rho, samples = 0.7, 400_000
    a = np.sqrt(1 - b**2)
    rng = np.random.default_rng(10)
    z, z_pos = _ou_pairs(rng, samples, 2, rho)

    def encoder(x: np.ndarray) -> np.ndarray:
        return np.column_stack([a * x[:, 0] + b * (x[:, 0] ** 2 - 1) / np.sqrt(2), x[:, 1]])

    values = t3_from_samples(encoder(z), encoder(z_pos), z, rho)
    error = (1 - a) ** 2 + b**2
    assert values["s"] == pytest.approx(2.0, abs=0.02)
    assert values["delta"] == pytest.approx(2 * rho * (1 - rho) * b**2, abs=0.01)
    assert values["D"] == pytest.approx(b**2, abs=0.03)
    assert values["eps"] < 0.02
    assert values["error"] == pytest.approx(error, abs=0.01)
    assert values["bound"] == pytest.approx(b**2 + b**4, abs=0.05)
    assert values["bound"] >= values["error"]  # closed-form margin b⁴ - (1-a)² >= 0.04 beats sampling error


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), dim=st.integers(1, 4), rho=st.floats(0.05, 0.95))
def test_t3_from_samples_invariant_under_rotating_the_embedding(seed: int, dim: int, rho: float) -> None:
    rng = np.random.default_rng(seed)
    z, z_pos = _ou_pairs(rng, 300, dim, rho)
    h, h_pos = np.tanh(z) + 0.3 * z**2, np.tanh(z_pos) + 0.3 * z_pos**2
    q = _rotation(dim, seed)
    plain, rotated = t3_from_samples(h, h_pos, z, rho), t3_from_samples(h @ q.T, h_pos @ q.T, z, rho)
    for key in plain:
        assert rotated[key] == pytest.approx(plain[key], rel=1e-8, abs=1e-10)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: linear_probe_r2(np.zeros(5), np.zeros((5, 1)), np.zeros((5, 1)), np.zeros((5, 1))), "h_fit"),
        (lambda: linear_probe_r2(np.zeros((5, 1)), np.zeros((4, 1)), np.zeros((5, 1)), np.zeros((5, 1))), "4"),
        (lambda: linear_probe_r2(np.ones((5, 1)), np.ones((5, 1)), np.ones((5, 1)), np.ones((5, 1))), "constant"),
        (lambda: procrustes_error(np.zeros((5, 2)), np.zeros((5, 3))), "3"),
        (lambda: procrustes_error(np.full((5, 2), np.nan), np.zeros((5, 2))), "NaN"),
        (lambda: t3_from_samples(np.zeros((5, 2)), np.zeros((5, 2)), np.zeros((5, 2)), 1.0), "1.0"),
        (lambda: t3_from_samples(np.zeros((5, 2)), np.zeros((4, 2)), np.zeros((5, 2)), 0.5), "h_pos"),
    ],
)
def test_bad_input_raises_value_error_naming_it(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
