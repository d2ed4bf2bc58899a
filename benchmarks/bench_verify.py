"""Time ``lejepa_wm.numerics.checks.run_verify()``: median wall time and per-claim seconds over a few repeats.

Usage: ``python benchmarks/bench_verify.py [--repeats 3] [--claims T1 T3 ...]``. A script, not a
test: timings on a shared machine vary several-fold, so compare medians and ratios, not single runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

from lejepa_wm.numerics.checks import run_verify


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="number of timed runs (default 3)")
    parser.add_argument("--claims", nargs="+", metavar="ID", help="only these claim ids")
    args = parser.parse_args()
    if args.repeats < 1:
        raise SystemExit(f"--repeats must be at least 1; got {args.repeats}")
    totals: list[float] = []
    per_claim: dict[str, list[float]] = {}
    for repeat in range(args.repeats):
        start = time.perf_counter()
        summary = run_verify(args.claims)
        totals.append(time.perf_counter() - start)
        for claim, seconds in summary.seconds_per_claim.items():
            per_claim.setdefault(claim, []).append(seconds)
        status = "all passed" if summary.passed else "SOME FAILED"
        print(f"run {repeat + 1}/{args.repeats}: {totals[-1]:.2f} s ({status})")
    print(f"\nmedian total: {statistics.median(totals):.2f} s  (min {min(totals):.2f}, max {max(totals):.2f})")
    print(f"{'claim':<10}{'median s':>10}{'min s':>10}{'max s':>10}")
    for claim, seconds in per_claim.items():
        print(f"{claim:<10}{statistics.median(seconds):>10.2f}{min(seconds):>10.2f}{max(seconds):>10.2f}")


if __name__ == "__main__":
    main()
