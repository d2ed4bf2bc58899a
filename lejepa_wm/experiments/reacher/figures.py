"""Figures of the Reacher experiment, in the package's one figure style (:mod:`lejepa_wm.experiments.plotting`).

Models are named by their training data (:func:`mixture_name`: "OU pairs
only", "half OU, half trajectory", "trajectory pairs only", …) and coloured by
it, from blue (OU pairs) to orange (trajectory pairs), the same in every
figure; baselines with no training are black, reference lines grey and
labelled. Every figure has labelled axes, one legend below its panels where its
marks are not self-evident, means with ± one standard error over seeds, and a
caption stored in the PNG. Each function writes one figure (PNG and PDF,
:func:`~lejepa_wm.experiments.plotting.save_figure`) and returns the PNG's path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import math

import numpy as np
from matplotlib.colors import to_hex, to_rgb
from matplotlib.lines import Line2D

from lejepa_wm.experiments.plotting import (BASELINE_STYLE, FONT_SIZE, PANEL_HEIGHT, figure_grid, mean_and_se,
                                            save_figure, target_line)
from lejepa_wm.experiments.reacher.evaluation import JOINTS

__all__ = ["QUANTITIES", "mixture_name", "sample_frames", "r2_bars", "marginals", "planned_paths", "cost_vs_r2"]

_OU_COLOR = "#1f77b4"
_TRAJECTORY_COLOR = "#ff7f0e"
QUANTITIES = (*JOINTS, "total")
_NAMED_MIXTURES = {1.0: "OU pairs only", 0.0: "trajectory pairs only", 0.5: "half OU, half trajectory"}


def mixture_name(ou_fraction: float) -> str:
    """What a model was trained on, in words."""
    if ou_fraction in _NAMED_MIXTURES:
        return _NAMED_MIXTURES[ou_fraction]
    percent = int(round(100 * ou_fraction))
    return f"{percent}% OU, {100 - percent}% trajectory"


def _mixture_color(ou_fraction: float) -> str:
    """Blue for OU pairs, orange for trajectory pairs, in between for mixtures."""
    ou, traj = np.asarray(to_rgb(_OU_COLOR)), np.asarray(to_rgb(_TRAJECTORY_COLOR))
    return to_hex(ou_fraction * ou + (1.0 - ou_fraction) * traj)


def sample_frames(rows: Sequence[tuple[str, np.ndarray]], path: Path) -> Path:
    """One row of frames per (label, frames (K, H, W, 3)) entry."""
    columns = max(len(frames) for _, frames in rows)
    fig, axes = figure_grid(len(rows), columns, height=0.95 * len(rows) + 0.2)
    for axis in axes.flat:
        axis.axis("off")
    for row, (label, frames) in zip(axes, rows):
        for axis, frame in zip(row, frames):
            axis.imshow(frame, interpolation="nearest")
        row[0].set_title(label, loc="left", fontsize=FONT_SIZE)
    return save_figure(fig, path, "Training frames (64×64, top-down camera) of the model trained on each kind of "
                                  "pairs: OU-sampled joint angles, and frames along SAC-policy episodes; the "
                                  "target sphere is fixed.")


def r2_bars(models: Sequence[tuple[float, Mapping[str, Mapping[str, Sequence[float]]]]],
            baselines: Mapping[str, tuple[str, Mapping[str, float]]], path: Path, seeds: Sequence[int]) -> Path:
    """Test R² per joint: one bar per model (mean ± standard error over seeds, dots per seed) and the pixel
    baseline, per test set, the two panels sharing their R² axis.

    ``models``: ``(ou_fraction, {test_set: {quantity: [value per seed]}})``;
    ``baselines``: ``{test_set: (probe name, {quantity: value})}``; both test
    sets, ``"ou"`` and ``"traj"``, are given; quantities ``shoulder``, ``wrist``, ``total``.
    """
    titles = {"ou": "OU test frames", "traj": "held-out policy episodes"}
    fig, axes = figure_grid(1, len(titles), sharey=True, height=PANEL_HEIGHT + 0.4)
    bars = len(models) + 1
    width = 0.8 / bars
    x = np.arange(len(QUANTITIES))
    lowest = 0.0
    for axis, test_set in zip(axes[0], titles):
        for b, (fraction, values) in enumerate(models):
            per_seed = [np.asarray(values[test_set][q], dtype=float) for q in QUANTITIES]
            stats = [mean_and_se(v) for v in per_seed]
            offset = x + (b - (bars - 1) / 2) * width
            axis.bar(offset, [m for m, _ in stats], width, yerr=[se for _, se in stats], capsize=2,
                     color=_mixture_color(fraction), label=f"model: {mixture_name(fraction)}")
            for position, v in zip(offset, per_seed):
                axis.scatter([position] * len(v), v, color="black", s=4, zorder=3, linewidths=0)
            lowest = min(lowest, *(v.min() for v in per_seed))
        name, baseline = baselines[test_set]
        axis.bar(x + (bars - 1) / 2 * width, [baseline[q] for q in QUANTITIES], width, color="white",
                 edgecolor=BASELINE_STYLE["color"], hatch="//",
                 label=f"no training: linear probe on {name} (best on validation)")
        lowest = min(lowest, *(baseline[q] for q in QUANTITIES))
        target_line(axis, 0.95, "paper, OU model: R²")
        axis.set_xticks(x, ["shoulder", "wrist", "both joints"])
        axis.set(xlabel="joint angle predicted by the linear probe", title=titles[test_set])
    axes[0][0].set(ylabel="test R² (probe fitted on the fit sample)", ylim=(lowest - 0.05 if lowest < 0 else 0.0, 1.05))
    seeds_text = (f"seed {seeds[0]}" if len(seeds) == 1
                  else f"mean ± standard error over seeds {', '.join(map(str, seeds))} (dots)")
    return save_figure(fig, path, "Linear identifiability of the joint angles from each model's 2-d embedding: "
                                  "test R² of an affine probe fitted on the fit sample, per joint and for both "
                                  "together, on OU test frames and on frames of held-out policy episodes; hatched: "
                                  "the best pixel probe on the validation sample (no training); dotted: the paper's "
                                  f"OU-model R²; {seeds_text}.")


def marginals(edges: Sequence[float], histograms: Mapping[str, Mapping[str, Sequence[int]]], path: Path) -> Path:
    """Per-joint histograms of the wrapped angles, one curve per data kind (``histograms[kind][joint]``)."""
    edges = np.asarray(edges)
    centres = (edges[:-1] + edges[1:]) / 2
    colors = {"OU pairs": _OU_COLOR, "trajectory pairs": _TRAJECTORY_COLOR}
    fig, axes = figure_grid(1, len(JOINTS), sharex=True, sharey=True)
    for axis, joint in zip(axes[0], JOINTS):
        for kind, per_joint in histograms.items():
            counts = np.asarray(per_joint[joint], dtype=float)
            axis.step(centres, counts / counts.sum() / np.diff(edges), where="mid", label=kind,
                      color=colors.get(kind))
        axis.set(xlabel=f"{joint} angle (rad, wrapped to [−π, π))", title=f"{joint}: marginal of the training frames")
    axes[0][0].set_ylabel("density")
    return save_figure(fig, path, "Marginal distribution of each joint angle in the training pairs: OU pairs are "
                                  "Gaussian by construction; the policy's trajectories are not (the theory assumes "
                                  "a Gaussian latent).")


EXECUTED, ORACLE = "executed: latent straight line decoded by kNN", "oracle: straight line in joint angles"
START, GOAL = "start pose", "goal pose"


def planned_paths(panels: Sequence[tuple[str, Mapping[str, np.ndarray]]], path: Path, max_paths: int = 6) -> Path:
    """Executed paths (solid) over the oracle lines (dashed), one panel per model, in a grid with shared axes.

    ``panels``: ``(title, plans)`` with the arrays of a run's ``plans.npz``: ``paths`` (P, K+1, 2), ``starts``
    and ``goals`` (P, 2).
    """
    columns = min(3, len(panels))  # panels per row
    rows = math.ceil(len(panels) / columns)
    fig, axes = figure_grid(rows, columns, sharex=True, sharey=True, height=2.5 * rows + 0.6)
    for index, (axis, (title, plans)) in enumerate(zip(axes.flat, panels)):
        for p, (executed, start, goal) in enumerate(zip(plans["paths"][:max_paths], plans["starts"], plans["goals"])):
            color = f"C{p % 10}"  # matplotlib's ten-colour cycle
            axis.plot(executed[:, 0], executed[:, 1], "-", marker=".", ms=2, lw=1, color=color, label=EXECUTED)
            axis.plot([start[0], goal[0]], [start[1], goal[1]], "--", color=color, lw=0.8, label=ORACLE)
            axis.plot(*start, "o", color=color, mec="black", ms=4, label=START)
            axis.plot(*goal, "*", color=color, mec="black", ms=7, label=GOAL)
        axis.set(title=title, aspect="equal", adjustable="box")
        if index + columns >= len(panels):  # nothing below it: it carries the shared x axis's labels
            axis.xaxis.set_tick_params(labelbottom=True)
            axis.set_xlabel("shoulder angle (rad)")
    for axis in axes.flat[len(panels):]:
        axis.set_visible(False)
    for axis in axes[:, 0]:
        axis.set_ylabel("wrist angle (rad)")
    fig.legend(handles=[  # grey stand-ins: in the panels, colour tells the start/goal pairs apart
        Line2D([], [], color="grey", lw=1, marker=".", label=EXECUTED),
        Line2D([], [], color="grey", ls="--", label=ORACLE),
        Line2D([], [], color="grey", marker="o", mec="black", ls="", label=START),
        Line2D([], [], color="grey", marker="*", mec="black", ms=7, ls="", label=GOAL)])
    return save_figure(fig, path, "Planning in each model's latent: between the embeddings of a start and a goal "
                                  "frame (OU test frames), the straight latent line is decoded to joint angles by "
                                  "the k nearest fit-sample embeddings; a model whose embedding is a linear image of "
                                  "the angles follows the oracle's straight joint-space line. Colour: one "
                                  "start/goal pair, the same pairs in every panel; the panels share their axes.")


def cost_vs_r2(points: Sequence[tuple[float, Sequence[float], Sequence[float]]],
               baseline: tuple[str, float, float], path: Path) -> Path:
    """Control-cost ratio of latent plans against the model's test R² on OU frames.

    ``points``: ``(ou_fraction, [R² per seed], [cost ratio per seed])``;
    ``baseline``: ``(label, R², cost ratio)`` of the planner on pixel principal components.
    """
    fig, axes = figure_grid(1, 1, width="one", height=2.8)
    axis = axes[0][0]
    for fraction, r2, cost in points:
        color = _mixture_color(fraction)
        (r2_mean, r2_se), (cost_mean, cost_se) = mean_and_se(r2), mean_and_se(cost)
        axis.scatter(r2, cost, color=color, alpha=0.35, s=8, linewidths=0)
        axis.errorbar([r2_mean], [cost_mean], xerr=[r2_se], yerr=[cost_se], color=color, marker="o", ms=6,
                      mec="black", capsize=2, ls="", zorder=3, label=f"model: {mixture_name(fraction)}")
    label, r2, cost = baseline
    axis.scatter([r2], [cost], color=BASELINE_STYLE["color"], marker="s", s=25, zorder=3, label=label)
    target_line(axis, 1.0, "oracle straight line: cost ratio")
    axis.set(yscale="log", xlabel="test probe R² on OU frames (both joints)", ylabel="plan cost / oracle cost",
             title="latent planning cost vs identifiability")
    return save_figure(fig, path, "Each model's mean control-cost ratio of its latent straight-line plans (same "
                                  "start/goal pairs of OU test frames for every model; 1 = the oracle's evenly paced "
                                  "straight line) against its test probe R² on OU frames; large markers are means "
                                  "± standard error over seeds, faint ones single seeds; the square plans on the "
                                  "top two principal components of the pixels.")
