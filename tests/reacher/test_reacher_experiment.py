"""The experiment object: config validation, grid, and a tiny end-to-end run with resume and headline."""

from __future__ import annotations

import csv

import pytest

from lejepa_wm.atomic import read_json
from lejepa_wm.experiments import get_experiment
from lejepa_wm.experiments.base import Experiment

TINY = dict(train_pairs=60, test_pairs=40, chunk_pairs=30, sac_steps=40, epochs=1, plan_pairs=2,
            success_episodes=1, episode_steps=12, traj_delta=2, plan_steps=4, sigreg_slices=8, batch_size=20,
            knn=3, min_plan_distance=0.5)


def test_experiment_satisfies_the_protocol_and_configs_load():
    experiment = get_experiment("reacher")
    assert isinstance(experiment, Experiment)
    quick, full = experiment.load_config("quick"), experiment.load_config("full")
    assert quick.train_pairs < full.train_pairs and full.train_pairs == 100_000 and full.epochs == 100
    specs = experiment.grid(quick, "quick", seed=5)
    assert [spec.run_id for spec in specs] == ["ou100_s0", "ou050_s0", "ou000_s0"]
    assert {spec.params["data_seed"] for spec in specs} == {5}


@pytest.mark.parametrize("override, message", [
    ({"ou_rho": 1.0}, "ou_rho"), ({"ou_fractions": [1.5]}, "ou_fractions"), ({"sac_reward": "shaped"}, "sac_reward"),
    ({"traj_delta": 500}, "traj_delta"), ({"epochs": 0}, "epochs"), ({"unknown_key": 1}, "unknown_key"),
    ({"lr_schedule": "step"}, "lr_schedule"),
])
def test_bad_config_values_are_named(override, message):
    with pytest.raises(ValueError, match=message):
        get_experiment("reacher").load_config("quick", overrides=override)


@pytest.mark.slow
def test_tiny_end_to_end_run_resumes_and_writes_headline(renderer, tmp_path):
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is needed for the trajectory data")
    from lejepa_wm.experiments.runner import run_experiment

    first = run_experiment("reacher", "quick", tmp_path, overrides=TINY, progress=False)
    assert first["executed"] == ["ou100_s0", "ou050_s0", "ou000_s0"]
    again = run_experiment("reacher", "quick", tmp_path, overrides=TINY, progress=False)
    assert again["executed"] == [] and len(again["reused"]) == 3
    exp_dir = tmp_path / "reacher" / "quick"
    for name in ("sample_frames.png", "r2_per_joint.png", "marginals.png", "planned_paths.png", "cost_vs_r2.png"):
        assert (exp_dir / name).stat().st_size > 0
    with open(exp_dir / "summary.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3 and all(-10 < float(row["ou_test_r2_total"]) <= 1 for row in rows)
    assert all(float(row["plan_cost_ratio"]) > 0 for row in rows)
    headline = read_json(exp_dir / "headline.json")
    assert [entry["claim"] for entry in headline] == ["T1", "T4", "T4", "T4"]
    metrics = read_json(exp_dir / "runs" / "ou100_s0" / "metrics.json")
    assert headline[0]["value"] == pytest.approx(metrics["ou_test_r2_total"])
    assert headline[0]["passed"] == (metrics["ou_test_r2_total"] >= 0.8)
    assert len(list((exp_dir / "data").glob("policy-*/policy.zip"))) == 1
