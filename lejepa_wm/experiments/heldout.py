"""Three held-out samples per run, never mixed, and what is measured on each.

Every synthetic run draws, besides its training pairs, three disjoint samples
of positive pairs ``(z, z')`` rendered to ``(x, x')``, each from its own seed
stream (:mod:`lejepa_wm.seeds`), none ever seen in training:

- ``fit``: the linear probe ``h → z`` and the Procrustes rotation (and scale)
  are fitted here;
- ``validation``: early stopping and every tuning decision look only here
  (:func:`validation_metrics`);
- ``test``: every number a reader sees (:func:`reported_metrics`,
  :func:`raw_observation_r2`).

The probe is always fitted on ``fit`` and scored on the other sample, so R² is
not inflated by overfitting; Procrustes and T3's error use the rotation fitted
on ``fit`` and are scored on ``test``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from lejepa_wm.experiments.metrics import (ProcrustesFit, alignment_terms, linear_probe_r2, orthogonality_error,
                                           t3_from_samples)
from lejepa_wm.experiments.training import TrainingDivergedError, numpy64
from lejepa_wm.numerics.t3 import nonlinear_energy_bound
from lejepa_wm.seeds import SeedStreams

__all__ = [
    "SPLITS", "MIN_SAMPLE", "Sample", "HeldOutSamples", "embed", "validation_metrics", "reported_metrics",
    "raw_observation_r2", "delta_standard_error"
]

SPLITS = ("fit", "validation", "test")
MIN_SAMPLE = 32
"""Smallest held-out sample: the standard error of T3's δ uses 16 chunks of at least 2 points."""


@dataclass
class Sample:
    """Positive pairs ``(z, z')`` and their renderings ``(x, x')`` (tensors on the run's device)."""

    z: Tensor
    x: Tensor
    z_pos: Tensor
    x_pos: Tensor

    @classmethod
    def draw(cls, world: Any, renderer: nn.Module, size: int, generator: torch.Generator) -> "Sample":
        z, z_pos = world.sample_pairs(size, generator)
        with torch.no_grad():
            return cls(z, renderer(z), z_pos, renderer(z_pos))


@dataclass
class HeldOutSamples:
    """The ``fit``, ``validation`` and ``test`` samples of one run and the channel's per-coordinate ρ."""

    fit: Sample
    validation: Sample
    test: Sample
    rho: tuple[float, ...]

    @classmethod
    def draw(cls, world: Any, renderer: nn.Module, size: int, streams: SeedStreams,
             device: torch.device | str) -> "HeldOutSamples":
        """``size`` pairs per sample, each from its own stream."""
        if size < MIN_SAMPLE:
            raise ValueError(f"held-out samples need at least {MIN_SAMPLE} points; got eval_size = {size}")
        samples = {split: Sample.draw(world, renderer, size, streams.torch_generator(split, device))
                   for split in SPLITS}
        return cls(**samples, rho=tuple(float(r) for r in world.rho))


def embed(encoder: nn.Module, x: Tensor) -> np.ndarray:
    """``encoder(x)`` in eval mode as float64 NumPy; non-finite embeddings raise :class:`TrainingDivergedError`."""
    was_training = encoder.training
    encoder.eval()
    with torch.no_grad():
        h = numpy64(encoder(x))
    encoder.train(was_training)
    if not np.all(np.isfinite(h)):
        raise TrainingDivergedError("the encoder produced non-finite embeddings on held-out data")
    return h


def validation_metrics(encoder: nn.Module, samples: HeldOutSamples) -> dict[str, Any]:
    """Probe R² (fitted on ``fit``, scored on ``validation``) and the embedding's mean per-dimension std."""
    h_fit, h_val = embed(encoder, samples.fit.x), embed(encoder, samples.validation.x)
    r2, _ = linear_probe_r2(h_fit, samples.fit.z, h_val, samples.validation.z)
    return {"probe_r2": float(r2), "embedding_std": float(h_val.std(axis=0).mean())}


def reported_metrics(encoder: nn.Module, samples: HeldOutSamples) -> dict[str, Any]:
    """Everything reported about an encoder, on the ``test`` sample.

    Always: ``probe_r2`` and ``probe_r2_per_coord`` (probe fitted on ``fit``),
    ``embedding_std`` (mean per-dimension standard deviation; near 0 means
    collapse). With ``m = n``: ``procrustes_error`` (distance to the rotation
    fitted on ``fit``), ``scale_free_error`` and ``procrustes_scale``
    (:class:`~lejepa_wm.experiments.metrics.ProcrustesFit`),
    ``orthogonality_error`` of ``A = E[h zᵀ]``, and, when the channel is
    isotropic, T3's quantities with the standard errors of ``δ`` and of the error (``t3``);
    for an anisotropic channel ``t3`` is ``None`` (the theorem defines no ρ).
    """
    h_fit, h_test = embed(encoder, samples.fit.x), embed(encoder, samples.test.x)
    z_fit, z_test = numpy64(samples.fit.z), numpy64(samples.test.z)
    r2, per_coord = linear_probe_r2(h_fit, z_fit, h_test, z_test)
    out: dict[str, Any] = {"probe_r2": float(r2), "probe_r2_per_coord": [float(v) for v in per_coord],
                           "embedding_std": float(h_test.std(axis=0).mean())}
    if h_test.shape[1] != z_test.shape[1]:
        return out
    rotation = ProcrustesFit.fit(h_fit, z_fit)
    centred = h_test - h_test.mean(axis=0)
    out.update(procrustes_error=rotation.error(h_test, z_test),
               scale_free_error=rotation.scale_free_error(h_test, z_test), procrustes_scale=rotation.scale,
               orthogonality_error=float(orthogonality_error(centred.T @ z_test / len(z_test))))
    if len(set(samples.rho)) > 1:
        return {**out, "t3": None}
    h_pos = embed(encoder, samples.test.x_pos)
    t3 = t3_from_samples(h_test, h_pos, z_test, samples.rho, rotation)
    t3["delta_se"] = delta_standard_error(h_test, h_pos, samples.rho[0])
    t3["D_se"] = float(nonlinear_energy_bound(t3["delta_se"], samples.rho[0]))
    t3["error_se"] = rotation.error_standard_error(h_test, z_test)
    return {**out, "t3": t3}


def raw_observation_r2(samples: HeldOutSamples) -> float:
    """The baseline: held-out R² of the linear probe from the raw observation ``x`` to ``z`` (fit → test)."""
    r2, _ = linear_probe_r2(samples.fit.x, samples.fit.z, samples.test.x, samples.test.z)
    return float(r2)


def delta_standard_error(h: np.ndarray, h_pos: np.ndarray, rho: float, chunks: int = 16) -> float:
    """Standard error of T3's sample ``δ`` by batch means over ``chunks`` disjoint chunks of the sample.

    ``δ`` is a difference of two O(n) sample means, so near a linear encoder its
    sampling error (order ``n/√N``) can exceed its value; the bounds experiment
    reports it and adds two standard errors to ``D`` before comparing. ``δ``
    involves no rotation, so none is fitted on a chunk (a chunk may hold fewer
    samples than dimensions).
    """
    size = len(h) // chunks
    if size < 2:
        raise ValueError(f"need at least {2 * chunks} samples for the standard error of delta; got {len(h)}")
    values = [alignment_terms(h[i * size:(i + 1) * size], h_pos[i * size:(i + 1) * size], rho)[2]
              for i in range(chunks)]
    return float(np.std(values, ddof=1) / np.sqrt(chunks))
