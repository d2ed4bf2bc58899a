"""The one training loop: resume after an interruption, the final checkpoint, divergence, settings, schedule;
the optional TensorBoard log of its history."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest
import torch

from lejepa_wm.commands.cli import main
from lejepa_wm.experiments import EXPERIMENT_MODULES, get_experiment, training_log
from lejepa_wm.experiments.base import logs_evaluations
from lejepa_wm.experiments.encoders import build_encoder
from lejepa_wm.experiments.flows import make_renderer
from lejepa_wm.experiments.heldout import HeldOutSamples, validation_metrics
from lejepa_wm.experiments.objectives import build_objective
from lejepa_wm.experiments.training import (CHECKPOINT_FILE, DatasetPairs, TrainingDivergedError, TrainSettings,
                                            WorldPairs, train)
from lejepa_wm.experiments.training_log import tensorboard_log
from lejepa_wm.experiments.worlds import GaussianWorld
from lejepa_wm.schema import read
from lejepa_wm.seeds import SeedStreams


class Interrupt(Exception):
    pass


def _setup(lr: float = 1e-2, **settings):
    world = GaussianWorld.isotropic(4, 0.8)
    streams = SeedStreams.derive(3)
    renderer = make_renderer("published", 4, streams.renderer)
    encoder = build_encoder("matched_additive", renderer, 16, streams.torch_generator("init"))
    samples = HeldOutSamples.draw(world, renderer, 256, streams, "cpu")
    base = dict(max_steps=60, batch_size=64, lr=lr, warmup_steps=5, decay_fraction=0.5, eval_every=10,
                checkpoint_every=20)
    return (encoder, WorldPairs(world, renderer), build_objective("sigreg", 1.0, num_slices=16),
            TrainSettings(**{**base, **settings}), streams.torch_generator("batches"),
            lambda model: validation_metrics(model, samples))


def _interrupted_at_45_then_resumed(run_dir, **settings):
    """Train until an interruption after step 45, then rebuild everything (a fresh process) and resume."""
    encoder, pairs, objective, train_settings, generator, evaluator = _setup(**settings)

    def stop_at_45(step: int) -> None:
        if step == 45:
            raise Interrupt

    with pytest.raises(Interrupt):
        train(encoder, pairs, objective, train_settings, generator, run_dir, evaluator, progress=False,
              step_callback=stop_at_45)
    assert (run_dir / CHECKPOINT_FILE).exists()
    encoder, pairs, objective, train_settings, generator, evaluator = _setup(**settings)
    return train(encoder, pairs, objective, train_settings, generator, run_dir, evaluator, progress=False), encoder


def test_resume_after_interruption_gives_the_same_result(tmp_path):
    encoder, pairs, objective, settings, generator, evaluator = _setup()
    reference = train(encoder, pairs, objective, settings, generator, tmp_path / "a", evaluator, progress=False)
    (tmp_path / "b").mkdir()
    resumed, _ = _interrupted_at_45_then_resumed(tmp_path / "b")
    assert resumed.resumed_from == 40
    assert resumed.steps == reference.steps == 60
    assert resumed.final["probe_r2"] == pytest.approx(reference.final["probe_r2"], abs=1e-6)
    assert [r["probe_r2"] for r in resumed.history] == pytest.approx([r["probe_r2"] for r in reference.history],
                                                                     abs=1e-6)


def test_the_final_checkpoint_is_kept_and_a_rerun_trains_no_further(tmp_path):
    """The loop never deletes its checkpoint: a kill before metrics.json is written loses no training."""
    encoder, pairs, objective, settings, generator, evaluator = _setup()
    first = train(encoder, pairs, objective, settings, generator, tmp_path, evaluator, progress=False)
    assert torch.load(tmp_path / CHECKPOINT_FILE, weights_only=False)["finished"]
    encoder, pairs, objective, settings, generator, evaluator = _setup()
    steps = []
    again = train(encoder, pairs, objective, settings, generator, tmp_path, evaluator, progress=False,
                  step_callback=steps.append)
    assert steps == [] and again.steps == first.steps
    assert again.final["probe_r2"] == pytest.approx(first.final["probe_r2"], abs=1e-9)


def test_early_stop_on_the_validation_r2():
    encoder, pairs, objective, settings, generator, evaluator = _setup(max_steps=200, checkpoint_every=10,
                                                                        stop_r2=0.5)
    result = train(encoder, pairs, objective, settings, generator, None, evaluator, progress=False)
    assert result.steps_to_target == result.steps == 10  # the raw observation is already above 0.5
    assert result.final["probe_r2"] >= 0.5


def test_divergence_stops_with_a_clear_error():
    encoder, pairs, objective, settings, generator, evaluator = _setup()

    def nan_objective(h, h_pos, gen):
        loss, parts = objective(h, h_pos, gen)
        return loss * math.nan, {**parts, "total": math.nan}

    with pytest.raises(TrainingDivergedError, match="diverged at step 1: loss nan"):
        train(encoder, pairs, nan_objective, settings, generator, None, evaluator, progress=False)


def test_a_finite_loss_above_max_loss_stops_training_too():
    encoder, pairs, objective, settings, generator, evaluator = _setup(max_loss=1e-6)
    with pytest.raises(TrainingDivergedError, match=r"diverged at step 1: loss .*\(threshold 1e-06"):
        train(encoder, pairs, objective, settings, generator, None, evaluator, progress=False)


def test_dataset_pairs_visit_every_pair_once_per_epoch_in_a_seeded_order():
    first = torch.arange(10).unsqueeze(1)
    pairs = DatasetPairs(first, first + 100, order_seed=7)
    assert pairs.steps_per_epoch(3) == 3
    epoch0 = torch.cat([pairs.draw(step, 3, torch.Generator())[0] for step in range(3)]).ravel().tolist()
    assert len(set(epoch0)) == 9  # three full batches of distinct pairs, the remainder left out
    again = DatasetPairs(first, first + 100, order_seed=7)
    assert again.draw(4, 3, torch.Generator())[0].tolist() == pairs.draw(4, 3, torch.Generator())[0].tolist()
    x, x_pos = pairs.draw(5, 3, torch.Generator())
    assert torch.equal(x_pos, x + 100)


@pytest.mark.parametrize("kwargs, message", [
    ({"lr": -1.0}, "lr"), ({"batch_size": 0}, "batch_size"), ({"decay_fraction": 1.5}, "decay_fraction"),
    ({"checkpoint_every": 15}, "multiple"), ({"stop_r2": 1.5}, "stop_r2"), ({"warmup_steps": -1}, "warmup_steps"),
    ({"weight_decay": math.nan}, "weight_decay"), ({"decay_fraction": math.inf}, "decay_fraction"),
    ({"eval_every": None, "stop_r2": 0.9}, "stop_r2"), ({"average_decay": 1.0}, "average_decay"),
    ({"precision": "float16"}, "'precision' must be 'float32' or 'bfloat16'; got 'float16'"),
])
def test_bad_settings_raise(kwargs, message):
    """Read as a config or a spec reads them: each field's range, and the relations between fields."""
    base = {"max_steps": 10, "batch_size": 8, "lr": 1e-3, "eval_every": 10, "checkpoint_every": 10}
    with pytest.raises(ValueError, match=message):
        read(TrainSettings, {**base, **kwargs}, "train")


def test_learning_rate_schedule():
    settings = TrainSettings(max_steps=100, batch_size=8, lr=1.0, warmup_steps=10, decay_fraction=0.5,
                             eval_every=10, checkpoint_every=10)
    assert settings.learning_rate(0) == pytest.approx(0.1)
    assert settings.learning_rate(20) == 1.0 and settings.learning_rate(49) == 1.0
    assert settings.learning_rate(75) == pytest.approx(0.5)
    assert settings.learning_rate(99) < 0.01


def test_weight_averaging_returns_the_average_and_resumes_identically(tmp_path):
    encoder, pairs, objective, settings, generator, evaluator = _setup(average_decay=0.9)
    last_iterate = {}

    def keep_last(step: int) -> None:  # the raw iterate after the last update, before averaging replaces it
        if step == settings.max_steps:
            last_iterate.update({k: v.clone() for k, v in encoder.state_dict().items()})

    reference = train(encoder, pairs, objective, settings, generator, tmp_path / "a", evaluator, progress=False,
                      step_callback=keep_last)
    averaged = {k: v.clone() for k, v in encoder.state_dict().items()}
    assert any(not torch.equal(averaged[k], last_iterate[k]) for k in averaged)  # the average, not the iterate
    resumed, encoder = _interrupted_at_45_then_resumed(tmp_path / "b", average_decay=0.9)
    assert resumed.resumed_from == 40
    assert all(torch.allclose(encoder.state_dict()[k], averaged[k], atol=1e-6) for k in averaged)
    assert resumed.final["probe_r2"] == pytest.approx(reference.final["probe_r2"], abs=1e-6)


def test_the_weight_average_weighs_every_iterate_by_its_ramped_exponential_weight():
    """``θ̄_t = Σ_s w_s θ_s`` with ``w_s = r_s Π_(u>s) (1 − r_u)``, ``r_1 = 1`` and
    ``r_u = max(1 − d, 9 / (9 + u))``."""
    decay = 0.9
    encoder, pairs, objective, settings, generator, evaluator = _setup(average_decay=decay, max_steps=120,
                                                                       checkpoint_every=30, eval_every=30)
    iterates = []
    train(encoder, pairs, objective, settings, generator, None, evaluator, progress=False,
          step_callback=lambda step: iterates.append({k: v.double().clone() for k, v in encoder.state_dict().items()}))
    t = len(iterates)
    rates = [1.0] + [max(1 - decay, 9 / (9 + u)) for u in range(2, t + 1)]
    weights = [rates[s] * math.prod(1 - r for r in rates[s + 1:]) for s in range(t)]
    assert sum(weights) == pytest.approx(1.0)
    assert weights[0] < 1e-6  # the first weights are forgotten (a fixed 0.9 would keep 0.9^119 = 3.6e-6)
    for key, value in encoder.state_dict().items():
        expected = sum(w * iterate[key] for w, iterate in zip(weights, iterates))
        assert torch.allclose(value.double(), expected, atol=1e-6), key


def test_a_setting_at_its_default_is_left_out_of_the_spec():
    from lejepa_wm.experiments.scaling import EXPERIMENT
    from lejepa_wm.experiments.run_params import SyntheticRunParams

    config = EXPERIMENT.load_config("quick")
    params = config.run_at(2, "matched_additive", "sigreg", 0)
    assert "average_decay" not in params.to_dict()["train"]  # specs of runs shipped before the setting are unchanged
    assert "precision" not in params.to_dict()["train"]
    averaged = SyntheticRunParams.from_dict({**params.to_dict(), "train": {**params.to_dict()["train"],
                                                                             "average_decay": 0.99}})
    assert averaged.train.average_decay == 0.99 and averaged.to_dict()["train"]["average_decay"] == 0.99


def test_bfloat16_passes_train_nearly_as_float32_and_change_the_weights():
    """bfloat16 autocast of the encoder: the same run within bfloat16's rounding, and not the float32 run itself."""
    results, weights = {}, {}
    for precision in ("float32", "bfloat16"):
        encoder, pairs, objective, settings, generator, evaluator = _setup(precision=precision)
        results[precision] = train(encoder, pairs, objective, settings, generator, None, evaluator, progress=False)
        weights[precision] = torch.cat([p.detach().flatten() for p in encoder.parameters()])
        assert all(p.dtype == torch.float32 for p in encoder.parameters())  # the weights stay float32
    assert not torch.equal(weights["float32"], weights["bfloat16"])  # autocast was in effect
    assert torch.allclose(weights["float32"], weights["bfloat16"], atol=0.05)
    assert results["bfloat16"].final["probe_r2"] == pytest.approx(results["float32"].final["probe_r2"], abs=1e-3)


needs_tensorboard = pytest.mark.skipif(importlib.util.find_spec("tensorboard") is None,
                                       reason="the tensorboard package (extra 'tensorboard') is not installed")


def _logged_scalars(folder: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar in the event files below ``folder``: tag -> [(step, value)]."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder))
    events.Reload()
    return {tag: [(event.step, event.value) for event in events.Scalars(tag)] for tag in events.Tags()["scalars"]}


def test_no_folder_no_log() -> None:
    with tensorboard_log(None) as log:
        assert log is None


@pytest.mark.parametrize("name", sorted(EXPERIMENT_MODULES))
def test_every_shipped_experiment_can_log_its_training(name: str) -> None:
    assert logs_evaluations(get_experiment(name))


@needs_tensorboard
def test_every_history_row_is_logged_against_its_step(tmp_path: Path) -> None:
    encoder, pairs, objective, settings, generator, evaluator = _setup()
    with tensorboard_log(tmp_path / "log") as log:
        result = train(encoder, pairs, objective, settings, generator, None, evaluator, progress=False,
                       on_evaluation=log)
    scalars = _logged_scalars(tmp_path / "log")
    assert [step for step, _ in scalars["probe_r2"]] == [row["step"] for row in result.history]
    assert [value for _, value in scalars["probe_r2"]] == pytest.approx([row["probe_r2"] for row in result.history])
    assert {"loss_total", "lr", "seconds"} <= set(scalars) and "step" not in scalars


@needs_tensorboard
def test_a_run_logs_into_its_own_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["run", "bounds", "dims=2", "seeds=2", "methods=sigreg", "steps=40", "warmup_steps=5",
                   "eval_every=10", "--out", str(tmp_path / "results"), "--tensorboard", str(tmp_path / "tb")])
    assert status == 0, capsys.readouterr()
    run_ids = sorted(path.parent.name for path in (tmp_path / "results" / "bounds" / "quick" / "runs").glob(
        "*/metrics.json"))
    assert run_ids and sorted(path.name for path in (tmp_path / "tb" / "bounds" / "quick").iterdir()) == run_ids
    for run_id in run_ids:
        history = json.loads((tmp_path / "results" / "bounds" / "quick" / "runs" / run_id / "metrics.json")
                             .read_text())["history"]
        scalars = _logged_scalars(tmp_path / "tb" / "bounds" / "quick" / run_id)
        assert [step for step, _ in scalars["probe_r2"]] == [row["step"] for row in history if "probe_r2" in row]


def test_without_the_package_a_launch_is_refused_before_any_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(training_log.importlib.util, "find_spec",
                        lambda name, *args: None if name == "tensorboard" else real_find_spec(name, *args))
    status = main(["run", "bounds", "--out", str(tmp_path / "results"), "--tensorboard", str(tmp_path / "tb")])
    err = capsys.readouterr().err
    assert status == 2 and "tensorboard" in err and "pip install" in err
    assert not (tmp_path / "results" / "bounds").exists() and not (tmp_path / "tb").exists()
