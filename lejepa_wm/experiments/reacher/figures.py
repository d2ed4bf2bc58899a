"""Figures of the Reacher experiment (matplotlib, Agg backend); each function writes one PNG and returns its path."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from lejepa_wm.atomic import atomic_write_bytes  # noqa: E402
from lejepa_wm.experiments.reacher.evaluation import JOINTS  # noqa: E402


def _save(fig: Any, path: Path) -> Path:
    import io

    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return atomic_write_bytes(path, buffer.getvalue())


def sample_frames(rows: Sequence[tuple[str, np.ndarray]], path: Path) -> Path:
    """One row of frames per (label, frames (K, H, W, 3)) entry."""
    columns = max(len(frames) for _, frames in rows)
    fig, axes = plt.subplots(len(rows), columns, figsize=(1.3 * columns, 1.4 * len(rows)), squeeze=False)
    for r, (label, frames) in enumerate(rows):
        for c in range(columns):
            axis = axes[r][c]
            axis.axis("off")
            if c < len(frames):
                axis.imshow(frames[c], interpolation="nearest")
        axes[r][0].set_title(label, fontsize=8, loc="left")
    return _save(fig, path)


def r2_bars(labels: Sequence[str], values: dict[str, dict[str, Sequence[float]]], path: Path) -> Path:
    """Grouped bars: ``values[test_set][quantity]`` per model label (quantities: shoulder, wrist, total)."""
    fig, axes = plt.subplots(1, len(values), figsize=(5 * len(values), 3.4), squeeze=False)
    quantities = ("shoulder", "wrist", "total")
    width = 0.8 / len(quantities)
    for axis, (test_set, per_quantity) in zip(axes[0], values.items()):
        x = np.arange(len(labels))
        for q, quantity in enumerate(quantities):
            axis.bar(x + (q - 1) * width, per_quantity[quantity], width, label=quantity)
        axis.set_xticks(x, labels, fontsize=8)
        axis.set_ylim(min(0.0, *[min(v) for v in per_quantity.values()]), 1.0)
        axis.axhline(0.95, color="k", lw=0.8, ls="--")
        axis.set_title(f"linear-probe R² on {test_set} test frames", fontsize=9)
        axis.legend(fontsize=7)
    return _save(fig, path)


def marginals(edges: Sequence[float], histograms: dict[str, dict[str, Sequence[int]]], path: Path) -> Path:
    """Per-joint histograms of the wrapped angles, one curve per data kind (``histograms[kind][joint]``)."""
    edges = np.asarray(edges)
    centres = (edges[:-1] + edges[1:]) / 2
    fig, axes = plt.subplots(1, len(JOINTS), figsize=(9, 3))
    for axis, joint in zip(axes, JOINTS):
        for kind, per_joint in histograms.items():
            counts = np.asarray(per_joint[joint], dtype=float)
            axis.step(centres, counts / counts.sum() / np.diff(edges), where="mid", label=kind)
        axis.set_xlabel(f"{joint} angle (rad, wrapped)")
        axis.set_ylabel("density")
        axis.legend(fontsize=7)
    return _save(fig, path)


def planned_paths(panels: Sequence[tuple[str, np.ndarray, np.ndarray, np.ndarray]], path: Path,
                  max_paths: int = 6) -> Path:
    """Per model (label, paths (P, K+1, 2), starts, goals): executed paths (solid) over the oracle lines (dashed)."""
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 4), squeeze=False)
    for axis, (label, paths, starts, goals) in zip(axes[0], panels):
        for p in range(min(max_paths, len(paths))):
            line, = axis.plot(paths[p][:, 0], paths[p][:, 1], "-o", ms=2, lw=1)
            axis.plot([starts[p][0], goals[p][0]], [starts[p][1], goals[p][1]], "--", color=line.get_color(), lw=1)
        axis.set_title(label, fontsize=9)
        axis.set_xlabel("shoulder (rad)")
        axis.set_ylabel("wrist (rad)")
        axis.set_aspect("equal", adjustable="datalim")
    return _save(fig, path)


def cost_vs_r2(r2: Sequence[float], cost: Sequence[float], labels: Sequence[str], path: Path) -> Path:
    """Control-cost ratio of latent plans against the model's R² on OU test frames."""
    fig, axis = plt.subplots(figsize=(4.5, 3.4))
    axis.scatter(r2, cost)
    for x, y, label in zip(r2, cost, labels):
        axis.annotate(label, (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    axis.axhline(1.0, color="k", lw=0.8, ls="--")
    axis.set_xlabel("linear-probe R² (OU test frames)")
    axis.set_ylabel("control cost / oracle cost")
    return _save(fig, path)
