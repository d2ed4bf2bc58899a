"""Settings of the Reacher experiment (defaults per scale in ``reacher.toml``; how they were chosen: docs/TUNING.md).

Data: ``train_pairs`` training pairs of each kind, generated in chunks of
``chunk_pairs`` (OU) or of the equivalent number of episodes (trajectories).
Held-out data, never trained on, in three samples each (fit: probes and the
planner's decoder; validation: every choice; test: every reported number):
OU sets of ``heldout_pairs`` pairs per sample, each drawn from its own seed
stream, and ``3 · heldout_episodes`` trajectory episodes split by episode
(``heldout_episodes`` whole episodes per sample). OU pairs: ``θ = angle_scale · z``
with correlation ``ou_rho``. Trajectories: SAC trained for ``sac_steps``
environment steps with ``sac_reward`` (``sparse`` = the task's reward,
``dense`` = shaped), episodes of ``episode_steps`` control steps, pairs
``traj_delta`` steps apart; the target sits at ``target_xy`` (metres) in every frame.

Data worlds: ``worlds`` independently rendered data sets (environment, OU
and policy seeds), world ``w`` from data seed ``--seed + w``. Models: one per
world, entry of ``ou_fractions`` (share of OU pairs in the training set; 1 = OU
model, 0 = trajectory model) and seed (``seeds`` per world, world ``w`` from
``--seed + w · seeds``; never one of ``tuning_seeds``, which are reserved for
tuning); each model whose fraction is in ``control_fractions`` also trains its
λ = 0 control (SIGReg weight 0, otherwise identical, trained as long). Encoder: embedding ``embed_dim``, ``epochs`` passes of
batches of ``batch_size`` through the shared training loop
(:func:`lejepa_wm.experiments.training.train`, Adam) at peak learning rate
``lr``: linear warmup over the first ``warmup_fraction`` of the steps, cosine
decay to 0 over the last ``decay_fraction``; SIGReg weight ``sigreg_weight``
with ``sigreg_slices`` directions; validation probe every ``eval_every`` steps
(0: only at the end), checkpoint every ``checkpoint_every`` steps, on
``cpu_threads`` torch threads.

Baselines: linear probes on the raw pixels (ridge, penalty chosen on the
validation sample) and on their top ``pca_components`` principal components.
Planning: ``plan_pairs`` start/goal pairs at least ``min_plan_distance`` rad
apart, ``plan_steps`` latent steps, ``knn`` neighbours for decoding.
``residual_target`` bounds the OU model's residual ratio ``(1 − R²)/(1 − R²_pixels)``,
mean over data worlds, in the T1R headline.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Mapping

from typing_extensions import NotRequired, TypedDict  # pydantic reads typing's TypedDict only from Python 3.12

from lejepa_wm.config import load_scaled_config
from lejepa_wm.experiments.synthetic import OpenUnit, Seed, check_seed_offset
from lejepa_wm.experiments.training import BatchSize, Steps, TrainSettings
from lejepa_wm.schema import NonNegative, Positive, PositiveInt, Record, UnitInterval
from lejepa_wm.seeds import SeedStreams

__all__ = ["ReacherConfig", "ReacherLabels", "ReacherRunParams", "load_config"]

_DEFAULTS = Path(__file__).with_name("reacher.toml")
_GRID_KEYS = ("worlds", "control_fractions")
"""Keys that shape the grid (data worlds, controls) and play no part in one run."""


@dataclass(frozen=True)
class ReacherConfig(Record):
    """Validated settings of one scale (see the module docstring)."""

    train_pairs: PositiveInt
    heldout_pairs: PositiveInt
    heldout_episodes: PositiveInt
    chunk_pairs: PositiveInt
    sac_steps: PositiveInt
    sac_reward: Literal["sparse", "dense"]
    epochs: PositiveInt
    ou_fractions: tuple[float, ...]
    seeds: PositiveInt
    plan_pairs: PositiveInt
    tuning_seeds: tuple[Seed, ...] = ()
    image_size: PositiveInt = 64
    target_xy: tuple[float, ...] = (0.12, 0.12)
    ou_rho: OpenUnit = 0.8
    angle_scale: Positive = 0.7
    episode_steps: PositiveInt = 100
    traj_delta: PositiveInt = 10
    success_episodes: PositiveInt = 20
    embed_dim: PositiveInt = 2
    sigreg_weight: NonNegative = 0.1
    sigreg_slices: PositiveInt = 32
    batch_size: BatchSize = 128
    lr: Positive = 3e-3
    warmup_fraction: UnitInterval = 0.05
    decay_fraction: UnitInterval = 0.95
    eval_every: Steps = 500  # 0: only at the end
    checkpoint_every: PositiveInt = 500
    cpu_threads: PositiveInt = 1
    pca_components: tuple[int, ...] = (2, 50)
    plan_steps: PositiveInt = 20
    knn: PositiveInt = 5
    min_plan_distance: Positive = 1.0
    residual_target: OpenUnit = 0.25
    worlds: PositiveInt = 1
    control_fractions: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        """Relations between fields (each field's range is in its annotation, checked when the config is read, or
        built in Python, by :class:`~lejepa_wm.schema.Record`)."""
        super().__post_init__()
        if self.traj_delta >= self.episode_steps:
            raise ValueError(f"traj_delta {self.traj_delta} must be below episode_steps {self.episode_steps}")
        if self.heldout_pairs < 2 * self.knn or self.heldout_pairs < 4:
            raise ValueError(f"heldout_pairs {self.heldout_pairs} is too small (needs >= 4 and >= 2 * knn)")
        if not self.ou_fractions or any(not 0.0 <= f <= 1.0 for f in self.ou_fractions):
            raise ValueError(f"ou_fractions must be a non-empty list of numbers in [0, 1]; got {self.ou_fractions!r}")
        if len(set(self.ou_fractions)) != len(self.ou_fractions):
            raise ValueError(f"ou_fractions has duplicates: {self.ou_fractions!r}")
        if any(f not in self.ou_fractions for f in self.control_fractions):
            raise ValueError(f"control_fractions must be among ou_fractions {self.ou_fractions!r}; got "
                             f"{self.control_fractions!r}")
        if len(self.target_xy) != 2:
            raise ValueError(f"target_xy must have two entries (x, y); got {self.target_xy!r}")
        fit_frames = min(self.heldout_pairs, self.heldout_episodes * self.pairs_per_episode)
        if not self.pca_components or any(not 1 <= k < fit_frames for k in self.pca_components):
            raise ValueError(f"pca_components must be a non-empty list of integers in [1, {fit_frames}) (below "
                             f"the frames of a fit sample); got {self.pca_components!r}")
        try:
            self.train_settings()
        except ValueError as exc:
            raise ValueError(f"config: {exc}") from None

    @property
    def pairs_per_episode(self) -> int:
        """Pairs ``Δ`` apart in one episode of ``episode_steps`` steps (``episode_steps + 1`` frames)."""
        return self.episode_steps + 1 - self.traj_delta

    def train_settings(self) -> TrainSettings:
        """The shared loop's settings: ``epochs`` times the full batches in one pass through the ``train_pairs``
        training pairs (at least one; the rest of a pass is left out), warmup and cosine decay as fractions."""
        max_steps = self.epochs * max(1, self.train_pairs // self.batch_size)
        return TrainSettings(max_steps=max_steps, batch_size=self.batch_size, lr=self.lr,
                             warmup_steps=int(round(self.warmup_fraction * max_steps)),
                             decay_fraction=self.decay_fraction, weight_decay=0.0,
                             eval_every=self.eval_every or None, checkpoint_every=self.checkpoint_every)

    def run_seeds(self, offset: int = 0, world: int = 0) -> list[int]:
        """Seeds of the reported models of data world ``world``, ``offset + world · seeds`` onwards, ``seeds`` of
        them (so no two worlds share a model seed); never a tuning seed."""
        first = check_seed_offset(offset, self.worlds * self.seeds) + world * self.seeds
        seeds = [first + index for index in range(self.seeds)]
        clash = sorted(set(seeds) & set(self.tuning_seeds))
        if clash:
            raise ValueError(f"run seeds {clash} are reserved for tuning (tuning_seeds); reported runs must use "
                             f"other seeds: choose another --seed")
        return seeds

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (tuples become lists); ``config_from_mapping(ReacherConfig, ...)`` reads it back.

        The keys of the grid alone (:data:`_GRID_KEYS`: how many data worlds, which models get a control) are
        left out: a run's spec holds what the run itself needs, so they do not change the specs of its runs.
        """
        return {key: value for key, value in super().to_dict().items() if key not in _GRID_KEYS}


class ReacherLabels(TypedDict):
    """A Reacher run's coordinates in its grid: the OU fraction, its mixture's name, the run seed, and
    ``control: true`` for a λ = 0 control."""

    ou_fraction: float
    mixture: str
    seed: int
    control: NotRequired[bool]


@dataclass(frozen=True)
class ReacherRunParams(Record):
    """Everything one Reacher run needs besides its folder and device, as its ``spec.json`` stores them
    (``to_dict``, read back by ``from_dict``): its labels, the data seed of its data world, its seed streams and
    the settings of its scale."""

    labels: ReacherLabels
    data_seed: int
    seeds: SeedStreams
    config: ReacherConfig

    _what = "Reacher run parameters"


def load_config(scale: str, path: Path | None = None, overrides: Mapping[str, Any] | None = None) -> ReacherConfig:
    """Defaults of ``scale`` from ``reacher.toml``, then a user file, then overrides."""
    return load_scaled_config(ReacherConfig, _DEFAULTS, scale, path, overrides)
