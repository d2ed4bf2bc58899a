"""Experiment ``bounds`` (claim T3): the measured error stays below ``D + (ε + D)²`` along training.

Gaussian latents with the OU channel at correlation ρ (exactly the ρ used in
``D = δ / (2ρ(1−ρ))``, :mod:`lejepa_wm.numerics.t3`). At every evaluation the
test sample gives T3's quantities for the current encoder (recorded for the
reader; training decisions look only at the validation sample): ``δ`` (alignment gap), ``ε``
(whitening error), ``D`` and the bound ``D + (ε + D)²`` beside the measured
Procrustes error ``E‖h − Qz‖²`` (``h`` centred, ``Q`` fitted on the fit sample). Runs cover each
regularized objective and the λ = 0 control, so the bound is tested on
encoders near and far from a rotation.

Prediction (T3): error ≤ bound at every evaluation of every run. T3 is a
statement about population quantities; here every quantity is a held-out
sample estimate, and ``δ`` (a difference of two sample means of size O(n))
carries a sampling error that near a linear encoder exceeds its value, and the
measured error is itself a sample mean (for a collapsed encoder ``h ≈ const``
T3 holds with equality, ``error = ε² = n``, so the test sample's own
``mean ‖z − z̄‖²`` decides the side). Every evaluation of a run shares that
run's test sample, so the run, not the evaluation, is the unit of the test.
The verdict therefore compares the error less ``z_R·se(error)`` (``se`` of a
sample mean; ``z_R = Φ⁻¹(1 − 0.05/R)``, the one-sided family-wise 5% level over
the ``R`` runs: 3.11 for 54 runs, 2.39 for 6) against the bound evaluated at
``D + 2·se(D)`` (``se`` from batch means over 16 chunks of the eval sample), and
reports how many evaluations exceed the plain point-estimate bound too.
How closely the error follows the bound (their rank correlation over every
evaluation, and the largest ratio error/bound) is reported as a measurement:
T3 bounds the error from above and predicts nothing about the ordering (a
collapsing λ = 0 control has a tiny ``δ`` and a large ``ε``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np
from scipy.stats import norm, spearmanr

from matplotlib.figure import Figure

from lejepa_wm.experiments.base import FinishedRun
from lejepa_wm.experiments.plotting import display_label, figure_grid, style_of
from lejepa_wm.experiments.synthetic import Encoder, OpenUnit, SyntheticExperiment, TrainingConfig
from lejepa_wm.experiments.worlds import GaussianWorld
from lejepa_wm.numerics.t3 import error_bound, isotropic_rho
from lejepa_wm.records import Bound, HeadlineEntry

__all__ = ["BoundsConfig", "error_allowance", "evaluation_points", "EXPERIMENT"]

_METHODS = ("sigreg", "whitening", "alignment_only")
_FLOOR = 1e-6
"""Values below this are drawn at it (log axes)."""


@dataclass(frozen=True)
class BoundsConfig(TrainingConfig):
    """Sweep keys of the bounds experiment."""

    dims: tuple[int, ...] = (4,)
    rho: OpenUnit = 0.8
    methods: tuple[str, ...] = _METHODS
    encoders: tuple[Encoder, ...] = ("published_scaled",)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.require_even("dims")
        self.require_probe_sample(max(self.dims))
        self.require_methods(_METHODS, control=False)
        self.require(bool(self.encoders), "encoders", "must name at least one encoder")


_FAMILY_LEVEL = 0.05


def error_allowance(runs: int) -> float:
    """``z_R = Φ⁻¹(1 − 0.05/R)``: standard errors of the measured error allowed over ``R`` runs (one-sided, 5%)."""
    return float(norm.ppf(1.0 - _FAMILY_LEVEL / max(runs, 1)))


def evaluation_points(runs: list[FinishedRun]) -> list[dict[str, Any]]:
    """One record per (run, evaluation step): test-sample T3 quantities, the bound at ``D + 2 se(D)`` and the
    error at its lower limit ``error − z_R se(error)`` (:func:`error_allowance` over the runs given)."""
    judged = [run for run in runs
              if any((record.get("test") or {}).get("t3") for record in run.metrics.get("history", ()))]
    allowance = error_allowance(len(judged))
    points = []
    for run in judged:
        labels, run_id = run.spec.labels, run.spec.run_id
        for record in run.metrics.get("history", ()):
            t3 = (record.get("test") or {}).get("t3")
            if t3:
                upper = error_bound(t3["delta"] + 2.0 * t3["delta_se"], t3["eps"], isotropic_rho(run.metrics["rho"]))
                if "error_se" not in t3:
                    raise ValueError(f"run {run_id} has no standard error of the T3 error (error_se): "
                                     "it was computed by an older version; rerun it")
                points.append({"run_id": run_id, "method": labels["method"], "encoder": labels["encoder_kind"],
                               "n": labels["n"], "seed": labels["seed"], "step": record["step"], **t3,
                               "bound_upper": float(upper),
                               "error_lower": float(t3["error"] - allowance * t3["error_se"])})
    return points


class _BoundsExperiment(SyntheticExperiment):
    name = "bounds"
    description = "T3: Procrustes error vs the bound D + (eps + D)^2 along training"
    config_class = BoundsConfig

    def grid(self, config: BoundsConfig, scale: str, seed: int = 0) -> list:
        return [self.spec(scale, f"n={n:04d}_{encoder}_{method}_seed={run_seed}",
                          config.run(GaussianWorld.isotropic(n, config.rho), method, run_seed,
                                     config.encoder_params(encoder), track_test=True, n=n, encoder_kind=encoder))
                for n, encoder, run_seed, method in product(config.dims, config.encoders, config.run_seeds(seed),
                                                            config.methods)]

    summary_columns = ("run_id", "method", "encoder", "n", "seed", "step", "s", "loss", "delta", "eps", "D", "D_se",
                       "bound", "bound_upper", "error", "error_se", "error_lower")
    figure_file = "error_vs_bound.png"

    def summary_rows(self, runs: list[FinishedRun], config: BoundsConfig) -> list[dict[str, Any]]:
        """One row per evaluation (:func:`evaluation_points`)."""
        return evaluation_points(runs)

    def draw(self, points: list[dict[str, Any]], config: BoundsConfig) -> tuple[Figure, str]:
        """Main panel: the error against the bound at every evaluation of every run (the λ = 0 control included),
        with the line error = bound; beside it the ratio error / bound along training, one faint line per run."""
        fig, axes = figure_grid(1, 2, gridspec_kw={"width_ratios": [3, 2]})
        main, along = axes[0]
        methods = sorted({p["method"] for p in points}, key=list(_METHODS).index)
        for method in methods:
            mine = [p for p in points if p["method"] == method]
            main.scatter([max(p["bound"], _FLOOR) for p in mine], [max(p["error"], _FLOOR) for p in mine], s=8,
                         alpha=0.5, linewidths=0.8, label=display_label(method), **style_of(method))
        if points:
            lo = min(min(max(p["bound"], _FLOOR), max(p["error"], _FLOOR)) for p in points)
            hi = max(max(p["bound"], p["error"]) for p in points)
            main.plot([lo, hi], [lo, hi], color="black", ls=":", lw=1, label="error = bound (T3: points stay below)")
        main.set(xscale="log", yscale="log", xlabel="bound D + (ε + D)² (test sample)",
                 ylabel="Procrustes error E‖h − Qz‖²", title="T3: error vs bound, every evaluation of every run")
        runs: dict[str, list[dict[str, Any]]] = {}  # each run's evaluations, in order
        for point in (p for p in points if p["bound"] > 0):
            runs.setdefault(point["run_id"], []).append(point)
        for run in runs.values():
            along.plot([p["step"] for p in run], [max(p["error"] / p["bound"], _FLOOR) for p in run], lw=0.8,
                       alpha=0.5, color=style_of(run[0]["method"])["color"], label=display_label(run[0]["method"]))
        along.axhline(1.0, color="black", ls=":", lw=1, label="error = bound (T3: points stay below)")
        along.set(yscale="log", xlabel="training step", ylabel="error / bound", title="along training, every run")
        return fig, ("T3: the measured Procrustes error against the bound D + (ε + D)² at every evaluation of every "
                     "run (left) and their ratio along training (right), test sample; colours are objectives, the "
                     "λ = 0 control included; every encoder, latent dimension and seed of the grid")

    def headline(self, points: list[dict[str, Any]], config: BoundsConfig | None = None) -> list[HeadlineEntry]:
        """T3's verdict over every evaluation (``config`` is not needed)."""
        if not points:
            return []
        seeds = tuple(sorted({int(p["seed"]) for p in points}))
        runs = len({p["run_id"] for p in points})
        violations = sum(p["error_lower"] > p["bound_upper"] for p in points)
        plain = sum(p["error"] > p["bound"] for p in points)
        ratio = max(p["error_lower"] / p["bound_upper"] for p in points if p["bound_upper"] > 0)
        plain_ratio = max(p["error"] / p["bound"] for p in points if p["bound"] > 0)
        entries = [HeadlineEntry(
            claim="T3", name="bounds: error <= D + (eps + D)^2 along training",
            quantity="largest (error − z_R se(error)) / bound at D + 2 se(D), over every evaluation",
            value=float(ratio), bound=Bound.at_most(1.0),
            measured=(f"{len(points) - violations}/{len(points)} test-sample evaluations within the bound with "
                      f"the error at {error_allowance(runs):.2f} standard errors (family-wise 5% over {runs} "
                      f"runs) and D at two; {plain} exceed the plain point estimate (largest error/bound "
                      f"{plain_ratio:.4f}; median se(D) {np.median([p['D_se'] for p in points]):.2g}, "
                      f"median se(error) {np.median([p['error_se'] for p in points]):.2g})"),
            seeds=seeds)]
        scope = ("not a prediction of T3, which bounds the error from above only: how the error follows "
                 "the bound is shown, not judged")
        if len(points) >= 3:
            corr = float(spearmanr([p["bound"] for p in points], [p["error"] for p in points]).statistic)
            entries.append(HeadlineEntry(
                claim="T3", name="bounds: how the error follows the bound",
                quantity="Spearman rank correlation of the bound and the error over every evaluation",
                value=corr if np.isfinite(corr) else None, bound=None, scope=scope,
                measured=f"{len(points)} evaluations; largest error/bound {plain_ratio:.3f} (point estimates)",
                seeds=seeds))
        return entries


EXPERIMENT = _BoundsExperiment()
