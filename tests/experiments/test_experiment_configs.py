"""Configuration files of the five synthetic experiments: they load, validate, and expand to grids."""

from __future__ import annotations

import json
import math

import pytest

from lejepa_wm.config import SCALES
from lejepa_wm.experiments import SYNTHETIC_EXPERIMENTS, get_experiment
from lejepa_wm.experiments.base import Experiment
from lejepa_wm.experiments.run_params import SyntheticRunParams


@pytest.mark.parametrize("name", SYNTHETIC_EXPERIMENTS)
@pytest.mark.parametrize("scale", SCALES)
def test_configs_load_and_expand(name, scale):
    experiment = get_experiment(name)
    assert isinstance(experiment, Experiment)
    config = experiment.load_config(scale)
    specs = experiment.grid(config, scale, seed=0)
    assert specs and len({spec.run_id for spec in specs}) == len(specs)
    params = [SyntheticRunParams.from_dict(spec.params) for spec in specs]
    assert all(p.to_dict() == spec.params for p, spec in zip(params, specs))  # the stored form round-trips
    # every regularized run has its lambda = 0 control at the same seed
    control_seeds = {p.seeds.run_seed for p in params if p.objective.name == "alignment_only"}
    assert control_seeds and all(p.seeds.run_seed in control_seeds for p in params)
    # the default world is the paper's renderer and no reported seed was used for tuning
    assert all(p.renderer.kind == "published" for p in params)
    assert not {p.seeds.run_seed for p in params} & set(config.tuning_seeds)
    assert (scale == "quick" and config.seeds >= 2) or (scale == "full" and config.seeds >= 3)


def test_seed_streams_are_distinct_per_run_and_per_purpose():
    experiment = get_experiment("scaling")
    specs = experiment.grid(experiment.load_config("quick"), "quick", seed=0)
    streams = [SyntheticRunParams.from_dict(s.params).seeds for s in specs]
    for stream in streams:
        values = [stream.renderer, stream.init, stream.batches, stream.fit, stream.validation, stream.test]
        assert len(set(values)) == len(values)
    assert len({s.test for s in streams}) == len({s.run_seed for s in streams})


def test_tuning_seeds_are_refused_for_reported_runs():
    experiment = get_experiment("scaling")
    config = experiment.load_config("quick")
    with pytest.raises(ValueError, match="tuning"):
        experiment.grid(config, "quick", seed=config.tuning_seeds[0])
    with pytest.raises(ValueError, match="seed"):
        experiment.grid(config, "quick", seed=-1)


def test_full_scale_is_the_paper_sweep():
    config = get_experiment("scaling").load_config("full")
    assert max(config.dims) == 1024 and config.seeds >= 3 and config.residual_target == 0.01


@pytest.mark.parametrize("overrides, message", [
    ({"no_such_key": 1}, "unknown config key"),
    ({"rho": 1.5}, "rho"),
    ({"dims": [1, 4]}, "dims"),
    ({"dims": [3]}, "dims"),
    ({"methods": ["sigreg", "vicreg"]}, "methods"),
    ({"lr": "fast"}, "lr"),
    ({"lr": math.nan}, "lr"),
    ({"shift_gain": math.inf}, "shift_gain"),
    ({"decay_fraction": math.nan}, "decay_fraction"),
    ({"max_steps": 0}, "max_steps"),
    ({"warmup_steps": -1}, "warmup_steps"),
    ({"weight_decay": -0.1}, "weight_decay"),
    ({"eval_size": 16}, "eval_size"),
    ({"encoder": "resnet"}, "encoder"),
    ({"encoders": ["matched_additive", "cnn"]}, "encoders"),
    ({"encoders": ["matched"]}, "encoders"),
    ({"renderer": "realnvp"}, "renderer"),
    ({"checkpoint_every": 33}, "multiple"),
    ({"probe_size": 1024}, "probe_size"),
    ({"steps_by_n": [[128, 1001]]}, "steps_by_n"),
    ({"lr_by_n": [[256, 0.0]]}, "lr_by_n"),
    ({"lr_by_n": [[256]]}, "lr_by_n"),
    ({"published_steps_by_n": [[2, 1001]]}, "published_steps_by_n"),
    ({"published_lr_by_n": [[2, -1.0]]}, "published_lr_by_n"),
    ({"matched_max_n": 1}, "matched_max_n"),
    ({"method_max_n": [["*", "vicreg", 256]]}, "method_max_n"),
    ({"method_max_n": [["cnn", "sigreg", 256]]}, "method_max_n"),
    ({"method_max_n": [["*", "sigreg", 1]]}, "method_max_n"),
    ({"method_max_n": [["sigreg", 256]]}, "method_max_n"),
])
def test_bad_scaling_config_values_raise_on_loading(overrides, message):
    with pytest.raises(ValueError, match=message):
        get_experiment("scaling").load_config("quick", overrides=overrides)


def test_step_budget_and_learning_rate_follow_the_dimension():
    """Each run takes the ``steps_by_n`` / ``lr_by_n`` entry with the largest threshold <= n, else the defaults."""
    experiment = get_experiment("scaling")
    config = experiment.load_config("quick", overrides={
        "dims": [2, 8, 16], "steps_by_n": [[8, 2000], [16, 3000]], "lr_by_n": [[16, 5e-3]]})
    budgets = {(spec.params["world"]["n"], spec.params["train"]["max_steps"], spec.params["train"]["lr"])
               for spec in experiment.grid(config, "quick") if spec.params["objective"]["name"] != "whitened"}
    assert budgets == {(2, config.max_steps, config.lr), (8, 2000, config.lr), (16, 3000, 5e-3)}
    whitened = {(spec.params["world"]["n"], spec.params["train"]["lr"], spec.params["train"]["batch_size"])
                for spec in experiment.grid(config, "quick") if spec.params["objective"]["name"] == "whitened"}
    assert whitened == {(n, config.whitened_lr, max(config.batch_size, config.whitened_batch_per_dim * n))
                        for n in (2, 8, 16)}  # its own rate, and batches that grow with n


def test_the_deficit_weight_reaches_only_the_whitened_runs_and_zero_stores_no_option():
    """``whitened_deficit_weight`` becomes the ``whitened`` objective's ``deficit_weight`` option; at 0 (the
    plain constraint, scaling's default) no option is stored, so those runs' specs are unchanged."""
    experiment = get_experiment("output_dim")
    config = experiment.load_config("quick")
    options = {(spec.params["objective"]["name"], json.dumps(spec.params["objective"]["options"], sort_keys=True))
               for spec in experiment.grid(config, "quick")}
    assert ("whitened", json.dumps({"deficit_weight": config.whitened_deficit_weight})) in options
    assert config.whitened_deficit_weight == 4.0
    assert all("deficit_weight" not in text for name, text in options if name != "whitened")
    scaling = get_experiment("scaling")
    assert all(spec.params["objective"]["options"] == {} for spec in scaling.grid(scaling.load_config("quick"), "quick")
               if spec.params["objective"]["name"] == "whitened")


def test_method_max_n_cuts_a_method_above_its_largest_n_for_the_encoders_it_names():
    """``[encoder or "*", method, n]``: the method is left out above n for that encoder (every encoder with "*");
    the full grid keeps SIGReg and the supervised ceiling at every n and the collapsible encoder's control."""
    experiment = get_experiment("scaling")
    config = experiment.load_config("quick", overrides={
        "dims": [2, 8, 16], "encoders": ["published", "published_scaled"], "methods": ["sigreg", "alignment_only"],
        "method_max_n": [["*", "sigreg", 8], ["published", "alignment_only", 2]]})
    runs = {(spec.params["world"]["n"], spec.params["encoder"]["kind"], spec.params["objective"]["name"])
            for spec in experiment.grid(config, "quick")}
    sigreg = {(n, kind, "sigreg") for n in (2, 8) for kind in ("published", "published_scaled")}
    control = {(2, "published", "alignment_only")} | {(n, "published_scaled", "alignment_only") for n in (2, 8, 16)}
    assert runs == sigreg | control
    full = experiment.load_config("full")
    for kind in ("published", "published_scaled"):
        assert {"sigreg", "supervised"} <= set(full.methods_for(kind, 1024))
    assert "alignment_only" in full.methods_for("published_scaled", 1024)


def test_published_encoders_have_their_own_budget_and_matched_ones_a_largest_n():
    """``published_steps_by_n`` / ``published_lr_by_n`` set the published encoders' budget (the others keep
    ``steps_by_n`` / ``lr_by_n``); ``matched_max_n`` and ``mlp_max_n`` bound the dimensions of their encoders."""
    experiment = get_experiment("scaling")
    config = experiment.load_config("quick", overrides={
        "dims": [2, 8, 16], "encoders": ["published", "published_scaled", "matched_additive", "mlp"],
        "identifiability_encoders": ["published"], "matched_max_n": 8, "mlp_max_n": 2,
        "methods": ["sigreg", "alignment_only"],
        "steps_by_n": [[8, 2000]], "lr_by_n": [[16, 5e-3]],
        "published_steps_by_n": [[2, 400], [16, 600]], "published_lr_by_n": [[8, 2e-2]]})
    budgets = {(spec.params["world"]["n"], spec.params["encoder"]["kind"], spec.params["train"]["max_steps"],
                spec.params["train"]["lr"]) for spec in experiment.grid(config, "quick")}
    published = {(n, kind, steps, lr) for n, steps, lr in [(2, 400, config.lr), (8, 400, 2e-2), (16, 600, 2e-2)]
                 for kind in ("published", "published_scaled")}
    assert budgets == published | {(2, "matched_additive", config.max_steps, config.lr),
                                    (8, "matched_additive", 2000, config.lr), (2, "mlp", config.max_steps, config.lr)}


@pytest.mark.parametrize("name, overrides, message", [
    ("distribution", {"betas": [1.0, 4.0]}, "2.0"),
    ("distribution", {"tau": -1.0}, "tau"),
    ("distribution", {"n": 3}, "even"),
    ("anisotropic", {"ratios": [0.5]}, "ratios"),
    ("anisotropic", {"low_r2": 0.95}, "low_r2"),
    ("bounds", {"encoders": ["cnn"]}, "encoders"),
    ("output_dim", {"output_dims": [0]}, "output_dims"),
    ("output_dim", {"whitened_deficit_weight": -4.0}, "whitened_deficit_weight"),
])
def test_bad_values_raise_in_every_experiment(name, overrides, message):
    with pytest.raises(ValueError, match=message):
        get_experiment(name).load_config("quick", overrides=overrides)


def test_user_config_file_overrides_defaults(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text("[quick]\ndims = [4]\nseeds = 3\n")
    config = get_experiment("scaling").load_config("quick", path)
    assert config.dims == (4,) and config.seeds == 3
    path.write_text("[common]\nseeds = 4\n")
    assert get_experiment("scaling").load_config("full", path).seeds == 4
    path.write_text("seeds = 5\n")  # flat keys apply to every scale
    assert get_experiment("scaling").load_config("quick", path).seeds == 5


@pytest.mark.parametrize("text, message", [
    ("[quick]\ndimz = [4]\n", "dimz"),
    ("[full]\nseeds = 3\n", "no \\[quick\\] or \\[common\\] table"),
    ("[qiuck]\nseeds = 3\n", "unknown table"),
    ("seeds = 3\n[quick]\ndims = [4]\n", "mixes tables"),
    ("[quick\nseeds = 3\n", "TOML syntax error"),
])
def test_bad_user_config_files_name_the_file_and_the_problem(tmp_path, text, message):
    path = tmp_path / "mine.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as info:
        get_experiment("scaling").load_config("quick", path)
    assert "dimz" in message or str(path) in str(info.value)


def test_a_folder_or_a_missing_file_as_config_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="is a folder"):
        get_experiment("scaling").load_config("quick", tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        get_experiment("scaling").load_config("quick", tmp_path / "nope.toml")
