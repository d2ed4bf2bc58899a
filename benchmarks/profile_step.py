"""Where the time of one training step goes: pair drawing and rendering, encoder forward, objective, backward,
optimizer step, and one validation evaluation, on the scaling world with the paper's encoder.

One CPU thread (torch and BLAS). Each part is timed with process CPU time around it, over ``--steps`` steps
after ``--warmup`` unmeasured ones; the table gives medians (ms) and each part's share of a step. The
evaluation (``validation_metrics``: both held-out samples embedded, the probe fitted on ``fit`` and scored on
``validation``) is timed ``--evaluations`` times; its cost per step is its median over ``eval_every``.

Usage::

    python benchmarks/profile_step.py --n 128 1024 [--slices 256] [--eval-every 250] [--batch 256]
        [--precision float32|bfloat16]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import dataclass
from typing import Any

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before NumPy, SciPy and torch start their pools

import scipy.linalg  # noqa: E402,F401  (load SciPy's BLAS so that the limit below reaches it)
import torch  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from lejepa_wm.experiments.encoders import build_encoder  # noqa: E402
from lejepa_wm.experiments.flows import make_renderer  # noqa: E402
from lejepa_wm.experiments.heldout import HeldOutSamples, validation_metrics  # noqa: E402
from lejepa_wm.experiments.objectives import build_objective  # noqa: E402
from lejepa_wm.experiments.worlds import GaussianWorld  # noqa: E402
from lejepa_wm.seeds import SeedStreams  # noqa: E402

PARTS = ("draw and render", "encoder forward", "objective", "backward", "optimizer")


@dataclass(frozen=True)
class ProfiledRun:
    """The run whose steps are timed: the scaling world at ``n`` with tuning seed 1000's streams, the paper's
    renderer and encoder, SIGReg 0.3 and AdamW at 3e-3."""

    world: GaussianWorld
    streams: SeedStreams
    renderer: torch.nn.Module
    encoder: torch.nn.Module
    objective: Any
    batches: torch.Generator
    optimizer: torch.optim.Optimizer

    @classmethod
    def at(cls, n: int, slices: int) -> "ProfiledRun":
        world, streams = GaussianWorld.isotropic(n, 0.8), SeedStreams.derive(1000)
        renderer = make_renderer("published", n, streams.renderer)
        encoder = build_encoder("published", renderer, 64, streams.torch_generator("init"))
        return cls(world, streams, renderer, encoder, build_objective("sigreg", 0.3, num_slices=slices),
                   streams.torch_generator("batches"),
                   torch.optim.AdamW(encoder.parameters(), lr=3e-3, weight_decay=0.0))


def profile(n: int, slices: int, batch: int, steps: int, warmup: int, evaluations: int,
            eval_size: int, precision: str) -> tuple[dict[str, float], float]:
    """Median CPU milliseconds of each part of a step, and of one evaluation (``precision`` of the encoder's
    passes as in the training loop: ``bfloat16`` runs its forward, and so its backward, under autocast)."""
    run = ProfiledRun.at(n, slices)
    world, streams, renderer, encoder = run.world, run.streams, run.renderer, run.encoder
    objective, generator, optimizer = run.objective, run.batches, run.optimizer
    samples = HeldOutSamples.draw(world, renderer, eval_size, streams, "cpu")
    times: dict[str, list[float]] = {part: [] for part in PARTS}
    for step in range(warmup + steps):
        marks = [time.process_time()]
        z, z_pos = world.sample_pairs(batch, generator)
        with torch.no_grad():
            x, x_pos = renderer(z), renderer(z_pos)
        marks.append(time.process_time())
        with torch.autocast("cpu", torch.bfloat16, enabled=precision == "bfloat16"):
            h, h_pos = encoder(x), encoder(x_pos)
        h, h_pos = h.float(), h_pos.float()
        marks.append(time.process_time())
        loss, _ = objective(h, h_pos, generator)
        marks.append(time.process_time())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        marks.append(time.process_time())
        optimizer.step()
        marks.append(time.process_time())
        if step >= warmup:
            for part, start, end in zip(PARTS, marks, marks[1:]):
                times[part].append(1000 * (end - start))
    evaluation = []
    for _ in range(evaluations):
        start = time.process_time()
        validation_metrics(encoder, samples)
        evaluation.append(1000 * (time.process_time() - start))
    return {part: statistics.median(values) for part, values in times.items()}, statistics.median(evaluation)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[128, 1024])
    parser.add_argument("--slices", type=int, default=256)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--evaluations", type=int, default=3)
    parser.add_argument("--eval-size", type=int, default=8192)
    parser.add_argument("--eval-every", type=int, default=250)
    parser.add_argument("--precision", choices=["float32", "bfloat16"], default="float32")
    args = parser.parse_args()
    torch.set_num_threads(1)
    threadpool_limits(1)
    print(f"| n | {' | '.join(PARTS)} | step | evaluation (per step at every {args.eval_every}) |")
    print("|---" * (len(PARTS) + 3) + "|")
    for n in args.n:
        parts, evaluation = profile(n, args.slices, args.batch, args.steps, args.warmup, args.evaluations,
                                    args.eval_size, args.precision)
        step = sum(parts.values())
        shares = " | ".join(f"{parts[p]:.1f} ({100 * parts[p] / step:.0f}%)" for p in PARTS)
        print(f"| {n} | {shares} | {step:.1f} | {evaluation:.0f} ({evaluation / args.eval_every:.1f}) |")


if __name__ == "__main__":
    main()
