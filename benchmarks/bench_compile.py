"""Whether ``torch.compile`` pays for a training step on the CPU: compile time against the time it saves.

The scaling world with the paper's encoder (``published``), SIGReg at ``--slices`` slices, batch 256, one CPU
thread (torch and BLAS), AdamW. Two versions of the same step, built from the same initial weights: eager, and
with the encoder compiled whole by ``torch.compile`` (inductor, the default backend, one graph; its backward
pass is compiled with it by AOTAutograd). The objective stays eager: its fresh directions come from a
generator and it logs floats, which break a compiled graph (compiled with it, graph breaks and all, the step
at n = 128 was 16% slower than eager). The first compiled step, which compiles, is timed on its own, with an
empty inductor cache (a fresh temporary folder: a warm cache, left by an earlier process compiling the same
graph, cuts it to a fraction); then both versions alternate in blocks of ``--block`` steps (ABAB…), and the
table gives the median process CPU time of a step of each, and the number of steps after which compiling has
paid for itself (compile time over the saving per step). Fresh pairs are drawn every step, as in training.

Usage::

    python benchmarks/bench_compile.py --n 128 1024 [--slices 64] [--block 20] [--blocks 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from typing import Callable

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before NumPy, SciPy and torch start their pools
_CACHE = tempfile.TemporaryDirectory(prefix="bench_compile_")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = _CACHE.name  # a cold compile: inductor's cache would hide its cost

import torch  # noqa: E402

from profile_step import ProfiledRun  # noqa: E402  (this folder's profile: the same run, part by part)

_BATCH = 256


def _training_step(n: int, slices: int, compiled: bool) -> Callable[[], float]:
    """One training step of :class:`ProfiledRun` at ``n``, eager or compiled; returns the loss."""
    run = ProfiledRun.at(n, slices)
    world, renderer, encoder, objective = run.world, run.renderer, run.encoder, run.objective
    batches, optimizer = run.batches, run.optimizer

    embed = torch.compile(encoder, dynamic=False, fullgraph=True) if compiled else encoder

    def step() -> float:
        z, z_pos = world.sample_pairs(_BATCH, batches)
        with torch.no_grad():
            x, x_pos = renderer(z), renderer(z_pos)
        loss = objective(embed(x), embed(x_pos), batches)[0]
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return float(loss)

    return step


def _timed(step: Callable[[], float]) -> float:
    start = time.process_time()
    step()
    return time.process_time() - start


def measure(n: int, slices: int, block: int, blocks: int) -> dict[str, float]:
    """Compile time (s), median eager and compiled step (ms), and the steps for compiling to pay."""
    eager, compiled = _training_step(n, slices, False), _training_step(n, slices, True)
    _timed(eager)  # warm the eager version's allocator on equal terms
    compile_s = _timed(compiled)
    times: dict[str, list[float]] = {"eager": [], "compiled": []}
    for _ in range(blocks):
        for name, step in (("eager", eager), ("compiled", compiled)):
            times[name] += [_timed(step) for _ in range(block)]
    eager_ms, compiled_ms = (1e3 * statistics.median(times[k]) for k in ("eager", "compiled"))
    saving = eager_ms - compiled_ms
    return {"n": n, "compile_s": compile_s, "eager_ms": eager_ms, "compiled_ms": compiled_ms,
            "pays_after": compile_s * 1e3 / saving if saving > 0 else float("inf")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[128, 1024])
    parser.add_argument("--slices", type=int, default=64)
    parser.add_argument("--block", type=int, default=20, help="steps per timed block")
    parser.add_argument("--blocks", type=int, default=5, help="timed blocks of each version")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print("| n | compile (first step), s | eager step, ms | compiled step, ms | speed-up | pays after (steps) |")
    print("|---|---|---|---|---|---|")
    for n in args.n:
        row = measure(n, args.slices, args.block, args.blocks)
        print(f"| {n:,} | {row['compile_s']:.1f} | {row['eager_ms']:.1f} | {row['compiled_ms']:.1f} | "
              f"{row['eager_ms'] / row['compiled_ms']:.2f}× | {row['pays_after']:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
