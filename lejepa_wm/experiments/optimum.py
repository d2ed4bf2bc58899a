"""The objective at the trained weights against the objective at the world model (T1's own verdict).

T1 is a statement about the *optimum*: among whitened embeddings the alignment
loss is smallest exactly at ``h = Qz``. Whether training *reaches* that optimum
is another question. The two are told apart by evaluating the run's own
training objective (same regularizer, weight, statistic and batch size) at two
points, on the same validation batches with the same random SIGReg directions:

- at the trained encoder, ``J(f)``;
- at *the answer*: the true latents ``c z`` (what the renderer's exact inverse
  returns, which every encoder family of the package can represent), or for an
  embedding of ``m ≠ n`` dimensions the top-``m`` Mehler eigenfunctions
  ``c φ_m(z)`` (:func:`answer_features`: ``m`` coordinates of ``z`` for ``m < n``,
  all of ``z`` and ``m − n`` degree-2 Hermite harmonics for ``m > n``), with the
  scale ``c ≥ 0`` that minimizes the objective on the ``fit`` sample (a soft
  penalty's optimum among linear embeddings is shrunk; ``c = 1`` is among the
  candidates). For the λ = 0 control (alignment alone) the answer is the
  collapse itself: ``J(c z) = c² L(z)`` has its infimum 0 at ``c = 0``, which no
  embedding can undercut (:func:`gap_columns`). A rotation ``Q`` changes nothing: every objective here is
  invariant in law under rotations of the embedding (SIGReg's directions are
  uniform on the sphere), so ``J(cQz)`` and ``J(cz)`` have the same expectation. For ``m ≠ n`` the world is
  isotropic (``output_dim``): every choice of ``m`` coordinates, and of ``m − n`` degree-2 harmonics (all
  of Mehler eigenvalue ``ρ²``, orthonormal), has the same law up to such a rotation, or the same second
  moments, which is all the whitened objective sees.

``gap = J(f) − J(c z)`` with the standard error of the batch means of the
paired per-batch differences. Reading (:func:`optimum_reading`): a run that is
not identifiable yet has ``gap < −2 se`` would contradict T1 (the objective
prefers something other than the world model); ``gap > 2 se`` is an
optimizer's miss, which the theorem allows; otherwise the run sits at the
answer's objective.

Accuracy: each batch's objective is evaluated once (no Monte Carlo over
directions beyond the batch's own draw); with ``B`` batches the standard error
is that of a mean of ``B`` paired differences. The scale ``c`` is chosen on the
``fit`` sample (bounded Brent search on ``[SCALE_MIN, SCALE_MAX]`` to a
relative tolerance of 1e-3), never on the validation batches it is scored on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable

import numpy as np
import torch
from scipy.optimize import minimize_scalar
from torch import Tensor, nn

from lejepa_wm.experiments.heldout import Sample
from lejepa_wm.experiments.objectives import Objective, Whitened

__all__ = ["largest_answer_dim", "answer_features", "ObjectiveGap", "objective_gap", "whitened_population_gap",
           "gap_columns", "optimum_reading"]

SCALE_MIN, SCALE_MAX = 1e-3, 2.0
"""The range searched for the answer's scale ``c`` (the λ = 0 control's optimum is the lower end: collapse)."""

ABOVE, AT, BELOW = "above the answer", "at the answer", "below the answer"


def largest_answer_dim(n: int) -> int:
    """The largest ``m`` :func:`answer_features` serves: degree 1 and all of degree 2, ``n + n(n + 1)/2``."""
    return n + n * (n + 1) // 2


def answer_features(z: Tensor, m: int) -> Tensor:
    """The top-``m`` Mehler eigenfunctions of an isotropic OU world at the latents ``z`` (shape ``(B, n)``).

    Orthonormal under ``N(0, I_n)``: the degree-1 harmonics ``z_i`` first (the first ``m`` of them when
    ``m ≤ n``), then degree 2, ``(z_i² − 1)/√2`` for every ``i`` followed by ``z_i z_j`` for ``i < j``, up
    to ``m`` in all. ``m`` lies in ``[1, n + n(n + 1)/2]`` (:func:`largest_answer_dim`).
    """
    n = z.shape[1]
    if not 1 <= m <= largest_answer_dim(n):
        raise ValueError(f"the answer has between 1 and {largest_answer_dim(n)} coordinates at n = {n}; got m = {m}")
    if m <= n:
        return z[:, :m]
    rows, cols = torch.triu_indices(n, n, offset=1, device=z.device)
    harmonics = torch.cat([(z * z - 1.0) / math.sqrt(2.0), z[:, rows] * z[:, cols]], dim=1)
    return torch.cat([z, harmonics[:, :m - n]], dim=1)


@dataclass(frozen=True)
class ObjectiveGap:
    """The run's objective at its trained weights and at the answer ``c z``, on validation batches (a run's
    ``metrics.json`` stores its fields as ``objective_gap``)."""

    trained: float
    answer: float
    answer_unscaled: float
    answer_scale: float
    gap: float
    gap_se: float
    batches: int


def _batches(sample: Sample, batch_size: int) -> list[slice]:
    count = len(sample.z) // batch_size
    if count < 2:
        raise ValueError(f"the objective gap needs at least 2 batches of {batch_size}; the sample has "
                         f"{len(sample.z)} pairs")
    return [slice(i * batch_size, (i + 1) * batch_size) for i in range(count)]


def _per_batch(objective: Objective, views: Callable[[slice], tuple[Tensor, Tensor]], batches: list[slice],
               states: list[Tensor], generator: torch.Generator) -> np.ndarray:
    """The objective's total on each batch, each with the generator state recorded for that batch."""
    values = []
    with torch.no_grad():
        for rows, state in zip(batches, states):
            generator.set_state(state)
            values.append(objective(*views(rows), generator)[1]["total"])
    return np.asarray(values)


def _states(generator: torch.Generator, objective: Objective, probe: Tensor, count: int) -> list[Tensor]:
    """``count`` generator states, one per batch: each the state before that batch's draws."""
    states = []
    with torch.no_grad():
        for _ in range(count):
            states.append(generator.get_state())
            objective(probe, probe, generator)  # advance by exactly one batch's draws
    return states


def objective_gap(encoder: nn.Module, objective: Objective, fit: Sample, validation: Sample, batch_size: int,
                  generator: torch.Generator, m: int | None = None) -> ObjectiveGap:
    """``J`` at the trained ``encoder`` (``m`` outputs, default ``n``) and at the best-scaled answer
    ``c φ_m(z)`` (``c z`` at ``m = n``; see the module docstring).

    ``generator`` (on the samples' device) draws the SIGReg directions of the
    evaluation; its state is replayed so that both points see the same ones.
    """
    was_training = encoder.training
    encoder.eval()
    fit_rows, val_rows = _batches(fit, batch_size), _batches(validation, batch_size)
    m = fit.z.shape[1] if m is None else m
    probe = answer_features(fit.z[:batch_size], m)
    fit_states = _states(generator, objective, probe, len(fit_rows))
    val_states = _states(generator, objective, probe, len(val_rows))

    def answer(sample: Sample, rows: list[slice], states: list[Tensor], scale: float) -> np.ndarray:
        return _per_batch(objective, lambda r: (scale * answer_features(sample.z[r], m),
                                                scale * answer_features(sample.z_pos[r], m)), rows, states, generator)

    if objective.weight == 0.0:  # alignment alone: its infimum over c z is 0, at c = 0 (gap_columns)
        scale = 0.0
    else:
        search = minimize_scalar(lambda c: float(answer(fit, fit_rows, fit_states, c).mean()),
                                 bounds=(SCALE_MIN, SCALE_MAX), method="bounded", options={"xatol": 1e-3})
        at_one = float(answer(fit, fit_rows, fit_states, 1.0).mean())
        scale = float(search.x) if search.fun < at_one - 1e-6 * abs(at_one) else 1.0  # c = 1 unless c matters
    trained = _per_batch(objective, lambda r: (encoder(validation.x[r]), encoder(validation.x_pos[r])),
                         val_rows, val_states, generator)
    best = answer(validation, val_rows, val_states, scale)
    unscaled = best if scale == 1.0 else answer(validation, val_rows, val_states, 1.0)
    encoder.train(was_training)
    differences = trained - best
    return ObjectiveGap(trained=float(trained.mean()), answer=float(best.mean()),
                        answer_unscaled=float(unscaled.mean()), answer_scale=scale,
                        gap=float(differences.mean()),
                        gap_se=float(differences.std(ddof=1) / math.sqrt(len(differences))),
                        batches=len(differences))


def whitened_population_gap(embedding: nn.Module, fit: Sample, validation: Sample, m: int) -> dict[str, Any]:
    """The whitened alignment ``E ||h − h'||²`` of a fit-whitened ``embedding`` and of the top-``m``
    eigenfunctions whitened the same way, on the validation pairs, and their paired difference.

    The quantity M1's spectral bound is about: the population objective of a whitened embedding, with
    the whitening estimated once on the ``fit`` sample (``embedding`` is the run's :class:`Whitened`; the
    answer's features get their own). The hard constraint's training objective whitens each batch
    instead, and with ``2N`` rows for ``m`` dimensions that estimate is biased, differently for features
    of different shapes: at n = 32, m = 128 (batch 512) the batch objective ranks trained runs 0.7–1.0
    *below* the eigenfunctions, while on this measure the same run is 0.59 above (docs/TUNING.md). The
    standard error is that of the mean of the per-pair differences. Keys as :func:`gap_columns` reads them.
    """
    answer = Whitened(partial(answer_features, m=m), fit.z)
    with torch.no_grad():
        trained = (embedding(validation.x) - embedding(validation.x_pos)).square().sum(dim=1)
        best = (answer(validation.z) - answer(validation.z_pos)).square().sum(dim=1)
    differences = (trained - best).double()
    return {"trained": float(trained.double().mean()), "answer": float(best.double().mean()), "answer_scale": 1.0,
            "gap": float(differences.mean()),
            "gap_se": float(differences.std() / math.sqrt(len(differences))), "pairs": len(differences)}


def gap_columns(gap: dict[str, Any] | None, method: str) -> dict[str, Any]:
    """A run's stored objective gap as summary columns (``None`` values where it has none), and where it sits
    (:func:`optimum_reading`).

    The λ = 0 control's answer is taken as the collapse at exactly 0: the alignment loss of ``c z`` is
    ``c² L(z)``, whose infimum over ``c ≥ 0`` is 0, so the gap is the trained objective itself, with the
    standard error of the trained objective's batch means (the answer is a constant). Runs recorded before
    the answer's scale could be 0 stored the answer at ``c = SCALE_MIN`` (``1e-6 L(z)``); this is its exact
    limit."""
    gap = dict(gap or {})
    if gap and method == "alignment_only":
        gap["answer"], gap["gap"], gap["answer_scale"] = 0.0, gap["trained"], 0.0
    return {"objective_trained": gap.get("trained"), "objective_answer": gap.get("answer"),
            "answer_scale": gap.get("answer_scale"), "gap_to_answer": gap.get("gap"),
            "gap_to_answer_se": gap.get("gap_se"),
            "optimum_reading": optimum_reading(gap["gap"], gap["gap_se"]) if gap else None}


def optimum_reading(gap: float, gap_se: float) -> str:
    """Where the trained objective sits against the answer's: above, at (within 2 se) or below it."""
    if gap > 2.0 * gap_se:
        return ABOVE
    if gap < -2.0 * gap_se:
        return BELOW
    return AT
