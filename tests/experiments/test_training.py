"""The training loop: resume after an interruption, divergence errors, settings validation, schedule."""

from __future__ import annotations

import math

import pytest

from lejepa_wm.experiments.encoders import build_encoder
from lejepa_wm.experiments.flows import make_mixing
from lejepa_wm.experiments.objectives import build_objective
from lejepa_wm.experiments.training import (CHECKPOINT_FILE, TrainingDivergedError, TrainSettings, train)
from lejepa_wm.experiments.worlds import GaussianWorld


class Interrupt(Exception):
    pass


def _setup(lr: float = 1e-2):
    world = GaussianWorld.isotropic(4, 0.8)
    mixing = make_mixing(4, 2, 8, 0.5, 0.1, seed=0)
    encoder = build_encoder("matched", mixing, hidden=16, seed=0)
    settings = TrainSettings(max_steps=60, batch_size=64, lr=lr, seed=3, warmup_steps=5, decay_fraction=0.5,
                             eval_every=10, checkpoint_every=20, probe_size=256)
    return world, mixing, encoder, build_objective("sigreg", 1.0, num_slices=16), settings


def test_resume_after_interruption_gives_the_same_result(tmp_path):
    world, mixing, encoder, objective, settings = _setup()
    reference = train(encoder, world, mixing, objective, settings, tmp_path / "a", progress=False)

    (tmp_path / "b").mkdir()
    world, mixing, encoder, objective, settings = _setup()

    def stop_at_45(step: int) -> None:
        if step == 45:
            raise Interrupt

    with pytest.raises(Interrupt):
        train(encoder, world, mixing, objective, settings, tmp_path / "b", progress=False, step_callback=stop_at_45)
    assert (tmp_path / "b" / CHECKPOINT_FILE).exists()
    world, mixing, encoder, objective, settings = _setup()  # a fresh process would rebuild everything
    resumed = train(encoder, world, mixing, objective, settings, tmp_path / "b", progress=False)
    assert resumed.resumed_from == 40
    assert resumed.steps == reference.steps == 60
    assert resumed.final["probe_r2"] == pytest.approx(reference.final["probe_r2"], abs=1e-6)
    assert [r["probe_r2"] for r in resumed.history] == pytest.approx([r["probe_r2"] for r in reference.history],
                                                                     abs=1e-6)
    assert not (tmp_path / "b" / CHECKPOINT_FILE).exists()  # removed once finished


def test_early_stop_on_held_out_r2():
    world, mixing, encoder, objective, _ = _setup()
    settings = TrainSettings(max_steps=200, batch_size=64, lr=1e-2, seed=0, eval_every=10, checkpoint_every=10,
                             stop_r2=0.5, probe_size=256)
    result = train(encoder, world, mixing, objective, settings, None, progress=False)
    assert result.steps_to_target == result.steps == 10  # the raw observation is already above 0.5
    assert result.final["probe_r2"] >= 0.5


def test_divergence_stops_with_a_clear_error():
    world, mixing, encoder, _, settings = _setup(lr=1e-2)
    exploding = build_objective("sigreg", 1.0, num_slices=8)

    def nan_objective(h, h_pos, generator):
        loss, parts = exploding(h, h_pos, generator)
        return loss * math.nan, {**parts, "total": math.nan}

    with pytest.raises(TrainingDivergedError, match="diverged at step 1: loss nan"):
        train(encoder, world, mixing, nan_objective, settings, None, progress=False)


@pytest.mark.parametrize("kwargs, message", [
    ({"lr": -1.0}, "lr"), ({"batch_size": 0}, "batch_size"), ({"decay_fraction": 1.5}, "decay_fraction"),
    ({"checkpoint_every": 15}, "multiple"), ({"stop_r2": 1.5}, "stop_r2"),
])
def test_bad_settings_raise(kwargs, message):
    base = {"max_steps": 10, "batch_size": 8, "lr": 1e-3, "seed": 0, "eval_every": 10, "checkpoint_every": 10}
    with pytest.raises(ValueError, match=message):
        TrainSettings(**{**base, **kwargs})


def test_learning_rate_schedule():
    settings = TrainSettings(max_steps=100, batch_size=8, lr=1.0, seed=0, warmup_steps=10, decay_fraction=0.5,
                             eval_every=10, checkpoint_every=10)
    assert settings.learning_rate(0) == pytest.approx(0.1)
    assert settings.learning_rate(20) == 1.0 and settings.learning_rate(49) == 1.0
    assert settings.learning_rate(75) == pytest.approx(0.5)
    assert settings.learning_rate(99) < 0.01
