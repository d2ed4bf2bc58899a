"""A tiny encoder training run on a handful of rendered frames, and its checkpoint resume."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lejepa_wm.experiments.reacher.encoder import FrameEncoder, embed_frames, learning_rate, train_encoder

SETTINGS = dict(embed_dim=2, batch_size=8, lr=1e-3, sigreg_weight=1.0, seed=0, sigreg_slices=16, progress=False)


@pytest.fixture(scope="module")
def pairs(renderer):
    angles = np.random.default_rng(0).normal(size=(16, 2))
    return renderer.render(angles), renderer.render(angles + 0.2)


def test_tiny_training_run_gives_finite_losses_and_embeddings(pairs):
    model, history = train_encoder(*pairs, epochs=3, **SETTINGS)
    assert len(history) == 3
    assert all(np.isfinite(entry["total"]) and {"alignment", "sigreg"} <= set(entry) for entry in history)
    h = embed_frames(model, pairs[0])
    assert h.shape == (16, 2) and h.dtype == np.float64 and np.all(np.isfinite(h))
    assert h.std(axis=0).min() > 0  # not collapsed to a point


@pytest.mark.parametrize("schedule", ["constant", "cosine"])
def test_resume_from_checkpoint_matches_uninterrupted_run(pairs, tmp_path, schedule):
    straight, _ = train_encoder(*pairs, epochs=2, lr_schedule=schedule, **SETTINGS)
    checkpoint = tmp_path / "checkpoint.pt"
    train_encoder(*pairs, epochs=1, checkpoint=checkpoint, lr_schedule=schedule, **SETTINGS)
    resumed, history = train_encoder(*pairs, epochs=2, checkpoint=checkpoint, lr_schedule=schedule, **SETTINGS)
    assert len(history) == 2
    for a, b in zip(straight.state_dict().values(), resumed.state_dict().values()):
        torch.testing.assert_close(a, b)


def test_cosine_schedule_warms_up_peaks_and_decays_to_zero():
    total, peak = 200, 3e-3
    rates = np.array([learning_rate(step, total, peak, "cosine") for step in range(total)])
    warmup = 10  # 5 % of 200 steps
    np.testing.assert_allclose(rates[:warmup], peak * np.arange(1, warmup + 1) / warmup)
    assert rates.max() == pytest.approx(peak) and np.argmax(rates) in (warmup - 1, warmup)
    assert np.all(np.diff(rates[warmup:]) < 0) and rates[-1] < 1e-3 * peak
    assert learning_rate(7, total, peak, "constant") == peak


def test_bad_inputs_raise():
    frames = np.zeros((4, 64, 64, 3), dtype=np.uint8)
    with pytest.raises(ValueError, match="uint8"):
        train_encoder(frames.astype(np.float32), frames, epochs=1, **SETTINGS)
    with pytest.raises(ValueError, match="epochs"):
        train_encoder(frames, frames, epochs=0, **SETTINGS)
    with pytest.raises(ValueError, match="embed_dim"):
        FrameEncoder(embed_dim=0)
    with pytest.raises(ValueError, match="lr_schedule"):
        train_encoder(frames, frames, epochs=1, lr_schedule="linear", **SETTINGS)
