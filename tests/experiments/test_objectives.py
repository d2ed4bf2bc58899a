"""Objectives against hand-computed values, the fast SIGReg against the plain one, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lejepa_wm.experiments.objectives import (
    OBJECTIVES,
    SIGREG_STATISTICS,
    SIGReg,
    WHITENING_RIDGE,
    alignment_loss,
    batch_standardize,
    batch_whiten,
    build_objective,
    epps_pulley_gaussian_mean,
    epps_pulley_knots,
    infonce_loss,
    random_directions,
    scale_statistic,
    sigreg_reference,
    sigreg_statistic,
    whitening_loss,
)


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """One intra-op thread: tiny tensors, and a shared machine where two threads contend."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _batch(seed: int, batch: int, dim: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    return torch.randn(batch, dim, generator=_generator(seed), dtype=dtype)


# ---------------------------------------------------------------- hand-computed values


def test_alignment_loss_by_hand() -> None:
    h = torch.tensor([[0.0, 1.0], [2.0, -1.0]])
    h_pos = torch.tensor([[1.0, 1.0], [2.0, 2.0]])
    # (1^2 + 0^2 + 0^2 + 3^2) / 2 = 5
    assert alignment_loss(h, h_pos).item() == pytest.approx(5.0)


def test_whitening_loss_by_hand() -> None:
    h = torch.tensor([[1.0, 0.0], [3.0, 2.0], [2.0, 1.0]], dtype=torch.float64)
    values = h.numpy()
    mu = values.mean(axis=0)  # (2, 1)
    cov = sum(np.outer(row - mu, row - mu) for row in values) / 3.0  # [[2/3, 2/3], [2/3, 2/3]]
    expected = ((cov - np.eye(2)) ** 2).sum() + (mu**2).sum()
    assert expected == pytest.approx(2 * (1 / 3) ** 2 + 2 * (2 / 3) ** 2 + 5.0)
    assert whitening_loss(h).item() == pytest.approx(expected, rel=1e-12)


def test_whitening_loss_is_zero_for_a_whitened_batch() -> None:
    h = torch.tensor([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]], dtype=torch.float64)
    assert whitening_loss(h).item() == pytest.approx(0.0, abs=1e-15)


def test_infonce_by_hand() -> None:
    h = _batch(1, 4, 3)
    h_pos = _batch(2, 4, 3)
    width = 0.7
    a, b = h.numpy(), h_pos.numpy()
    logits = np.array([[-np.sum((a[i] - b[j]) ** 2) / (2 * width**2) for j in range(4)] for i in range(4)])
    rows = [-logits[i, i] + math.log(sum(math.exp(v) for v in logits[i])) for i in range(4)]
    cols = [-logits[j, j] + math.log(sum(math.exp(v) for v in logits[:, j])) for j in range(4)]
    expected = 0.5 * np.mean(rows) + 0.5 * np.mean(cols)
    assert infonce_loss(h, h_pos, width).item() == pytest.approx(expected, rel=1e-12)


def test_epps_pulley_knots_and_weights() -> None:
    knots, weights = epps_pulley_knots(5, 2.0)
    assert knots.tolist() == pytest.approx([0.0, 0.5, 1.0, 1.5, 2.0])
    trapezoid = [0.5, 1.0, 1.0, 1.0, 0.5]  # 2 * dt with dt = 0.5, halved at the ends
    assert weights.tolist() == pytest.approx([w * math.exp(-t * t / 2) for w, t in zip(trapezoid, knots.tolist())])
    # sum_k w_k approximates int_R exp(-t^2/2) dt = sqrt(2 pi) for the default knots
    _, default_weights = epps_pulley_knots()
    assert default_weights.sum().item() == pytest.approx(math.sqrt(2 * math.pi), abs=0.01)


def test_sigreg_reference_by_hand() -> None:
    h = _batch(3, 5, 2)
    directions = random_directions(2, 3, _generator(4), dtype=torch.float64)
    knots, weights = epps_pulley_knots(4, 3.0)
    x = (h @ directions).numpy()
    expected_per_slice = []
    for s in range(3):
        total = 0.0
        for t, w in zip(knots.tolist(), weights.tolist()):
            re = sum(math.cos(t * v) for v in x[:, s]) / 5 - math.exp(-t * t / 2)
            im = sum(math.sin(t * v) for v in x[:, s]) / 5
            total += w * (re * re + im * im)
        expected_per_slice.append(5 * total)
    expected = float(np.mean(expected_per_slice))
    assert sigreg_reference(h, directions, knots, weights).item() == pytest.approx(expected, rel=1e-12)


def test_random_directions_are_unit_columns() -> None:
    directions = random_directions(7, 50, _generator(0), dtype=torch.float64)
    assert directions.shape == (7, 50)
    assert torch.allclose(directions.norm(dim=0), torch.ones(50, dtype=torch.float64))


# ---------------------------------------------------------------- SIGReg behaviour


def test_sigreg_matches_reference_on_its_directions() -> None:
    h = _batch(5, 300, 6)
    sigreg = SIGReg(num_slices=40)
    value = sigreg(h, _generator(9))
    directions = sigreg.draw_directions(h, _generator(9))
    assert value.item() == pytest.approx(sigreg_reference(h, directions, sigreg.knots, sigreg.weights).item(),
                                         rel=1e-10)


def test_sigreg_null_mean_equals_closed_form() -> None:
    """For i.i.d. N(0,1) projections E[N |phi_N(t) - exp(-t^2/2)|^2] = 1 - exp(-t^2) exactly."""
    knots, weights = epps_pulley_knots()
    expected = float((weights * (1 - torch.exp(-knots.square()))).sum())
    sigreg = SIGReg(num_slices=4)
    generator = _generator(11)
    values = torch.stack([sigreg(torch.randn(64, 2, generator=generator, dtype=torch.float64), generator)
                          for _ in range(400)])
    standard_error = values.std().item() / math.sqrt(len(values))
    assert abs(values.mean().item() - expected) < 4 * standard_error
    assert expected == pytest.approx(1.06, abs=0.01)  # sqrt(2 pi) - sqrt(2 pi / 3), up to the truncation


def test_sigreg_large_for_collapsed_and_non_gaussian_batches() -> None:
    sigreg = SIGReg()
    generator = _generator(12)
    gaussian = sigreg(torch.randn(2048, 8, generator=generator), generator).item()
    collapsed = sigreg(torch.full((2048, 8), 0.3), generator).item()
    shrunk = sigreg(0.2 * torch.randn(2048, 8, generator=generator), generator).item()
    uniform = math.sqrt(3) * (2 * torch.rand(2048, 8, generator=generator) - 1)  # unit variance, not Gaussian
    non_gaussian = sigreg(uniform, generator).item()
    assert gaussian < 3.0
    assert collapsed > 100 * gaussian and shrunk > 100 * gaussian
    assert non_gaussian > 3 * gaussian


def test_sigreg_slices_redrawn_each_call_and_reproducible() -> None:
    h = _batch(6, 64, 5)
    sigreg = SIGReg(num_slices=8)
    generator = _generator(21)
    first, second = sigreg(h, generator), sigreg(h, generator)
    assert first.item() != second.item()
    again = _generator(21)
    assert sigreg(h, again).item() == first.item()
    assert sigreg(h, again).item() == second.item()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32, torch.float64])
def test_sigreg_preserves_dtype_and_device(dtype: torch.dtype) -> None:
    h = _batch(7, 32, 3, dtype=dtype).requires_grad_(True)
    value = SIGReg(num_slices=4)(h, _generator(0))
    assert value.dtype == dtype and value.device == h.device and value.dim() == 0
    value.backward()
    assert h.grad is not None and h.grad.dtype == dtype


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_objectives_run_on_cuda() -> None:
    device = torch.device("cuda")
    h = torch.randn(64, 4, device=device)
    generator = torch.Generator(device=device).manual_seed(0)
    for name in OBJECTIVES:
        options = {"width": 1.0} if name == "infonce" else {}
        total, _ = build_objective(name, 1.0, **options)(h, h + 0.1, generator)
        assert total.device.type == "cuda"


def _value_and_grads(statistic, h: torch.Tensor, directions: torch.Tensor,
                     kind: str = "lejepa") -> tuple[float, torch.Tensor, torch.Tensor]:
    h = h.detach().clone().requires_grad_(True)
    directions = directions.detach().clone().requires_grad_(True)
    knots, weights = epps_pulley_knots()
    value = statistic(h, directions, knots, weights, kind)
    value.backward()
    return value.item(), h.grad, directions.grad


@pytest.mark.parametrize("kind", SIGREG_STATISTICS)
@pytest.mark.parametrize(("samples", "slices", "num_threads"), [(700, 37, 1), (700, 37, 2), (50, 300, 2), (5, 3, 1)])
def test_fast_statistic_equals_reference_in_float64(samples: int, slices: int, num_threads: int, kind: str) -> None:
    """Values and gradients (in h and in the directions) agree to rounding, chunked or not, 1 or 2 threads,
    for both statistics: the fast kernel's gradient against autograd through the plain reference."""
    h = 1.3 * _batch(10, samples, 6)
    directions = random_directions(6, slices, _generator(11), dtype=torch.float64)
    torch.set_num_threads(num_threads)
    try:
        fast = _value_and_grads(sigreg_statistic, h, directions, kind)
    finally:
        torch.set_num_threads(1)
    reference = _value_and_grads(sigreg_reference, h, directions, kind)
    assert fast[0] == pytest.approx(reference[0], rel=1e-12)
    assert torch.allclose(fast[1], reference[1], rtol=1e-9, atol=1e-14)
    assert torch.allclose(fast[2], reference[2], rtol=1e-9, atol=1e-14)


def test_fast_statistic_without_gradient_has_the_same_value() -> None:
    h = _batch(12, 300, 4)
    directions = random_directions(4, 20, _generator(13), dtype=torch.float64)
    knots, weights = epps_pulley_knots()
    with torch.no_grad():
        value = sigreg_statistic(h, directions, knots, weights)
    assert value.item() == pytest.approx(sigreg_reference(h, directions, knots, weights).item(), rel=1e-12)


def test_fast_statistic_needs_equally_spaced_knots() -> None:
    h = _batch(0, 10, 2)
    directions = random_directions(2, 3, _generator(0), dtype=torch.float64)
    with pytest.raises(ValueError, match="equally spaced"):
        sigreg_statistic(h, directions, torch.tensor([0.0, 1.0, 3.0]), torch.ones(3))
    with pytest.raises(ValueError, match="equally spaced"):
        sigreg_statistic(h, directions, torch.tensor([0.5, 1.0, 1.5]), torch.ones(3))


def test_sigreg_float32_matches_reference_to_float_rounding() -> None:
    h = _batch(9, 1024, 16, dtype=torch.float32).requires_grad_(True)
    sigreg = SIGReg(num_slices=64)
    value = sigreg(h, _generator(4))
    value.backward()
    fast_grad = h.grad.clone()
    h.grad = None
    directions = sigreg.draw_directions(h.detach(), _generator(4))
    reference = sigreg_reference(h, directions, sigreg.knots, sigreg.weights)
    reference.backward()
    assert value.item() == pytest.approx(reference.item(), rel=1e-5)
    assert (fast_grad - h.grad).abs().max().item() < 1e-5 * h.grad.abs().max().item()


def test_sigreg_gradient_matches_reference() -> None:
    h = _batch(8, 200, 5).requires_grad_(True)
    sigreg = SIGReg(num_slices=30)
    sigreg(h, _generator(3)).backward()
    fast_grad = h.grad.clone()
    h.grad = None
    directions = sigreg.draw_directions(h.detach(), _generator(3))
    sigreg_reference(h, directions, sigreg.knots, sigreg.weights).backward()
    assert torch.allclose(fast_grad, h.grad, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- the unbiased statistic


@pytest.mark.parametrize("statistic", SIGREG_STATISTICS)
@pytest.mark.parametrize("scale", [1.0, 0.8])
def test_gaussian_mean_and_slope_match_monte_carlo(statistic: str, scale: float) -> None:
    """E[EP] and dE[EP]/dscale on N(0, scale^2) batches: Monte Carlo against the closed form (both statistics)."""
    samples, repeats = 64, 3000
    knots, weights = epps_pulley_knots()
    mean, slope = epps_pulley_gaussian_mean(scale, samples, knots, weights, statistic)
    z = torch.randn(samples, repeats, generator=_generator(31), dtype=torch.float64)
    c = torch.full((repeats,), scale, dtype=torch.float64, requires_grad=True)
    x = z * c
    eye = torch.eye(repeats, dtype=torch.float64)
    # per-batch values: the statistic of column j alone; their sum is repeats * mean over slices
    total = sigreg_statistic(x, eye, knots, weights, statistic) * repeats
    total.backward()
    slopes = c.grad.numpy()
    with torch.no_grad():
        values = np.array([sigreg_statistic(x[:, j:j + 1], torch.ones(1, 1, dtype=torch.float64), knots, weights,
                                            statistic).item() for j in range(0, repeats, 3)])
    assert abs(values.mean() - mean) < 4 * values.std() / math.sqrt(len(values))
    assert abs(slopes.mean() - slope) < 4 * slopes.std() / math.sqrt(repeats)


def test_unbiased_mean_is_zero_at_the_gaussian_and_lejepa_is_not() -> None:
    knots, weights = epps_pulley_knots()
    for samples in (2, 16, 512):
        assert epps_pulley_gaussian_mean(1.0, samples, knots, weights, "unbiased") == (0.0, 0.0)
        v_mean, v_slope = epps_pulley_gaussian_mean(1.0, samples, knots, weights, "lejepa")
        # B = sum w (1 - exp(-t^2)) and dB/dc = 2 sum w t^2 exp(-t^2), whatever N
        assert v_mean == pytest.approx(float((weights * (1 - torch.exp(-knots.square()))).sum()), rel=1e-12)
        assert v_slope == pytest.approx(float(2 * (weights * knots.square() * torch.exp(-knots.square())).sum()))
        assert v_slope > 0.9  # the V-statistic pulls toward a smaller scale at the Gaussian


def test_closed_form_slope_is_the_derivative_of_the_mean() -> None:
    knots, weights = epps_pulley_knots(9, 4.0)
    for statistic in SIGREG_STATISTICS:
        for scale in (0.7, 1.0, 1.3):
            step = 1e-6
            up = epps_pulley_gaussian_mean(scale + step, 100, knots, weights, statistic)[0]
            down = epps_pulley_gaussian_mean(scale - step, 100, knots, weights, statistic)[0]
            slope = epps_pulley_gaussian_mean(scale, 100, knots, weights, statistic)[1]
            assert slope == pytest.approx((up - down) / (2 * step), rel=1e-6, abs=1e-8)


def test_unbiased_reference_is_the_pair_sum_without_the_diagonal() -> None:
    """``(N |phi_N|^2 - 1)/(N - 1)`` is the mean of ``cos(t (x_i - x_j))`` over the pairs ``i != j``."""
    h = _batch(41, 9, 3)
    directions = random_directions(3, 4, _generator(42), dtype=torch.float64)
    knots, weights = epps_pulley_knots(5, 3.0)
    x = (h @ directions).numpy()
    samples = x.shape[0]
    expected = []
    for s in range(x.shape[1]):
        total = 0.0
        for t, w in zip(knots.tolist(), weights.tolist()):
            pairs = sum(math.cos(t * (x[i, s] - x[j, s])) for i in range(samples) for j in range(samples) if i != j)
            pairs /= samples * (samples - 1)
            cos_mean = sum(math.cos(t * v) for v in x[:, s]) / samples
            target = math.exp(-t * t / 2)
            total += w * (pairs - 2 * cos_mean * target + target * target)
        expected.append(samples * total)
    assert sigreg_reference(h, directions, knots, weights, "unbiased").item() == pytest.approx(
        float(np.mean(expected)), rel=1e-12)


def test_unbiased_is_lejepa_plus_the_diagonal_correction() -> None:
    h = _batch(43, 40, 3)
    directions = random_directions(3, 5, _generator(44), dtype=torch.float64)
    knots, weights = epps_pulley_knots()
    x_t = (h @ directions).unsqueeze(-1) * knots
    power = x_t.cos().mean(dim=0).square() + x_t.sin().mean(dim=0).square()
    correction = 40 / 39 * ((power - 1) @ weights).mean()
    v = sigreg_statistic(h, directions, knots, weights, "lejepa")
    u = sigreg_statistic(h, directions, knots, weights, "unbiased")
    assert u.item() == pytest.approx((v + correction).item(), rel=1e-12)
    assert u.item() < v.item()


def test_fast_unbiased_float32_matches_reference() -> None:
    h = _batch(45, 1024, 16, dtype=torch.float32).requires_grad_(True)
    sigreg = SIGReg(num_slices=64, statistic="unbiased")
    value = sigreg(h, _generator(4))
    value.backward()
    fast_grad = h.grad.clone()
    h.grad = None
    directions = sigreg.draw_directions(h.detach(), _generator(4))
    reference = sigreg_reference(h, directions, sigreg.knots, sigreg.weights, "unbiased")
    reference.backward()
    assert value.item() == pytest.approx(reference.item(), rel=1e-4, abs=1e-5)
    assert (fast_grad - h.grad).abs().max().item() < 1e-5 * h.grad.abs().max().item()


def test_unbiased_needs_two_samples() -> None:
    knots, weights = epps_pulley_knots()
    directions = torch.ones(1, 1, dtype=torch.float64)
    with pytest.raises(ValueError, match="at least 2"):
        sigreg_statistic(torch.zeros(1, 1, dtype=torch.float64), directions, knots, weights, "unbiased")
    with pytest.raises(ValueError, match="'v'"):
        sigreg_statistic(torch.zeros(3, 1, dtype=torch.float64), directions, knots, weights, "v")


# ---------------------------------------------------------------- scale-free SIGReg


def test_batch_standardize_and_scale_statistic_by_hand() -> None:
    h = torch.tensor([[1.0, 0.0], [3.0, 2.0], [2.0, 4.0]], dtype=torch.float64)
    standardized = batch_standardize(h, eps=0.0)
    assert torch.allclose(standardized.mean(dim=0), torch.zeros(2, dtype=torch.float64), atol=1e-15)
    assert torch.allclose(standardized.square().mean(dim=0), torch.ones(2, dtype=torch.float64))
    # means (2, 2), variances (2/3, 8/3): 3 * mean_j [(v_j - 1)^2 / 2 + mu_j^2]
    expected = 3 * 0.5 * ((1 / 9) / 2 + 4 + (25 / 9) / 2 + 4)
    assert scale_statistic(h).item() == pytest.approx(expected, rel=1e-12)


def test_standardized_sigreg_objective_is_statistic_of_standardized_plus_scale_statistic() -> None:
    h, h_pos = 0.3 * _batch(1, 64, 3) + 1.0, 0.3 * _batch(2, 64, 3)
    total, parts = build_objective("sigreg", 0.5, num_slices=10, standardize=True,
                                   statistic="unbiased")(h, h_pos, _generator(5))
    sigreg, generator = SIGReg(num_slices=10, statistic="unbiased"), _generator(5)
    statistic = 0.5 * (sigreg(batch_standardize(h), generator) + sigreg(batch_standardize(h_pos), generator))
    scale = 0.5 * (scale_statistic(h, "unbiased") + scale_statistic(h_pos, "unbiased"))
    assert parts["sigreg"] == pytest.approx(statistic.item(), rel=1e-12)
    assert parts["scale"] == pytest.approx(scale.item(), rel=1e-12)
    assert total.item() == pytest.approx((alignment_loss(h, h_pos) + 0.5 * (statistic + scale)).item(), rel=1e-12)
    # the statistic part does not see the scale or the mean of the embedding
    _, rescaled = build_objective("sigreg", 0.5, num_slices=10, standardize=True,
                                  statistic="unbiased")(3 * h - 2, 3 * h_pos + 1, _generator(5))
    assert rescaled["sigreg"] == pytest.approx(parts["sigreg"], rel=1e-4)  # up to the eps in the std
    assert rescaled["scale"] != pytest.approx(parts["scale"], rel=1e-3)


def test_unbiased_scale_statistic_is_the_pair_sum_without_the_diagonal() -> None:
    h = _batch(46, 7, 2)
    x = h.numpy()
    samples = len(x)
    expected = 0.0
    for j in range(2):
        pairs = [(i, k) for i in range(samples) for k in range(samples) if i != k]
        first = sum(x[i, j] * x[k, j] for i, k in pairs) / len(pairs)
        second = sum((x[i, j] ** 2 - 1) * (x[k, j] ** 2 - 1) for i, k in pairs) / len(pairs)
        expected += samples * (second / 2 + first) / 2
    assert scale_statistic(h, "unbiased").item() == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("statistic", SIGREG_STATISTICS)
def test_scale_statistic_bend_force_at_the_gaussian(statistic: str) -> None:
    """E[d statistic / d b] for h = z + b (z^3 - 3 z)/sqrt(6): about (E mu4 derivative)/2 = 4.9 for the
    plug-in form (its diagonal term penalizes the fourth moment), 0 for the unbiased one."""
    generator = _generator(47)
    grads = []
    for _ in range(300):
        z = torch.randn(256, 2, generator=generator, dtype=torch.float64)
        b = torch.zeros((), dtype=torch.float64, requires_grad=True)
        scale_statistic(z + b * (z**3 - 3 * z) / math.sqrt(6), statistic).backward()
        grads.append(b.grad.item())
    mean, se = float(np.mean(grads)), float(np.std(grads) / math.sqrt(len(grads)))
    expected = 0.0 if statistic == "unbiased" else 2 * math.sqrt(6) * (1 - 3 / 256)  # d/db (mu4 - sigma^4)/2
    assert abs(mean - expected) < 4 * se + 0.3
    if statistic == "lejepa":
        assert mean > 3.0


def test_scale_statistic_gradient_is_linear_in_h() -> None:
    """At fixed batch moments the gradient is ``a * (h - mean) + b``: no nonlinear force (no bend)."""
    h = _batch(3, 200, 1).requires_grad_(True)
    scale_statistic(h).backward()
    centred = (h - h.mean()).detach()
    design = torch.cat([centred, torch.ones_like(centred)], dim=1)
    fit = torch.linalg.lstsq(design, h.grad).solution
    assert torch.allclose(design @ fit, h.grad, atol=1e-12)


def test_objective_weight_can_change_during_training() -> None:
    h, h_pos = _batch(1, 32, 3), _batch(2, 32, 3)
    objective = build_objective("sigreg", 1.0, num_slices=8)
    first, parts = objective(h, h_pos, _generator(0))
    objective.weight = 3.0
    second, _ = objective(h, h_pos, _generator(0))
    assert second.item() == pytest.approx(alignment_loss(h, h_pos).item() + 3.0 * parts["sigreg"], rel=1e-12)
    assert first.item() != second.item()


# ---------------------------------------------------------------- build_objective


@pytest.mark.parametrize("name", OBJECTIVES)
def test_zero_weight_is_alignment_only(name: str) -> None:
    h, h_pos = _batch(1, 16, 3), _batch(2, 16, 3)
    options = {"width": 0.5} if name == "infonce" else {}
    total, parts = build_objective(name, 0.0, **options)(h, h_pos, _generator(0))
    assert total.item() == alignment_loss(h, h_pos).item()
    assert parts == {"alignment": total.item(), "total": total.item()}


def test_sigreg_objective_is_alignment_plus_mean_of_both_views() -> None:
    h, h_pos = _batch(1, 64, 3), _batch(2, 64, 3)
    total, parts = build_objective("sigreg", 0.25, num_slices=10)(h, h_pos, _generator(5))
    sigreg, generator = SIGReg(num_slices=10), _generator(5)
    regularizer = 0.5 * (sigreg(h, generator) + sigreg(h_pos, generator))
    assert total.item() == pytest.approx((alignment_loss(h, h_pos) + 0.25 * regularizer).item(), rel=1e-12)
    assert parts["sigreg"] == pytest.approx(regularizer.item(), rel=1e-12)


def test_whitening_objective_is_alignment_plus_mean_of_both_views() -> None:
    h, h_pos = _batch(1, 64, 3), _batch(2, 64, 3)
    total, _ = build_objective("whitening", 2.0)(h, h_pos, _generator(0))
    expected = alignment_loss(h, h_pos) + 2.0 * 0.5 * (whitening_loss(h) + whitening_loss(h_pos))
    assert total.item() == pytest.approx(expected.item(), rel=1e-12)


def test_infonce_objective_at_unit_weight_is_infonce() -> None:
    h, h_pos = _batch(1, 32, 3), _batch(2, 32, 3)
    total, parts = build_objective("infonce", 1.0, width=0.8)(h, h_pos, _generator(0))
    assert total.item() == pytest.approx(infonce_loss(h, h_pos, 0.8).item(), rel=1e-12)
    assert parts["infonce"] == pytest.approx(total.item(), rel=1e-12)


# ---------------------------------------------------------------- properties


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), batch=st.integers(2, 12), dim=st.integers(1, 5))
def test_losses_invariant_under_a_common_rotation(seed: int, batch: int, dim: int) -> None:
    h, h_pos = _batch(seed, batch, dim), _batch(seed + 1, batch, dim)
    rotation, _ = torch.linalg.qr(_batch(seed + 2, dim, dim))
    assert alignment_loss(h @ rotation, h_pos @ rotation).item() == pytest.approx(
        alignment_loss(h, h_pos).item(), rel=1e-9)
    assert infonce_loss(h @ rotation, h_pos @ rotation, 1.3).item() == pytest.approx(
        infonce_loss(h, h_pos, 1.3).item(), rel=1e-9)
    assert whitening_loss(h @ rotation).item() == pytest.approx(whitening_loss(h).item(), rel=1e-9, abs=1e-12)
    directions = random_directions(dim, 6, _generator(seed), dtype=torch.float64)
    knots, weights = epps_pulley_knots()
    assert sigreg_reference(h @ rotation, rotation.T @ directions, knots, weights).item() == pytest.approx(
        sigreg_reference(h, directions, knots, weights).item(), rel=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), batch=st.integers(1, 12), dim=st.integers(1, 5))
def test_infonce_symmetric_in_the_two_views(seed: int, batch: int, dim: int) -> None:
    h, h_pos = _batch(seed, batch, dim), _batch(seed + 1, batch, dim)
    assert infonce_loss(h, h_pos, 0.9).item() == pytest.approx(infonce_loss(h_pos, h, 0.9).item(), rel=1e-12)


def test_whitened_objective_is_the_alignment_of_the_batch_whitened_views_without_a_deficit_weight() -> None:
    h, h_pos = _batch(3, 256, 4), _batch(4, 256, 4)
    loss, parts = build_objective("whitened", 1.0)(h, h_pos, _generator(0))
    assert loss.item() == alignment_loss(*batch_whiten(h, h_pos)).item() == parts["whitened"]
    assert "deficit" not in parts


def test_the_deficit_penalty_charges_a_direction_collapsed_below_the_ridge() -> None:
    """A column copied into another (a direction of eigenvalue 0) leaves the whitening near zero and stops
    paying alignment: the exit. The deficit counts it as about 1; well-conditioned directions as ``O(ridge)``."""
    h, h_pos = _batch(5, 512, 4), _batch(6, 512, 4)
    weight = 4.0
    loss, parts = build_objective("whitened", 1.0, deficit_weight=weight)(h, h_pos, _generator(0))
    assert parts["deficit"] == pytest.approx(4 * WHITENING_RIDGE, rel=0.2)
    assert loss.item() == pytest.approx(parts["whitened"] + weight * parts["deficit"], rel=1e-12)
    collinear = torch.cat([h, h[:, :1]], dim=1), torch.cat([h_pos, h_pos[:, :1]], dim=1)
    _, collapsed = build_objective("whitened", 1.0, deficit_weight=weight)(*collinear, _generator(0))
    assert collapsed["deficit"] == pytest.approx(1.0, abs=0.01)
    pooled = torch.cat(batch_whiten(*collinear))  # the collapsed direction left the whitening: trace m - 1
    assert pooled.var(dim=0, unbiased=False).sum().item() == pytest.approx(5 - collapsed["deficit"], rel=1e-9)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: build_objective("vicreg", 1.0), "vicreg"),
        (lambda: build_objective("sigreg", -0.5), "-0.5"),
        (lambda: build_objective("sigreg", float("nan")), "nan"),
        (lambda: build_objective("whitening", 1.0, width=2.0), "width"),
        (lambda: build_objective("infonce", 1.0), "width"),
        (lambda: build_objective("infonce", 1.0, width=0.0), "0.0"),
        (lambda: build_objective("whitened", 1.0, deficit_weight=-4.0), "-4.0"),
        (lambda: build_objective("whitened", 1.0, deficit_weight=float("inf")), "inf"),
        (lambda: build_objective("whitened", 1.0, deficit_weight=True), "True"),
        (lambda: build_objective("whitened", 1.0, deficit_weight="4"), "'4'"),
        (lambda: SIGReg(num_slices=0), "num_slices"),
        (lambda: SIGReg(num_knots=1), "num_knots"),
        (lambda: SIGReg(t_max=-3.0), "-3.0"),
        (lambda: SIGReg(statistic="biased"), "biased"),
        (lambda: build_objective("sigreg", 1.0, statistic="v"), "'v'"),
        (lambda: build_objective("sigreg", 1.0, standardize=1), "standardize"),
        (lambda: SIGReg()(torch.zeros(4), _generator(0)), "shape"),
        (lambda: SIGReg()(torch.zeros(4, 2, dtype=torch.long), _generator(0)), "dtype"),
        (lambda: SIGReg()(torch.zeros(4, 2), 0), "generator"),
        (lambda: alignment_loss(torch.zeros(4, 2), torch.zeros(4, 3)), "(4, 3)"),
        (lambda: whitening_loss(torch.zeros(1, 2)), "(1, 2)"),
        (lambda: infonce_loss(torch.zeros(4, 2), torch.zeros(4, 2), -1.0), "-1.0"),
        (lambda: scale_statistic(torch.zeros(4, 2), statistic=None), "None"),
        (lambda: sigreg_statistic(torch.zeros(4, 2), torch.eye(2), *epps_pulley_knots(5, 3.0), statistic=None),
         "None"),
        (lambda: sigreg_reference(torch.zeros(4, 2), torch.eye(2), *epps_pulley_knots(5, 3.0), statistic=None),
         "None"),
    ],
)
def test_bad_input_raises_value_error_naming_it(call, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        call()
