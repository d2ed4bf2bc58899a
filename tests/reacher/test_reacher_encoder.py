"""A tiny encoder training run on a handful of rendered frames, and its checkpoint resume."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lejepa_wm.experiments.reacher.encoder import FrameEncoder, embed_frames, train_encoder

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


def test_resume_from_checkpoint_matches_uninterrupted_run(pairs, tmp_path):
    straight, _ = train_encoder(*pairs, epochs=2, **SETTINGS)
    checkpoint = tmp_path / "checkpoint.pt"
    train_encoder(*pairs, epochs=1, checkpoint=checkpoint, **SETTINGS)
    resumed, history = train_encoder(*pairs, epochs=2, checkpoint=checkpoint, **SETTINGS)
    assert len(history) == 2
    for a, b in zip(straight.state_dict().values(), resumed.state_dict().values()):
        torch.testing.assert_close(a, b)


def test_bad_inputs_raise():
    frames = np.zeros((4, 64, 64, 3), dtype=np.uint8)
    with pytest.raises(ValueError, match="uint8"):
        train_encoder(frames.astype(np.float32), frames, epochs=1, **SETTINGS)
    with pytest.raises(ValueError, match="epochs"):
        train_encoder(frames, frames, epochs=0, **SETTINGS)
    with pytest.raises(ValueError, match="embed_dim"):
        FrameEncoder(embed_dim=0)
