"""``lejepa-wm verify``: run every claim's numerical checks and print a verdict table.

A check module that raises is reported as a failed row carrying the error, so
one broken check never hides the others. The exit status is 0 only if every
row passed.
"""

from __future__ import annotations

import argparse
import time
import traceback
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

from lejepa_wm import __version__
from lejepa_wm.atomic import atomic_write_json
from lejepa_wm.claims import CLAIMS, CheckResult, get_claim

DEFAULT_JSON = Path("results") / "verify.json"


def run_verify(claim_ids: list[str] | None = None) -> dict[str, Any]:
    """Run the checks of the selected claims (all by default); return the JSON-ready summary.

    The checks solve many small dense problems; multi-threaded BLAS makes those
    slower (and on a busy machine far slower), so they run with one BLAS thread.
    """
    claims = [get_claim(cid) for cid in claim_ids] if claim_ids else list(CLAIMS)
    rows: list[dict[str, Any]] = []
    timings: dict[str, float] = {}
    for claim in claims:
        start = time.perf_counter()
        try:
            with threadpool_limits(1, "blas"):
                results = claim.run_checks()
            if not results:
                raise RuntimeError(f"claim {claim.id} has no numerical checks")
        except Exception as exc:  # reported as a failed row, never swallowed
            results = [CheckResult(claim.id, "error", f"{type(exc).__name__}: {exc}", None, "-", False,
                                   {"traceback": traceback.format_exc()})]
        timings[claim.id] = time.perf_counter() - start
        rows.extend(result.to_dict() for result in results)
    return {"passed": all(row["passed"] for row in rows), "rows": rows, "seconds_per_claim": timings}


def format_table(rows: list[dict[str, Any]]) -> str:
    """Fixed-width text table: claim, check, measured, tolerance, verdict."""
    header = ("claim", "check", "measured", "tolerance", "verdict")
    lines = [(r["claim"], r["name"], r["measured"], r["tolerance"], "PASS" if r["passed"] else "FAIL")
             for r in rows]
    widths = [max(len(str(x)) for x in column) for column in zip(header, *lines)]
    widths[2] = min(widths[2], 70)

    def fmt(cells: tuple[str, ...]) -> str:
        return "  ".join(str(cell)[:width].ljust(width) for cell, width in zip(cells, widths)).rstrip()

    return "\n".join([fmt(header), fmt(tuple("-" * w for w in widths)), *map(fmt, lines)])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm verify``."""
    parser.add_argument("--claims", nargs="+", metavar="ID", help="only these claim ids")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help=f"JSON output (default {DEFAULT_JSON})")


def main(args: argparse.Namespace) -> int:
    """Print the table, write the JSON, return 0 iff every check passed."""
    start = time.perf_counter()
    summary = run_verify(args.claims)
    summary["wall_time_s"] = time.perf_counter() - start
    summary["package_version"] = __version__  # lets `lejepa-wm reproduce` reuse this file
    print(format_table(summary["rows"]))
    atomic_write_json(args.json, summary)
    failed = [f"{r['claim']}/{r['name']}" for r in summary["rows"] if not r["passed"]]
    print(f"\n{len(summary['rows']) - len(failed)} passed, {len(failed)} failed "
          f"in {summary['wall_time_s']:.1f} s; wrote {args.json}")
    for name in failed:
        print(f"FAILED: {name}")
    return 1 if failed else 0
