"""The evidence protocol of every experiment, for a world and an objective of your own.

:func:`evaluate` does, for each seed, what the package's experiments do for
theirs: it renders the world through a frozen renderer ``g``, draws the three
held-out samples (``fit`` for the probes, ``validation`` for early stopping,
``test`` for every number reported; each from its own seed stream), trains an
encoder with your objective and, from the same start, the λ = 0 control
(alignment only, trained as long), and measures both on the test sample beside
the raw observation's probe (the baseline). The result holds two
:class:`~lejepa_wm.records.HeadlineEntry` records judged by the package's one
verdict rule (:func:`~lejepa_wm.records.verdict_of`: a margin within two
standard errors is "not resolved"):

- **identifiability**: the mean residual ratio ``(1 − R²)/(1 − R²_raw)`` over
  seeds, at most ``residual_target`` (the identity encoder has ratio 1);
- **the regularizer's effect**: the control's distance to a rotation
  ``‖h − Qz‖²/n`` minus the objective's, paired by seed, above 0 (an encoder
  that can collapse, the default, lets the control show what the
  regularizer prevents).

An objective is any callable ``objective(h, h_pos, generator) -> (loss,
parts)`` with ``parts`` a dict of floats that includes ``"total"``, like
:func:`~lejepa_wm.experiments.objectives.build_objective`'s; a world is any
object with ``n``, ``rho`` (one correlation per coordinate) and
``sample_pairs(num, generator)``, like
:class:`~lejepa_wm.experiments.worlds.GaussianWorld`. ``examples/custom_world.py``
runs both of its own through it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch
from torch import Tensor

from lejepa_wm.experiments.encoders import build_encoder
from lejepa_wm.experiments.evidence import by_seed, difference, over_seeds, residual_ratio
from lejepa_wm.experiments.flows import make_renderer
from lejepa_wm.experiments.heldout import HeldOutSamples, raw_observation_r2, reported_metrics, validation_metrics
from lejepa_wm.experiments.objectives import build_objective
from lejepa_wm.experiments.training import TrainSettings, WorldPairs, train
from lejepa_wm.records import Bound, HeadlineEntry
from lejepa_wm.seeds import SeedStreams

__all__ = ["ObjectiveFunction", "alignment_only", "Evaluation", "evaluate"]

ObjectiveFunction = Callable[[Tensor, Tensor, torch.Generator], tuple[Tensor, dict[str, float]]]
_CONTROL = "alignment_only"


def alignment_only() -> ObjectiveFunction:
    """The λ = 0 control: the alignment loss ``E‖h(z') − h(z)‖²`` alone."""
    return build_objective("whitening", 0.0)


@dataclass(frozen=True)
class Evaluation:
    """Per-seed test metrics of the objective and the control, the raw baseline, and the judged entries."""

    rows: tuple[dict[str, Any], ...]
    entries: tuple[HeadlineEntry, ...] = field(default=())

    @property
    def verdicts(self) -> dict[str, str]:
        """``{entry name: verdict}``."""
        return {entry.name: entry.verdict for entry in self.entries}


def evaluate(world: Any, objective: ObjectiveFunction, name: str, settings: TrainSettings,
             seeds: Sequence[int] = (0, 1, 2), claim: str = "custom", encoder: str = "matched_scaled",
             hidden: int = 32, renderer: str = "published", eval_size: int = 2048,
             residual_target: float = 0.25) -> Evaluation:
    """Train ``objective`` (called ``name``) and the λ = 0 control on ``world`` for each seed; judge both claims.

    ``encoder`` is one of :data:`~lejepa_wm.experiments.encoders.ENCODERS`
    (default: the matched encoder with learned output scales, which contains
    the renderer's inverse and can collapse); ``renderer`` one of
    :data:`~lejepa_wm.experiments.flows.RENDERERS` (default: the paper's,
    which needs an even ``n``). Runs on the CPU; ``ValueError`` names a bad
    argument (through the parts it builds).
    """
    if not seeds:
        raise ValueError("evaluate needs at least one seed")
    rows = []
    for seed in seeds:
        streams = SeedStreams.derive(seed)
        mixing = make_renderer(renderer, world.n, streams.renderer)
        samples = HeldOutSamples.draw(world, mixing, eval_size, streams, "cpu")
        raw = raw_observation_r2(samples)
        for method, loss in ((name, objective), (_CONTROL, alignment_only())):
            model = build_encoder(encoder, mixing, hidden, streams.torch_generator("init"))
            train(model, WorldPairs(world, mixing), loss, settings, streams.torch_generator("batches"), None,
                  lambda trained: validation_metrics(trained, samples), progress=False)
            metrics = reported_metrics(model, samples)
            rows.append({**metrics, "seed": seed, "method": method, "raw_observation_r2": raw,
                         "residual_ratio": residual_ratio(metrics["probe_r2"], raw),
                         "distance_per_dim": metrics["procrustes_error"] / world.n})
    ratios = over_seeds(by_seed(rows, "residual_ratio", method=name), higher_is_better=False)
    r2 = over_seeds(by_seed(rows, "probe_r2", method=name))
    raw_r2 = over_seeds(by_seed(rows, "raw_observation_r2", method=name))
    control = over_seeds(by_seed(rows, "probe_r2", method=_CONTROL))
    effect, effect_se = difference(by_seed(rows, "distance_per_dim", method=_CONTROL),
                                   by_seed(rows, "distance_per_dim", method=name))
    scale = over_seeds(by_seed(rows, "embedding_std", method=_CONTROL))
    return Evaluation(tuple(rows), (
        HeadlineEntry(claim=claim, name=f"{name}: identifiability",
                      quantity="mean residual ratio (1 − R²)/(1 − R²_raw)", value=ratios.mean,
                      bound=Bound.at_most(residual_target), standard_error=ratios.standard_error,
                      measured=f"test probe R² {r2.describe()} vs raw observation {raw_r2.describe(3)}; λ = 0 control "
                               f"R² {control.describe()}", seeds=ratios.seeds),
        HeadlineEntry(claim=claim, name=f"{name}: the regularizer's effect",
                      quantity=f"control minus {name} distance to a rotation ‖h − Qz‖²/n", value=effect,
                      bound=Bound.above(0.0), standard_error=effect_se,
                      measured=f"control embedding std {scale.describe(3)} (1 = unshrunk)", seeds=ratios.seeds)))
