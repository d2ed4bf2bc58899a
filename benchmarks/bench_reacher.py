"""Estimated wall time of ``lejepa-wm run reacher`` at a scale, from measured component speeds.

Run: ``python benchmarks/bench_reacher.py --scale full [--threads 1] [--config FILE]``.

The Reacher experiment spends its time in four places, each timed here on
this machine and multiplied by the work the scale's configuration asks for:

* rendering: frames/s of :class:`ReacherRenderer` on random poses (median of
  3 timings); the OU sets render ``2 (train + 3 · held-out)`` frames (fit,
  validation and test samples), the trajectory sets two frames per pair;
* SAC: seconds per *learning* environment step, the difference of two short
  trainings (``2 k`` and ``3 k`` steps, both starting to learn after ``k``),
  times the configuration's ``sac_steps``, plus the success-rate episodes;
* policy rollouts for the trajectory sets: seconds per episode (median of 5);
* encoder training: median seconds of one optimizer step at the scale's batch
  size (forward and backward of both views, SIGReg included), times the
  shared loop's ``max_steps = epochs · ⌊train_pairs / batch_size⌋`` per
  model, times ``len(ou_fractions) · seeds`` models.

Probing, the pixel baselines, embedding the held-out sets and planning take
seconds to a minute and are left out.
On a shared machine the per-step times vary several-fold; the printout gives
every factor so that a reader can redo the product with their own numbers.
``--scale quick`` gives an estimate that can be checked against a measured
quick run (``train_seconds`` and ``data_seconds`` in the run folders).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from lejepa_wm.experiments.objectives import build_objective
from lejepa_wm.experiments.reacher import policy as sac
from lejepa_wm.experiments.reacher.config import ReacherConfig, load_config
from lejepa_wm.experiments.reacher.encoder import build_frame_encoder
from lejepa_wm.experiments.reacher.rendering import ReacherRenderer

SAC_PROBE_STEPS = 1000


def render_seconds_per_frame(config: ReacherConfig, frames: int = 600) -> tuple[float, np.ndarray]:
    """Median seconds per frame of the fast renderer over 3 timings, and one rendered batch."""
    angles = np.random.default_rng(0).uniform(-np.pi, np.pi, (frames, 2))
    with ReacherRenderer(config.image_size, config.target_xy) as renderer:
        renderer.render(angles[:5])
        timings = []
        for _ in range(3):
            start = time.perf_counter()
            batch = renderer.render(angles)
            timings.append(time.perf_counter() - start)
    return statistics.median(timings) / frames, batch


def sac_seconds_per_learning_step(config: ReacherConfig) -> tuple[float, object, object]:
    """Seconds per learning step of SAC: ``(T(3k) − T(2k)) / k``; also the trained model and its env."""
    env = sac.make_env(config.target_xy, config.episode_steps, config.sac_reward)
    timings = {}
    model = None
    for steps in (2 * SAC_PROBE_STEPS, 3 * SAC_PROBE_STEPS):
        start = time.perf_counter()
        model = sac.train_sac(env, steps, seed=0, progress=False)
        timings[steps] = time.perf_counter() - start
    per_step = (timings[3 * SAC_PROBE_STEPS] - timings[2 * SAC_PROBE_STEPS]) / SAC_PROBE_STEPS
    return per_step, model, env


def rollout_seconds_per_episode(model: object, env: object, episodes: int = 5) -> float:
    """Median seconds of one deterministic policy episode."""
    timings = []
    for episode in range(episodes):
        start = time.perf_counter()
        sac.rollout_angles(model, env, episode)
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def encoder_seconds_per_step(config: ReacherConfig, frames: np.ndarray, steps: int = 30) -> float:
    """Median seconds of one training step of the frame encoder at ``config.batch_size`` (after 5 warm-up steps)."""
    model = build_frame_encoder(config.embed_dim, config.image_size, torch.Generator().manual_seed(0))
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    objective = build_objective("sigreg", config.sigreg_weight, num_slices=config.sigreg_slices)
    generator = torch.Generator().manual_seed(0)
    data = torch.from_numpy(frames)
    timings = []
    for step in range(steps + 5):
        index = torch.randint(len(data), (config.batch_size,), generator=generator)
        start = time.perf_counter()
        loss, _ = objective(model(data[index]), model(data[index.flip(0)]), generator)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step >= 5:
            timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def hours(seconds: float) -> str:
    return f"{seconds / 3600:6.2f} h ({seconds:8.0f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=("quick", "full"), default="full")
    parser.add_argument("--config", type=Path, default=None, help="TOML file overriding the scale's defaults")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads for encoder training")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    config = load_config(args.scale, args.config)

    frame_s, frames = render_seconds_per_frame(config)
    sac_step_s, model, env = sac_seconds_per_learning_step(config)
    episode_s = rollout_seconds_per_episode(model, env)
    step_s = encoder_seconds_per_step(config, frames)

    ou_frames = 2 * (config.train_pairs + 3 * config.heldout_pairs)
    episodes = -(-config.train_pairs // config.pairs_per_episode) + 3 * config.heldout_episodes
    traj_frames = 2 * episodes * config.pairs_per_episode
    models = len(config.ou_fractions) * config.seeds
    steps_per_model = config.train_settings().max_steps
    parts = {
        "rendering": (ou_frames + traj_frames) * frame_s,
        "SAC training": config.sac_steps * sac_step_s + config.success_episodes * episode_s,
        "policy rollouts": episodes * episode_s,
        "encoder training": models * steps_per_model * step_s,
    }
    print(f"reacher --scale {args.scale}, {args.threads} thread(s), measured on this machine:")
    print(f"  render {1 / frame_s:8.0f} frames/s   -> {ou_frames + traj_frames} frames")
    print(f"  SAC    {1 / sac_step_s:8.1f} learning steps/s -> {config.sac_steps} steps")
    print(f"  rollout {episode_s * 1e3:7.1f} ms/episode -> {episodes} episodes")
    print(f"  encoder {step_s * 1e3:7.1f} ms/step at batch {config.batch_size} -> "
          f"{models} models x {steps_per_model} steps")
    for name, seconds in parts.items():
        print(f"  {name:>17}: {hours(seconds)}")
    print(f"  {'total':>17}: {hours(sum(parts.values()))}   (one model: {hours(steps_per_model * step_s)})")
    print(f"  memory: training frames {2 * config.train_pairs * frames[0].nbytes / 2**30:.1f} GiB per dataset "
          f"(OU, trajectory, and the mixture of the running model)")


if __name__ == "__main__":
    main()
