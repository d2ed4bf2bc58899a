"""Benchmark SIGReg: the fast evaluation against the plain direct cos/sin reference, for both statistics.

For each size (batch N, slices S, knots K) it times forward + backward of
the whole regularizer call on an ``(N, dim)`` embedding (the projection
matmul included, identical in both), for LeJEPA's V-statistic
(``statistic="lejepa"``) and the unbiased U-statistic
(``statistic="unbiased"``), fast and reference, the four calls alternating
so that a change of machine load hits all alike. It prints medians of wall
time and of process CPU time, the reference/fast ratios, and the largest
differences of values and gradients (float32, the training dtype, and
float64). It also reports the quadrature accuracy of the K-knot rule
against a fine-grid integral of the same statistic.

Run: ``python benchmarks/bench_sigreg.py [--threads 1 2] [--repeats 15] [--statistics lejepa unbiased]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Callable

import numpy as np
import scipy.integrate
import torch

from lejepa_wm.experiments.objectives import (SIGREG_STATISTICS, epps_pulley_knots, random_directions,
                                              sigreg_reference, sigreg_statistic)

SIZES = ((2048, 256, 17), (1024, 256, 17), (256, 256, 17))


def time_call(call: Callable[[], None]) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def forward_backward(loss: Callable[[torch.Tensor], torch.Tensor], h: torch.Tensor) -> tuple[float, torch.Tensor]:
    """Value and gradient of ``loss`` at ``h``."""
    leaf = h.detach().clone().requires_grad_(True)
    value = loss(leaf)
    value.backward()
    return value.item(), leaf.grad


def compare(samples: int, slices: int, knots: int, dim: int, repeats: int,
            statistics: tuple[str, ...] = SIGREG_STATISTICS, compiled: bool = False) -> dict[str, dict[str, float]]:
    """Per statistic: timings (float32) and agreement (float32 and float64) of fast and reference SIGReg,
    and with ``compiled`` of the reference compiled by ``torch.compile`` (inductor's fused C++ kernels)."""
    generator = torch.Generator().manual_seed(0)
    h = torch.randn(samples, dim, generator=generator, dtype=torch.float64)
    directions = random_directions(dim, slices, generator, dtype=torch.float64)
    knot_values, weights = epps_pulley_knots(knots)
    implementations: tuple[tuple[str, Callable], ...] = (("fast", sigreg_statistic), ("reference", sigreg_reference))
    if compiled:
        implementations += (("compiled", torch.compile(sigreg_reference, dynamic=False)),)
    runs = {}
    for kind in statistics:
        for dtype in (torch.float32, torch.float64):
            for name, statistic in implementations:
                runs[kind, name, dtype] = forward_backward(
                    lambda x, s=statistic, d=directions.to(dtype), k=kind: s(x, d, knot_values, weights, k), h.to(dtype))
    h32, directions32 = h.float(), directions.float()
    timings: dict[tuple[str, str], list[tuple[float, float]]] = {
        (kind, name): [] for kind in statistics for name, _ in implementations}
    for _ in range(repeats):
        for kind in statistics:
            for name, statistic in implementations:
                timings[kind, name].append(time_call(lambda s=statistic, k=kind: forward_backward(
                    lambda x: s(x, directions32, knot_values, weights, k), h32)))
    results = {}
    for kind in statistics:
        result = {}
        for name, _ in implementations:
            result[f"{name}_wall_ms"] = 1e3 * statistics_median(t[0] for t in timings[kind, name])
            result[f"{name}_cpu_ms"] = 1e3 * statistics_median(t[1] for t in timings[kind, name])
        result["ratio_wall"] = result["reference_wall_ms"] / result["fast_wall_ms"]
        result["ratio_cpu"] = result["reference_cpu_ms"] / result["fast_cpu_ms"]
        if compiled:
            result["compiled_ratio_cpu"] = result["compiled_cpu_ms"] / result["fast_cpu_ms"]
        exact_value, exact_grad = runs[kind, "reference", torch.float64]
        result["value"] = exact_value
        result["grad_max"] = exact_grad.abs().max().item()
        for dtype, label in ((torch.float32, "f32"), (torch.float64, "f64")):
            fast_value, fast_grad = runs[kind, "fast", dtype]
            ref_value, ref_grad = runs[kind, "reference", dtype]
            result[f"value_diff_{label}"] = abs(fast_value - ref_value)
            result[f"grad_diff_{label}"] = (fast_grad - ref_grad).abs().max().item()
            result[f"fast_err_value_{label}"] = abs(fast_value - exact_value)
            result[f"ref_err_value_{label}"] = abs(ref_value - exact_value)
            result[f"fast_err_grad_{label}"] = (fast_grad.double() - exact_grad).abs().max().item()
            result[f"ref_err_grad_{label}"] = (ref_grad.double() - exact_grad).abs().max().item()
        results[kind] = result
    return results


def statistics_median(values) -> float:
    return statistics.median(list(values))


QUADRATURE_RULES = ((17, 3.0), (9, 3.0), (33, 3.0), (9, 4.0), (17, 4.0), (9, 5.0), (17, 5.0))


def quadrature_accuracy(samples: int = 2048) -> tuple[list[str], list[tuple[int, float, list[float]]]]:
    """Relative error of each (knots, t_max) rule against the integral over the whole real line.

    One slice of ``samples`` values per test distribution; the integral of
    ``N |phi_N(t) - exp(-t^2/2)|^2 exp(-t^2/2)`` over the real line is taken by
    adaptive quadrature (``scipy.integrate.quad``, tolerance 1e-10).
    """
    rng = np.random.default_rng(0)
    cases = {
        "gaussian": rng.standard_normal(samples),
        "uniform": np.sqrt(3.0) * rng.uniform(-1.0, 1.0, samples),
        "0.5 x gaussian": 0.5 * rng.standard_normal(samples),
        "laplace": rng.laplace(0.0, 1.0 / np.sqrt(2.0), samples),
    }
    exact = {}
    for name, x in cases.items():

        def integrand(t: float, x: np.ndarray = x) -> float:
            re = np.mean(np.cos(t * x)) - np.exp(-t * t / 2)
            im = np.mean(np.sin(t * x))
            return samples * (re * re + im * im) * np.exp(-t * t / 2)

        exact[name], _ = scipy.integrate.quad(integrand, -np.inf, np.inf, limit=400, epsabs=1e-10, epsrel=1e-10)
    rows = []
    for num_knots, t_max in QUADRATURE_RULES:
        knots, weights = epps_pulley_knots(num_knots, t_max)
        errors = []
        for name, x in cases.items():
            value = sigreg_reference(torch.from_numpy(x)[:, None], torch.ones(1, 1, dtype=torch.float64),
                                     knots, weights).item()
            errors.append(abs(value - exact[name]) / exact[name])
        rows.append((num_knots, t_max, errors))
    return list(cases), rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--dim", type=int, default=128, help="embedding dimension")
    parser.add_argument("--statistics", nargs="+", default=list(SIGREG_STATISTICS), choices=SIGREG_STATISTICS)
    parser.add_argument("--compiled", action="store_true",
                        help="also time the reference compiled by torch.compile (needs a C++ compiler)")
    args = parser.parse_args()
    if args.repeats < 1 or min(args.threads) < 1:
        raise SystemExit(f"--repeats and --threads must be at least 1; got {args.repeats} and {args.threads}")
    print(f"torch {torch.__version__}; embedding dim {args.dim}; medians of {args.repeats} forward+backward calls")
    for threads in args.threads:
        torch.set_num_threads(threads)
        for samples, slices, knots in SIZES:
            results = compare(samples, slices, knots, args.dim, args.repeats, tuple(args.statistics), args.compiled)
            for kind, r in results.items():
                print(f"\n[{threads} thread(s)] N={samples} S={slices} K={knots} statistic={kind!r}"
                      f"  (value {r['value']:.4f})")
                print(f"  reference: wall {r['reference_wall_ms']:8.1f} ms   cpu {r['reference_cpu_ms']:8.1f} ms")
                print(f"  fast:      wall {r['fast_wall_ms']:8.1f} ms   cpu {r['fast_cpu_ms']:8.1f} ms")
                print(f"  speed-up:  wall {r['ratio_wall']:6.1f}x        cpu {r['ratio_cpu']:6.1f}x")
                if args.compiled:
                    print(f"  compiled:  wall {r['compiled_wall_ms']:8.1f} ms   cpu {r['compiled_cpu_ms']:8.1f} ms"
                          f"   (compiled / fast cpu {r['compiled_ratio_cpu']:.2f}x)")
                print(f"  largest gradient entry {r['grad_max']:.2e}")
                for label in ("f32", "f64"):
                    print(f"  {label}: |fast - reference| value {r[f'value_diff_{label}']:.1e} gradient"
                          f" {r[f'grad_diff_{label}']:.1e};  error vs float64 reference: value fast"
                          f" {r[f'fast_err_value_{label}']:.1e} / reference {r[f'ref_err_value_{label}']:.1e},"
                          f" gradient fast {r[f'fast_err_grad_{label}']:.1e} / reference"
                          f" {r[f'ref_err_grad_{label}']:.1e}")
    names, rows = quadrature_accuracy()
    print("\nQuadrature: relative error of the K-knot trapezoidal statistic on [-t_max, t_max] against the"
          " integral over the real line (one slice, N=2048)")
    print("  knots  t_max  " + "  ".join(f"{name:>15s}" for name in names))
    for num_knots, t_max, errors in rows:
        print(f"  {num_knots:5d}  {t_max:5.1f}  " + "  ".join(f"{error:15.1e}" for error in errors))


if __name__ == "__main__":
    main()
