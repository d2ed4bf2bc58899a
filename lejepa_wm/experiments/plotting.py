"""Summary tables and figures of the synthetic experiments (matplotlib, Agg backend, atomic writes)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from lejepa_wm.atomic import atomic_write_bytes, atomic_write_text  # noqa: E402
from lejepa_wm.experiments.base import SUMMARY_FILE  # noqa: E402


def write_summary(exp_dir: Path, rows: list[dict[str, Any]], columns: Sequence[str]) -> Path:
    """Write ``summary.csv`` with one row per run (every seed) and the given columns."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: row.get(key) for key in columns})
    return atomic_write_text(Path(exp_dir) / SUMMARY_FILE, buffer.getvalue())


def save_figure(fig: plt.Figure, path: Path) -> Path:
    """Save ``fig`` as PNG atomically and close it."""
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=120)
    plt.close(fig)
    return atomic_write_bytes(path, buffer.getvalue())


def plot_series(ax: plt.Axes, groups: dict[str, dict[float, list[float]]], marker: str = "o") -> None:
    """One line per label: mean over seeds against x, every seed drawn as a faint dot."""
    for label, by_x in groups.items():
        xs = sorted(by_x)
        means = [float(np.mean(by_x[x])) for x in xs]
        line, = ax.plot(xs, means, marker=marker, label=label)
        for x in xs:
            ax.scatter([x] * len(by_x[x]), by_x[x], color=line.get_color(), alpha=0.35, s=12)


def series(rows: list[dict[str, Any]], label_key: str, x_key: str, y_key: str,
           transform=lambda v: v) -> dict[str, dict[float, list[float]]]:
    """Group rows into ``{label: {x: [y per seed]}}`` (rows with a missing y are skipped)."""
    out: dict[str, dict[float, list[float]]] = {}
    for row in rows:
        if row.get(y_key) is None:
            continue
        out.setdefault(str(row[label_key]), {}).setdefault(float(row[x_key]), []).append(
            float(transform(row[y_key])))
    return out


def log_axis_with_ticks(ax: plt.Axes, values: Sequence[float], base: float = 2) -> None:
    """Logarithmic x axis labelled at exactly ``values`` (plain numbers, no powers)."""
    ticks = sorted(set(float(v) for v in values))
    ax.set_xscale("log", base=base)
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{v:g}" for v in ticks])
    ax.minorticks_off()
