"""A reaching policy for the trajectory dataset: SAC trained from states on Reacher with a fixed target.

:class:`FixedTargetReacher` is a ``gymnasium`` environment around dm_control's
``reacher-easy`` task (control step 0.02 s, torques in [−1, 1]², reward 1
while the finger touches the target sphere, else 0) in which the target stays
at ``target_xy`` instead of moving every episode; episodes start from uniformly
random joint angles (shoulder on the circle, wrist within its limits) and last
``episode_steps`` steps. Observations: (cos, sin) of both joints, the two joint
velocities and the finger-to-target vector (8 numbers). ``reward="sparse"`` is
the task's own reward; ``reward="dense"`` is the shaped alternative
``sparse − distance/0.1`` (distance from finger to target centre in metres),
which SAC learns from in a few thousand steps (used for short runs).

SAC is stable-baselines3's implementation with a small network. A policy
*succeeds* in an episode when its finger touches the target at the last step.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from lejepa_wm.atomic import atomic_write_bytes
from lejepa_wm.experiments.reacher.datasets import episode_seed
from lejepa_wm.experiments.reacher.rendering import DEFAULT_TARGET_XY, import_simulator, place_target
from lejepa_wm.validation import EnvironmentUnavailable

__all__ = ["make_env", "train_sac", "save_policy", "load_policy", "rollout_angles", "success_rate"]


def _import_sb3() -> Any:
    try:
        import gymnasium
        import stable_baselines3
    except ImportError as exc:
        raise EnvironmentUnavailable(f"the reacher experiment trains its policy with stable-baselines3 ({exc}); "
                           f"install it with: pip install 'stable-baselines3>=2.3'") from None
    return gymnasium, stable_baselines3


def make_env(target_xy: Sequence[float] = DEFAULT_TARGET_XY, episode_steps: int = 200,
             reward: str = "sparse") -> Any:
    """A :class:`FixedTargetReacher` instance (built lazily so gymnasium is only needed here)."""
    gymnasium, _ = _import_sb3()
    _, reacher = import_simulator()

    class FixedTargetReacher(gymnasium.Env):
        """dm_control reacher-easy with a fixed target, as a gymnasium environment."""

        def __init__(self) -> None:
            # the episode length is counted here; dm_control's own limit is set beyond it (control step 0.02 s)
            self._env = reacher.easy(time_limit=(episode_steps + 2) * 0.02, random=0)
            self.physics = self._env.physics  # the same object through every reset
            self._steps = 0
            self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (8,), np.float32)
            self.action_space = gymnasium.spaces.Box(-1.0, 1.0, (2,), np.float32)

        def _observation(self) -> np.ndarray:
            qpos = self.physics.position()
            return np.concatenate([np.cos(qpos), np.sin(qpos), self.physics.velocity(),
                                   self.physics.finger_to_target()]).astype(np.float32)

        def touching(self) -> bool:
            """Whether the finger touches the target (the task's reward is 1)."""
            radii = self.physics.named.model.geom_size[["target", "finger"], 0].sum()
            return bool(self.physics.finger_to_target_dist() <= radii)

        def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
            super().reset(seed=seed)
            if seed is not None:
                self._env.task.random.seed(seed)
            self._env.reset()
            self._steps = 0
            place_target(self.physics, target_xy)
            return self._observation(), {}

        def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict]:
            self._env.step(np.clip(action, -1.0, 1.0))
            self._steps += 1
            value = 1.0 if self.touching() else 0.0
            if reward == "dense":
                value -= float(np.linalg.norm(self.physics.finger_to_target())) / 0.1
            return self._observation(), value, False, self._steps >= episode_steps, {}

    return FixedTargetReacher()


def train_sac(env: Any, steps: int, seed: int, net_width: int = 64, progress: bool = True) -> Any:
    """Train SAC from states for ``steps`` environment steps (one gradient step per environment step).

    ``seed`` (32-bit) goes to stable-baselines3, which seeds its own generators
    (and, being a third-party library, torch's global one); this package never
    seeds a global generator itself.
    """
    _, sb3 = _import_sb3()
    import torch
    from stable_baselines3.common.logger import Logger
    from tqdm import tqdm

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a 64-unit MLP gains nothing from threads, and loses much on a busy CPU
    model = sb3.SAC("MlpPolicy", env, seed=seed, learning_starts=min(1000, steps // 2), batch_size=128,
                    policy_kwargs={"net_arch": [net_width, net_width]}, device="cpu", verbose=0)
    # A logger with no outputs: SB3's default one creates a dated folder in the temp directory.
    model.set_logger(Logger(folder=None, output_formats=[]))

    def advance(*_: Any) -> bool:
        """SB3 calls a plain callback after every environment step (returning False would stop training)."""
        bar.update(1)
        return True

    try:
        with tqdm(total=steps, desc="train SAC", unit="step", disable=not progress) as bar:
            model.learn(total_timesteps=steps, callback=advance, progress_bar=False)
    finally:
        torch.set_num_threads(threads)
    return model


def save_policy(model: Any, path: Path) -> Path:
    """Save an SB3 model atomically (a zip file)."""
    buffer = io.BytesIO()
    model.save(buffer)
    return atomic_write_bytes(path, buffer.getvalue())


def load_policy(path: Path, env: Any) -> Any:
    """Load a SAC model saved by :func:`save_policy`; raise ``ValueError`` on a corrupt file."""
    _, sb3 = _import_sb3()
    try:
        return sb3.SAC.load(path, env=env, device="cpu")
    except (zipfile.BadZipFile, EOFError, ValueError) as exc:
        raise ValueError(f"policy file {path} is unreadable ({exc}); delete it to retrain") from None


def rollout_angles(model: Any, env: Any, episode_seed: int) -> np.ndarray:
    """Joint angles (shoulder, wrist) at every step of one deterministic-policy episode, shape (T+1, 2).

    The shoulder angle is continuous along the trajectory (it is *not* wrapped
    and can leave (−π, π]); frames only see it modulo 2π.
    """
    observation, _ = env.reset(seed=episode_seed)
    angles = [env.physics.position().copy()]
    while True:
        action, _ = model.predict(observation, deterministic=True)
        observation, _, terminated, truncated, _ = env.step(action)
        angles.append(env.physics.position().copy())
        if terminated or truncated:
            return np.asarray(angles)


def success_rate(model: Any, env: Any, episodes: int, seed: int) -> float:
    """Fraction of ``episodes`` (episode ``k`` seeded :func:`episode_seed` ``(seed, k)``) whose finger touches
    the target at the last step."""
    hits = 0
    for episode in range(episodes):
        rollout_angles(model, env, episode_seed(seed, episode))
        hits += env.touching()
    return hits / episodes
