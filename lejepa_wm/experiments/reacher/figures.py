"""Figures of the Reacher experiment, in the package's one figure style (:mod:`lejepa_wm.experiments.plotting`).

Models are named by their training data (:func:`mixture_name`: "OU pairs
only", "half OU, half trajectory", "trajectory pairs only", …) and coloured by
it, from blue (OU pairs) to orange (trajectory pairs), the same in every
figure; baselines with no training are black, reference lines grey and
labelled. Every figure has labelled axes, a legend where its marks are not
self-evident, and a caption stored in the PNG. Each function writes one PNG
and returns its path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
from matplotlib.colors import to_hex, to_rgb
from matplotlib.lines import Line2D

from lejepa_wm.experiments.plotting import BASELINE_STYLE, plt, save_figure, target_line
from lejepa_wm.experiments.reacher.evaluation import JOINTS

OU_COLOR = "#1f77b4"
TRAJECTORY_COLOR = "#ff7f0e"
PAPER_OU_R2 = 0.95
QUANTITIES = (*JOINTS, "total")
NAMED_MIXTURES = {1.0: "OU pairs only", 0.0: "trajectory pairs only", 0.5: "half OU, half trajectory"}


def mixture_name(ou_fraction: float) -> str:
    """What a model was trained on, in words."""
    if ou_fraction in NAMED_MIXTURES:
        return NAMED_MIXTURES[ou_fraction]
    percent = int(round(100 * ou_fraction))
    return f"{percent}% OU, {100 - percent}% trajectory"


def mixture_color(ou_fraction: float) -> str:
    """Blue for OU pairs, orange for trajectory pairs, in between for mixtures."""
    ou, traj = np.asarray(to_rgb(OU_COLOR)), np.asarray(to_rgb(TRAJECTORY_COLOR))
    return to_hex(ou_fraction * ou + (1.0 - ou_fraction) * traj)


def sample_frames(rows: Sequence[tuple[str, np.ndarray]], path: Path) -> Path:
    """One row of frames per (label, frames (K, H, W, 3)) entry."""
    columns = max(len(frames) for _, frames in rows)
    fig, axes = plt.subplots(len(rows), columns, figsize=(1.3 * columns, 1.5 * len(rows)), squeeze=False)
    for axis in axes.flat:
        axis.axis("off")
    for row, (label, frames) in zip(axes, rows):
        for axis, frame in zip(row, frames):
            axis.imshow(frame, interpolation="nearest")
        row[0].set_title(label, fontsize=8, loc="left")
    return save_figure(fig, path, "Training frames (64×64, top-down camera) of the model trained on each kind of "
                                  "pairs: OU-sampled joint angles, and frames along SAC-policy episodes; the "
                                  "target sphere is fixed.")


def r2_bars(models: Sequence[tuple[float, Mapping[str, Mapping[str, Sequence[float]]]]],
            baselines: Mapping[str, tuple[str, Mapping[str, float]]], path: Path, seeds: Sequence[int]) -> Path:
    """Test R² per joint: one bar per model (mean over seeds, dots per seed) and the pixel baseline, per test set.

    ``models``: ``(ou_fraction, {test_set: {quantity: [value per seed]}})``;
    ``baselines``: ``{test_set: (probe name, {quantity: value})}``; both test
    sets, ``"ou"`` and ``"traj"``, are given; quantities ``shoulder``, ``wrist``, ``total``.
    """
    titles = {"ou": "OU test frames", "traj": "trajectory test frames (held-out episodes)"}
    fig, axes = plt.subplots(1, len(titles), figsize=(6.2 * len(titles), 4.2), squeeze=False)
    bars = len(models) + 1
    width = 0.8 / bars
    x = np.arange(len(QUANTITIES))
    lowest = 0.0
    for axis, test_set in zip(axes[0], titles):
        for b, (fraction, values) in enumerate(models):
            per_seed = [np.asarray(values[test_set][q], dtype=float) for q in QUANTITIES]
            offset = x + (b - (bars - 1) / 2) * width
            axis.bar(offset, [v.mean() for v in per_seed], width, color=mixture_color(fraction),
                     label=f"model: {mixture_name(fraction)}")
            for position, v in zip(offset, per_seed):
                axis.scatter([position] * len(v), v, color="black", s=8, zorder=3)
            lowest = min(lowest, *(v.min() for v in per_seed))
        name, baseline = baselines[test_set]
        axis.bar(x + (bars - 1) / 2 * width, [baseline[q] for q in QUANTITIES], width, color="white",
                 edgecolor=BASELINE_STYLE["color"], hatch="//",
                 label="no training: the pixel probe best on validation")
        lowest = min(lowest, *(baseline[q] for q in QUANTITIES))
        target_line(axis, PAPER_OU_R2, "paper, OU model")
        axis.set_xticks(x, ["shoulder", "wrist", "both joints"])
        axis.set_xlabel("joint angle predicted by the linear probe")
        axis.set_ylabel("test R² (probe fitted on the fit sample)")
        axis.set_ylim(lowest - 0.05 if lowest < 0 else 0.0, 1.05)
        axis.set_title(f"{titles[test_set]}\nhatched: linear probe on {name}", fontsize=9)
    axes[0][-1].legend(*axes[0][0].get_legend_handles_labels(), fontsize=7, loc="upper left",
                       bbox_to_anchor=(1.02, 1.0))
    seeds_text = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {', '.join(map(str, seeds))} (dots)"
    return save_figure(fig, path, "Linear identifiability of the joint angles from each model's 2-d embedding: "
                                  "test R² of an affine probe fitted on the fit sample, per joint and for both "
                                  "together, on OU test frames and on frames of held-out policy episodes; hatched: "
                                  "the best pixel probe on the validation sample (no training); dotted: the paper's "
                                  f"OU-model R²; {seeds_text}.")


def marginals(edges: Sequence[float], histograms: Mapping[str, Mapping[str, Sequence[int]]], path: Path) -> Path:
    """Per-joint histograms of the wrapped angles, one curve per data kind (``histograms[kind][joint]``)."""
    edges = np.asarray(edges)
    centres = (edges[:-1] + edges[1:]) / 2
    colors = {"OU pairs": OU_COLOR, "trajectory pairs": TRAJECTORY_COLOR}
    fig, axes = plt.subplots(1, len(JOINTS), figsize=(9, 3.2))
    for axis, joint in zip(axes, JOINTS):
        for kind, per_joint in histograms.items():
            counts = np.asarray(per_joint[joint], dtype=float)
            axis.step(centres, counts / counts.sum() / np.diff(edges), where="mid", label=kind,
                      color=colors.get(kind))
        axis.set_xlabel(f"{joint} angle (rad, wrapped to [−π, π))")
        axis.set_ylabel("density")
        axis.set_title(f"{joint}: marginal of the training frames", fontsize=9)
        axis.legend(fontsize=7)
    return save_figure(fig, path, "Marginal distribution of each joint angle in the training pairs: OU pairs are "
                                  "Gaussian by construction; the policy's trajectories are not (the theory assumes "
                                  "a Gaussian latent).")


def planned_paths(panels: Sequence[tuple[str, Mapping[str, np.ndarray]]], path: Path, max_paths: int = 6) -> Path:
    """Executed paths (solid) over the oracle lines (dashed), per model.

    ``panels``: ``(title, plans)`` with the arrays of a run's ``plans.npz``: ``paths`` (P, K+1, 2), ``starts``
    and ``goals`` (P, 2).
    """
    fig, axes = plt.subplots(1, len(panels) + 1, figsize=(4.2 * len(panels) + 3.2, 4.4), squeeze=False,
                             gridspec_kw={"width_ratios": [4.2] * len(panels) + [3.2]})
    colors = plt.get_cmap("tab10").colors
    for axis, (title, plans) in zip(axes[0][:-1], panels):
        for p, (executed, start, goal) in enumerate(zip(plans["paths"][:max_paths], plans["starts"], plans["goals"])):
            color = colors[p % len(colors)]
            axis.plot(executed[:, 0], executed[:, 1], "-", marker=".", ms=3, lw=1.2, color=color)
            axis.plot([start[0], goal[0]], [start[1], goal[1]], "--", color=color, lw=1)
            axis.plot(*start, "o", color=color, mec="black", ms=6)
            axis.plot(*goal, "*", color=color, mec="black", ms=10)
        axis.set_title(title, fontsize=9)
        axis.set_xlabel("shoulder angle (rad)")
        axis.set_ylabel("wrist angle (rad)")
        axis.set_aspect("equal", adjustable="datalim")
    handles = [Line2D([], [], color="grey", lw=1.2, marker=".", label="executed: straight line in the\nlatent, "
                                                                       "decoded to angles by kNN"),
               Line2D([], [], color="grey", ls="--", label="oracle: straight line in\njoint-angle space"),
               Line2D([], [], color="grey", marker="o", mec="black", ls="", label="start pose"),
               Line2D([], [], color="grey", marker="*", mec="black", ms=10, ls="", label="goal pose")]
    legend_axis = axes[0][-1]
    legend_axis.axis("off")
    legend_axis.legend(handles=handles, loc="center left", fontsize=7, frameon=False,
                       title="colour: one start/goal pair\n(the same pairs in every panel)", title_fontsize=7)
    return save_figure(fig, path, "Planning in each model's latent: between the embeddings of a start and a goal "
                                  "frame (OU test frames), the straight latent line is decoded to joint angles by "
                                  "the k nearest fit-sample embeddings; a model whose embedding is a linear image of "
                                  "the angles follows the oracle's straight joint-space line.")


def cost_vs_r2(points: Sequence[tuple[float, Sequence[float], Sequence[float]]],
               baseline: tuple[str, float, float], path: Path) -> Path:
    """Control-cost ratio of latent plans against the model's test R² on OU frames.

    ``points``: ``(ou_fraction, [R² per seed], [cost ratio per seed])``;
    ``baseline``: ``(label, R², cost ratio)`` of the planner on pixel principal components.
    """
    fig, axis = plt.subplots(figsize=(6.4, 4.4))
    for fraction, r2, cost in points:
        r2, cost = np.asarray(r2, dtype=float), np.asarray(cost, dtype=float)
        color = mixture_color(fraction)
        axis.scatter(r2, cost, color=color, alpha=0.35, s=14)
        axis.scatter([r2.mean()], [cost.mean()], color=color, s=60, edgecolor="black", zorder=3,
                     label=f"model: {mixture_name(fraction)}")
        axis.annotate(mixture_name(fraction), (r2.mean(), cost.mean()), fontsize=7, xytext=(5, 5),
                      textcoords="offset points")
    label, r2, cost = baseline
    axis.scatter([r2], [cost], color=BASELINE_STYLE["color"], marker="s", s=50, zorder=3, label=label)
    axis.annotate("pixels (no training)", (r2, cost), fontsize=7, xytext=(5, -10), textcoords="offset points")
    target_line(axis, 1.0, "oracle straight line: cost ratio")
    axis.set_yscale("log")
    axis.set_xlabel("test R² of the linear probe on OU frames (both joints)")
    axis.set_ylabel("control cost of the executed plan / oracle cost")
    axis.set_title("latent planning cost vs identifiability", fontsize=10)
    axis.legend(fontsize=7)
    return save_figure(fig, path, "Each model's mean control-cost ratio of its latent straight-line plans (same "
                                  "start/goal pairs of OU test frames for every model; 1 = the oracle's evenly paced "
                                  "straight line) against its test probe R² on OU frames; large markers are means "
                                  "over seeds, faint ones single seeds; the square plans on the top two principal "
                                  "components of the pixels.")
