"""The frame encoder trained by the shared loop: seeded initialization, finite training, exact resume, the schedule."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch

from lejepa_wm.experiments.objectives import build_objective
from lejepa_wm.experiments.reacher.config import load_config
from lejepa_wm.experiments.reacher.encoder import build_frame_encoder, embed_frames
from lejepa_wm.experiments.training import DatasetPairs, TrainSettings, train
from lejepa_wm.seeds import SeedStreams

SETTINGS = TrainSettings(max_steps=6, batch_size=8, lr=1e-3, warmup_steps=2, decay_fraction=0.5, eval_every=None,
                         checkpoint_every=2)
STREAMS = SeedStreams.derive(0)


@pytest.fixture(scope="module")
def pairs(renderer):
    angles = np.random.default_rng(0).normal(size=(16, 2))
    return renderer.render(angles), renderer.render(angles + 0.2)


def _train(pairs, run_dir=None, step_callback=None):
    encoder = build_frame_encoder(2, 64, STREAMS.torch_generator("init"))
    source = DatasetPairs(torch.from_numpy(pairs[0]), torch.from_numpy(pairs[1]), order_seed=STREAMS.batches)
    result = train(encoder, source, build_objective("sigreg", 1.0, num_slices=16), SETTINGS,
                   STREAMS.torch_generator("batches"), run_dir, progress=False, step_callback=step_callback)
    return encoder, result


def test_initialization_comes_from_the_init_stream_alone():
    global_state = torch.random.get_rng_state()
    first = build_frame_encoder(2, 64, torch.Generator().manual_seed(1))
    torch.manual_seed(12345)  # the global generator must play no part
    again = build_frame_encoder(2, 64, torch.Generator().manual_seed(1))
    other = build_frame_encoder(2, 64, torch.Generator().manual_seed(2))
    for a, b, c in zip(first.state_dict().values(), again.state_dict().values(), other.state_dict().values()):
        torch.testing.assert_close(a, b)
        assert not torch.equal(a, c)
    torch.random.set_rng_state(global_state)


def test_tiny_training_run_gives_finite_losses_and_embeddings(pairs):
    encoder, result = _train(pairs)
    assert result.steps == 6 and len(result.history) == 3  # losses at every checkpoint (steps 2, 4, 6)
    assert all(np.isfinite(row["loss_total"]) and "loss_sigreg" in row for row in result.history)
    h = embed_frames(encoder, pairs[0])
    assert h.shape == (16, 2) and h.dtype == np.float64 and np.all(np.isfinite(h))
    assert h.std(axis=0).min() > 0  # not collapsed to a point


def test_embedding_restores_the_training_mode(pairs):
    encoder = build_frame_encoder(2, 64, torch.Generator().manual_seed(0))
    encoder.train()
    embed_frames(encoder, pairs[0][:3])
    assert encoder.training


def test_interrupted_training_resumes_to_the_uninterrupted_weights(pairs, tmp_path):
    straight, _ = _train(pairs)

    def interrupt(step: int) -> None:
        if step == 3:
            raise KeyboardInterrupt("simulated interruption")

    with pytest.raises(KeyboardInterrupt):
        _train(pairs, tmp_path, interrupt)
    resumed, result = _train(pairs, tmp_path)
    assert result.resumed_from == 2
    for a, b in zip(straight.state_dict().values(), resumed.state_dict().values()):
        torch.testing.assert_close(a, b)


def test_epochs_and_schedule_map_onto_the_shared_loop():
    config = load_config("quick")
    settings = config.train_settings()
    assert settings.max_steps == config.epochs * (config.train_pairs // config.batch_size) == 4056
    assert settings.weight_decay == 0.0  # AdamW without decay is Adam
    warmup = settings.warmup_steps
    assert warmup == round(0.05 * settings.max_steps)
    rates = np.array([settings.learning_rate(step) for step in range(settings.max_steps)])
    np.testing.assert_allclose(rates[:warmup], config.lr * np.arange(1, warmup + 1) / warmup)
    assert rates.max() == pytest.approx(config.lr)
    assert np.all(np.diff(rates[warmup:]) < 0) and rates[-1] < 1e-4 * config.lr  # cosine from the end of warmup


def test_reacher_code_never_seeds_a_global_generator():
    package = Path(__file__).resolve().parents[2] / "lejepa_wm" / "experiments" / "reacher"
    offenders = [path.name for path in package.glob("*.py")
                 if re.search(r"torch\.manual_seed|np\.random\.seed\(|(?<![\w.])random\.seed\(", path.read_text())]
    assert offenders == []
