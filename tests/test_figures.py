"""Every figure of every synthetic experiment, drawn from fixture results (no training), explains itself.

For each experiment the quick grid is written as finished runs (``spec.json``
and a ``metrics.json`` with every metric the experiments' ``aggregate`` reads,
made-up but plausible values), then ``aggregate`` draws the figures. The
figures are checked as matplotlib objects, captured when ``save_figure`` is
called: every panel that shows data has labelled x and y axes, every panel with
more than one line has a legend naming each line, and the PNG carries a caption
in its metadata (which the report shows under it).
"""

from __future__ import annotations

import importlib
import json
import math
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pytest

from lejepa_wm.experiments import SYNTHETIC_EXPERIMENTS, synthetic
from lejepa_wm.experiments.base import METRICS_FILE, SPEC_FILE, experiment_dir
from lejepa_wm.experiments.plotting import save_figure as real_save_figure
from lejepa_wm.experiments.run_params import SyntheticRunParams
from lejepa_wm.report.gather import figure_caption

T3_STEPS = (0, 50, 100, 150)


def _t3(step: int, rng: np.random.Generator) -> dict[str, float]:
    """T3's test-sample quantities at one evaluation, error below the bound and both falling with training."""
    delta = 0.2 / (1 + step / 25) * (1 + 0.1 * rng.random())
    eps, rho = 0.1 / (1 + step / 50), 0.8
    d = delta / (2 * rho * (1 - rho))
    bound = d + (eps + d) ** 2
    return {"s": 1.0, "loss": 2 * (1 - rho) + delta, "delta": delta, "delta_se": 0.01 * delta, "eps": eps, "D": d,
            "D_se": 0.01 * d, "bound": bound, "error": 0.6 * bound, "error_se": 0.01 * bound}


def fixture_metrics(params: SyntheticRunParams, run_id: str, rng: np.random.Generator) -> dict[str, Any]:
    """A finished run's metrics: every key the synthetic experiments' ``aggregate`` reads."""
    n = params.world.n
    probe = 0.95 + 0.04 * rng.random()
    raw = 0.7
    per_coord = [0.95 + 0.04 * rng.random() for _ in range(n)]
    return {
        "run_id": run_id, "wall_time_s": 1.0, "split": "test", "probe_r2": probe, "probe_r2_per_coord": per_coord,
        "raw_observation_r2": raw, "residual_ratio": (1 - probe) / (1 - raw), "validation_r2": probe,
        "procrustes_error": 0.05 * n * rng.random(), "scale_free_error": 0.01 * rng.random(),
        "procrustes_scale": 1.0, "embedding_std": 1.0, "orthogonality_error": 0.01, "steps": 200,
        "train_seconds": 1.0, "steps_to_target": None, "seconds_to_target": None, "rho": list(params.world.rho),
        "slow_harmonic_r2": 0.5 * rng.random(), "raw_fast_r2": 0.6, "reverse_r2": 0.9 + 0.1 * rng.random(),
        "excess_kurtosis_z": 0.5, "excess_kurtosis_z_pos": 0.5 + 0.1 * rng.random(),
        "history": [{"step": step, "probe_r2": probe, "test": {"probe_r2": probe, "t3": _t3(step, rng)}}
                    for step in T3_STEPS],
    }


def write_fixture_runs(experiment: Any, config: Any, out: Path) -> Path:
    """Write the quick grid of ``experiment`` under ``out`` as finished runs; return the experiment's folder."""
    rng = np.random.default_rng(0)
    for spec in experiment.grid(config, "quick", 0):
        folder = spec.run_dir(out)
        folder.mkdir(parents=True)
        (folder / SPEC_FILE).write_text(json.dumps(spec.to_dict()), encoding="utf-8")
        metrics = fixture_metrics(SyntheticRunParams.from_dict(spec.params), spec.run_id, rng)
        (folder / METRICS_FILE).write_text(json.dumps(metrics), encoding="utf-8")
    return experiment_dir(out, experiment.name, "quick")


def _shows_data(ax: plt.Axes) -> bool:
    return ax.get_visible() and ax.axison and bool(ax.lines or ax.collections or ax.patches or ax.images)


def _legend_texts(ax: plt.Axes) -> set[str]:
    legends = [ax.get_legend(), *ax.figure.legends]
    return {text.get_text() for legend in legends if legend is not None for text in legend.get_texts()}


def figure_problems(fig: plt.Figure) -> list[str]:
    """What a reader would miss in ``fig``: axis labels, a legend, a line the legend does not name."""
    problems = []
    for index, ax in enumerate(fig.axes):
        if not _shows_data(ax):
            continue
        where = f"panel {index} ({ax.get_title() or 'untitled'})"
        if not ax.get_xlabel().strip():
            problems.append(f"{where}: no x label")
        if not ax.get_ylabel().strip():
            problems.append(f"{where}: no y label")
        if len(ax.lines) > 1:
            named = _legend_texts(ax)
            if not named:
                problems.append(f"{where}: {len(ax.lines)} lines and no legend")
            for line in ax.lines:
                label = line.get_label()
                if label.startswith("_") or label not in named:
                    problems.append(f"{where}: a line ({label!r}, colour {line.get_color()}) the legend does not name")
    return problems


@pytest.mark.parametrize("name", SYNTHETIC_EXPERIMENTS)
def test_every_figure_has_labelled_axes_a_legend_and_a_caption(name: str, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module(f"lejepa_wm.experiments.{name}")
    experiment = module.EXPERIMENT
    config = experiment.load_config("quick")
    exp_dir = write_fixture_runs(experiment, config, tmp_path)
    drawn: dict[str, list[str]] = {}

    def capturing_save_figure(fig: plt.Figure, path: Path, caption: str) -> Path:
        drawn[Path(path).name] = figure_problems(fig)  # before saving closes the figure
        return real_save_figure(fig, path, caption)

    monkeypatch.setattr(synthetic, "save_figure", capturing_save_figure)  # every experiment saves through it
    experiment.aggregate(exp_dir, config)

    assert drawn, f"{name}: aggregate drew no figure"
    assert sorted(drawn) == sorted(path.name for path in exp_dir.glob("*.png"))  # every figure went through it
    problems = {figure: found for figure, found in drawn.items() if found}
    assert not problems, f"{name}: figures that do not explain themselves: {problems}"
    for figure in drawn:
        caption = figure_caption(exp_dir / figure)
        assert caption and len(caption) > 20, f"{name}/{figure}: no caption in the PNG metadata"
    headline = json.loads((exp_dir / "headline.json").read_text(encoding="utf-8"))
    assert headline and all(math.isfinite(entry["value"]) for entry in headline if entry["value"] is not None)
    assert {f for entry in headline for f in entry["figures"]} <= set(drawn)  # every figure a result cites exists


def test_the_check_finds_an_unlabelled_axis_a_missing_legend_and_an_unnamed_line() -> None:
    fig, (bare, partial) = plt.subplots(1, 2)
    bare.plot([0, 1], [0, 1])
    bare.plot([0, 1], [1, 0])
    partial.plot([0, 1], [0, 1], label="SIGReg")
    partial.axhline(0.5)  # a reference line without a label
    partial.legend()
    partial.set(xlabel="n", ylabel="R²")
    problems = figure_problems(fig)
    plt.close(fig)
    assert any("panel 0" in p and "no x label" in p for p in problems)
    assert any("panel 0" in p and "no legend" in p for p in problems)
    assert any("panel 1" in p and "does not name" in p for p in problems)
    assert not any("panel 1" in p and "label" in p and "no " in p for p in problems)
