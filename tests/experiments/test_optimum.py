"""The objective at the trained weights against the answer ``c z`` (T1's own verdict), the supervised ceiling,
batch whitening and restarts."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from lejepa_wm.experiments.encoders import build_encoder, published_inverse
from lejepa_wm.experiments.flows import make_renderer
from lejepa_wm.experiments.heldout import HeldOutSamples
from lejepa_wm.experiments.objectives import (Whitened, alignment_loss, batch_whiten, build_objective,
                                              supervised_objective)
from lejepa_wm.experiments.optimum import (ABOVE, AT, BELOW, answer_features, largest_answer_dim, objective_gap,
                                           optimum_reading, whitened_population_gap)
from lejepa_wm.experiments.training import TrainSettings, WorldPairs, train
from lejepa_wm.experiments.worlds import GaussianWorld
from lejepa_wm.seeds import SeedStreams


def _world(n: int = 4, seed: int = 7) -> tuple[GaussianWorld, nn.Module, SeedStreams, HeldOutSamples]:
    world, streams = GaussianWorld.isotropic(n, 0.8), SeedStreams.derive(seed)
    renderer = make_renderer("published", n, streams.renderer)
    return world, renderer, streams, HeldOutSamples.draw(world, renderer, 1024, streams, "cpu")


@pytest.mark.parametrize("name, weight", [("sigreg", 0.3), ("whitening", 0.3), ("whitened", 1.0)])
def test_the_exact_inverse_sits_at_the_answer_and_a_random_encoder_above_it(name: str, weight: float) -> None:
    world, renderer, streams, samples = _world()
    encoder = build_encoder("published", renderer, 16, streams.torch_generator("init"))
    objective = build_objective(name, weight, **({"num_slices": 32} if name == "sigreg" else {}))
    inverse = objective_gap(published_inverse(encoder, renderer), objective, samples.fit, samples.validation, 128,
                            torch.Generator().manual_seed(1))
    untrained = objective_gap(encoder, objective, samples.fit, samples.validation, 128,
                              torch.Generator().manual_seed(1))
    assert inverse.batches == untrained.batches == 8
    assert inverse.answer == pytest.approx(untrained.answer)  # same batches, same directions
    # The inverse returns z: with c = 1 the gap is float rounding; a shrunk answer is at least as low.
    assert inverse.trained == pytest.approx(inverse.answer_unscaled, rel=1e-4)
    assert inverse.answer <= inverse.answer_unscaled + 1e-9
    assert optimum_reading(untrained.gap, untrained.gap_se) == ABOVE


def test_a_soft_penalty_prefers_a_shrunk_answer_and_the_control_prefers_collapse() -> None:
    _, _, _, samples = _world()
    identity = nn.Identity()  # evaluated on z-valued "observations" below
    whitening = objective_gap(identity, build_objective("whitening", 0.3), samples.fit, samples.validation, 128,
                              torch.Generator().manual_seed(0))
    # Population optimum of alignment + w ||C - I||^2 among c z: c^2 = 1 - (1 - rho)/w = 1/3.
    assert whitening.answer_scale == pytest.approx(math.sqrt(1 / 3), abs=0.08)
    control = objective_gap(identity, build_objective("whitening", 0.0), samples.fit, samples.validation, 128,
                            torch.Generator().manual_seed(0))
    assert control.answer_scale == 0.0 and control.answer == 0.0  # alignment alone: the collapse, at exactly 0
    assert control.gap == pytest.approx(control.trained)


def test_optimum_reading_uses_two_standard_errors() -> None:
    assert optimum_reading(0.3, 0.1) == ABOVE
    assert optimum_reading(0.2, 0.1) == AT
    assert optimum_reading(-0.21, 0.1) == BELOW


def test_batch_whitening_is_blind_to_coordinate_scales_and_whitens() -> None:
    generator = torch.Generator().manual_seed(3)
    h = torch.randn(512, 6, generator=generator) @ (torch.randn(6, 6, generator=generator) + 3 * torch.eye(6))
    h_pos = h + 0.3 * torch.randn(512, 6, generator=generator)
    first, second = batch_whiten(h, h_pos)
    scales = torch.tensor([0.01, 1.0, 3.0, 100.0, 0.5, 2.0])
    scaled_first, scaled_second = batch_whiten(h * scales, h_pos * scales)
    assert torch.allclose(first, scaled_first, atol=1e-4) and torch.allclose(second, scaled_second, atol=1e-4)
    both = torch.cat([first, second])
    assert torch.allclose(both.T @ both / len(both), torch.eye(6), atol=1e-2)  # up to the ridge
    total = build_objective("whitened", 1.0)(h, h_pos, generator)[1]
    assert total["total"] == pytest.approx(float(alignment_loss(first, second)), rel=1e-5)


def test_batch_whitening_needs_more_rows_than_dimensions_and_a_unit_weight() -> None:
    with pytest.raises(ValueError, match="more rows"):
        batch_whiten(torch.randn(4, 9), torch.randn(4, 9))
    with pytest.raises(ValueError, match="weight is 1"):
        build_objective("whitened", 0.5)


def test_supervised_training_regresses_onto_z(tmp_path) -> None:
    world, renderer, streams, samples = _world(n=2)
    encoder = build_encoder("mlp", renderer, 32, streams.torch_generator("init"))
    objective = supervised_objective()
    with torch.no_grad():
        before = float(objective(encoder(samples.test.x), samples.test.z, torch.Generator())[0])
    train(encoder, WorldPairs(world, renderer, targets=True), objective,
          TrainSettings(max_steps=300, batch_size=128, lr=1e-2, eval_every=None, checkpoint_every=300),
          streams.torch_generator("batches"), None, progress=False)
    with torch.no_grad():
        after = float(objective(encoder(samples.test.x), samples.test.z, torch.Generator())[0])
    assert after < 0.2 * before


def test_a_restart_changes_the_weights_and_batches_but_not_the_world() -> None:
    streams = SeedStreams.derive(11)
    assert streams.restart(0) == streams
    first, second = streams.restart(1), streams.restart(2)
    for other in (first, second):
        assert (other.renderer, other.fit, other.validation, other.test) == (
            streams.renderer, streams.fit, streams.validation, streams.test)
        assert other.init != streams.init and other.batches != streams.batches
    assert first.init != second.init and streams.restart(1) == first


def test_the_answer_at_m_other_than_n_is_orthonormal_and_holds_degree_one_first() -> None:
    z = torch.randn(200_000, 4, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    assert torch.equal(answer_features(z, 3), z[:, :3])
    features = answer_features(z, largest_answer_dim(4))  # 4 + 10 = 14: all of degrees 1 and 2
    assert features.shape == (200_000, 14) and torch.equal(features[:, :4], z)
    covariance = features.T @ features / len(z)
    assert torch.allclose(covariance, torch.eye(14, dtype=torch.float64), atol=0.02)
    with pytest.raises(ValueError, match="got m = 15"):
        answer_features(z, 15)


class _Answer(nn.Module):
    """The answer φ_m of its input (placed after the renderer's exact inverse)."""

    def __init__(self, m: int) -> None:
        super().__init__()
        self.m = m

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return answer_features(x, self.m)


@pytest.mark.parametrize("m", [2, 9])
def test_the_hard_constraint_at_m_other_than_n_has_the_mehler_value_at_its_answer(m: int) -> None:
    _, renderer, streams, samples = _world()
    inverse = published_inverse(build_encoder("published", renderer, 16, streams.torch_generator("init")), renderer)
    gap = objective_gap(nn.Sequential(inverse, _Answer(m)), build_objective("whitened", 1.0), samples.fit, samples.validation, 128,
                        torch.Generator().manual_seed(0), m)
    assert gap.trained == pytest.approx(gap.answer_unscaled, rel=1e-4) and gap.answer_scale == 1.0
    # Whitened alignment is sum_k 2 (1 - lambda_k): rho for each degree-1 coordinate, rho^2 for degree 2.
    degree_one, degree_two = min(m, 4), max(m - 4, 0)
    expected = 2 * (degree_one * (1 - 0.8) + degree_two * (1 - 0.8**2))
    assert gap.answer == pytest.approx(expected, rel=0.15)
    assert optimum_reading(gap.gap, gap.gap_se) == AT


@pytest.mark.parametrize("m", [4, 9])
def test_the_population_gap_is_zero_at_the_answer_and_positive_for_a_random_encoder(m: int) -> None:
    """The hard constraint's gap on the population objective (fit-sample whitening, validation pairs): the
    exact inverse followed by the top-m eigenfunctions is the answer itself (gap 0 to rounding); a random
    head on the inverse, whitened the same way, is above it, and the answer's value is the Mehler sum."""
    _, renderer, streams, samples = _world()
    inverse = published_inverse(build_encoder("published", renderer, 16, streams.torch_generator("init")), renderer)
    at_answer = whitened_population_gap(Whitened(nn.Sequential(inverse, _Answer(m)), samples.fit.x), samples.fit,
                                        samples.validation, m)
    assert at_answer["gap"] == pytest.approx(0.0, abs=1e-3) and at_answer["pairs"] == 1024
    assert at_answer["trained"] == pytest.approx(at_answer["answer"], rel=1e-4)
    degree_one, degree_two = min(m, 4), max(m - 4, 0)
    assert at_answer["answer"] == pytest.approx(2 * (degree_one * 0.2 + degree_two * (1 - 0.8**2)), rel=0.15)
    mixing = nn.Linear(4, m)
    with torch.no_grad():
        mixing.weight.copy_(torch.randn(m, 4, generator=torch.Generator().manual_seed(3)))
    random_head = Whitened(nn.Sequential(inverse, mixing, nn.Tanh()), samples.fit.x)
    away = whitened_population_gap(random_head, samples.fit, samples.validation, m)
    assert optimum_reading(away["gap"], away["gap_se"]) == ABOVE
