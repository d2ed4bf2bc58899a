"""The experiment object: config validation, grid and seeds, and a tiny end-to-end sweep that resumes and reuses."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest
from PIL import Image

from lejepa_wm.atomic import read_json
from lejepa_wm.experiments import get_experiment
from lejepa_wm.experiments.base import CHECKPOINT_FILE, Experiment
from lejepa_wm.experiments.reacher import pipeline
from lejepa_wm.experiments.reacher.experiment import PLOT_FIGURES
from lejepa_wm.records import HeadlineEntry
from lejepa_wm.seeds import SEED_LIMIT, SeedStreams

REPO = Path(__file__).resolve().parents[2]

TINY = dict(train_pairs=60, heldout_pairs=40, heldout_episodes=2, chunk_pairs=30, sac_steps=40, epochs=2,
            plan_pairs=2, success_episodes=1, episode_steps=12, traj_delta=2, plan_steps=4, sigreg_slices=8,
            batch_size=20, knn=3, min_plan_distance=0.5, pca_components=[2, 10], eval_every=2, checkpoint_every=2)


def test_experiment_satisfies_the_protocol_and_configs_load():
    experiment = get_experiment("reacher")
    assert isinstance(experiment, Experiment)
    quick, full = experiment.load_config("quick"), experiment.load_config("full")
    assert quick.train_pairs < full.train_pairs and full.train_pairs == 100_000
    assert full.train_settings().max_steps == 25 * (100_000 // 128) > quick.train_settings().max_steps
    assert full.worlds >= 3 and set(full.control_fractions) == set(full.ou_fractions)  # worlds, every control
    assert quick.pca_components == (2, 50)
    specs = experiment.grid(quick, "quick", seed=5)
    assert [spec.run_id for spec in specs] == ["ou100_seed=5", "ou100_seed=5_control", "ou050_seed=5",
                                               "ou000_seed=5"]
    assert {spec.params["data_seed"] for spec in specs} == {5}
    assert SeedStreams.from_dict(specs[0].params["seeds"]) == SeedStreams.derive(5)
    assert specs[1].params["labels"]["control"] is True
    assert specs[2].params["labels"] == {"ou_fraction": 0.5, "mixture": "half OU, half trajectory", "seed": 5}
    with pytest.raises(ValueError, match="tuning"):
        experiment.grid(quick, "quick", seed=quick.tuning_seeds[0])


@pytest.mark.parametrize("override, message", [
    ({"ou_rho": 1.0}, "ou_rho"), ({"ou_fractions": [1.5]}, "ou_fractions"), ({"sac_reward": "shaped"}, "sac_reward"),
    ({"traj_delta": 500}, "traj_delta"), ({"epochs": 0}, "epochs"), ({"unknown_key": 1}, "unknown_key"),
    ({"lr_schedule": "cosine"}, "lr_schedule"), ({"decay_fraction": 1.5}, "decay_fraction"),
    ({"pca_components": [5000]}, "pca_components"), ({"residual_target": 1.0}, "residual_target"),
    ({"eval_every": 300}, "checkpoint_every"), ({"knn": 600}, "heldout_pairs 1000 is too small"),
    ({"target_xy": [0.1]}, "target_xy"), ({"angle_scale": 0.0}, "angle_scale"),
])
def test_bad_config_values_are_named(override, message):
    with pytest.raises(ValueError, match=message):
        get_experiment("reacher").load_config("quick", overrides=override)


@pytest.mark.parametrize("call, message", [
    (lambda config: config.run_seeds(-1), "seed offset must be an integer >= 0; got -1"),
    (lambda config: config.run_seeds(SEED_LIMIT - config.seeds), f"seed offset .*got {SEED_LIMIT - 3}"),
    (lambda config: config.run_seeds(1.0), "seed offset .*got 1.0"),
], ids=["negative-offset", "offset-too-high", "float-offset"])
def test_bad_seed_offsets_raise(call, message):
    config = get_experiment("reacher").load_config("quick", overrides={"seeds": 3})
    with pytest.raises(ValueError, match=message):
        call(config)


def test_tiny_sweep_resumes_after_an_interruption_and_reuses_finished_runs(renderer, tmp_path, monkeypatch):
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is needed for the trajectory data")
    from lejepa_wm.sweep.driver import run_sweep

    real_train = pipeline.train

    def interrupted_train(*args, description="", **kwargs):
        def stop(step: int) -> None:
            if step == 3:
                raise KeyboardInterrupt("simulated interruption")

        return real_train(*args, description=description,
                          **kwargs, step_callback=stop if description == "ou050_seed=0" else None)

    monkeypatch.setattr(pipeline, "train", interrupted_train)
    with pytest.raises(KeyboardInterrupt):
        run_sweep("reacher", "quick", tmp_path, executor="serial", overrides=TINY, progress=False)
    exp_dir = tmp_path / "reacher" / "quick"
    assert (exp_dir / "runs" / "ou100_seed=0" / "metrics.json").exists()
    assert (exp_dir / "runs" / "ou050_seed=0" / CHECKPOINT_FILE).exists()  # step 2 of the interrupted run
    monkeypatch.setattr(pipeline, "train", real_train)

    resumed = run_sweep("reacher", "quick", tmp_path, executor="serial", overrides=TINY, progress=False)
    assert resumed.reused == ("ou100_seed=0", "ou100_seed=0_control")
    assert resumed.executed == ("ou000_seed=0", "ou050_seed=0")
    assert resumed.failed == () and resumed.aggregated
    assert read_json(exp_dir / "runs" / "ou050_seed=0" / "metrics.json")["resumed_from"] == 2
    assert not list(exp_dir.glob(f"runs/*/{CHECKPOINT_FILE}"))  # removed once metrics.json was written
    again = run_sweep("reacher", "quick", tmp_path, executor="serial", overrides=TINY, progress=False)
    assert again.executed == () and len(again.reused) == 4
    assert len(list((exp_dir / "data").glob("policy-*/policy.zip"))) == 1

    for name in PLOT_FIGURES:
        assert Image.open(exp_dir / name).info.get("Description"), name  # every figure carries its caption
    with open(exp_dir / "summary.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 and all(-50 < float(row["ou_test_r2_total"]) <= 1 for row in rows)  # 3 models, 1 control
    assert all(row["ou_pixels_test_r2_total"] and row["ou_pca2_test_r2_total"] and row["traj_pca10_test_r2_total"]
               for row in rows)  # the raw-pixel baselines beside every R²

    metrics = read_json(exp_dir / "runs" / "ou100_seed=0" / "metrics.json")
    assert metrics["split"] == "test" and metrics["heldout"]["traj_episodes_per_split"] == 2
    baseline = metrics["ou_baseline_test_r2_total"]
    assert baseline == metrics[f"ou_{metrics['ou_baseline']}_test_r2_total"]
    assert metrics["ou_residual_ratio"] == pytest.approx((1 - metrics["ou_test_r2_total"]) / (1 - baseline))
    entries = [HeadlineEntry.from_dict(entry) for entry in read_json(exp_dir / "headline.json")]
    assert [entry.claim for entry in entries] == ["T1R", "T1R", "T4", "T4", "T4"]  # T1 reached by training
    t1 = entries[0]
    assert t1.value == pytest.approx(metrics["ou_residual_ratio"]) and t1.seeds == (0,)
    assert t1.bound.describe() == "≤ 0.25" and t1.verdict == ("held" if t1.value <= 0.25 else "failed")
    assert "pixels" in t1.quantity and "raw pixels" in t1.measured and "test" in t1.split
    assert "regularizer's effect" in entries[1].name  # the OU model beside its lambda = 0 control
    assert "own frames" in entries[2].name and entries[2].bound is not None  # each model on its own test frames
    assert entries[-1].bound is None and entries[-1].verdict == "measured"  # cost vs R²: confounded, measured
    assert all(entry.split.startswith("test") and entry.standard_error is None for entry in entries)  # one seed


def test_data_worlds_and_controls_shape_the_grid_but_not_a_runs_spec():
    from lejepa_wm.experiments.reacher.config import load_config
    from lejepa_wm.experiments.reacher.experiment import EXPERIMENT

    config = load_config("quick", overrides={"worlds": 3, "seeds": 2, "control_fractions": [1.0]})
    specs = EXPERIMENT.grid(config, "quick", seed=5)
    assert len(specs) == 3 * 2 * (len(config.ou_fractions) + 1)
    worlds = sorted({spec.params["data_seed"] for spec in specs})
    assert worlds == [5, 6, 7]  # world w renders its own data from data seed 5 + w
    by_world = {w: sorted({s.params["labels"]["seed"] for s in specs if s.params["data_seed"] == w}) for w in worlds}
    assert by_world == {5: [5, 6], 6: [7, 8], 7: [9, 10]}  # no model seed shared between worlds
    controls = [s for s in specs if s.params["labels"].get("control")]
    assert len(controls) == 6 and all(s.run_id.endswith("_control") and s.params["labels"]["ou_fraction"] == 1.0
                                      for s in controls)
    assert "worlds" not in specs[0].params["config"] and "control_fractions" not in specs[0].params["config"]
    with pytest.raises(ValueError, match="control_fractions"):
        load_config("quick", overrides={"control_fractions": [0.3]})


def test_t1r_is_judged_over_worlds_and_the_control_must_do_worse():
    from lejepa_wm.experiments.base import finished_runs
    from lejepa_wm.experiments.reacher.config import load_config
    from lejepa_wm.experiments.reacher.experiment import headline

    shipped = [run.row() for run in finished_runs(REPO / "reference" / "reacher" / "full")
               if run.spec.labels["seed"] == 0]
    rows, config = [], load_config("full")
    for world, ratio in enumerate((0.15, 0.20, 0.25)):
        for row in shipped:
            rows.append({**row, "data_seed": world, "seed": world, "ou_residual_ratio": ratio})
            rows.append({**row, "data_seed": world, "seed": world, "control": True, "ou_residual_ratio": 1.0})
    entries = headline(rows, config)
    t1r = entries[0]
    assert t1r.claim == "T1R" and t1r.value == pytest.approx(0.20) and t1r.seeds == (0, 1, 2)
    assert t1r.standard_error == pytest.approx(0.05 / math.sqrt(3))  # over the three worlds
    assert "world 2: ratio 0.250" in t1r.measured
    effects = [e for e in entries if "regularizer's effect" in e.name]
    assert len(effects) == len({row["ou_fraction"] for row in shipped}) and all(e.verdict == "held" for e in effects)
    collapsed = [{**row, "ou_residual_ratio": 0.1} if row.get("control") else row for row in rows]
    assert all(e.verdict == "failed" for e in headline(collapsed, config) if "regularizer's effect" in e.name)
    one_world = [row for row in rows if row["data_seed"] == 0]
    judged = [e for e in headline(one_world, config) if e.bound is not None]
    assert judged and all(e.verdict == "not resolved" and "1 of the 3 finished" in e.precondition for e in judged)
