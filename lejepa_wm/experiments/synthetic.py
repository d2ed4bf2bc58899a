"""What the five synthetic experiments share: the common settings, one run's execution, headline writing.

A run's ``params`` are a :class:`~lejepa_wm.experiments.run_params.SyntheticRunParams`
(stored in ``spec.json``). :meth:`SyntheticExperiment.execute` builds the world,
the renderer (``renderer`` seed stream), the encoder (``init`` stream), draws
the three held-out samples (``fit``, ``validation``, ``test`` streams), trains
with the one training loop (``batches`` stream; early stopping on the
validation sample) and returns the test-sample metrics beside the baseline: the
linear probe R² of the raw observation ``x`` and the residual ratio
``(1 − R²)/(1 − R²_raw)``.

Run seeds: ``--seed S``, ``first_seed = F`` and ``seeds = k`` give the runs seeds
``F + S … F + S + k − 1``.
``tuning_seeds`` lists the seeds on which settings were chosen (recorded in
``docs/TUNING.md``); a grid whose run seeds meet them is refused, so no
reported number comes from a seed that tuned anything.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Annotated, Any, Literal, Mapping

import numpy as np
import torch
from pydantic import Field
from threadpoolctl import threadpool_limits
from matplotlib.figure import Figure
from torch import nn

from lejepa_wm.atomic import atomic_write_json
from lejepa_wm.config import load_scaled_config
from lejepa_wm.device import select_device
from lejepa_wm.experiments.base import HEADLINE_FILE, FinishedRun, RunSpec, finished_runs, publish_results
from lejepa_wm.experiments.encoder_file import save_encoder
from lejepa_wm.experiments.encoders import ENCODERS
from lejepa_wm.experiments.evidence import residual_ratio
from lejepa_wm.experiments.flows import RENDERERS
from lejepa_wm.experiments.heldout import (MIN_SAMPLE, HeldOutSamples, raw_observation_r2, reported_metrics,
                                           validation_metrics)
from lejepa_wm.experiments.objectives import SIGREG_STATISTICS, Whitened
from lejepa_wm.experiments.plotting import save_figure, write_summary
from lejepa_wm.experiments.optimum import largest_answer_dim, objective_gap
from lejepa_wm.experiments.quick_look import mark_without_control
from lejepa_wm.experiments.run_params import (SUPERVISED, EncoderParams, ObjectiveParams, RendererParams,
                                              SyntheticRunParams)
from lejepa_wm.experiments.training import (AverageDecay, BatchSize, Precision, Steps, TrainResult, TrainSettings,
                                            WorldPairs, numpy64, train)
from lejepa_wm.experiments.training_log import EvaluationLog
from lejepa_wm.experiments.worlds import GaussianWorld, World
from lejepa_wm.machine import usable_cores
from lejepa_wm.records import HeadlineEntry
from lejepa_wm.schema import NonNegative, Positive, PositiveInt, UnitInterval, check_fields
from lejepa_wm.seeds import SEED_LIMIT, SeedStreams, spawn_seeds

__all__ = [
    "Seed", "OpenUnit", "Dimension", "Encoder", "check_seed_offset", "TrainingConfig", "SyntheticExperiment", "embedding_of", "TrainedRun", "train_synthetic",
    "write_headline"
]

_CONFIG_DIR = Path(__file__).parent / "configs"
_MAX_EVAL_SIZE = 2**18
"""The largest held-out sample (eight times the largest shipped one): bounds memory and time."""
_MAX_SLICES = 2**14
"""The most SIGReg directions per step (the shipped configs use at most 256)."""
_HISTORY_KEYS = ("step", "seconds", "probe_r2", "embedding_std", "loss_total", "loss_alignment", "test")
_TEST_HISTORY_KEYS = ("probe_r2", "procrustes_error", "scale_free_error", "embedding_std", "t3")


Seed = Annotated[int, Field(ge=0, lt=SEED_LIMIT)]
"""A seed in a config (``first_seed``; Reacher's ``tuning_seeds``): an integer in ``[0, 2^62)``."""
OpenUnit = Annotated[float, Field(gt=0, lt=1, allow_inf_nan=False)]
"""A config value in the open interval (0, 1): a correlation ``ρ``, a target."""
Dimension = Annotated[int, Field(ge=2)]
"""A latent dimension in a config: at least 2."""
Encoder = Literal[ENCODERS]  # type: ignore[valid-type]
"""An encoder's name in a config (:data:`~lejepa_wm.experiments.encoders.ENCODERS`)."""


def check_seed_offset(seed: Any, room: int = 0) -> int:
    """``--seed`` must be an integer in ``[0, 2^62 − room)`` (``room``: how many seeds follow it)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT - room:
        raise ValueError(f"the seed offset must be an integer >= 0; got {seed!r}")
    return seed


@dataclass(frozen=True)
class TrainingConfig:
    """Settings common to every synthetic experiment (each adds its own sweep keys); validated on loading.

    ``cpu_threads`` is the number of torch CPU threads per run (one is fastest on
    a shared machine: ``benchmarks/README.md``). ``stop_r2 = 0`` disables early
    stopping; otherwise training stops when the validation probe R² reaches it
    (never for the λ = 0 control, which always runs its whole budget).
    SIGReg's form: ``sigreg_statistic`` ``"lejepa"`` (the paper's V-statistic) or
    ``"unbiased"`` (the U-statistic), and ``sigreg_standardize`` (SIGReg on the
    batch-standardized embedding plus a moment term for the scale;
    ``docs/SIGREG.md``). ``average_decay`` > 0 evaluates and keeps the exponential moving average of the
    weights, and ``precision = "bfloat16"`` runs the encoder's passes in bfloat16
    (:mod:`lejepa_wm.experiments.training`). The runs' seeds start at ``first_seed`` plus ``--seed``.
    ``control = false`` (``--no-control``) drops the λ = 0 control from ``methods``:
    a quick look, whose figure and headline say so (:mod:`.quick_look`).
    Each key's range or choices is in its annotation (``eval_size`` at most :data:`_MAX_EVAL_SIZE`,
    ``sigreg_slices`` at most :data:`_MAX_SLICES`, ``first_seed`` in ``[0, 2^62)``), checked when the config
    is read; ``__post_init__`` checks, naming the key, ``cpu_threads`` against the cores this process may use,
    the tuning seeds, and :class:`TrainSettings`' rules between keys. Subclasses add their keys the same way.
    """

    seeds: PositiveInt = 2
    tuning_seeds: tuple[int, ...] = ()
    max_steps: PositiveInt = 500
    batch_size: BatchSize = 256
    lr: Positive = 3e-3
    warmup_steps: Steps = 50
    decay_fraction: UnitInterval = 0.0
    weight_decay: NonNegative = 0.0
    eval_every: PositiveInt = 50
    checkpoint_every: PositiveInt = 500
    stop_r2: UnitInterval = 0.0
    average_decay: AverageDecay = 0.0
    precision: Precision = "float32"
    eval_size: Annotated[int, Field(ge=MIN_SAMPLE, le=_MAX_EVAL_SIZE)] = 4096
    renderer: Literal[RENDERERS] = "published"  # type: ignore[valid-type]
    renderer_layers: PositiveInt = 4
    renderer_hidden: PositiveInt = 16
    shift_gain: NonNegative = 0.5
    log_scale_gain: NonNegative = 0.0
    encoder: Encoder = "mlp"
    encoder_hidden: PositiveInt = 64
    mlp_depth: PositiveInt = 2
    sigreg_weight: Positive = 1.0
    sigreg_slices: Annotated[int, Field(ge=1, le=_MAX_SLICES)] = 64
    sigreg_statistic: Literal[SIGREG_STATISTICS] = "lejepa"  # type: ignore[valid-type]
    sigreg_standardize: bool = False
    whitening_weight: Positive = 1.0
    whitened_lr: Positive = 3e-2
    whitened_batch_per_dim: PositiveInt = 4
    whitened_deficit_weight: NonNegative = 0.0
    first_seed: Seed = 0
    cpu_threads: PositiveInt = 1
    control: bool = True

    def __post_init__(self) -> None:
        """Relations between keys (each key's range or choices is in its annotation, checked when the config is
        read, and here for a config built in Python), and the cores this process may use."""
        check_fields(self)
        self.require(self.cpu_threads <= usable_cores(), "cpu_threads",
                     f"must not exceed the {usable_cores()} core(s) this process may use")
        self.require(all(0 <= seed < SEED_LIMIT for seed in self.tuning_seeds), "tuning_seeds",
                     f"must hold integers in [0, 2^62) (= {SEED_LIMIT})")
        try:
            self.train_settings()
        except ValueError as exc:
            raise ValueError(f"config: {exc}") from None

    def require(self, valid: bool, key: str, rule: str) -> None:
        """Unless ``valid``, raise ``ValueError``: config key ``key`` breaks ``rule``, with its value."""
        if not valid:
            raise ValueError(f"config key {key!r} {rule}; got {getattr(self, key)!r}")

    def require_probe_sample(self, largest_dim: int) -> None:
        """``eval_size`` exceeds the affine probe's coefficients on a ``largest_dim``-dimensional embedding.

        The probe is fitted on ``eval_size`` rows; with no more rows than its ``largest_dim + 1``
        coefficients it interpolates the fit sample and its R² means nothing.
        """
        self.require(self.eval_size > largest_dim + 1, "eval_size",
                     f"must exceed {largest_dim + 1}, the probe's coefficients at the largest dimension of the grid "
                     f"({largest_dim})")

    def require_even(self, key: str) -> None:
        """``key`` is an even integer >= 2, or a non-empty list of them."""
        value = getattr(self, key)
        if isinstance(value, tuple):
            self.require(bool(value) and all(n >= 2 and not n % 2 for n in value), key,
                         "must be a non-empty list of even integers >= 2")
        else:
            self.require(value >= 2 and not value % 2, key, "must be an even integer >= 2")

    def require_methods(self, allowed: tuple[str, ...], key: str = "methods", control: bool = True) -> None:
        """``key`` lists methods from ``allowed`` only and, with ``control``, the λ = 0 control."""
        unknown = [m for m in getattr(self, key) if m not in allowed]
        self.require(not unknown, key, f"has unknown entries {unknown!r}; expected from {allowed}")
        self.require(not (control and self.control) or "alignment_only" in getattr(self, key), key,
                     "must include the control 'alignment_only' (control = false, --no-control, drops it)")
        self.require(self.control or "alignment_only" not in getattr(self, key), key,
                     "must not include 'alignment_only' when control = false")

    def run_seeds(self, offset: int = 0) -> list[int]:
        """Seeds of the reported runs, ``first_seed + offset`` onwards, ``seeds`` of them; never a tuning seed."""
        seeds = [self.first_seed + check_seed_offset(offset) + index for index in range(self.seeds)]
        clash = sorted(set(seeds) & set(self.tuning_seeds))
        if clash:
            raise ValueError(f"run seeds {clash} were used for tuning (tuning_seeds); reported runs must use "
                             f"other seeds: choose another --seed")
        return seeds

    def train_settings(self) -> TrainSettings:
        """The training settings of the keys named as :class:`TrainSettings`' fields (``stop_r2 = 0``: ``None``)."""
        shared = {f.name: getattr(self, f.name) for f in fields(TrainSettings) if hasattr(self, f.name)}
        return TrainSettings(**{**shared, "stop_r2": self.stop_r2 or None})

    def whitened_settings(self, train: TrainSettings, m: int) -> TrainSettings:
        """``train`` for the ``whitened`` objective of an ``m``-dimensional embedding: peak rate ``whitened_lr``
        and batches of at least ``whitened_batch_per_dim · m`` pairs (its whitening is estimated from the batch:
        with ``2N`` rows for ``m`` dimensions the estimate's eigenvalues spread by about ``±2√(m/2N)``,
        Marchenko–Pastur; ``docs/TUNING.md``)."""
        return replace(train, lr=self.whitened_lr, batch_size=max(train.batch_size, self.whitened_batch_per_dim * m))

    def renderer_params(self) -> RendererParams:
        return RendererParams(self.renderer, self.renderer_layers, self.renderer_hidden, self.shift_gain,
                              self.log_scale_gain)

    def encoder_params(self, kind: str | None = None, m: int | None = None) -> EncoderParams:
        return EncoderParams(kind or self.encoder, self.encoder_hidden, self.mlp_depth, m)

    def objective(self, method: str, n: int | None = None) -> ObjectiveParams:
        """Objective of ``method``: ``sigreg``, ``whitening`` (configured weights), ``whitened`` (the hard
        constraint), ``alignment_only`` (the λ = 0 control) or ``supervised`` (regression onto ``z``)."""
        weights = {"sigreg": self.sigreg_weight, "whitening": self.whitening_weight, "whitened": 1.0,
                   "alignment_only": 0.0, "supervised": 0.0}  # methods were checked when the config was read
        options: dict[str, Any] = {}
        if method == "sigreg":
            options = {"num_slices": self.sigreg_slices, "statistic": self.sigreg_statistic,
                       "standardize": self.sigreg_standardize}
        elif method == "whitened" and self.whitened_deficit_weight:  # 0: the plain constraint, no option stored
            options = {"deficit_weight": self.whitened_deficit_weight}
        return ObjectiveParams(method, weights[method], options)

    def run(self, world: World, method: str, run_seed: int, encoder: EncoderParams | None = None,
            track_test: bool = False, **labels: Any) -> SyntheticRunParams:
        """Complete parameters of one run (``labels``: its coordinates in the grid, e.g. ``n``)."""
        train = self.train_settings()
        if method == "alignment_only":  # the control is trained at least as long as the runs it stands beside
            train = replace(train, stop_r2=None)
        return SyntheticRunParams(world, self.renderer_params(), encoder or self.encoder_params(),
                                  self.objective(method, world.n), train, SeedStreams.derive(run_seed),
                                  eval_size=self.eval_size, cpu_threads=self.cpu_threads, track_test=track_test,
                                  labels={"method": method, "seed": run_seed, **labels})


def _pair_correlation(z: torch.Tensor, z_pos: torch.Tensor) -> list[float]:
    """Per-coordinate sample correlation of the two views."""
    a, b = numpy64(z), numpy64(z_pos)
    a, b = a - a.mean(0), b - b.mean(0)
    return [float(v) for v in (a * b).mean(0) / np.sqrt((a * a).mean(0) * (b * b).mean(0))]


def _slim_history(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """History rows without per-coordinate lists (keeps metrics.json small at n = 1024)."""
    def keep(row: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
        return {key: keep(row[key], _TEST_HISTORY_KEYS) if key == "test" else row[key] for key in keys if key in row}

    return [keep(row, _HISTORY_KEYS) for row in history]


class SyntheticExperiment:
    """Shared ``load_config``, ``execute`` and ``aggregate``; subclasses define ``grid``, ``draw`` and ``headline``.

    ``aggregate`` publishes, as one set, ``summary.csv`` (the ``summary_columns`` of :meth:`summary_rows`: the
    runs with the columns :meth:`derived` adds, or the rows an override makes), the figure :meth:`draw` makes as
    ``figure_file`` and the headline (:meth:`headline`), every entry citing that figure.
    """

    name: str = ""
    description: str = ""
    config_class: type = TrainingConfig
    summary_columns: tuple[str, ...] = ()
    figure_file: str = ""

    def aggregate(self, exp_dir: Path, config: Any) -> list[Path]:
        """Publish ``summary.csv``, the figure (one legend below its panels: :func:`save_figure`) and
        ``headline.json`` as one set: everything is computed first, and a failure anywhere leaves the previous
        set as it was."""
        rows = self.summary_rows(finished_runs(exp_dir), config)
        fig, caption = self.draw(rows, config)
        entries = [replace(entry, figures=(self.figure_file,)) for entry in self.headline(rows, config)]
        if not config.control:
            caption, entries = mark_without_control(fig, caption, entries)
        with publish_results(exp_dir) as stage:
            write_summary(stage.path, rows, self.summary_columns)
            save_figure(fig, stage.path / self.figure_file, caption)
            write_headline(stage.path, entries)
        return list(stage.published)

    def summary_rows(self, runs: list[FinishedRun], config: Any) -> list[dict[str, Any]]:
        """The finished runs as summary rows (:meth:`~lejepa_wm.experiments.base.FinishedRun.row`), each with the
        columns :meth:`derived` computes from it."""
        rows = [run.row() for run in runs]
        for row in rows:
            row.update(self.derived(row, config))
        return rows

    def derived(self, row: dict[str, Any], config: Any) -> dict[str, Any]:
        """Columns computed from one run's metrics that the summary, figure and headline use (override)."""
        return {}

    def draw(self, rows: list[dict[str, Any]], config: Any) -> tuple[Figure, str]:
        """The experiment's figure and its caption."""
        raise NotImplementedError

    def headline(self, rows: list[dict[str, Any]], config: Any) -> list[HeadlineEntry]:
        """The experiment's headline entries."""
        raise NotImplementedError

    def load_config(self, scale: str, path: Path | None = None, overrides: Mapping[str, Any] | None = None) -> Any:
        return load_scaled_config(self.config_class, _CONFIG_DIR / f"{self.name}.toml", scale, path, overrides)

    def spec(self, scale: str, run_id: str, params: SyntheticRunParams) -> RunSpec:
        return RunSpec(self.name, scale, run_id, params.to_dict())

    def extra_metrics(self, encoder: nn.Module, samples: HeldOutSamples, params: SyntheticRunParams) -> dict[str, Any]:
        """Experiment-specific test-sample metrics (override)."""
        return {}

    def execute(self, spec: RunSpec, run_dir: Path, device: str = "cpu", *,
                on_evaluation: EvaluationLog | None = None) -> dict[str, Any]:
        """One run with ``cpu_threads`` threads for torch and for BLAS (the probes' linear algebra); the trained
        encoder is kept as ``encoder.pt`` (:func:`~lejepa_wm.experiments.encoder_file.load_run` reads it)."""
        params = SyntheticRunParams.from_dict(spec.params)
        dev = select_device(device)
        if dev.type == "cpu":
            torch.set_num_threads(params.cpu_threads)
        with threadpool_limits(params.cpu_threads):
            trained = train_synthetic(params, run_dir, dev, spec.run_id, on_evaluation)
            encoder, samples, result = trained.encoder, trained.samples, trained.result
            save_encoder(run_dir, encoder, params)  # before metrics.json: a finished run always has its encoder
            embedding = embedding_of(params, encoder, samples)
            final = reported_metrics(embedding, samples)
            raw_r2 = raw_observation_r2(samples)
            return {**final, "split": "test", "raw_observation_r2": raw_r2,
                    "residual_ratio": residual_ratio(final["probe_r2"], raw_r2),
                    "validation_r2": result.final["probe_r2"], "rho": list(params.world.rho),
                    "pair_correlation": _pair_correlation(samples.test.z, samples.test.z_pos),
                    "steps": result.steps, "train_seconds": result.seconds,
                    "steps_to_target": result.steps_to_target, "seconds_to_target": result.seconds_to_target,
                    "resumed_from": result.resumed_from, "history": _slim_history(result.history),
                    "objective_gap": _objective_at_answer(params, encoder, samples, dev),
                    **self.extra_metrics(embedding, samples, params)}


def embedding_of(params: SyntheticRunParams, encoder: nn.Module, samples: HeldOutSamples) -> nn.Module:
    """What a run's metrics are measured on: the encoder, followed for the ``whitened`` objective by the
    whitening that objective imposes (statistics from the ``fit`` sample, :class:`Whitened`)."""
    return Whitened(encoder, samples.fit.x) if params.objective.name == "whitened" else encoder


@dataclass
class TrainedRun:
    """What :func:`train_synthetic` leaves: the renderer, the trained encoder, the held-out samples, the record."""

    renderer: nn.Module
    encoder: nn.Module
    samples: HeldOutSamples
    result: TrainResult


def train_synthetic(params: SyntheticRunParams, run_dir: Path | None, dev: torch.device,
                    description: str = "train", on_evaluation: EvaluationLog | None = None) -> TrainedRun:
    """Build the run's renderer, encoder and held-out samples from its seed streams and train the encoder.

    Deterministic on a given CPU model: the same ``params`` give the same encoder
    bit for bit (resuming from ``run_dir``'s checkpoint if there is one;
    ``run_dir = None`` keeps no checkpoint).
    """
    world = params.world
    renderer = params.renderer.build(world.n, params.seeds.renderer).to(dev)
    encoder = params.encoder.build(renderer, params.seeds.torch_generator("init")).to(dev)
    samples = HeldOutSamples.draw(world, renderer, params.eval_size, params.seeds, dev)

    def evaluator(model: nn.Module) -> dict[str, Any]:
        record = validation_metrics(model, samples)
        if params.track_test:  # recorded for the reader, never used to stop or choose
            record["test"] = reported_metrics(embedding_of(params, model, samples), samples)
        return record

    objective = params.objective.build()
    result = train(encoder, WorldPairs(world, renderer, targets=objective.targets), objective, params.train,
                   params.seeds.torch_generator("batches", dev), run_dir, evaluator,
                   progress=sys.stderr.isatty(), description=description, on_evaluation=on_evaluation)
    return TrainedRun(renderer, encoder, samples, result)


def _objective_at_answer(params: SyntheticRunParams, encoder: nn.Module, samples: HeldOutSamples,
                        device: torch.device) -> dict[str, Any] | None:
    """The run's objective at its trained weights and at the answer ``c φ_m(z)`` on the validation sample
    (:func:`lejepa_wm.experiments.optimum.objective_gap`); ``None`` for a regression onto ``z`` (its answer
    is ``z`` itself, at loss 0), and for an embedding of ``m ≠ n`` dimensions outside an isotropic Gaussian
    world (the answer's harmonics are its eigenfunctions) or beyond degree 2. The evaluation's SIGReg
    directions come from a stream spawned from the validation seed, so they are the same for every run of
    the same world and seed."""
    with torch.no_grad():  # the embedding's dimension: one held-out observation encoded
        m, n = int(encoder(samples.fit.x[:1]).shape[1]), params.world.n
    isotropic = isinstance(params.world, GaussianWorld) and len(set(params.world.rho)) == 1
    if params.objective.name == SUPERVISED or (m != n and not (isotropic and m <= largest_answer_dim(n))):
        return None
    generator = torch.Generator(device=device).manual_seed(spawn_seeds(params.seeds.validation, 2)[1])
    return asdict(objective_gap(encoder, params.objective.build(), samples.fit, samples.validation,
                                params.train.batch_size, generator, m))


def write_headline(exp_dir: Path, entries: list[HeadlineEntry]) -> Path:
    """Write ``headline.json``: the entries' :meth:`~lejepa_wm.records.HeadlineEntry.to_dict`."""
    return atomic_write_json(Path(exp_dir) / HEADLINE_FILE, [entry.to_dict() for entry in entries])
