"""Summary tables and the one figure style of the package (matplotlib, Agg backend, atomic writes).

Every method has a fixed colour, marker and label (:data:`METHOD_STYLES`), the
same in every figure; a series whose label names a method with a qualifier
(``"whitening (shortcut)"``, ``"sigreg: scale-free"``) takes that method's
style. Baselines (the raw observation, predictions) are black, reference lines
grey and labelled. :func:`save_figure` stores a caption in the PNG itself,
which the report shows under the figure.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any, Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from lejepa_wm.atomic import atomic_write_bytes, atomic_write_text  # noqa: E402
from lejepa_wm.experiments.base import SUMMARY_FILE  # noqa: E402

METHOD_STYLES: dict[str, dict[str, Any]] = {
    "sigreg": {"color": "#1f77b4", "marker": "o"},
    "sigreg_lejepa": {"color": "#aec7e8", "marker": "o"},
    "whitening": {"color": "#d62728", "marker": "s"},
    "infonce": {"color": "#2ca02c", "marker": "^"},
    "infonce_fixed": {"color": "#2ca02c", "marker": "^"},
    "infonce_scaled": {"color": "#9467bd", "marker": "v"},
    "whitened": {"color": "#ff7f0e", "marker": "P"},
    "alignment_only": {"color": "#7f7f7f", "marker": "x"},
    "supervised": {"color": "#17becf", "marker": "*"},
}
METHOD_LABELS: dict[str, str] = {
    "sigreg": "SIGReg", "sigreg_lejepa": "SIGReg, LeJEPA's statistic", "whitening": "whitening", "infonce": "InfoNCE", "infonce_fixed": "InfoNCE, fixed width",
    "infonce_scaled": "InfoNCE, width ∝ √n", "alignment_only": "λ = 0 control (alignment only)",
    "whitened": "batch-whitened alignment (hard constraint)", "supervised": "supervised ceiling (regression onto z)",
}
BASELINE_STYLE: dict[str, Any] = {"color": "black", "marker": "", "linestyle": "--"}
REFERENCE_COLOR = "grey"
FALLBACK_COLORS = ("#8c564b", "#e377c2", "#bcbd22", "#17becf")


def style_of(label: str) -> dict[str, Any]:
    """Colour and marker of the method a series label names (longest method name that prefixes it)."""
    for method in sorted(METHOD_STYLES, key=len, reverse=True):
        if label == method or label.startswith((method + " ", method + ":", METHOD_LABELS[method])):
            return dict(METHOD_STYLES[method])
    return {"color": FALLBACK_COLORS[sum(map(ord, label)) % len(FALLBACK_COLORS)], "marker": "D"}


def display_label(label: str) -> str:
    """A method name replaced by its readable label (``alignment_only`` → ``λ = 0 control …``)."""
    for method in sorted(METHOD_LABELS, key=len, reverse=True):
        if label == method or label.startswith((method + " ", method + ":")):
            return METHOD_LABELS[method] + label[len(method):]
    return label


def write_summary(exp_dir: Path, rows: list[dict[str, Any]], columns: Sequence[str]) -> Path:
    """Write ``summary.csv`` with one row per run (every seed) and the given columns."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: row.get(key) for key in columns} for row in rows)
    return atomic_write_text(Path(exp_dir) / SUMMARY_FILE, buffer.getvalue())


def save_figure(fig: plt.Figure, path: Path, caption: str) -> Path:
    """Save ``fig`` as PNG atomically with ``caption`` in its metadata, and close it."""
    buffer = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buffer, format="png", dpi=110, metadata={"Title": Path(path).stem, "Description": caption})
    plt.close(fig)
    return atomic_write_bytes(path, buffer.getvalue())


def plot_series(ax: plt.Axes, groups: Mapping[str, Mapping[float, list[float]]], style: Mapping[str, Any] | None = None,
                dashed: bool = False) -> None:
    """One line per label: mean over seeds against x, every seed drawn as a faint dot of the same colour."""
    for label, by_x in groups.items():
        xs = sorted(by_x)
        means = [float(np.mean(by_x[x])) for x in xs]
        look = dict(style) if style is not None else style_of(label)
        if dashed:
            look["linestyle"] = ":"
        line, = ax.plot(xs, means, label=display_label(label), **look)
        for x in xs:
            ax.scatter([x] * len(by_x[x]), by_x[x], color=line.get_color(), alpha=0.35, s=12)


def target_line(ax: plt.Axes, value: float, label: str, horizontal: bool = True) -> None:
    """A labelled grey reference line (a target, a predicted threshold)."""
    (ax.axhline if horizontal else ax.axvline)(value, color=REFERENCE_COLOR, ls=":", label=f"{label} = {value:g}")


def plot_raw(ax: plt.Axes, rows: list[dict[str, Any]], x_key: str, y_key: str = "raw_observation_r2") -> None:
    """The raw observation's probe R² (no encoder) against ``x_key``, black and dashed (rows are test-sample rows)."""
    plot_series(ax, {"raw observation x (no encoder)": series(rows, "split", x_key, y_key).get("test", {})},
                style=BASELINE_STYLE)


def series(rows: list[dict[str, Any]], label_key: str, x_key: str, y_key: str) -> dict[str, dict[float, list[float]]]:
    """Group rows into ``{label: {x: [y per seed]}}`` (rows with a missing y are skipped)."""
    out: dict[str, dict[float, list[float]]] = {}
    for row in rows:
        if row.get(y_key) is None:
            continue
        out.setdefault(str(row[label_key]), {}).setdefault(float(row[x_key]), []).append(float(row[y_key]))
    return out


def log_axis_with_ticks(ax: plt.Axes, values: Sequence[float], base: float = 2) -> None:
    """Logarithmic x axis labelled at exactly ``values`` (plain numbers, no powers)."""
    ticks = sorted(set(float(v) for v in values))
    ax.set_xscale("log", base=base)
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{v:g}" for v in ticks])
    ax.minorticks_off()
