"""Every figure of every experiment explains itself and is fit for a paper; drawn from results, no training.

For each synthetic experiment the quick grid is written as finished runs
(``spec.json`` and a ``metrics.json`` with every metric the experiments'
``aggregate`` reads, made-up but plausible values); Reacher's figures are drawn
from its shipped quick runs (``reference/reacher/quick``, copied to a temporary
folder). Every figure is checked as a matplotlib object, captured when
:func:`~lejepa_wm.experiments.plotting.finish_figure` has laid it out: every
panel that shows data has labelled axes, every line is named by the legend,
no legend overlaps a panel that shows data (their bounding boxes on the
canvas), no label appears twice in a legend, and the figure is one or two
columns wide. Each figure is written as PNG (with its caption in the metadata)
and PDF.
"""

from __future__ import annotations

import importlib
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend

from lejepa_wm.experiments import SYNTHETIC_EXPERIMENTS, get_experiment, plotting
from lejepa_wm.experiments.base import METRICS_FILE, SPEC_FILE, experiment_dir
from lejepa_wm.experiments.run_params import SyntheticRunParams
from lejepa_wm.report.gather import figure_caption

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_REACHER = ROOT / "reference" / "reacher" / "quick"
T3_STEPS = (0, 50, 100, 150)
WIDTH_PENDING = {"scaling"}
"""Experiments whose figure is not yet drawn with ``figure_grid`` at a column width (its owner redraws it)."""


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


def _shows_data(ax: Axes) -> bool:
    return ax.get_visible() and ax.axison and bool(ax.lines or ax.collections or ax.patches or ax.images)


def _legends(fig: Figure) -> list[Legend]:
    return [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]


def _named(ax: Axes) -> set[str]:
    return {text.get_text().replace("\n", " ") for legend in _legends(ax.figure) for text in legend.get_texts()}


def _line_label(ax: Axes, line: Any) -> str:
    """The label a line is shown under: that of a labelled container (error bars, bars with their error bars)
    it belongs to, else its own."""
    for container in ax.containers:
        errorbar = getattr(container, "errorbar", None)
        parts = [*container.get_children(), *(errorbar.get_children() if errorbar is not None else ())]
        if line in parts and not container.get_label().startswith("_"):
            return container.get_label()
    return line.get_label()


def legend_overlaps(fig: Figure) -> list[str]:
    """Legends whose bounding box on the canvas overlaps a panel that shows data."""
    FigureCanvasAgg(fig)
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)  # lays the figure out as saving would
    found = []
    for number, legend in enumerate(_legends(fig)):
        box = legend.get_window_extent(renderer)
        for index, ax in enumerate(fig.axes):
            if _shows_data(ax) and box.overlaps(ax.get_window_extent(renderer)):
                found.append(f"legend {number} overlaps panel {index} ({ax.get_title() or 'untitled'})")
    return found


def figure_problems(fig: Figure) -> list[str]:
    """What a reader would miss in ``fig``: axis labels, a line the legend does not name, a legend over the
    data, a label listed twice."""
    problems = []
    for index, ax in enumerate(fig.axes):
        if not _shows_data(ax) or ax.images:
            continue
        where = f"panel {index} ({ax.get_title() or 'untitled'})"
        shared_x = ax.get_shared_x_axes().get_siblings(ax)
        if not any(other.get_xlabel().strip() for other in shared_x):
            problems.append(f"{where}: no x label")
        shared_y = ax.get_shared_y_axes().get_siblings(ax)
        if not any(other.get_ylabel().strip() for other in shared_y):
            problems.append(f"{where}: no y label")
        if len(ax.lines) > 1:
            named = _named(ax)
            for line in ax.lines:
                label = _line_label(ax, line).replace("\n", " ")
                if label.startswith("_") or label not in named:
                    problems.append(f"{where}: a line ({label!r}, colour {line.get_color()}) the legend does not name")
    for legend in _legends(fig):
        texts = [text.get_text() for text in legend.get_texts()]
        problems += [f"legend lists {text!r} twice" for text in set(texts) if texts.count(text) > 1]
    return problems + legend_overlaps(fig)


@pytest.fixture()
def drawn(monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[list[str], float]]:
    """``{figure title: (problems, width in inches)}`` of every figure finished while the test runs."""
    found: dict[str, tuple[list[str], float]] = {}
    real: Callable[[Figure], Figure] = plotting.finish_figure

    def capturing(fig: Figure) -> Figure:
        real(fig)
        title = str(len(found))
        found[title] = (figure_problems(fig), fig.get_figwidth())
        return fig

    monkeypatch.setattr(plotting, "finish_figure", capturing)  # save_figure finishes every figure through it
    return found


def _check_folder(name: str, exp_dir: Path, drawn: dict[str, tuple[list[str], float]]) -> None:
    pngs = sorted(exp_dir.glob("*.png"))
    assert drawn and len(drawn) == len(pngs), f"{name}: {len(drawn)} figures drawn, {len(pngs)} PNG files"
    problems = {figure: found for figure, (found, _) in drawn.items() if found}
    assert not problems, f"{name}: figures that do not explain themselves: {problems}"
    if name not in WIDTH_PENDING:
        widths = {width for _, width in drawn.values()}
        assert widths <= set(plotting.COLUMN_WIDTHS.values()), f"{name}: figure widths {widths} (inches)"
    for png in pngs:
        caption = figure_caption(png)
        assert caption and len(caption) > 20, f"{name}/{png.name}: no caption in the PNG metadata"
        assert png.with_suffix(".pdf").read_bytes().startswith(b"%PDF"), f"{name}/{png.name}: no PDF beside it"


@pytest.mark.parametrize("name", SYNTHETIC_EXPERIMENTS)
def test_every_synthetic_figure_explains_itself_and_keeps_its_legend_off_the_data(
        name: str, tmp_path: Path, drawn: dict[str, tuple[list[str], float]]) -> None:
    experiment = importlib.import_module(f"lejepa_wm.experiments.{name}").EXPERIMENT
    config = experiment.load_config("quick")
    exp_dir = write_fixture_runs(experiment, config, tmp_path)
    experiment.aggregate(exp_dir, config)
    _check_folder(name, exp_dir, drawn)
    headline = json.loads((exp_dir / "headline.json").read_text(encoding="utf-8"))
    assert headline and all(math.isfinite(entry["value"]) for entry in headline if entry["value"] is not None)
    figures = {path.name for path in exp_dir.glob("*.png")}
    assert {f for entry in headline for f in entry["figures"]} <= figures  # every figure a result cites exists


@pytest.mark.skipif(not SHIPPED_REACHER.is_dir(), reason="no shipped Reacher results in reference/reacher/quick")
def test_every_reacher_figure_drawn_from_the_shipped_runs_explains_itself(
        tmp_path: Path, drawn: dict[str, tuple[list[str], float]]) -> None:
    exp_dir = tmp_path / "reacher" / "quick"
    shutil.copytree(SHIPPED_REACHER, exp_dir, ignore=shutil.ignore_patterns("*.png", "*.pdf"))
    experiment = get_experiment("reacher")
    experiment.aggregate(exp_dir, experiment.load_config("quick"))
    _check_folder("reacher", exp_dir, drawn)


def _two_panels() -> tuple[Figure, Axes, Axes]:
    fig = Figure(figsize=(7.2, 2.4))
    left, right = fig.subplots(1, 2)
    for ax in (left, right):
        ax.plot([0, 1], [0, 1], label="SIGReg")
        ax.plot([0, 1], [1, 0], label="whitening")
        ax.set(xlabel="n", ylabel="R²")
    return fig, left, right


def test_the_checks_find_a_legend_over_the_data_an_unnamed_line_and_a_repeated_label() -> None:
    fig, left, right = _two_panels()
    left.legend(loc="center")  # over the data
    right.axhline(0.5)  # a reference line without a label
    fig.legend(["SIGReg", "SIGReg"])
    problems = figure_problems(fig)
    assert any(p.startswith("legend") and "overlaps panel 0" in p for p in problems)
    assert any("panel 1" in p and "does not name" in p for p in problems)
    assert "legend lists 'SIGReg' twice" in problems


def test_finishing_merges_the_panels_legends_into_one_below_the_data() -> None:
    fig, left, right = _two_panels()
    left.legend(loc="center")
    right.legend(loc="center")
    plotting.finish_figure(fig)
    assert [ax.get_legend() for ax in fig.axes] == [None, None]
    assert len(fig.legends) == 1
    assert [text.get_text() for text in fig.legends[0].get_texts()] == ["SIGReg", "whitening"]
    assert figure_problems(fig) == []


def test_a_figure_is_saved_as_png_with_its_caption_and_as_pdf(tmp_path: Path) -> None:
    fig, axes = plotting.figure_grid(1, 1, width="one")
    plotting.plot_series(axes[0][0], {"sigreg": {2.0: [0.9, 0.95, 1.0], 4.0: [0.8]}})
    axes[0][0].set(xlabel="n", ylabel="R²")
    png = plotting.save_figure(fig, tmp_path / "r2.png", "R² against n, mean ± standard error over seeds")
    assert figure_caption(png) == "r2. R² against n, mean ± standard error over seeds."
    assert (tmp_path / "r2.pdf").read_bytes().startswith(b"%PDF")
    with pytest.raises(ValueError, match="PNG name"):
        plotting.save_figure(plotting.figure_grid()[0], tmp_path / "r2.pdf", "caption")
    with pytest.raises(ValueError, match="figure width must be one of"):
        plotting.figure_grid(width="three")


def test_a_series_shows_the_mean_and_its_standard_error_over_seeds() -> None:
    assert plotting.mean_and_se([1.0, 2.0, 3.0]) == pytest.approx((2.0, 1.0 / math.sqrt(3.0)))
    assert plotting.mean_and_se([0.5]) == (0.5, 0.0)
    fig, axes = plotting.figure_grid()
    plotting.plot_series(axes[0][0], {"whitening": {1.0: [1.0, 2.0, 3.0]}})
    (container,) = axes[0][0].containers
    segments = container.lines[2][0].get_segments()
    assert segments[0][:, 1] == pytest.approx([2.0 - 1 / math.sqrt(3), 2.0 + 1 / math.sqrt(3)])


def test_importing_the_package_leaves_matplotlibs_backend_alone() -> None:
    code = "import matplotlib; matplotlib.use('svg'); import lejepa_wm.experiments.plotting; print(matplotlib.get_backend())"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "svg"


def test_a_series_is_labelled_once_by_its_methods_readable_name() -> None:
    assert plotting.display_label("alignment_only") == "λ = 0 control (alignment only)"
    assert plotting.display_label("whitening (shortcut)") == "whitening (shortcut)"
    assert plotting.display_label("sigreg: scale-free") == "SIGReg: scale-free"
    assert plotting.display_label("supervised ceiling (regression onto z): scale-free") == (
        "supervised ceiling (regression onto z): scale-free")  # already readable: kept
