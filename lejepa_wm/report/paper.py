"""The paper's number beside the same quantity measured here, and the settings that differ from the paper's.

Where the paper states an R² (or where an R² peaks), the verdicts of the
package are judged on what training adds (the residual ratio, the gap to a
control), which is not the quantity the paper quotes. :func:`comparisons`
puts the paper's statement beside that very quantity, computed from the
experiment's ``summary.csv`` (one row per run, numbers only): the mean test R²
over seeds with its standard error, and where it is lowest or peaks. Nothing
here decides a verdict.

:data:`PAPER_SETTINGS` are the settings of the paper's experiments that this
package changed, each beside the key of the shipped config that holds the
package's value (:func:`settings_rows` reads it from the config files).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable

from lejepa_wm.claims import CLAIMS
from lejepa_wm.experiments import get_experiment
from lejepa_wm.experiments.evidence import over_seeds

__all__ = ["Row", "Comparison", "comparisons", "PAPER_SETTINGS", "settings_rows"]

Row = dict[str, Any]


@dataclass(frozen=True)
class Comparison:
    """A statement of the paper and the same quantity measured in ``experiment`` (with its figure).

    ``claim`` is the first of ``candidates`` that the experiment's headline judges (T1's trained-encoder
    numbers belong to T1R where the registry keeps the two apart), chosen by :func:`comparisons`.
    """

    claim: str
    experiment: str
    paper: str
    measured: str
    figure: str | None = None
    candidates: tuple[str, ...] = ()


def _read_summary(path: Path) -> list[Row]:
    """The rows of a ``summary.csv``: numbers as floats, empty cells as ``None``, other text kept."""
    def value(text: str) -> Any:
        try:
            return None if text == "" else float(text)
        except ValueError:
            return text

    with open(path, newline="", encoding="utf-8") as handle:
        return [{key: value(text) for key, text in row.items()} for row in csv.DictReader(handle)]


def _stat(values: Iterable[float]) -> str:
    """``mean ± standard error`` over the values (the mean alone for one value)."""
    summary = over_seeds(dict(enumerate(values)))
    error = summary.standard_error
    return f"{summary.mean:.4f}" if error is None else f"{summary.mean:.4f} ± {error:.4f}"


def _by(rows: list[Row], key: str, value_key: str, **where: Any) -> dict[Any, list[float]]:
    grouped: dict[Any, list[float]] = defaultdict(list)
    for row in rows:
        if all(row.get(k) == v for k, v in where.items()) and isinstance(row.get(value_key), float):
            grouped[row[key]].append(row[value_key])
    return dict(grouped)


def _seeds(rows: list[Row]) -> str:
    seeds = sorted({int(row["seed"]) for row in rows if isinstance(row.get("seed"), float)})
    return f"seeds {', '.join(map(str, seeds))}" if len(seeds) != 1 else f"seed {seeds[0]}"


def _n(value: float) -> str:
    return f"{value:g}"


def _scaling(rows: list[Row]) -> list[Comparison]:
    parts = []
    for encoder in ("published", "matched_additive"):
        lowest = []
        for method, label in (("sigreg", "SIGReg"), ("whitening", "whitening")):
            per_n = _by(rows, "n", "probe_r2", encoder_kind=encoder, method=method)
            if per_n:
                n, values = min(per_n.items(), key=lambda item: sum(item[1]) / len(item[1]))
                lowest.append(f"{label} {_stat(values)} (n = {_n(n)})")
        if lowest:  # an encoder without runs has none
            dims = sorted({r["n"] for r in rows if r.get("encoder_kind") == encoder})
            parts.append(f"{encoder} encoder, n = {_n(dims[0])}…{_n(dims[-1])}: " + ", ".join(lowest))
    return [Comparison("T1", "scaling", "linear-probe R² > 0.999 for n up to 1024",
                       "lowest mean test R² over n: " + "; ".join(parts) + f" ({_seeds(rows)})", "r2_vs_n.png",
                       _TRAINED_T1)] if parts else []


def _distribution(rows: list[Row]) -> list[Comparison]:
    mala = [r for r in rows if r.get("channel") == "mala"]
    parts = []
    for method, label in (("sigreg", "SIGReg"), ("whitening", "whitening")):
        per_beta = _by(mala, "beta", "probe_r2", method=method)
        if 2.0 in per_beta and len(per_beta) > 1:
            peak = max(per_beta, key=lambda beta: sum(per_beta[beta]) / len(per_beta[beta]))
            parts.append(f"{label} peaks at β = {_n(peak)} (R² {_stat(per_beta[peak])}; at β = 2: "
                         f"{_stat(per_beta[2.0])})")
    return [Comparison("T2", "distribution", "linear R² peaks at β = 2 (the Gaussian)",
                       "mean test R² over β: " + "; ".join(parts) + f" ({_seeds(mala)})",
                       "r2_vs_beta.png")] if parts else []


def _anisotropic(rows: list[Row]) -> list[Comparison]:
    per_ratio = _by(rows, "ratio", "fast_r2", method="whitening")
    below = [ratio for ratio in per_ratio if ratio < 2.0]
    above = [ratio for ratio in per_ratio if ratio > 2.0]
    if not (below and above):
        return []
    near_below, near_above = max(below), min(above)
    return [Comparison("P5", "anisotropic", "the fastest latent must be less than twice as fast as the slowest",
                       f"whitening, test R² of the fast coordinate: {_stat(per_ratio[near_below])} at ratio "
                       f"{_n(near_below)}, {_stat(per_ratio[near_above])} at ratio {_n(near_above)} "
                       f"({_seeds(rows)})", "fast_r2_vs_ratio.png")]


def _reacher(rows: list[Row]) -> list[Comparison]:
    def model(fraction: float, test: str) -> str:
        mine = [r for r in rows if r.get("ou_fraction") == fraction and not r.get("control")]  # models only
        joints = ", ".join(f"{joint} {_stat(r[f'{test}_test_r2_{joint}'] for r in mine)}"
                           for joint in ("shoulder", "wrist"))
        return f"{_stat(r[f'{test}_test_r2_total'] for r in mine)} ({joints})"

    fractions = {r.get("ou_fraction") for r in rows}
    found = []
    if 1.0 in fractions:
        found.append(Comparison("T1", "reacher", "R² = 0.95 from pixels, OU-trained encoder",
                                f"OU-pairs model, test R² on OU frames: {model(1.0, 'ou')} ({_seeds(rows)})",
                                "r2_per_joint.png", _TRAINED_T1))
    if 0.0 in fractions:
        found.append(Comparison("T4", "reacher", "trajectory-trained encoder: total R² below 0.5, strongly "
                                                 "asymmetric per joint",
                                f"trajectory-pairs model, test R² on OU frames: {model(0.0, 'ou')}; on its own "
                                f"held-out episodes: {model(0.0, 'traj')} ({_seeds(rows)})", "r2_per_joint.png"))
    return found


_TRAINED_T1 = ("T1R", "T1")
"""Where the numbers of trained encoders against T1 are judged: T1R (reached by training), else T1."""

_COMPARATORS: dict[str, Callable[[list[Row]], list[Comparison]]] = {
    "scaling": _scaling, "distribution": _distribution, "anisotropic": _anisotropic, "reacher": _reacher}
"""The experiments in which the paper quotes a number, and how to measure the same quantity in their summary."""


def comparisons(summaries: dict[str, Path], judged: Iterable[tuple[str, str]] = ()) -> list[Comparison]:
    """Every comparison the experiments with a ``summary.csv`` (``{experiment: path}``) allow, in claim order.

    ``judged`` holds the ``(claim, experiment)`` pairs of the headline results; a comparison is put under the
    first of its candidate claims that its experiment judges (else under its own).
    """
    judged = set(judged)
    found = []
    for name, path in summaries.items():
        if name not in _COMPARATORS:
            continue
        try:
            found += _COMPARATORS[name](_read_summary(path))
        except (OSError, ValueError, KeyError, TypeError) as exc:  # a damaged summary is named, never fatal
            found.append(Comparison("-", name, "-", f"not computed: {path.name} cannot be read as this "
                                                    f"experiment's summary ({type(exc).__name__}: {exc})"))
    found = [replace(item, claim=next((claim for claim in item.candidates if (claim, item.experiment) in judged),
                                      item.claim)) for item in found]
    order = [claim.id for claim in CLAIMS]
    return sorted(found, key=lambda c: order.index(c.claim) if c.claim in order else len(order))


@dataclass(frozen=True)
class _PaperSetting:
    """A setting of the paper's experiments, and where the package's own value lives."""

    setting: str
    paper: str
    experiment: str
    keys: tuple[str, ...]
    why: str


PAPER_SETTINGS: tuple[_PaperSetting, ...] = (
    _PaperSetting("OU correlation ρ of the pairs (T1)", "0.95", "scaling", ("rho",),
                 "not among the tuned settings (docs/TUNING.md); every ρ in (0, 1) is in the theorems' scope"),
    _PaperSetting("training steps per run (T1, full scale)", "20,000", "scaling",
                 ("max_steps", "steps_by_n", "published_steps_by_n"),
                 "budgets chosen per n on tuning seeds, with early stopping at validation R² ≥ 0.999 "
                 "(docs/TUNING.md)"),
    _PaperSetting("SIGReg's form and weight (T2, P5)", "LeJEPA's V-statistic on the raw embedding", "distribution",
                 ("sigreg_statistic", "sigreg_standardize", "sigreg_weight"),
                 "LeJEPA's SIGReg stops short of whitening, shrunk and bent; the scale-free unbiased form does "
                 "not (docs/SIGREG.md)"),
    _PaperSetting("encoders trained per run (T1)", "3, the lowest loss kept", "scaling",
                 ("starts", "restart_encoders", "restart_max_n"),
                 "kept by the lowest validation objective, where a start of the paper's encoder can settle in a "
                 "wrong optimum (n ≤ 16; every start tried above reached the target: docs/TUNING.md); one start "
                 "elsewhere, and generic encoders beside the paper's"),
)


def _value_text(value: Any, separators: tuple[str, ...] = ("; ", " → ")) -> str:
    """A config value as the table shows it: ``none``, ``true``, ``16,000``; a tuple's items joined by the first of
    ``separators``, the items of a nested tuple by the next (``128 → 16,000; 256 → 32,000``)."""
    if value is None or value == ():
        return "none"
    if isinstance(value, tuple):
        return separators[0].join(_value_text(item, separators[1:]) for item in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:,}" if isinstance(value, int) else str(value)


def settings_rows(scale: str = "full") -> list[tuple[str, str, str, str]]:
    """``(setting, paper, here, why)`` for each of :data:`PAPER_SETTINGS`, ``here`` read from the shipped config."""
    rows = []
    for item in PAPER_SETTINGS:
        config = get_experiment(item.experiment).load_config(scale)
        here = ", ".join(f"{key} = {_value_text(getattr(config, key))}" for key in item.keys)
        rows.append((item.setting, item.paper, f"{here} ({item.experiment}.toml)", item.why))
    return rows
