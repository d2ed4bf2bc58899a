"""Statistics behind every headline: baselines, seeds, standard errors.

- :func:`residual_ratio` — ``(1 − R²)/(1 − R²_raw)``: the share of the raw
  observation's probe error that an encoder leaves (1 for the identity
  encoder, 0 for a perfect one). T1's verdict is on it, never on R² alone.
- :func:`over_seeds` — mean, standard error (``std/√k`` with ``ddof = 1``; ``None``
  for one seed) and the worst seed of one setting.
- :func:`difference` — the difference of two settings' means with the standard
  error of that difference (paired by seed when both have the same seeds,
  else independent).

A headline built from these is judged by :func:`lejepa_wm.records.verdict_of`:
a margin within two standard errors of zero is "not resolved".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

__all__ = ["residual_ratio", "SeedSummary", "over_seeds", "difference", "by_seed"]


def residual_ratio(r2: float, raw_r2: float) -> float:
    """``(1 − R²)/(1 − R²_raw)``; ``raw_r2`` must be below 1 (a raw input that solves the task leaves no room)."""
    if not raw_r2 < 1.0:
        raise ValueError(f"the raw observation's R² must be below 1 to leave room for an encoder; got {raw_r2!r}")
    return (1.0 - r2) / (1.0 - raw_r2)


@dataclass(frozen=True)
class SeedSummary:
    """One setting over its seeds: mean, standard error (``None`` for one seed), worst value, the seeds."""

    mean: float
    standard_error: float | None
    worst: float
    seeds: tuple[int, ...]

    def describe(self, digits: int = 4) -> str:
        """``mean ± se (worst w, k seeds)``."""
        error = "" if self.standard_error is None else f" ± {self.standard_error:.{digits}f}"
        return f"{self.mean:.{digits}f}{error} (worst {self.worst:.{digits}f}, {len(self.seeds)} seed(s))"


def over_seeds(values: Mapping[int, float], higher_is_better: bool = True) -> SeedSummary:
    """Summary of ``{seed: value}``; the worst seed is the minimum (or the maximum if lower is better)."""
    if not values:
        raise ValueError("no seeds to summarize")
    array = np.asarray([float(values[seed]) for seed in sorted(values)])
    se = float(np.std(array, ddof=1) / math.sqrt(len(array))) if len(array) > 1 else None
    worst = float(array.min() if higher_is_better else array.max())
    return SeedSummary(float(array.mean()), se, worst, tuple(sorted(values)))


def difference(first: Mapping[int, float], second: Mapping[int, float]) -> tuple[float, float | None]:
    """``mean(first) − mean(second)`` and its standard error.

    Paired by seed when both settings ran the same seeds (the standard error of
    the per-seed differences), otherwise the two standard errors combined as
    independent; ``None`` when either side has a single seed.
    """
    if not first or not second:
        raise ValueError("both settings need at least one seed")
    if set(first) == set(second):
        summary = over_seeds({seed: float(first[seed]) - float(second[seed]) for seed in first})
        return summary.mean, summary.standard_error
    a, b = over_seeds(first), over_seeds(second)
    single = a.standard_error is None or b.standard_error is None
    return a.mean - b.mean, None if single else math.hypot(a.standard_error, b.standard_error)


def by_seed(rows: Iterable[Mapping[str, object]], key: str, **where: object) -> dict[int, float]:
    """``{seed: row[key]}`` over the result rows matching every ``where`` item."""
    return {int(r["seed"]): float(r[key]) for r in rows  # type: ignore[arg-type]
            if all(r.get(k) == v for k, v in where.items())}

