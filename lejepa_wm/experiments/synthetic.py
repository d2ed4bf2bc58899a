"""What the five synthetic experiments share: settings, one run's execution, headline writing.

A run's ``params`` (JSON, stored in ``spec.json``) describe everything it needs:

- ``world``: ``{"kind": "gaussian", "n", "rho": [ρ_i]}`` or
  ``{"kind": "gennorm", "n", "beta", "tau", "channel", "mala_step"}``;
- ``mixing``: layers, hidden width, shift and log-scale gains, seed (:func:`make_mixing`);
- ``encoder``: kind, hidden width, depth, output dimension ``m``, seed;
- ``objective``: name, weight (0 = the alignment-only control), options;
- ``train``: the :class:`TrainSettings` fields; ``eval_size``; ``cpu_threads``.

:meth:`SyntheticExperiment.execute` builds them, trains with
:func:`~lejepa_wm.experiments.training.train` (checkpoints in the run folder),
then evaluates on held-out data and returns the final metrics, the evaluation
history, the measured pair correlation of the held-out pairs and the linear
probe R² of the raw observations ``x`` (the baseline the encoder must beat).

Cost on a two-core CPU (measured on the shared development machine, one thread
per run): ``--scale quick`` of all five experiments took 3.4 min (scaling 137 s,
distribution 27 s, anisotropic 10 s, bounds 17 s, output_dim 15 s).
``--scale full`` is estimated by ``benchmarks/bench_training.py --estimate-full``
at no more than 17 h (scaling 10.3 h, distribution 2.9 h, anisotropic 0.9 h,
bounds 1.0 h, output_dim 1.9 h; an upper bound: runs that reach their
held-out early-stopping target stop sooner); with ``--device cuda`` every
tensor of a run lives on the GPU.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import torch
from torch import nn

from lejepa_wm.atomic import atomic_write_json
from lejepa_wm.config import load_scaled_config
from lejepa_wm.device import select_device
from lejepa_wm.experiments.base import HEADLINE_FILE, RunSpec
from lejepa_wm.experiments.encoders import ENCODERS, build_encoder
from lejepa_wm.experiments.flows import make_mixing
from lejepa_wm.experiments.metrics import linear_probe_r2
from lejepa_wm.experiments.objectives import build_objective
from lejepa_wm.experiments.training import EvalData, TrainSettings, evaluate_encoder, train
from lejepa_wm.experiments.worlds import GaussianWorld, GeneralizedNormalWorld, World

CONFIG_DIR = Path(__file__).parent / "configs"
HISTORY_KEYS = ("step", "seconds", "probe_r2", "embedding_std", "loss_total", "loss_alignment",
                "procrustes_error", "orthogonality_error", "t3")


@dataclass(frozen=True)
class TrainingConfig:
    """Settings common to every synthetic experiment (each adds its own sweep keys).

    ``cpu_threads`` is the number of torch CPU threads per run (quick configs use 1:
    on a shared two-core machine two threads oversubscribed the cores and one
    training step at n = 128 took 2.7 s instead of 27 ms with one thread).
    ``stop_r2 = 0`` disables early stopping on the held-out probe.
    """

    seeds: int = 1
    max_steps: int = 500
    batch_size: int = 256
    lr: float = 3e-3
    warmup_steps: int = 50
    decay_fraction: float = 0.0
    weight_decay: float = 0.0
    eval_every: int = 50
    checkpoint_every: int = 500
    stop_r2: float = 0.0
    probe_size: int = 2048
    eval_size: int = 4096
    mixing_layers: int = 2
    mixing_hidden: int = 32
    shift_gain: float = 0.5
    log_scale_gain: float = 0.1
    encoder: str = "matched"
    encoder_hidden: int = 64
    mlp_depth: int = 2
    sigreg_weight: float = 1.0
    sigreg_slices: int = 64
    whitening_weight: float = 1.0
    cpu_threads: int = 1

    def __post_init__(self) -> None:
        for name in ("seeds", "max_steps", "batch_size", "eval_every", "checkpoint_every", "probe_size",
                     "eval_size", "mixing_layers", "mixing_hidden", "encoder_hidden", "mlp_depth",
                     "sigreg_slices", "cpu_threads"):
            value = getattr(self, name)
            if value < 1:
                raise ValueError(f"config key {name!r} must be >= 1; got {value!r}")
        for name in ("lr", "sigreg_weight", "whitening_weight"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"config key {name!r} must be a positive number; got {value!r}")
        if not 0.0 <= self.stop_r2 <= 1.0:
            raise ValueError(f"config key 'stop_r2' must lie in [0, 1] (0 = no early stop); got {self.stop_r2!r}")
        if self.encoder not in ENCODERS:
            raise ValueError(f"config key 'encoder' must be one of {ENCODERS}; got {self.encoder!r}")
        if self.checkpoint_every % self.eval_every:
            raise ValueError(f"checkpoint_every ({self.checkpoint_every}) must be a multiple of "
                             f"eval_every ({self.eval_every})")

    def train_params(self, seed: int) -> dict[str, Any]:
        """The :class:`TrainSettings` fields for a run with ``seed``."""
        return {"max_steps": self.max_steps, "batch_size": self.batch_size, "lr": self.lr, "seed": seed,
                "warmup_steps": self.warmup_steps, "decay_fraction": self.decay_fraction,
                "weight_decay": self.weight_decay, "eval_every": self.eval_every,
                "checkpoint_every": self.checkpoint_every, "stop_r2": self.stop_r2 or None,
                "probe_size": self.probe_size}

    def mixing_params(self, seed: int) -> dict[str, Any]:
        return {"layers": self.mixing_layers, "hidden": self.mixing_hidden, "shift_gain": self.shift_gain,
                "log_scale_gain": self.log_scale_gain, "seed": seed}

    def encoder_params(self, seed: int, kind: str | None = None, m: int | None = None) -> dict[str, Any]:
        return {"kind": kind or self.encoder, "hidden": self.encoder_hidden, "depth": self.mlp_depth,
                "m": m, "seed": seed}

    def objective_params(self, name: str) -> dict[str, Any]:
        """Regularized objective ``name`` (sigreg or whitening) with the configured weight."""
        if name == "sigreg":
            return {"name": "sigreg", "weight": self.sigreg_weight, "options": {"num_slices": self.sigreg_slices}}
        if name == "whitening":
            return {"name": "whitening", "weight": self.whitening_weight, "options": {}}
        raise ValueError(f"unknown regularized objective {name!r}")

    def run_params(self, world: dict[str, Any], objective: dict[str, Any], seed: int,
                   encoder: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
        """Complete ``params`` of one run (``extra`` holds the sweep coordinates, e.g. ``n``, ``method``)."""
        return {"seed": seed, "world": world, "mixing": self.mixing_params(seed),
                "encoder": encoder or self.encoder_params(seed), "objective": objective,
                "train": self.train_params(seed), "eval_size": self.eval_size,
                "cpu_threads": self.cpu_threads, **extra}


ALIGNMENT_ONLY = {"name": "whitening", "weight": 0.0, "options": {}}
"""The λ = 0 control: the total loss is exactly the alignment loss (the regularizer's name is irrelevant)."""


def build_world(params: Mapping[str, Any]) -> World:
    """World described by ``params["world"]``-style mapping."""
    kind = params["kind"]
    if kind == "gaussian":
        return GaussianWorld(int(params["n"]), tuple(float(v) for v in params["rho"]))
    if kind == "gennorm":
        return GeneralizedNormalWorld(int(params["n"]), float(params["beta"]), float(params["tau"]),
                                      params["channel"], float(params["mala_step"]))
    raise ValueError(f"unknown world kind {kind!r}; expected 'gaussian' or 'gennorm'")


def pair_correlation(z: torch.Tensor, z_pos: torch.Tensor) -> np.ndarray:
    """Per-coordinate sample correlation of the two views."""
    a = z.detach().cpu().double().numpy()
    b = z_pos.detach().cpu().double().numpy()
    a, b = a - a.mean(0), b - b.mean(0)
    return (a * b).mean(0) / np.sqrt((a * a).mean(0) * (b * b).mean(0))


def slim_history(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """History rows without per-coordinate lists (keeps metrics.json small at n = 1024)."""
    return [{key: row[key] for key in HISTORY_KEYS if key in row} for row in history]


class SyntheticExperiment:
    """Shared ``load_config`` and ``execute``; subclasses define ``grid`` and ``aggregate``."""

    name: str = ""
    description: str = ""
    config_class: type = TrainingConfig

    def load_config(self, scale: str, path: Path | None = None,
                    overrides: Mapping[str, Any] | None = None) -> Any:
        return load_scaled_config(self.config_class, CONFIG_DIR / f"{self.name}.toml", scale, path, overrides)

    def spec(self, scale: str, run_id: str, params: dict[str, Any]) -> RunSpec:
        return RunSpec(self.name, scale, run_id, params)

    def extra_metrics(self, encoder: nn.Module, data: EvalData, params: Mapping[str, Any]) -> dict[str, Any]:
        """Experiment-specific held-out metrics (override)."""
        return {}

    def execute(self, spec: RunSpec, run_dir: Path, device: str = "cpu") -> dict[str, Any]:
        params = spec.params
        dev = select_device(device)
        if dev.type == "cpu":
            torch.set_num_threads(int(params.get("cpu_threads", 1)))
        world = build_world(params["world"])
        mix = params["mixing"]
        mixing = make_mixing(world.n, mix["layers"], mix["hidden"], mix["shift_gain"],
                             mix["log_scale_gain"], mix["seed"]).to(dev)
        enc = params["encoder"]
        encoder = build_encoder(enc["kind"], mixing, enc["hidden"], enc.get("m"), enc["depth"], enc["seed"])
        obj = params["objective"]
        objective = build_objective(obj["name"], obj["weight"], **obj.get("options", {}))
        settings = TrainSettings(**params["train"])
        data = EvalData.draw(world, mixing, params["eval_size"], settings.seed, dev)
        track_full = bool(params.get("track_full", False))
        result = train(encoder, world, mixing, objective, settings, run_dir, dev,
                       evaluator=lambda model: evaluate_encoder(model, data, full=track_full),
                       progress=True, description=spec.run_id)
        final = evaluate_encoder(encoder, data, full=True)
        raw_r2, _ = linear_probe_r2(data.x_fit, data.z_fit, data.x_eval, data.z_eval)
        metrics = {**final, "raw_observation_r2": float(raw_r2),
                   "pair_correlation": float(pair_correlation(data.z_eval, data.z_eval_pos).mean()),
                   "nominal_rho": float(np.mean(world.rho)),
                   "steps": result.steps, "train_seconds": result.seconds,
                   "steps_to_target": result.steps_to_target, "seconds_to_target": result.seconds_to_target,
                   "resumed_from": result.resumed_from, "history": slim_history(result.history)}
        metrics.update(self.extra_metrics(encoder, data, params))
        return metrics


def write_headline(exp_dir: Path, entries: list[dict[str, Any]]) -> Path:
    """Write ``headline.json`` (entries as documented in :mod:`lejepa_wm.experiments.base`)."""
    return atomic_write_json(Path(exp_dir) / HEADLINE_FILE, entries)

