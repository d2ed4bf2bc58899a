"""Experiment ``distribution`` (claim T2): linear identifiability across latent laws.

Latents are independent unit-variance generalized normals ``p_β`` (β < 2 heavy
tailed, β = 1 Laplace, β = 2 Gaussian, large β near uniform). Positive pairs
come from the exactly stationary MALA channel for Langevin time ``τ`` (the T2
dynamics); beside it, the non-stationary shortcut ``z' = ρz + √(1−ρ²)η``
(``η ~ p_β``, ``ρ = e^{−τ}``) is run for the objectives listed in
``shortcut_methods`` and labelled as such. The encoder should be able to
represent per-coordinate warps (default: the MLP).

Prediction (T2, a statement about LeJEPA's objective): the best whitened feature
is the first Langevin eigenfunction ``φ_1``, affine only for the Gaussian, so
the share of the raw probe error that SIGReg and whitening leave, the residual
ratio ``(1 − R²)/(1 − R²_raw)``, is smallest at β = 2. The verdict, per
regularizer: ``min_{β≠2} ratio(β) − ratio(2) > 0`` beyond two standard errors
over seeds (the identity encoder has ratio 1 at every β, so it fails).
InfoNCE is measured, not judged. Each run also reports the excess kurtosis of
both views on the test sample: equal for MALA (stationary), different for the
shortcut.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Annotated, Any

import numpy as np
from pydantic import Field
from scipy.stats import kurtosis
from torch import nn

from matplotlib.figure import Figure

from lejepa_wm.experiments.evidence import by_seed, difference, over_seeds
from lejepa_wm.experiments.heldout import HeldOutSamples
from lejepa_wm.experiments.plotting import (complement, figure_grid, log_axis_with_ticks, plot_raw, plot_series, series,
                                            target_line)
from lejepa_wm.experiments.run_params import ObjectiveParams, SyntheticRunParams
from lejepa_wm.experiments.synthetic import SyntheticExperiment, TrainingConfig
from lejepa_wm.experiments.training import numpy64
from lejepa_wm.experiments.worlds import GeneralizedNormalWorld
from lejepa_wm.records import Bound, HeadlineEntry
from lejepa_wm.schema import Positive

__all__ = ["METHODS", "DistributionConfig", "peak_entry", "EXPERIMENT"]

METHODS = ("sigreg", "sigreg_lejepa", "whitening", "infonce", "alignment_only")
_KURTOSIS_SAMPLE = 32768
_JUDGED = ("sigreg", "whitening")
# A judged entry needs training to have reached the linear optimum at β = 2: a mean residual ratio there at most
# this.
_CONVERGED_RATIO = 0.1
_LEJEPA_SIGREG_WEIGHT = 1.0  # LeJEPA's own SIGReg weight (sigreg_lejepa), as in docs/SIGREG.md's ablation
_NOT_JUDGED = {
    "infonce": "no prediction: T2 is a statement about LeJEPA's objective (SIGReg, whitening)",
    "sigreg_lejepa": ("measured beside the judged SIGReg form: LeJEPA's own statistic penalizes softly, and the "
                      "optimum of its penalty is shrunk and bent (the V-statistic's 1/N term pulls the scale, its "
                      "curvature couples scale and a radial bend: docs/SIGREG.md §3), so T2's prediction about the "
                      "whitened optimum is not made for it"),
}


@dataclass(frozen=True)
class DistributionConfig(TrainingConfig):
    """Sweep keys of the distribution experiment."""

    n: int = 2
    betas: tuple[float, ...] = (1.5, 2.0, 4.0)
    tau: Positive = 0.5
    mala_step: Positive = 0.02
    methods: tuple[str, ...] = METHODS
    shortcut_methods: tuple[str, ...] = ("whitening",)
    infonce_width: Positive = 1.0
    kurtosis_ratio: Annotated[float, Field(gt=1, allow_inf_nan=False)] = 3.0

    def __post_init__(self) -> None:
        super().__post_init__()
        self.require_even("n")
        self.require_probe_sample(self.n)
        self.require(bool(self.betas) and all(b > 0 for b in self.betas) and 2.0 in self.betas, "betas",
                     "must be positive shapes including 2.0")
        self.require_methods(METHODS)
        self.require_methods(METHODS, "shortcut_methods", control=False)

    def objective(self, method: str, n: int | None = None) -> ObjectiveParams:
        """``sigreg`` is the configured form (the scale-free unbiased one at full scale); ``sigreg_lejepa`` is
        LeJEPA's own statistic (the V-statistic on the raw embedding) at LeJEPA's weight 1, shown beside
        it; ``infonce`` has the configured kernel width."""
        if method == "infonce":
            return ObjectiveParams("infonce", 1.0, {"width": self.infonce_width})
        if method == "sigreg_lejepa":
            return ObjectiveParams("sigreg", _LEJEPA_SIGREG_WEIGHT,
                                   {"num_slices": self.sigreg_slices, "statistic": "lejepa", "standardize": False})
        return super().objective(method, n)


class _DistributionExperiment(SyntheticExperiment):
    name = "distribution"
    description = "T2: probe R^2 vs generalized-normal shape beta (stationary MALA pairs and the shortcut)"
    config_class = DistributionConfig

    def grid(self, config: DistributionConfig, scale: str, seed: int = 0) -> list:
        runs = [(m, "mala") for m in config.methods] + [(m, "shortcut") for m in config.shortcut_methods]
        return [self.spec(scale, f"beta={beta:g}_{method}_{channel}_seed={run_seed}",
                          config.run(GeneralizedNormalWorld(config.n, beta, config.tau, channel, config.mala_step),
                                     method, run_seed, beta=beta, channel=channel))
                for beta, run_seed, (method, channel) in product(config.betas, config.run_seeds(seed), runs)]

    def extra_metrics(self, encoder: nn.Module, samples: HeldOutSamples, params: SyntheticRunParams) -> dict[str, Any]:
        """Excess kurtosis of both views on ``_KURTOSIS_SAMPLE`` fresh pairs of the test stream.

        Kurtosis is a fourth moment: on the 4096-point test sample its standard
        error at β = 1.5 is about 0.1, as large as the effect to be seen, so the
        channel's law is measured on a sample of its own (no encoder involved).
        """
        z, z_pos = params.world.sample_pairs(_KURTOSIS_SAMPLE, params.seeds.torch_generator("test"))
        z, z_pos = numpy64(z).ravel(), numpy64(z_pos).ravel()
        return {"excess_kurtosis_z": float(kurtosis(z)), "excess_kurtosis_z_pos": float(kurtosis(z_pos))}

    summary_columns = ("run_id", "beta", "method", "channel", "seed", "split", "probe_r2", "raw_observation_r2",
                       "residual_ratio", "excess_kurtosis_z", "excess_kurtosis_z_pos", "embedding_std", "validation_r2",
                       "steps", "train_seconds")
    figure_file = "r2_vs_beta.png"

    def derived(self, row: dict[str, Any], config: DistributionConfig) -> dict[str, Any]:
        return {"label": row["method"] + ("" if row["channel"] == "mala" else " (shortcut)")}

    def draw(self, rows: list[dict[str, Any]], config: DistributionConfig) -> tuple[Figure, str]:
        """Main panel: 1 − R² against β (log), every objective, the λ = 0 control and the raw observation;
        beside it the verdict's quantity, the residual ratio, with the non-stationary shortcut (dotted)."""
        fig, axes = figure_grid(1, 2, gridspec_kw={"width_ratios": [3, 2]})
        main, ratio = axes[0]
        mala = [row for row in rows if row["channel"] == "mala"]
        shortcut = [row for row in rows if row["channel"] == "shortcut"]
        plot_series(main, complement(series(mala, "label", "beta", "probe_r2")))
        plot_raw(main, mala, "beta", unexplained=True)
        main.set(yscale="log", ylabel="1 − test probe R² (log)",
                 title="T2: linear identifiability is best at the Gaussian (β = 2)")
        plot_series(ratio, series(mala, "label", "beta", "residual_ratio"))
        plot_series(ratio, series(shortcut, "label", "beta", "residual_ratio"), dashed=True)
        ratio.set(yscale="log", ylabel="(1 − R²) / (1 − R²_raw)", title="residual ratio (the verdict's quantity)")
        for ax in (main, ratio):
            target_line(ax, 2.0, "Gaussian, β", horizontal=False)
            log_axis_with_ticks(ax, [row["beta"] for row in rows])
            ax.set(xlabel="shape β of the generalized normal")
        return fig, ("T2: unexplained variance 1 − R² of the test probe (left) and the residual ratio "
                     "(1 − R²)/(1 − R²_raw) (right) against the shape β of the latent law, stationary MALA pairs; "
                     "the non-stationary shortcut dotted; mean ± standard error over seeds, dots single seeds")

    def headline(self, rows: list[dict[str, Any]], config: DistributionConfig) -> list[HeadlineEntry]:
        mala = [r for r in rows if r["channel"] == "mala"]
        entries = [entry for method in ("sigreg", "sigreg_lejepa", "whitening", "infonce")
                   if (entry := peak_entry(mala, method)) is not None]
        shortcut = [r for r in rows if r["channel"] == "shortcut" and r["beta"] != 2.0]
        stationary = [r for r in mala if r["beta"] != 2.0]
        if shortcut and stationary:
            gap = float(np.median([abs(r["excess_kurtosis_z_pos"] - r["excess_kurtosis_z"]) for r in shortcut]))
            noise = float(np.median([abs(r["excess_kurtosis_z_pos"] - r["excess_kurtosis_z"]) for r in stationary]))
            entries.append(HeadlineEntry(
                claim="T2", name="distribution: the shortcut channel is not stationary",
                quantity="median |kurtosis(z') − kurtosis(z)|, shortcut over MALA", value=gap / max(noise, 1e-12),
                bound=Bound.above(config.kurtosis_ratio),
                measured=f"shortcut median {gap:.3f}, MALA median {noise:.3f} (test samples, β ≠ 2)",
                seeds=tuple(sorted({int(r["seed"]) for r in shortcut}))))
        return entries


def peak_entry(rows: list[dict[str, Any]], method: str) -> HeadlineEntry | None:
    """T2 for one objective: the smallest residual ratio at another β minus the ratio at β = 2.

    T2 is about the objective's optimum, so the comparison tests it only if
    training reached that optimum where it is known: at β = 2 the optimum is
    linear (ratio 0), and a mean ratio there above ``_CONVERGED_RATIO`` (0.1) leaves the
    verdict "not resolved".
    """
    betas = sorted({r["beta"] for r in rows if r["method"] == method})
    if 2.0 not in betas or len(betas) < 2:
        return None
    ratios = {beta: by_seed(rows, "residual_ratio", beta=beta, method=method) for beta in betas}
    rival = min((b for b in betas if b != 2.0), key=lambda b: over_seeds(ratios[b]).mean)
    value, se = difference(ratios[rival], ratios[2.0])
    r2 = {beta: over_seeds(by_seed(rows, "probe_r2", beta=beta, method=method)) for beta in betas}
    raw = {beta: over_seeds(by_seed(rows, "raw_observation_r2", beta=beta, method=method)).mean for beta in betas}
    judged = method in _JUDGED
    at_gaussian = over_seeds(ratios[2.0]).mean
    scope = None if judged else _NOT_JUDGED.get(method, _NOT_JUDGED["infonce"])
    return HeadlineEntry(
        claim="T2", name=f"distribution ({method}): linear identifiability peaks at β = 2",
        quantity=f"residual ratio at β = {rival:g} (the best other β) minus at β = 2", value=value,
        bound=Bound.above(0.0) if judged else None,
        measured="; ".join(f"β={b:g}: R² {r2[b].describe(4)} vs raw {raw[b]:.3f}, ratio "
                           f"{over_seeds(ratios[b]).describe(3)}" for b in betas),
        standard_error=se, seeds=r2[2.0].seeds, scope=scope,
        paper="linear R^2 peaks at beta = 2",
        precondition=(f"training reached the linear optimum at β = 2: residual ratio there ≤ {_CONVERGED_RATIO:g} "
                      f"(measured {at_gaussian:.3f})"),
        precondition_met=bool(at_gaussian <= _CONVERGED_RATIO))


EXPERIMENT = _DistributionExperiment()
