"""Summary tables and the one figure style of the package: sizes for a paper, legends outside the data.

Every method has a fixed colour, marker and label (:data:`_METHODS`), the
same in every figure; a series whose label names a method with a qualifier
(``"whitening (shortcut)"``, ``"sigreg: scale-free"``) takes that method's
style. Baselines (the raw observation, predictions) are black, reference lines
grey and labelled.

Figures are sized for a two-column paper (:data:`COLUMN_WIDTHS`: one column
3.5 in, both 7.2 in) and made with :func:`figure_grid`, a plain
:class:`matplotlib.figure.Figure` (no pyplot state, no backend chosen: this
module changes nothing in matplotlib when imported). A series is drawn by
:func:`plot_series` as its mean over seeds with ± one standard error, every
seed a faint dot. :func:`save_figure` finishes a figure (:func:`finish_figure`:
one font size, one legend for the whole figure, deduplicated, below the
panels, never over the data) and writes it as PDF (vector, for a paper) and
PNG (:data:`_PNG_DPI`), the PNG carrying a caption in its metadata, which the
report shows under the figure.
"""

from __future__ import annotations

import csv
import io
import textwrap
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.collections import Collection
from matplotlib.container import Container
from matplotlib.figure import Figure

from lejepa_wm.atomic import atomic_write_bytes, atomic_write_text
from lejepa_wm.experiments.base import SUMMARY_FILE
from lejepa_wm.experiments.evidence import over_seeds

__all__ = [
    "BASELINE_STYLE", "COLUMN_WIDTHS", "PANEL_HEIGHT", "FONT_SIZE", "figure_grid", "style_of", "display_label",
    "write_summary", "mean_and_se", "plot_series", "target_line", "plot_raw", "complement", "series",
    "log_axis_with_ticks", "finish_figure", "save_figure"
]

_METHODS: dict[str, tuple[str, str, str]] = {
    "sigreg": ("SIGReg", "#1f77b4", "o"),
    "sigreg_lejepa": ("SIGReg, LeJEPA's statistic", "#aec7e8", "o"),
    "whitening": ("whitening", "#d62728", "s"),
    "infonce": ("InfoNCE", "#2ca02c", "^"),
    "infonce_fixed": ("InfoNCE, fixed width", "#2ca02c", "^"),
    "infonce_scaled": ("InfoNCE, width ∝ √n", "#9467bd", "v"),
    "whitened": ("batch-whitened alignment (hard constraint)", "#ff7f0e", "P"),
    "alignment_only": ("λ = 0 control (alignment only)", "#7f7f7f", "x"),
    "supervised": ("supervised ceiling (regression onto z)", "#17becf", "*"),
}
"""Each method's readable label, colour and marker, the same in every figure."""
_BY_LENGTH = sorted(_METHODS, key=len, reverse=True)
"""The method names, longest first: a label names the longest method that prefixes it."""
BASELINE_STYLE: dict[str, Any] = {"color": "black", "marker": "", "linestyle": "--"}
_RAW_LABEL = "raw observation x (no encoder)"
_REFERENCE_COLOR = "grey"
_FALLBACK_COLORS = ("#8c564b", "#e377c2", "#bcbd22", "#17becf")

COLUMN_WIDTHS: dict[str, float] = {"one": 3.5, "two": 7.2}
"""Figure widths in inches: one column and the full width of a two-column paper."""
PANEL_HEIGHT = 2.4
"""Height of one row of panels, in inches."""
FONT_SIZE = 8.0
_SMALL_FONT_SIZE = 7.0
_PNG_DPI = 150
_MAX_LEGEND_COLUMNS = 4
_LEGEND_LABEL_CHARACTERS = 48
"""Legend labels longer than this are wrapped onto more lines."""


def figure_grid(rows: int = 1, columns: int = 1, width: str = "two", height: float | None = None,
                **subplots: Any) -> tuple[Figure, np.ndarray]:
    """A figure ``width`` (``"one"`` or ``"two"`` columns) wide with ``rows × columns`` panels (a 2-d array).

    ``height`` is in inches (default :data:`PANEL_HEIGHT` per row); ``subplots``
    goes to :meth:`Figure.subplots` (``sharex``, ``sharey``, ``gridspec_kw``).
    The figure uses constrained layout, so :func:`finish_figure` can put the
    legend outside the panels.
    """
    if width not in COLUMN_WIDTHS:
        raise ValueError(f"figure width must be one of {sorted(COLUMN_WIDTHS)}; got {width!r}")
    fig = Figure(figsize=(COLUMN_WIDTHS[width], height or PANEL_HEIGHT * rows), layout="constrained")
    return fig, fig.subplots(rows, columns, squeeze=False, **subplots)


def style_of(label: str) -> dict[str, Any]:
    """Colour and marker of the method a series label names (longest method name that prefixes it)."""
    for method in _BY_LENGTH:
        readable, color, marker = _METHODS[method]
        if label == method or label.startswith((method + " ", method + ":", readable)):
            return {"color": color, "marker": marker}
    return {"color": _FALLBACK_COLORS[sum(map(ord, label)) % len(_FALLBACK_COLORS)], "marker": "D"}


def display_label(label: str) -> str:
    """A method name replaced by its readable label (``alignment_only`` → ``λ = 0 control …``); a label that
    already starts with a readable label is kept."""
    if label.startswith(tuple(readable for readable, _, _ in _METHODS.values())):
        return label
    for method in _BY_LENGTH:
        if label == method or label.startswith((method + " ", method + ":")):
            return _METHODS[method][0] + label[len(method):]
    return label


def write_summary(exp_dir: Path, rows: list[dict[str, Any]], columns: Sequence[str]) -> Path:
    """Write ``summary.csv`` with one row per run (every seed) and the given columns."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: row.get(key) for key in columns} for row in rows)
    return atomic_write_text(Path(exp_dir) / SUMMARY_FILE, buffer.getvalue())


def mean_and_se(values: Sequence[float]) -> tuple[float, float]:
    """Mean of ``values`` and its standard error over them (``std / √k``, ``ddof = 1``; 0 for one value), as
    :func:`~lejepa_wm.experiments.evidence.over_seeds` computes them."""
    summary = over_seeds(dict(enumerate(values)))
    return summary.mean, summary.standard_error or 0.0


def plot_series(ax: Axes, groups: Mapping[str, Mapping[float, list[float]]], style: Mapping[str, Any] | None = None,
                dashed: bool = False) -> None:
    """One line per label: the mean over seeds against x with ± one standard error, every seed a faint dot."""
    for label, by_x in groups.items():
        xs = sorted(by_x)
        stats = [mean_and_se(by_x[x]) for x in xs]
        look = dict(style) if style is not None else style_of(label)
        if dashed:
            look["linestyle"] = ":"
        container = ax.errorbar(xs, [m for m, _ in stats], yerr=[se for _, se in stats], label=display_label(label),
                                capsize=2, elinewidth=0.8, markersize=4, **look)
        color = container.lines[0].get_color()
        for x in xs:
            ax.scatter([x] * len(by_x[x]), by_x[x], color=color, alpha=0.3, s=6, linewidths=0)


def target_line(ax: Axes, value: float, label: str, horizontal: bool = True) -> None:
    """A labelled grey reference line (a target, a predicted threshold)."""
    (ax.axhline if horizontal else ax.axvline)(value, color=_REFERENCE_COLOR, ls=":", lw=1,
                                               label=f"{label} = {value:.3g}")


def plot_raw(ax: Axes, rows: list[dict[str, Any]], x_key: str, y_key: str = "raw_observation_r2",
             unexplained: bool = False) -> None:
    """The raw observation's probe R² (no encoder) against ``x_key``, black and dashed (rows are test-sample rows);
    ``1 − R²`` with ``unexplained``."""
    groups = {_RAW_LABEL: series(rows, "split", x_key, y_key).get("test", {})}
    plot_series(ax, complement(groups) if unexplained else groups, style=BASELINE_STYLE)


def complement(groups: Mapping[str, Mapping[float, list[float]]]) -> dict[str, dict[float, list[float]]]:
    """``1 − y`` for every value of :func:`series` groups (R² into the unexplained share ``1 − R²``)."""
    return {label: {x: [1.0 - y for y in ys] for x, ys in by_x.items()} for label, by_x in groups.items()}


def series(rows: list[dict[str, Any]], label_key: str, x_key: str, y_key: str) -> dict[str, dict[float, list[float]]]:
    """Group rows into ``{label: {x: [y per seed]}}`` (rows with a missing y are skipped)."""
    out: dict[str, dict[float, list[float]]] = {}
    for row in (r for r in rows if r.get(y_key) is not None):
        out.setdefault(str(row[label_key]), {}).setdefault(float(row[x_key]), []).append(float(row[y_key]))
    return out


def log_axis_with_ticks(ax: Axes, values: Sequence[float]) -> None:
    """Logarithmic x axis (base 2) labelled at exactly ``values`` (plain numbers, no powers)."""
    ticks = sorted(set(float(v) for v in values))
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
    ax.minorticks_off()


def _legend_entries(fig: Figure) -> tuple[list[Artist], list[str]]:
    """Every labelled mark of the figure's legends and panels, one per label: a figure legend's own handles
    (proxy artists) first, then the panels' labelled marks (a panel's legend lists only those); data series
    (error bars, scattered points) before lines and areas (references, bands)."""
    entries: dict[str, Artist] = {}
    for legend in fig.legends:
        for handle, text in zip(legend.legend_handles, legend.get_texts()):
            if handle is not None:
                entries.setdefault(text.get_text(), handle)
    for ax in fig.axes:  # matplotlib lists only labelled marks (no label, or one starting with "_", is left out)
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    ordered = sorted(entries.items(), key=lambda item: not isinstance(item[1], (Container, Collection)))
    return [handle for _, handle in ordered], [label for label, _ in ordered]


def finish_figure(fig: Figure) -> Figure:
    """One font size for every text, and one deduplicated legend below the panels (outside every axes).

    Per-panel legends and earlier figure legends are merged into it (a label
    that appears in several panels is listed once), in as many columns as fit
    the figure's width. A panel switched off (``ax.axis("off")``) that holds no
    data (one that only carried a legend) is removed.
    """
    handles, labels = _legend_entries(fig)
    for ax in list(fig.axes):
        if ax.get_legend() is not None:
            ax.get_legend().remove()
        if not ax.axison and not (ax.lines or ax.collections or ax.patches or ax.images):
            fig.delaxes(ax)
    for legend in list(fig.legends):
        legend.remove()
    for ax in fig.axes:
        for text in (ax.title, ax.xaxis.label, ax.yaxis.label):
            text.set_fontsize(FONT_SIZE)
        ax.tick_params(labelsize=_SMALL_FONT_SIZE)
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("constrained")
    labels = [textwrap.fill(label, _LEGEND_LABEL_CHARACTERS, break_on_hyphens=False) for label in labels]
    for columns in range(min(len(labels), _MAX_LEGEND_COLUMNS), 0, -1):  # as many as fit the figure's width
        legend = fig.legend(handles, labels, loc="outside lower center", ncols=columns, fontsize=_SMALL_FONT_SIZE,
                            frameon=False)
        if columns == 1 or legend.get_window_extent().width <= fig.get_figwidth() * fig.dpi:
            break
        legend.remove()
    return fig


def save_figure(fig: Figure, path: Path, caption: str) -> Path:
    """Finish ``fig`` and save it as PNG at ``path`` (caption in its metadata) and as PDF beside it.

    Returns the PNG's path (the file the report embeds); the PDF has the same
    name with ``.pdf``. Both are written atomically.
    """
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise ValueError(f"a figure is saved under its PNG name; got {path.name!r}")
    finish_figure(fig)
    png, pdf = io.BytesIO(), io.BytesIO()
    fig.savefig(png, format="png", dpi=_PNG_DPI, metadata={"Title": path.stem, "Description": caption})
    fig.savefig(pdf, format="pdf", metadata={"Title": path.stem, "Subject": caption})
    atomic_write_bytes(path.with_suffix(".pdf"), pdf.getvalue())
    return atomic_write_bytes(path, png.getvalue())
