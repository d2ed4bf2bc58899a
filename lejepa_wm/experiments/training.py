"""The one training loop: an encoder trained on positive pairs, seeded, resumable, with held-out evaluation.

Every experiment trains through :func:`train`: the synthetic ones on pairs drawn
from a world and rendered (:class:`WorldPairs`), Reacher on a fixed set of frame
pairs visited in epochs (:class:`DatasetPairs`). The loop never seeds a global
generator: the caller passes the ``torch.Generator`` of the run's ``batches``
stream (:mod:`lejepa_wm.seeds`), which draws every batch and every set of
SIGReg directions, so a run is a deterministic function of its seeds on a
given device.

The loop
--------
- AdamW (``weight_decay = 0`` is plain Adam); learning rate with linear warmup
  over ``warmup_steps``, constant, then a cosine decay to zero over the last
  ``decay_fraction`` of ``max_steps`` (:meth:`TrainSettings.learning_rate`).
- With ``average_decay = d > 0`` the encoder that is evaluated and returned is
  an exponential moving average of the weights after each update,
  ``θ̄_t = θ̄_(t−1) + r_t (θ_t − θ̄_(t−1))`` with ``θ̄_1 = θ_1`` and rate
  ``r_t = max(1 − d, 9 / (9 + t))`` (:class:`torch.optim.swa_utils.AveragedModel`): the
  decay ``1 − r_t = min(d, t / (9 + t))`` ramps up as in TensorFlow's
  ``ExponentialMovingAverage`` with ``num_updates``, so early in training the
  average spans about the last tenth of the updates instead of keeping the first
  weights (at a fixed ``d = 0.99`` they would still weigh 0.6 after 50 updates), and
  from ``t = 9d / (1 − d)`` (891 updates at 0.99) it is the plain ``d``-average.
  Averaging removes most of the minibatch noise that keeps the last iterate away
  from the optimum, so a target is reached in fewer steps (``benchmarks/README.md``).
- With ``precision = "bfloat16"`` the encoder's forward pass (and so its backward) runs under
  ``torch.autocast`` in bfloat16: its matrix products round their inputs to 8 bits of mantissa
  (relative error about 4e-3) and accumulate in float32; the weights, the optimizer, the data
  (rendered in float32), the objective and every evaluation stay in float32. On a CPU with
  bfloat16 instructions a step of the paper's encoder at n = 1,024 and batch 1,024 costs a
  little more than half of a float32 step (106–108 against 189–193 ms, half of it rendering
  the pairs in float32), and the validation R² along training agrees with float32 to 1e-5
  (``benchmarks/README.md``). ``"float32"`` (the default) is the plain loop.
- Every ``eval_every`` steps (if set) ``evaluator(encoder)`` is called; it must
  measure on the *validation* sample only. Without ``eval_every`` the history
  keeps the loss at every checkpoint instead. With ``stop_r2`` set, training stops
  at the first evaluation whose ``probe_r2`` reaches it (``steps_to_target``,
  ``seconds_to_target``: wall time including the evaluations).
- Every ``checkpoint_every`` steps, and once more when training ends, the
  encoder, optimizer, generator state, history and elapsed time are written
  atomically to ``checkpoint.pt`` (:data:`CHECKPOINT_FILE`) in the run folder; a
  rerun resumes from it and yields the same result as an uninterrupted run. A
  checkpoint that cannot be read (truncated, damaged, not a regular file) is
  discarded with a warning on stderr and the run starts afresh. The
  loop never deletes a readable checkpoint: the run driver removes it only after the
  run's ``metrics.json`` is durably written, so a kill between the end of
  training and the final metrics loses nothing.
- A non-finite loss, or one above ``max_loss``, raises
  :class:`TrainingDivergedError` naming the step, the value and the learning rate.
"""

from __future__ import annotations

import copy
import io
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, Protocol

import numpy as np
import torch
from pydantic import Field
from torch import Tensor, nn
from torch.optim.swa_utils import AveragedModel
from tqdm import tqdm

from lejepa_wm.atomic import atomic_torch_save, read_regular
from lejepa_wm.experiments.base import CHECKPOINT_FILE, DeterministicRunError
from lejepa_wm.schema import NonNegative, Positive, PositiveInt, Record, UnitInterval
from lejepa_wm.seeds import spawn_seeds

__all__ = [
    "CHECKPOINT_FILE", "PRECISIONS", "BatchSize", "Steps", "AverageDecay", "Precision", "TrainingDivergedError", "TrainSettings", "PairSource", "WorldPairs",
    "DatasetPairs", "TrainResult", "Evaluator", "Objective", "train", "numpy64"
]


PRECISIONS = ("float32", "bfloat16")
"""The arithmetic of the encoder's forward and backward passes (``TrainSettings.precision``)."""
_CHECKPOINT_LIMIT = 2**34
"""The largest checkpoint read (bytes)."""
_MAX_BATCH_SIZE = 2**20
"""The largest batch (a bound on memory: the shipped configs use at most 1024)."""
BatchSize = Annotated[int, Field(ge=2, le=_MAX_BATCH_SIZE)]
"""A batch holds at least two pairs (every objective compares the embeddings of a batch), at most
:data:`_MAX_BATCH_SIZE`."""
Steps = Annotated[int, Field(ge=0)]
AverageDecay = Annotated[float, Field(ge=0, lt=1, allow_inf_nan=False)]
Precision = Literal[PRECISIONS]  # type: ignore[valid-type]
"""Field types of the settings that configs pass on to :class:`TrainSettings` (checked where a config is read)."""


class TrainingDivergedError(DeterministicRunError, RuntimeError):
    """The loss became NaN/inf or exceeded the divergence threshold (the same seed diverges again: not retried)."""


@dataclass(frozen=True)
class TrainSettings(Record):
    """Optimization, evaluation and checkpoint settings of one run: each field's range is in its annotation,
    checked where a config or a spec is read; the constructor checks the relations between fields.

    ``eval_every = None`` evaluates only at the end (no early stopping);
    ``checkpoint_every`` must then be set on its own, else it must be a
    multiple of ``eval_every``. A batch holds at least two pairs (every
    objective compares the embeddings of a batch) and at most
    :data:`_MAX_BATCH_SIZE`, and the warmup is no longer than the run.
    """

    max_steps: PositiveInt
    batch_size: BatchSize
    lr: Positive
    warmup_steps: Steps = 0
    decay_fraction: UnitInterval = 0.0
    weight_decay: NonNegative = 0.0
    eval_every: PositiveInt | None = 50
    checkpoint_every: PositiveInt = 500
    stop_r2: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] | None = None
    max_loss: Positive = 1e8
    average_decay: AverageDecay = 0.0
    precision: Precision = "float32"

    def __post_init__(self) -> None:
        """Relations between fields (each field's range is in its annotation, checked when a config or a spec is
        read; built in Python, by :class:`~lejepa_wm.schema.Record`)."""
        super().__post_init__()
        if self.eval_every is not None and self.checkpoint_every % self.eval_every:
            raise ValueError(f"checkpoint_every ({self.checkpoint_every}) must be a multiple of "
                             f"eval_every ({self.eval_every})")
        if self.warmup_steps > self.max_steps:
            raise ValueError(f"warmup_steps ({self.warmup_steps}) must not exceed max_steps ({self.max_steps}): "
                             "the learning rate would never reach its set value")
        if self.stop_r2 is not None and self.eval_every is None:
            raise ValueError("stop_r2 needs eval_every (early stopping evaluates during training)")

    def learning_rate(self, step: int) -> float:
        """Learning rate used for update ``step`` (0-based): warmup, constant, cosine decay."""
        factor = min(1.0, (step + 1) / self.warmup_steps) if self.warmup_steps else 1.0
        decay_steps = int(round(self.decay_fraction * self.max_steps))
        decay_start = self.max_steps - decay_steps
        if decay_steps and step >= decay_start:
            factor *= 0.5 * (1.0 + math.cos(math.pi * (step - decay_start) / decay_steps))
        return self.lr * factor


class PairSource(Protocol):
    """Where training pairs come from: ``draw(step, size, generator) -> (x, x_pos)`` on the training device."""

    def draw(self, step: int, size: int, generator: torch.Generator) -> tuple[Tensor, Tensor]:
        """The observations of ``size`` positive pairs for update ``step`` (0-based)."""


@dataclass
class WorldPairs:
    """Fresh pairs ``(g(z), g(z'))`` every step: ``(z, z')`` from the world's channel, ``g`` the renderer.

    With ``targets`` it yields ``(g(z), z)`` instead: observations and their true latents, for regression.
    """

    world: Any
    renderer: nn.Module
    targets: bool = False

    def draw(self, step: int, size: int, generator: torch.Generator) -> tuple[Tensor, Tensor]:
        z, z_pos = self.world.sample_pairs(size, generator)
        with torch.no_grad():
            return (self.renderer(z), z) if self.targets else (self.renderer(z), self.renderer(z_pos))


class DatasetPairs:
    """Pairs ``(first[i], second[i])`` of a fixed data set, visited in epochs of shuffled batches.

    Epoch ``e`` visits the pairs in a random order drawn from the ``e``-th seed
    spawned from ``order_seed`` (so the order of any epoch is known without
    replaying earlier ones, and a resumed run visits the same batches); each
    epoch has ``len // batch_size`` full batches (the remainder of the order is
    left out). ``steps_per_epoch(batch_size)`` converts epochs into ``max_steps``.
    """

    def __init__(self, first: Tensor, second: Tensor, order_seed: int) -> None:
        """``first`` and ``second``: the two views of the same non-empty set of pairs, row by row."""
        self.first, self.second = first, second
        self.order_seed = order_seed
        self._order: tuple[int, Tensor] | None = None

    def steps_per_epoch(self, batch_size: int) -> int:
        """Full batches of ``batch_size`` in one pass (at least one)."""
        return max(1, len(self.first) // batch_size)

    def draw(self, step: int, size: int, generator: torch.Generator) -> tuple[Tensor, Tensor]:
        epoch, batch = divmod(step, self.steps_per_epoch(size))
        if self._order is None or self._order[0] != epoch:  # the epoch's order, drawn once per epoch
            shuffle = torch.Generator().manual_seed(spawn_seeds(self.order_seed, epoch + 1)[epoch])
            self._order = (epoch, torch.randperm(len(self.first), generator=shuffle).to(self.first.device))
        index = self._order[1][batch * size:(batch + 1) * size]
        return self.first[index], self.second[index]


@dataclass
class TrainResult:
    """What a finished run reports: the last validation metrics, the evaluation history and costs."""

    final: dict[str, Any]
    history: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0
    seconds: float = 0.0
    steps_to_target: int | None = None
    seconds_to_target: float | None = None
    resumed_from: int | None = None


Evaluator = Callable[[nn.Module], dict[str, Any]]
Objective = Callable[[Tensor, Tensor, torch.Generator], tuple[Tensor, dict[str, float]]]


def train(encoder: nn.Module, pairs: PairSource, objective: Objective, settings: TrainSettings,
          generator: torch.Generator, run_dir: Path | None, evaluator: Evaluator | None = None,
          progress: bool = True, description: str = "train",
          step_callback: Callable[[int], None] | None = None,
          on_evaluation: Callable[[dict[str, Any]], None] | None = None) -> TrainResult:
    """Train ``encoder`` (already on ``generator``'s device) on ``pairs``; resume from ``run_dir``.

    Each step draws ``(x, x')`` from ``pairs`` and minimizes
    ``objective(f(x), f(x'), generator)``; an objective whose ``targets`` is
    true receives the second element unencoded (``pairs`` then yields ``(x, z)``).
    ``evaluator(encoder)`` returns the metrics recorded at each evaluation (on
    the validation sample; it must include ``probe_r2`` when ``stop_r2`` is set).
    ``step_callback(step)`` is called after each completed update (tests use it
    to simulate an interruption); ``on_evaluation(record)`` receives each row
    of the history as it is recorded (step, learning rate, loss parts, the
    evaluator's metrics, seconds: e.g. a TensorBoard log). ``run_dir = None``
    disables checkpoints.
    """
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    average = (AveragedModel(encoder, avg_fn=_exponential_average(settings.average_decay))
               if settings.average_decay else None)
    evaluated = encoder if average is None else average.module  # what is evaluated and returned
    targets = bool(getattr(objective, "targets", False))  # a regression: the second input is z itself
    history: list[dict[str, Any]] = []
    step, elapsed, resumed_from, finished = 0, 0.0, None, False
    checkpoint_path = Path(run_dir) / CHECKPOINT_FILE if run_dir is not None else None

    def restore(state: dict[str, Any]) -> None:
        """Set the encoder, optimizer, weight average and generator to a checkpoint's (or their initial) state."""
        encoder.load_state_dict(state["encoder"])
        optimizer.load_state_dict(state["optimizer"])
        if average is not None:
            average.load_state_dict(state["average"])
        generator.set_state(state["generator"].cpu())  # generator states are CPU byte tensors on every device

    if checkpoint_path is not None and checkpoint_path.exists():
        initial = {"encoder": copy.deepcopy(encoder.state_dict()), "optimizer": copy.deepcopy(optimizer.state_dict()),
                   "generator": generator.get_state(),
                   "average": None if average is None else copy.deepcopy(average.state_dict())}
        try:
            state = torch.load(io.BytesIO(read_regular(checkpoint_path, _CHECKPOINT_LIMIT)),
                               map_location=generator.device, weights_only=False)
            restore(state)
            history, step, elapsed = list(state["history"]), int(state["step"]), float(state["elapsed"])
            finished, resumed_from = bool(state.get("finished", False)), step
        except Exception as exc:  # truncated, damaged or from other code: start afresh, never stay blocked
            print(f"warning: {description}: the checkpoint {checkpoint_path} cannot be read ({type(exc).__name__}: "
                  f"{exc}); it is discarded and the run starts afresh", file=sys.stderr)
            checkpoint_path.unlink(missing_ok=True)
            restore(initial)
            history, step, elapsed, resumed_from, finished = [], 0, 0.0, None, False

    def save_checkpoint(seconds: float, done: bool) -> None:
        atomic_torch_save(checkpoint_path, {"encoder": encoder.state_dict(), "optimizer": optimizer.state_dict(),
                                            "generator": generator.get_state(), "history": history, "step": step,
                                            "elapsed": seconds, "finished": done,
                                            **({} if average is None else {"average": average.state_dict()})})

    encoder.train()
    target_hit = next((row for row in history if settings.stop_r2 is not None
                       and row["probe_r2"] >= settings.stop_r2), None)
    with tqdm(total=settings.max_steps, initial=step, desc=description, unit="step", disable=not progress,
              leave=False) as bar:
        origin = time.perf_counter() - elapsed  # wall time counts across resumptions
        while not finished and step < settings.max_steps and target_hit is None:
            lr = settings.learning_rate(step)
            for group in optimizer.param_groups:
                group["lr"] = lr
            x, second = pairs.draw(step, settings.batch_size, generator)
            with torch.autocast(x.device.type, torch.bfloat16, enabled=settings.precision == "bfloat16"):
                first, other = encoder(x), None if targets else encoder(second)
            loss, parts = objective(first.float(), second if targets else other.float(), generator)
            value = parts["total"]
            if not math.isfinite(value) or abs(value) > settings.max_loss:
                raise TrainingDivergedError(
                    f"{description}: training diverged at step {step + 1}: loss {value!r} "
                    f"(threshold {settings.max_loss:g}, learning rate {lr:g}); lower the learning rate")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if average is not None:
                average.update_parameters(encoder)
            step += 1
            bar.update(1)
            if step_callback is not None:
                step_callback(step)
            record = {"step": step, "lr": lr, **{f"loss_{key}": val for key, val in parts.items()}}
            if evaluator is not None and settings.eval_every is not None and (
                    step % settings.eval_every == 0 or step == settings.max_steps):
                record.update(evaluator(evaluated), seconds=time.perf_counter() - origin)  # timed after evaluating
                history.append(record)
                if on_evaluation is not None:
                    on_evaluation(record)
                if "probe_r2" in record:
                    bar.set_postfix(r2=f"{record['probe_r2']:.5f}", loss=f"{value:.4g}")
                if settings.stop_r2 is not None and record["probe_r2"] >= settings.stop_r2:
                    target_hit = record
            elif settings.eval_every is None and step % settings.checkpoint_every == 0:
                history.append(record)
            if checkpoint_path is not None and step % settings.checkpoint_every == 0 and target_hit is None:
                save_checkpoint(time.perf_counter() - origin, False)
    if not finished:
        elapsed = time.perf_counter() - origin
        if evaluator is not None and (not history or history[-1]["step"] != step or "probe_r2" not in history[-1]):
            history.append({"step": step, "seconds": elapsed, **evaluator(evaluated)})
            if on_evaluation is not None:
                on_evaluation(history[-1])
        if checkpoint_path is not None:
            save_checkpoint(elapsed, True)
    if average is not None:  # the caller's encoder becomes the averaged one
        encoder.load_state_dict(average.module.state_dict())
    encoder.eval()
    hit = target_hit or {}
    return TrainResult(final=history[-1] if history else {}, history=history, steps=step, seconds=elapsed,
                       steps_to_target=hit.get("step"), seconds_to_target=hit.get("seconds"), resumed_from=resumed_from)


def _exponential_average(decay: float) -> Callable[[Tensor, Tensor, Tensor], Tensor]:
    """``AveragedModel``'s update: rate ``max(1 − decay, 9 / (9 + t))`` at update ``t`` (module docstring).

    ``count`` is the number of weights averaged before ``current`` (``t − 1``).
    """
    def update(average: Tensor, current: Tensor, count: Tensor) -> Tensor:
        rate = max(1 - decay, 9 / (10 + float(count)))
        return average + (current - average) * rate

    return update


def numpy64(tensor: Tensor) -> np.ndarray:
    """A tensor as a float64 NumPy array on the CPU."""
    return tensor.detach().to("cpu", torch.float64).numpy()
