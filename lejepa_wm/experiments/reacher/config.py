"""Settings of the Reacher experiment (defaults per scale in ``reacher.toml``).

Data: ``train_pairs`` training pairs of each kind, ``test_pairs`` held-out
pairs of each kind (half fit the probes, half score them), generated in chunks
of ``chunk_pairs`` (OU) or of the equivalent number of episodes (trajectories).
OU pairs: ``θ = angle_scale · z`` with correlation ``ou_rho``. Trajectories:
SAC trained for ``sac_steps`` environment steps with ``sac_reward``
(``sparse`` = the task's reward, ``dense`` = shaped), episodes of
``episode_steps`` control steps, pairs ``traj_delta`` steps apart; the target
sits at ``target_xy`` (metres) in every frame. Models: one per entry of
``ou_fractions`` (share of OU pairs in the training set; 1 = OU model,
0 = trajectory model) and per seed (``seeds`` of them). Encoder: embedding
``embed_dim``, ``epochs`` passes of batches of ``batch_size`` at peak learning
rate ``lr`` with schedule ``lr_schedule`` (``constant`` or ``cosine``: warmup,
then cosine decay; see encoder.py), SIGReg weight ``sigreg_weight`` with ``sigreg_slices`` directions.
Planning: ``plan_pairs`` start/goal pairs at least ``min_plan_distance`` rad
apart, ``plan_steps`` latent steps, ``knn`` neighbours for decoding.
``ou_r2_threshold`` is the R² the OU model must reach for the T1 headline.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from lejepa_wm.config import load_scaled_config
from lejepa_wm.experiments.reacher.encoder import LR_SCHEDULES
from lejepa_wm.validation import check_choice, check_positive_int, check_rho

DEFAULTS = Path(__file__).with_name("reacher.toml")


@dataclass(frozen=True)
class ReacherConfig:
    """Validated settings of one scale (see the module docstring)."""

    train_pairs: int
    test_pairs: int
    chunk_pairs: int
    sac_steps: int
    sac_reward: str
    epochs: int
    ou_fractions: tuple[float, ...]
    seeds: int
    plan_pairs: int
    image_size: int = 64
    target_xy: tuple[float, ...] = (0.12, 0.12)
    ou_rho: float = 0.8
    angle_scale: float = 0.7
    episode_steps: int = 100
    traj_delta: int = 10
    success_episodes: int = 20
    embed_dim: int = 2
    sigreg_weight: float = 0.1
    sigreg_slices: int = 32
    batch_size: int = 128
    lr: float = 3e-3
    lr_schedule: str = "cosine"
    plan_steps: int = 20
    knn: int = 5
    min_plan_distance: float = 1.0
    ou_r2_threshold: float = 0.8

    def __post_init__(self) -> None:
        for name in ("train_pairs", "test_pairs", "chunk_pairs", "sac_steps", "epochs", "seeds", "plan_pairs",
                     "image_size", "episode_steps", "traj_delta", "success_episodes", "embed_dim",
                     "sigreg_slices", "batch_size", "plan_steps", "knn"):
            check_positive_int(getattr(self, name), name)
        check_choice(self.sac_reward, ("sparse", "dense"), "sac_reward")
        check_choice(self.lr_schedule, LR_SCHEDULES, "lr_schedule")
        check_rho(self.ou_rho, "ou_rho")
        if self.traj_delta >= self.episode_steps:
            raise ValueError(f"traj_delta {self.traj_delta} must be below episode_steps {self.episode_steps}")
        if self.test_pairs < 2 * self.knn or self.test_pairs < 4:
            raise ValueError(f"test_pairs {self.test_pairs} is too small (needs >= 4 and >= 2 * knn)")
        if not self.ou_fractions or any(not 0.0 <= f <= 1.0 for f in self.ou_fractions):
            raise ValueError(f"ou_fractions must be a non-empty list of numbers in [0, 1]; got {self.ou_fractions!r}")
        if len(set(self.ou_fractions)) != len(self.ou_fractions):
            raise ValueError(f"ou_fractions has duplicates: {self.ou_fractions!r}")
        if len(self.target_xy) != 2:
            raise ValueError(f"target_xy must have two entries (x, y); got {self.target_xy!r}")
        for name in ("angle_scale", "lr", "min_plan_distance"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive; got {getattr(self, name)!r}")
        if not self.sigreg_weight >= 0:
            raise ValueError(f"sigreg_weight must be >= 0; got {self.sigreg_weight!r}")

    @property
    def pairs_per_episode(self) -> int:
        """Pairs ``Δ`` apart in one episode of ``episode_steps`` steps (``episode_steps + 1`` frames)."""
        return self.episode_steps + 1 - self.traj_delta


def load_config(scale: str, path: Path | None = None, overrides: Mapping[str, Any] | None = None) -> ReacherConfig:
    """Defaults of ``scale`` from ``reacher.toml``, then a user file, then overrides."""
    return load_scaled_config(ReacherConfig, DEFAULTS, scale, path, overrides)
