"""Configuration files of the five synthetic experiments: they load, validate, and expand to grids."""

from __future__ import annotations

import pytest

from lejepa_wm.config import SCALES
from lejepa_wm.experiments import SYNTHETIC_EXPERIMENTS, get_experiment
from lejepa_wm.experiments.base import Experiment


@pytest.mark.parametrize("name", SYNTHETIC_EXPERIMENTS)
@pytest.mark.parametrize("scale", SCALES)
def test_configs_load_and_expand(name, scale):
    experiment = get_experiment(name)
    assert isinstance(experiment, Experiment)
    config = experiment.load_config(scale)
    specs = experiment.grid(config, scale, seed=0)
    assert specs and len({spec.run_id for spec in specs}) == len(specs)
    # every regularized run has its lambda = 0 control at the same sweep point and seed
    controls = [s for s in specs if s.params["objective"]["weight"] == 0.0]
    assert controls, "each experiment must run the alignment-only control"
    assert all(s.params["seed"] in {c.params["seed"] for c in controls} for s in specs)


def test_full_scale_is_the_paper_sweep():
    config = get_experiment("scaling").load_config("full")
    assert max(config.dims) == 1024 and config.seeds == 5 and config.r2_target == 0.999


@pytest.mark.parametrize("overrides, message", [
    ({"no_such_key": 1}, "unknown config key"),
    ({"rho": 1.5}, "rho"),
    ({"dims": [1, 4]}, "dims"),
    ({"methods": ["sigreg", "vicreg"]}, "methods"),
    ({"lr": "fast"}, "lr"),
    ({"max_steps": 0}, "max_steps"),
    ({"encoder": "resnet"}, "encoder"),
    ({"encoders": ["matched", "cnn"]}, "encoders"),
    ({"checkpoint_every": 33}, "multiple"),
])
def test_bad_scaling_config_values_raise(overrides, message):
    with pytest.raises(ValueError, match=message):
        get_experiment("scaling").load_config("quick", overrides=overrides)


@pytest.mark.parametrize("name, overrides, message", [
    ("distribution", {"betas": [1.0, 4.0]}, "2.0"),
    ("distribution", {"tau": -1.0}, "tau"),
    ("anisotropic", {"ratios": [0.5]}, "ratios"),
    ("anisotropic", {"low_r2": 0.95}, "low_r2"),
    ("bounds", {"encoders": ["cnn"]}, "encoders"),
    ("output_dim", {"output_dims": [0]}, "output_dims"),
])
def test_bad_values_raise_in_every_experiment(name, overrides, message):
    with pytest.raises(ValueError, match=message):
        get_experiment(name).load_config("quick", overrides=overrides)


def test_user_config_file_overrides_defaults(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text("[quick]\ndims = [4]\nseeds = 2\n")
    config = get_experiment("scaling").load_config("quick", path)
    assert config.dims == (4,) and config.seeds == 2
    path.write_text("[quick]\ndimz = [4]\n")
    with pytest.raises(ValueError, match="dimz"):
        get_experiment("scaling").load_config("quick", path)
