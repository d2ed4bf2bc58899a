"""Seeded, resumable training of an encoder on pairs from a synthetic world, with held-out evaluation.

One ``torch.Generator`` (seeded by :attr:`TrainSettings.seed`, on the training
device) draws every training batch and every set of SIGReg slices, so a run is
a deterministic function of its settings. Evaluation data are drawn once from
a *separate* seed (``seed + EVAL_SEED_OFFSET``): a fit sample on which the
linear probe is fitted and an eval sample on which it is scored, neither ever
seen in training.

The loop
--------
- AdamW, learning rate with linear warmup over ``warmup_steps``, constant, then
  a cosine decay to zero over the last ``decay_fraction`` of ``max_steps``.
- Every ``eval_every`` steps the held-out probe R² is measured; with
  ``stop_r2`` set, training stops at the first evaluation where it reaches
  ``stop_r2`` (the stopping rule uses held-out data only and is reported as
  such: ``steps_to_target``, ``seconds_to_target``; the seconds are wall time
  including the evaluations).
- Every ``checkpoint_every`` steps (a multiple of ``eval_every``) the encoder,
  optimizer, generator state, history and elapsed time are written atomically
  to ``checkpoint.pt`` in the run folder; a rerun resumes from it and yields
  the same final metrics as an uninterrupted run. The checkpoint is deleted
  when the run finishes (its results live in ``metrics.json``).
- A non-finite loss, or one above ``max_loss``, raises
  :class:`TrainingDivergedError` naming the step, the value and the learning rate.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from lejepa_wm.atomic import atomic_torch_save
from lejepa_wm.experiments.flows import CouplingFlow
from lejepa_wm.experiments.metrics import (linear_probe_r2, orthogonality_error, procrustes_error,
                                           t3_quantities)
from lejepa_wm.experiments.objectives import Objective
from lejepa_wm.experiments.worlds import World
from lejepa_wm.validation import check_positive_int

CHECKPOINT_FILE = "checkpoint.pt"
EVAL_SEED_OFFSET = 1_000_003


class TrainingDivergedError(RuntimeError):
    """The loss became NaN/inf or exceeded the divergence threshold."""


@dataclass(frozen=True)
class TrainSettings:
    """Optimization and evaluation settings of one run (all validated)."""

    max_steps: int
    batch_size: int
    lr: float
    seed: int
    warmup_steps: int = 0
    decay_fraction: float = 0.0
    weight_decay: float = 0.0
    eval_every: int = 50
    checkpoint_every: int = 500
    stop_r2: float | None = None
    probe_size: int = 4096
    max_loss: float = 1e8

    def __post_init__(self) -> None:
        for name in ("max_steps", "batch_size", "eval_every", "checkpoint_every", "probe_size"):
            check_positive_int(getattr(self, name), name)
        if self.warmup_steps < 0:
            raise ValueError(f"warmup_steps must be >= 0; got {self.warmup_steps!r}")
        if not (math.isfinite(self.lr) and self.lr > 0):
            raise ValueError(f"lr must be a positive number; got {self.lr!r}")
        if not (0.0 <= self.decay_fraction <= 1.0):
            raise ValueError(f"decay_fraction must lie in [0, 1]; got {self.decay_fraction!r}")
        if not (math.isfinite(self.weight_decay) and self.weight_decay >= 0):
            raise ValueError(f"weight_decay must be >= 0; got {self.weight_decay!r}")
        if self.checkpoint_every % self.eval_every:
            raise ValueError(f"checkpoint_every ({self.checkpoint_every}) must be a multiple of "
                             f"eval_every ({self.eval_every})")
        if self.stop_r2 is not None and not (0.0 < self.stop_r2 <= 1.0):
            raise ValueError(f"stop_r2 must lie in (0, 1]; got {self.stop_r2!r}")
        if not (self.max_loss > 0):
            raise ValueError(f"max_loss must be positive; got {self.max_loss!r}")

    def learning_rate(self, step: int) -> float:
        """Learning rate used for update ``step`` (0-based): warmup, constant, cosine decay."""
        factor = min(1.0, (step + 1) / self.warmup_steps) if self.warmup_steps else 1.0
        decay_steps = int(round(self.decay_fraction * self.max_steps))
        decay_start = self.max_steps - decay_steps
        if decay_steps and step >= decay_start:
            factor *= 0.5 * (1.0 + math.cos(math.pi * (step - decay_start) / decay_steps))
        return self.lr * factor


@dataclass
class EvalData:
    """Held-out samples: ``fit`` (probe fitting) and ``eval`` (scoring, with positive partners)."""

    z_fit: torch.Tensor
    x_fit: torch.Tensor
    z_eval: torch.Tensor
    x_eval: torch.Tensor
    z_eval_pos: torch.Tensor
    x_eval_pos: torch.Tensor
    rho: float

    @classmethod
    def draw(cls, world: World, mixing: CouplingFlow | nn.Module, size: int, seed: int,
             device: torch.device) -> "EvalData":
        """Draw ``size`` fit points and ``size`` eval pairs from ``seed + EVAL_SEED_OFFSET``."""
        generator = torch.Generator(device=device).manual_seed(seed + EVAL_SEED_OFFSET)
        z_fit, _ = world.sample_pairs(size, generator)
        z_eval, z_eval_pos = world.sample_pairs(size, generator)
        with torch.no_grad():
            return cls(z_fit, mixing(z_fit), z_eval, mixing(z_eval), z_eval_pos, mixing(z_eval_pos),
                       rho=float(np.mean(world.rho)))


def _numpy(tensor: torch.Tensor) -> np.ndarray:
    return tensor.detach().to("cpu", torch.float64).numpy()


def evaluate_encoder(encoder: nn.Module, data: EvalData, full: bool = True) -> dict[str, Any]:
    """Held-out metrics of ``encoder``.

    Always: ``probe_r2`` (affine probe ``h → z`` fitted on the fit sample, R²
    on the eval sample) and ``probe_r2_per_coord``; ``embedding_std`` (mean
    per-dimension standard deviation of ``h``, near 0 means collapse). With
    ``full`` and ``m = n``: Procrustes error, ``orthogonality_error`` of
    ``A = E[h zᵀ]`` and T3's quantities at ``ρ = data.rho`` (all on the eval sample).
    """
    was_training = encoder.training
    encoder.eval()
    with torch.no_grad():
        h_fit = _numpy(encoder(data.x_fit))
        h_eval = _numpy(encoder(data.x_eval))
        h_pos = _numpy(encoder(data.x_eval_pos)) if full else None
    encoder.train(was_training)
    if not (np.all(np.isfinite(h_fit)) and np.all(np.isfinite(h_eval))):
        raise TrainingDivergedError("the encoder produced non-finite embeddings on held-out data")
    z_fit, z_eval = _numpy(data.z_fit), _numpy(data.z_eval)
    r2, per_coord = linear_probe_r2(h_fit, z_fit, h_eval, z_eval)
    out: dict[str, Any] = {"probe_r2": float(r2), "probe_r2_per_coord": [float(v) for v in per_coord],
                           "embedding_std": float(h_eval.std(axis=0).mean())}
    if full and h_eval.shape[1] == z_eval.shape[1]:
        centred = h_eval - h_eval.mean(axis=0)
        error, _ = procrustes_error(h_eval, z_eval)
        out["procrustes_error"] = float(error)
        out["orthogonality_error"] = float(orthogonality_error(centred.T @ z_eval / len(z_eval)))
        t3 = t3_quantities(h_eval, h_pos, z_eval, data.rho)
        out["t3"] = {key: float(value) for key, value in t3.items()}
        out["t3"]["delta_se"] = delta_standard_error(h_eval, h_pos, z_eval, data.rho)
    return out


def delta_standard_error(h: np.ndarray, h_pos: np.ndarray, z: np.ndarray, rho: float, chunks: int = 16) -> float:
    """Standard error of T3's sample ``δ`` by batch means over ``chunks`` disjoint chunks of the sample.

    ``δ`` is a difference of two O(n) sample means, so near a linear encoder its
    sampling error (order ``n/√N``) can exceed its value; the bounds experiment
    reports it and adds two standard errors to ``D`` before comparing.
    """
    size = len(h) // chunks
    if size < 2:
        raise ValueError(f"need at least {2 * chunks} samples for the standard error of delta; got {len(h)}")
    values = [t3_quantities(h[i * size:(i + 1) * size], h_pos[i * size:(i + 1) * size],
                            z[i * size:(i + 1) * size], rho)["delta"] for i in range(chunks)]
    return float(np.std(values, ddof=1) / np.sqrt(chunks))


@dataclass
class TrainResult:
    """What a finished run reports: final held-out metrics, the evaluation history and costs."""

    final: dict[str, Any]
    history: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    seconds: float = 0.0
    steps_to_target: int | None = None
    seconds_to_target: float | None = None
    resumed_from: int | None = None


StepCallback = Callable[[int], None]
Evaluator = Callable[[nn.Module], dict[str, Any]]


def train(encoder: nn.Module, world: World, mixing: nn.Module, objective: Objective,
          settings: TrainSettings, run_dir: Path | None, device: torch.device | str = "cpu",
          evaluator: Evaluator | None = None, progress: bool = True, description: str = "train",
          step_callback: StepCallback | None = None) -> TrainResult:
    """Train ``encoder`` on ``(g(z), g(z'))`` pairs minimizing ``objective``; resume from ``run_dir``.

    ``evaluator(encoder)`` returns the metrics recorded at each evaluation (it
    must include ``probe_r2``); by default the probe metrics of
    :func:`evaluate_encoder` on :meth:`EvalData.draw` with ``probe_size``.
    ``step_callback(step)`` is called after each completed update (tests use it
    to simulate an interruption). ``run_dir = None`` disables checkpoints.
    """
    device = torch.device(device)
    encoder.to(device)
    mixing.to(device)
    if evaluator is None:
        data = EvalData.draw(world, mixing, settings.probe_size, settings.seed, device)
        evaluator = lambda model: evaluate_encoder(model, data, full=False)  # noqa: E731
    generator = torch.Generator(device=device).manual_seed(settings.seed)
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    history: list[dict[str, Any]] = []
    start_step, elapsed, resumed_from = 0, 0.0, None
    checkpoint_path = Path(run_dir) / CHECKPOINT_FILE if run_dir is not None else None
    if checkpoint_path is not None and checkpoint_path.exists():
        state = torch.load(checkpoint_path, map_location=device, weights_only=False)
        encoder.load_state_dict(state["encoder"])
        optimizer.load_state_dict(state["optimizer"])
        generator.set_state(state["generator"].cpu())  # generator states are CPU byte tensors on every device
        history, start_step, elapsed = state["history"], state["step"], state["elapsed"]
        resumed_from = start_step
    encoder.train()
    target_hit = next((row for row in history if settings.stop_r2 is not None
                       and row["probe_r2"] >= settings.stop_r2), None)
    step = start_step
    bar = tqdm(total=settings.max_steps, initial=start_step, desc=description, unit="step",
               disable=not progress, leave=False)
    clock = time.perf_counter()
    try:
        while step < settings.max_steps and target_hit is None:
            lr = settings.learning_rate(step)
            for group in optimizer.param_groups:
                group["lr"] = lr
            z, z_pos = world.sample_pairs(settings.batch_size, generator)
            with torch.no_grad():
                x, x_pos = mixing(z), mixing(z_pos)
            loss, parts = objective(encoder(x), encoder(x_pos), generator)
            value = parts["total"]
            if not math.isfinite(value) or abs(value) > settings.max_loss:
                raise TrainingDivergedError(
                    f"{description}: training diverged at step {step + 1}: loss {value!r} "
                    f"(threshold {settings.max_loss:g}, learning rate {lr:g}); lower the learning rate")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            bar.update(1)
            if step_callback is not None:
                step_callback(step)
            if step % settings.eval_every == 0 or step == settings.max_steps:
                record = {"step": step, "lr": lr, **{f"loss_{key}": val for key, val in parts.items()},
                          **evaluator(encoder)}
                now = time.perf_counter()
                elapsed += now - clock
                record["seconds"] = elapsed
                history.append(record)
                bar.set_postfix(r2=f"{record['probe_r2']:.5f}", loss=f"{value:.4g}")
                if settings.stop_r2 is not None and record["probe_r2"] >= settings.stop_r2:
                    target_hit = record
                if checkpoint_path is not None and step % settings.checkpoint_every == 0 and target_hit is None:
                    atomic_torch_save(checkpoint_path, {
                        "encoder": encoder.state_dict(), "optimizer": optimizer.state_dict(),
                        "generator": generator.get_state(), "history": history, "step": step,
                        "elapsed": elapsed})
                clock = time.perf_counter()
    finally:
        bar.close()
    if not history or history[-1]["step"] != step:
        elapsed += time.perf_counter() - clock
        history.append({"step": step, "seconds": elapsed, **evaluator(encoder)})
    if checkpoint_path is not None:
        checkpoint_path.unlink(missing_ok=True)
    return TrainResult(final=history[-1], history=history, steps=step, seconds=elapsed,
                       steps_to_target=None if target_hit is None else target_hit["step"],
                       seconds_to_target=None if target_hit is None else target_hit["seconds"],
                       resumed_from=resumed_from)
