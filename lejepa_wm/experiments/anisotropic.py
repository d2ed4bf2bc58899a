"""Experiment ``anisotropic`` (claim P5): recovery of the fast latent vs the rate ratio κ_max/κ_min.

Gaussian latents in each world ``(n, k)`` of ``worlds``: ``n − k`` slow coordinates with
rate ``κ_min = 1`` and ``k`` fast coordinates with rate ``κ_max = r``; the OU channel runs
for time ``τ`` so ``ρ_i = exp(−κ_i τ)`` exactly (the per-coordinate ρ vector is stored
with every run). The first world keeps the plain run ids (``ratio=…``), the others are
prefixed ``n=…_fast=…_``. An MLP encoder (able to compute the second Hermite harmonic
``H_2(z) = (z² − 1)/√2``) is trained with each objective and with the λ = 0
control.

Prediction (P5, proved for the second-moment constraint, i.e. whitening): the
whitened minimizers keep the top-n Mehler eigenvalues; ``H_1`` of the fast
coordinate (eigenvalue ``ρ_min = e^{−rτ}``) beats ``H_2`` of a slow one
(``ρ_max² = e^{−2τ}``) iff ``r < 2``. So the fast coordinate's test probe R² is
high below ratio 2 and collapses above it, where the encoder carries
``H_2(z_slow)`` instead (its linear decodability from ``h`` is reported as
``slow_harmonic_r2``; with ``k`` fast coordinates replaced it is at most
``k/(n − k)``, reached only if each replacement is a pure ``H_2`` of one slow
coordinate rather than a mixture with the products ``z_i z_j`` that share its
eigenvalue). Ratios within ``unjudged_band`` of 2 are run and plotted, and their
runs listed seed by seed, but left out of the verdict: there the two eigenvalues
are nearly equal, and a finite training budget cannot be expected to choose. The
verdict needs every seed to agree: the worst seed's fast R² above ``high_r2``
below the band and below ``low_r2`` above it (the raw observation keeps the
fast coordinate at every ratio, so the identity encoder fails).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np
import torch
from torch import nn

from matplotlib.figure import Figure

from lejepa_wm.experiments.heldout import HeldOutSamples, embed
from lejepa_wm.experiments.metrics import linear_probe_r2
from lejepa_wm.experiments.plotting import figure_grid, plot_raw, plot_series, series, target_line
from lejepa_wm.experiments.run_params import SyntheticRunParams
from lejepa_wm.experiments.synthetic import SyntheticExperiment, TrainingConfig
from lejepa_wm.experiments.training import numpy64
from lejepa_wm.experiments.worlds import GaussianWorld, rates_to_rho
from lejepa_wm.records import Bound, HeadlineEntry
from lejepa_wm.schema import Positive

__all__ = ["AnisotropicConfig", "EXPERIMENT"]

_METHODS = ("whitening", "sigreg", "alignment_only")
_PAPER = "fast latent must be less than twice as fast as the slowest"


@dataclass(frozen=True)
class AnisotropicConfig(TrainingConfig):
    """Sweep keys of the anisotropic experiment."""

    worlds: tuple[tuple[int, ...], ...] = ((2, 1),)
    ratios: tuple[float, ...] = (1.25, 1.5, 3.0, 4.0)
    tau: Positive = 0.693
    methods: tuple[str, ...] = _METHODS
    high_r2: float = 0.9
    low_r2: float = 0.5
    unjudged_band: float = 0.1

    def __post_init__(self) -> None:
        super().__post_init__()
        self.require(bool(self.worlds) and len(set(self.worlds)) == len(self.worlds)
                     and all(len(w) == 2 and w[0] >= 2 and 1 <= w[1] < w[0] for w in self.worlds), "worlds",
                     "must list distinct [n, fast coordinates] pairs with n >= 2 and 1 <= fast < n")
        self.require_probe_sample(max(n for n, _ in self.worlds))
        self.require(bool(self.ratios) and all(r >= 1.0 for r in self.ratios), "ratios", "must be numbers >= 1")
        self.require_methods(_METHODS)
        if not 0.0 < self.low_r2 < self.high_r2 <= 1.0:
            raise ValueError(f"need 0 < low_r2 < high_r2 <= 1; got {self.low_r2!r}, {self.high_r2!r}")
        self.require(0.0 <= self.unjudged_band < 1.0, "unjudged_band", "must lie in [0, 1)")


def _slow_harmonic(z: torch.Tensor, fast: int) -> np.ndarray:
    """``H_2`` of every slow coordinate (all but the last ``fast``): ``(z² − 1)/√2``."""
    slow = numpy64(z[:, :-fast])
    return (slow**2 - 1.0) / np.sqrt(2.0)


def _fast_count(rho: list[float]) -> int:
    """How many coordinates are fast: those whose pair correlation is below the largest (the slow ones')."""
    return sum(r < max(rho) for r in rho)


def _harmonic_ceiling(n: int, fast: int) -> float:
    """The largest ``slow_harmonic_r2`` once ``fast`` coordinates are replaced: ``fast/(n − fast)``, at most 1."""
    return min(1.0, fast / (n - fast))


class _AnisotropicExperiment(SyntheticExperiment):
    name = "anisotropic"
    description = "P5: fast-coordinate probe R^2 vs rate ratio kappa_max/kappa_min (threshold 2)"
    config_class = AnisotropicConfig

    def grid(self, config: AnisotropicConfig, scale: str, seed: int = 0) -> list:
        def world(n: int, fast: int, ratio: float) -> GaussianWorld:
            return GaussianWorld(n, rates_to_rho([1.0] * (n - fast) + [ratio] * fast, config.tau).tolist())

        def prefix(n: int, fast: int) -> str:
            return "" if (n, fast) == tuple(config.worlds[0]) else f"n={n}_fast={fast}_"

        return [self.spec(scale, f"{prefix(n, fast)}ratio={ratio:g}_{method}_seed={run_seed}",
                          config.run(world(n, fast, ratio), method, run_seed, ratio=ratio))
                for (n, fast), ratio, run_seed, method
                in product(config.worlds, config.ratios, config.run_seeds(seed), config.methods)]

    def extra_metrics(self, encoder: nn.Module, samples: HeldOutSamples, params: SyntheticRunParams) -> dict[str, Any]:
        fast = _fast_count(list(params.world.rho))
        h_fit, h_test = embed(encoder, samples.fit.x), embed(encoder, samples.test.x)
        harmonic_r2, _ = linear_probe_r2(h_fit, _slow_harmonic(samples.fit.z, fast), h_test,
                                         _slow_harmonic(samples.test.z, fast))
        _, raw_per_coord = linear_probe_r2(samples.fit.x, samples.fit.z, samples.test.x, samples.test.z)
        return {"slow_harmonic_r2": float(harmonic_r2), "raw_fast_r2": float(np.mean(raw_per_coord[-fast:]))}

    summary_columns = ("run_id", "n", "fast", "ratio", "method", "seed", "split", "fast_r2", "slow_r2",
                       "raw_fast_r2", "slow_harmonic_r2", "probe_r2", "embedding_std", "validation_r2", "steps",
                       "train_seconds")
    figure_file = "fast_r2_vs_ratio.png"

    def derived(self, row: dict[str, Any], config: AnisotropicConfig) -> dict[str, Any]:
        """The world ``(n, fast)`` and the mean test R² of its fast and of its slow coordinates."""
        per_coord, fast = row["probe_r2_per_coord"], _fast_count(row["rho"])
        return {"n": len(per_coord), "fast": fast, "fast_r2": float(np.mean(per_coord[-fast:])),
                "slow_r2": float(np.mean(per_coord[:-fast]))}

    def draw(self, rows: list[dict[str, Any]], config: AnisotropicConfig) -> tuple[Figure, str]:
        """Per world (n, fast coordinates), a row: the main panel, the fast coordinates' R² against the ratio for
        every objective, the λ = 0 control and the raw observation; beside it the R² of the slow harmonics, with
        the ceiling the swapped coordinates allow."""
        worlds = [tuple(w) for w in config.worlds if any((r["n"], r["fast"]) == tuple(w) for r in rows)]
        fig, axes = figure_grid(len(worlds), 2, sharex=True, height=2.6 * len(worlds) + 0.4,
                                gridspec_kw={"width_ratios": [3, 2]})
        for (main, harmonic), (n, fast) in zip(axes, worlds):
            mine = [r for r in rows if (r["n"], r["fast"]) == (n, fast)]
            plot_series(main, series(mine, "method", "ratio", "fast_r2"))
            plot_raw(main, mine, "ratio", "raw_fast_r2")
            main.set(ylabel="fast coordinates: test R²",
                     title=f"P5, n = {n} with {fast} fast: the fast latents are lost past ratio 2")
            plot_series(harmonic, series([r for r in mine if r["method"] != "alignment_only"], "method", "ratio",
                                         "slow_harmonic_r2"))
            target_line(harmonic, _harmonic_ceiling(n, fast), f"H₂ ceiling fast/(n − fast) = {fast}/{n - fast}")
            harmonic.set(ylabel="H₂(slow coordinates): test R²", title="…and harmonics of the slow ones take over")
            for ax in (main, harmonic):
                target_line(ax, 2.0, "predicted threshold, ratio", horizontal=False)
                ax.axvspan(2.0 - config.unjudged_band, 2.0 + config.unjudged_band, color="grey", alpha=0.15, lw=0,
                           label="not judged (eigenvalues nearly tied)")
        for ax in axes[-1]:
            ax.set(xlabel="rate ratio κ_max / κ_min")
        return fig, ("P5: test probe R² of the fast coordinates (left) and of H₂ of the slow ones (right) against "
                     "the rate ratio, per world (n, fast coordinates); the grey line marks the largest H₂ R² "
                     "possible, fast/(n − fast), reached only when each replaced coordinate carries a pure H₂ rather "
                     "than a mixture with the products z_i z_j of the same eigenvalue; mean ± standard error over "
                     "seeds, dots single seeds")

    def headline(self, rows: list[dict[str, Any]], config: AnisotropicConfig) -> list[HeadlineEntry]:
        entries = []
        for (n, fast), method in product(config.worlds, (m for m in config.methods if m != "alignment_only")):
            mine = [r for r in rows if r["method"] == method and (r["n"], r["fast"]) == (n, fast)]
            below = [r for r in mine if r["ratio"] < 2.0 - config.unjudged_band]
            above = [r for r in mine if r["ratio"] > 2.0 + config.unjudged_band]
            band = sorted((r for r in mine if abs(r["ratio"] - 2.0) <= config.unjudged_band),
                          key=lambda r: (r["ratio"], r["seed"]))
            if not (below and above):
                continue
            lowest, highest = min(r["fast_r2"] for r in below), max(r["fast_r2"] for r in above)
            margin = min(lowest - config.high_r2, config.low_r2 - highest)
            judged = method == "whitening"
            band_text = ("; not judged, within the band around 2, seed by seed: " + ", ".join(
                f"ratio {r['ratio']:g} seed {r['seed']}: {r['fast_r2']:.3f}" for r in band)) if band else ""
            entries.append(HeadlineEntry(
                claim="P5", name=f"anisotropic (n = {n}, {fast} fast, {method}): the fast coordinates are kept "
                                 "below ratio 2 only",
                quantity=(f"smaller margin of the worst seed: min fast R² below the band − {config.high_r2}, "
                          f"{config.low_r2} − max fast R² above it"),
                value=float(margin), bound=Bound.above(0.0) if judged else None,
                measured=(f"fast-coordinate test R²: ratio < {2 - config.unjudged_band:g} min {lowest:.3f}; "
                          f"ratio > {2 + config.unjudged_band:g} max {highest:.3f}; raw observation min "
                          f"{min(r['raw_fast_r2'] for r in mine):.3f} ({len(below) + len(above)} runs, every seed); "
                          f"H₂ of the slow coordinates above the band: max R² "
                          f"{max(r['slow_harmonic_r2'] for r in above):.3f} against a ceiling of "
                          f"{_harmonic_ceiling(n, fast):.3f}" + band_text),
                seeds=tuple(sorted({int(r["seed"]) for r in mine})),
                scope=None if judged else ("no prediction: P5 is proved for the second-moment constraint "
                                           "(whitening); SIGReg constrains the whole law, under which H₂ of a slow "
                                           "latent is not admissible"),
                paper=_PAPER))
        return entries


EXPERIMENT = _AnisotropicExperiment()
