"""Frames per second of 64×64 Reacher rendering: dm_control's default path versus the fast path.

Run: ``python benchmarks/bench_rendering.py [--frames 300] [--repeats 5] [--out frames.png]``.
Reports the median over ``repeats`` timings of rendering ``frames`` random poses
with (a) dm_control's ``physics.render`` (shadows, reflections, skybox, 4×
multisampling) and (b) :class:`ReacherRenderer` (all four off), their ratio,
and optionally writes a PNG with the same poses from both paths side by side.
On a shared machine absolute numbers vary several-fold; the ratio is stabler.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from lejepa_wm.experiments.reacher.rendering import ReacherRenderer, load_physics


def default_path_frames(physics, angles: np.ndarray, size: int) -> np.ndarray:
    """Frames from dm_control's default ``physics.render`` for each pose."""
    frames = []
    for pose in angles:
        with physics.reset_context():
            physics.data.qpos[:] = pose
        frames.append(physics.render(size, size, camera_id=0))
    return np.asarray(frames)


def frames_per_second(render, angles: np.ndarray, repeats: int) -> float:
    """Median frames/s of ``render(angles)`` over ``repeats`` timed calls (after one warm-up)."""
    render(angles[:5])
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        render(angles)
        timings.append(time.perf_counter() - start)
    return len(angles) / statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--out", type=Path, default=None, help="PNG comparing both paths on the same poses")
    args = parser.parse_args()
    angles = np.random.default_rng(0).uniform(-np.pi, np.pi, (args.frames, 2))
    physics = load_physics()
    default_fps = frames_per_second(lambda a: default_path_frames(physics, a, args.size), angles, args.repeats)
    # dm_control's frames are taken before the second OpenGL context exists (two contexts interfere)
    default_samples = default_path_frames(physics, angles[:6], args.size)
    with ReacherRenderer(args.size) as renderer:
        fast_fps = frames_per_second(renderer.render, angles, args.repeats)
        fast_samples = renderer.render(angles[:6])
    if args.out is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        grid = np.concatenate([np.concatenate(list(default_samples), axis=1),
                               np.concatenate(list(fast_samples), axis=1)])
        plt.imsave(args.out, grid.repeat(3, axis=0).repeat(3, axis=1))
    print(f"default dm_control render: {default_fps:8.1f} frames/s (median of {args.repeats})")
    print(f"fast mujoco.Renderer:      {fast_fps:8.1f} frames/s")
    print(f"speed-up:                  {fast_fps / default_fps:8.1f}x")


if __name__ == "__main__":
    main()
