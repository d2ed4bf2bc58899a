"""Experiment ``output_dim`` (claim M1, beyond the paper): linear decodability of z from h when m ≠ n.

Gaussian latents (n dims, OU channel at ρ), the paper's renderer and an
MLP encoder with m outputs, trained with each objective and the λ = 0 control.

Prediction (M1, second-moment relaxation): the whitened optimum keeps the
top-m Mehler eigenvalues. For m < n it is a partial rotation ``h = Wz``
(``WWᵀ = I_m``), so the held-out probe recovers exactly an m-dimensional
subspace of the isotropic latent: total R² = m/n, and ``h`` is itself linear in
``z`` (``reverse_r2`` of the affine probe z → h near 1). For m ≥ n all of degree
1 is kept: R² = 1 (for m > n plus degree-2 harmonics, so ``reverse_r2 < 1``).
The verdict (whitening, every m and seed): ``max |R² − min(m, n)/n| ≤ tolerance``
on the test sample; the raw observation (R² ≈ 0.7 for every m) fails it.
SIGReg is judged for ``m ≤ n`` only: for ``m > n`` the relaxed optimum is not
admissible under its full Gaussian constraint, so those runs are measured.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Any

from torch import nn

from matplotlib.figure import Figure

from lejepa_wm.experiments.heldout import HeldOutSamples, embed
from lejepa_wm.experiments.metrics import linear_probe_r2
from lejepa_wm.experiments.plotting import figure_grid, log_axis_with_ticks, plot_raw, plot_series, series, target_line
from lejepa_wm.experiments.run_params import SyntheticRunParams
from lejepa_wm.experiments.synthetic import SyntheticExperiment, TrainingConfig
from lejepa_wm.experiments.training import numpy64
from lejepa_wm.experiments.worlds import GaussianWorld
from lejepa_wm.records import Bound, HeadlineEntry

METHODS = ("whitening", "sigreg", "alignment_only")


@dataclass(frozen=True)
class OutputDimConfig(TrainingConfig):
    """Sweep keys of the output-dimension experiment."""

    n: int = 4
    output_dims: tuple[int, ...] = (2, 4, 8)
    rho: float = 0.8
    methods: tuple[str, ...] = METHODS
    tolerance: float = 0.05

    def __post_init__(self) -> None:
        super().__post_init__()
        self.require_even("n")
        self.require(bool(self.output_dims) and all(m >= 1 for m in self.output_dims), "output_dims",
                     "must be positive integers")
        self.require_unit_interval("rho", "tolerance")
        self.require_methods(METHODS)


def predicted_r2(m: int, n: int) -> float:
    """M1's held-out probe R² for isotropic latents: ``min(m, n) / n``."""
    return min(m, n) / n


class OutputDimExperiment(SyntheticExperiment):
    name = "output_dim"
    description = "M1: linear decodability of z from h for m < n, m = n, m > n"
    config_class = OutputDimConfig

    def grid(self, config: OutputDimConfig, scale: str, seed: int = 0) -> list:
        world = GaussianWorld.isotropic(config.n, config.rho)
        return [self.spec(scale, f"m={m:04d}_{method}_seed={run_seed}",
                          config.run(world, method, run_seed, config.encoder_params("mlp", m), m=m, n=config.n))
                for m, run_seed, method in product(config.output_dims, config.run_seeds(seed), config.methods)]

    def extra_metrics(self, encoder: nn.Module, samples: HeldOutSamples, params: SyntheticRunParams) -> dict[str, Any]:
        h_fit, h_test = embed(encoder, samples.fit.x), embed(encoder, samples.test.x)
        reverse, _ = linear_probe_r2(numpy64(samples.fit.z), h_fit, numpy64(samples.test.z), h_test)
        return {"reverse_r2": float(reverse)}

    summary_columns = ("run_id", "n", "m", "method", "seed", "split", "probe_r2", "predicted_r2", "raw_observation_r2",
                       "reverse_r2", "embedding_std", "validation_r2", "steps", "train_seconds")
    figure_file = "decodability_vs_m.png"

    def derived(self, row: dict[str, Any], config: OutputDimConfig) -> dict[str, Any]:
        return {"predicted_r2": predicted_r2(row["m"], row["n"])}

    def draw(self, rows: list[dict[str, Any]], config: OutputDimConfig) -> tuple[Figure, str]:
        """One panel: the probe R² against m, every objective, the λ = 0 control, the raw observation and M1's
        prediction ``min(m, n)/n``."""
        fig, axes = figure_grid(1, 1, width="one", height=2.6)
        ax = axes[0][0]
        plot_series(ax, series(rows, "method", "m", "probe_r2"))
        ms = sorted({row["m"] for row in rows})
        ax.plot(ms, [predicted_r2(m, config.n) for m in ms], color="black", ls="-.", lw=1.2,
                label="M1 prediction min(m, n)/n")
        plot_raw(ax, rows, "m")
        target_line(ax, config.n, "m = n", horizontal=False)
        log_axis_with_ticks(ax, ms)
        ax.set(xlabel="output dimension m", ylabel="test probe R² of z from h",
               title=f"M1: decodability vs m (n = {config.n})")
        return fig, (f"M1: test probe R² of z from the m-dimensional embedding, n = {config.n}, against M1's "
                     "prediction min(m, n)/n; mean ± standard error over seeds, dots single seeds")

    def headline(self, rows: list[dict[str, Any]], config: OutputDimConfig) -> list[HeadlineEntry]:
        """One entry per method; for SIGReg the m > n runs are a measurement (outside M1's scope)."""
        entries = []
        for method in (m for m in config.methods if m != "alignment_only"):
            mine = sorted((r for r in rows if r["method"] == method), key=lambda r: (r["m"], r["seed"]))
            if method == "whitening":
                groups = [("", mine, True)]
            else:
                groups = [(" (m <= n)", [r for r in mine if r["m"] <= config.n], True),
                          (" (m > n)", [r for r in mine if r["m"] > config.n], False)]
            for label, group, predicted in groups:
                if not group:
                    continue
                gaps = [abs(r["probe_r2"] - r["predicted_r2"]) for r in group]
                text = ", ".join(f"m={r['m']} seed {r['seed']}: {r['probe_r2']:.4f} (pred {r['predicted_r2']:.3f}, "
                                 f"raw {r['raw_observation_r2']:.3f})" for r in group)
                entries.append(HeadlineEntry(
                    claim="M1", name=f"output_dim ({method}{label}): probe R² = min(m, n)/n",
                    quantity="largest |R² − min(m, n)/n| over m and seeds", value=float(max(gaps)),
                    bound=Bound.at_most(config.tolerance) if predicted else None, measured=f"n = {config.n}; {text}",
                    seeds=tuple(sorted({int(r["seed"]) for r in group})),
                    scope=None if predicted else ("no prediction: M1 is proved under the second-moment constraint "
                                                  "(whitening); for m > n its optimum is not admissible under "
                                                  "SIGReg's full Gaussian constraint"),
                    paper="open in the paper", figures=("decodability_vs_m.png",)))
        return entries


EXPERIMENT = OutputDimExperiment()
