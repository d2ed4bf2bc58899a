"""The three held-out samples: disjoint, each from its own seed stream, and what is measured on each."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lejepa_wm.experiments.encoders import build_encoder
from lejepa_wm.experiments.flows import make_renderer
from lejepa_wm.experiments.heldout import (SPLITS, HeldOutSamples, delta_standard_error, raw_observation_r2,
                                           reported_metrics, validation_metrics)
from lejepa_wm.experiments.metrics import alignment_terms, t3_from_samples
from lejepa_wm.experiments.worlds import GaussianWorld, rates_to_rho
from lejepa_wm.seeds import SeedStreams


def _samples(seed: int = 0, rho=None, size: int = 512) -> HeldOutSamples:
    world = GaussianWorld(4, tuple(rho)) if rho is not None else GaussianWorld.isotropic(4, 0.8)
    streams = SeedStreams.derive(seed)
    return HeldOutSamples.draw(world, make_renderer("published", 4, streams.renderer), size, streams, "cpu")


def test_the_three_samples_share_no_point():
    samples = _samples()
    rows = {split: {tuple(row) for row in getattr(samples, split).z.numpy().round(6)} for split in SPLITS}
    assert all(len(rows[split]) == 512 for split in SPLITS)
    assert not rows["fit"] & rows["validation"] and not rows["fit"] & rows["test"]
    assert not rows["validation"] & rows["test"]


def test_each_sample_comes_from_its_own_stream():
    streams = SeedStreams.derive(0)
    world = GaussianWorld.isotropic(4, 0.8)
    renderer = make_renderer("published", 4, streams.renderer)
    base = HeldOutSamples.draw(world, renderer, 64, streams, "cpu")
    other = HeldOutSamples.draw(world, renderer, 64, streams.with_stream("test", 12345), "cpu")
    assert torch.equal(base.fit.z, other.fit.z) and torch.equal(base.validation.z, other.validation.z)
    assert not torch.equal(base.test.z, other.test.z)


def test_a_perfect_encoder_is_a_rotation_on_the_test_sample_and_the_raw_input_is_not():
    samples = _samples(size=2048)

    class Inverse(torch.nn.Module):
        def forward(self, x):
            return make_renderer("published", 4, SeedStreams.derive(0).renderer).inverse(x)

    metrics = reported_metrics(Inverse(), samples)
    assert metrics["probe_r2"] > 0.999999 and metrics["procrustes_error"] < 1e-8
    assert metrics["scale_free_error"] < 1e-8 and metrics["procrustes_scale"] == pytest.approx(1.0, abs=1e-3)
    assert metrics["t3"]["bound"] + 2 * metrics["t3"]["D_se"] >= metrics["t3"]["error"]
    assert raw_observation_r2(samples) < 0.9
    assert validation_metrics(Inverse(), samples)["probe_r2"] > 0.999999


def test_a_shrunk_rotation_has_no_scale_free_error_but_is_far_from_a_rotation():
    samples = _samples(size=2048)
    renderer = make_renderer("published", 4, SeedStreams.derive(0).renderer)

    class Shrunk(torch.nn.Module):
        def forward(self, x):
            return 0.2 * renderer.inverse(x)

    metrics = reported_metrics(Shrunk(), samples)
    assert metrics["scale_free_error"] < 1e-8 and metrics["procrustes_scale"] == pytest.approx(0.2, abs=1e-3)
    assert metrics["procrustes_error"] == pytest.approx(0.64 * 4, rel=0.05)  # E||0.2 z - z||^2 = 0.64 n


def test_t3_is_not_computed_for_an_anisotropic_channel():
    samples = _samples(rho=rates_to_rho([1.0, 1.0, 1.0, 3.0], 0.5), size=256)
    encoder = build_encoder("mlp", make_renderer("published", 4, 0), 8, torch.Generator().manual_seed(0))
    metrics = reported_metrics(encoder, samples)
    assert metrics["t3"] is None and np.isfinite(metrics["probe_r2"])
    assert len(set(samples.rho)) == 2


def test_too_small_a_sample_is_refused():
    with pytest.raises(ValueError, match="eval_size"):
        _samples(size=16)


def test_delta_standard_error_is_the_batch_means_error_even_with_fewer_samples_per_chunk_than_dimensions():
    # 16 chunks of 8 pairs in 64 dimensions: no rotation can be fitted on a chunk, and none is needed
    rng = np.random.default_rng(3)
    z = rng.standard_normal((128, 64))
    z_pos = 0.8 * z + 0.6 * rng.standard_normal((128, 64))
    h, h_pos = np.tanh(z), np.tanh(z_pos)
    chunks = [alignment_terms(h[i * 8:(i + 1) * 8], h_pos[i * 8:(i + 1) * 8], 0.8)[2] for i in range(16)]
    assert delta_standard_error(h, h_pos, 0.8) == pytest.approx(np.std(chunks, ddof=1) / 4.0, rel=1e-12)
    assert alignment_terms(h, h_pos, 0.8)[2] == t3_from_samples(h, h_pos, z, 0.8)["delta"]
    with pytest.raises(ValueError, match="at least 32 samples"):
        delta_standard_error(h[:31], h_pos[:31], 0.8)
