"""``lejepa-wm verify``: run every claim's numerical checks and print a verdict table.

Each row is a :class:`lejepa_wm.records.CheckResult`: a measured value against
its :class:`~lejepa_wm.records.Bound`, or a logical condition stated in words.
A check module that raises is reported as a failed row carrying the error, so
one broken check never hides the others.

Exit status: 0 every check passed; 1 a check failed (or its module raised);
2 bad input, found before any check runs (an unknown claim id, a ``--json``
path that cannot be written).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import textwrap
import time
import traceback
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

from lejepa_wm import __version__
from lejepa_wm.atomic import atomic_write_json
from lejepa_wm.claims import CLAIMS, CLAIMS_BY_ID, Claim
from lejepa_wm.records import CheckResult, short_requirement

DEFAULT_JSON = Path("results") / "verify.json"
MIN_WIDTH = 60
"""The narrowest table ``verify`` prints, whatever the terminal."""
EXIT_CODES = """exit status:
  0  every check passed
  1  a check failed, or a check module raised (shown as a failed row)
  2  bad input, before any check runs: an unknown claim id, a --json path that cannot be written"""


def select_claims(claim_ids: list[str] | None) -> list[Claim]:
    """The claims named by ``claim_ids`` (all by default); ``ValueError`` names an unknown id."""
    for claim_id in claim_ids or ():
        if claim_id not in CLAIMS_BY_ID:
            near = [known for known in CLAIMS_BY_ID if known.lower() == claim_id.lower()]
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise ValueError(f"unknown claim {claim_id!r}{hint}; known claims: {', '.join(CLAIMS_BY_ID)}")
    return [CLAIMS_BY_ID[claim_id] for claim_id in claim_ids] if claim_ids else list(CLAIMS)


def check_writable_dir(folder: Path, what: str) -> Path:
    """Create ``folder`` if needed and make sure a file can be written in it; ``ValueError`` says why not."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{what} {folder} is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise ValueError(f"{what} {folder} is not writable: {exc.strerror or exc}") from None
    return folder


def run_verify(claim_ids: list[str] | None = None) -> dict[str, Any]:
    """Run the checks of the selected claims (all by default); return the JSON-ready summary.

    The summary is ``{"passed", "rows": [CheckResult.to_dict()], "seconds_per_claim"}``.
    The checks solve many small dense problems; multi-threaded BLAS makes those
    slower (and on a busy machine far slower), so they run with one BLAS thread.
    """
    rows: list[CheckResult] = []
    timings: dict[str, float] = {}
    for claim in select_claims(claim_ids):
        start = time.perf_counter()
        try:
            with threadpool_limits(1, "blas"):
                results = claim.run_checks()
            if not results:
                raise RuntimeError(f"claim {claim.id} has no numerical checks")
        except Exception as exc:  # reported as a failed row, never swallowed
            results = [CheckResult.logical(claim.id, "error", f"{type(exc).__name__}: {exc}", False,
                                           "the check module runs without raising",
                                           details={"traceback": traceback.format_exc()})]
        timings[claim.id] = time.perf_counter() - start
        rows.extend(results)
    return {"passed": all(row.passed for row in rows), "rows": [row.to_dict() for row in rows],
            "seconds_per_claim": timings}


def format_table(rows: list[CheckResult], width: int | None = None) -> str:
    """Text table (claim, check, measured, requirement, verdict) at most ``width`` characters wide.

    ``width`` defaults to the terminal's (``COLUMNS``; 100 when the output is
    not a terminal), never below :data:`MIN_WIDTH`. Long cells wrap onto more
    lines of their row instead of being cut, so nothing measured is lost.
    """
    width = max(MIN_WIDTH, width or shutil.get_terminal_size((100, 24)).columns)
    header = ("claim", "check", "measured", "requirement", "verdict")
    lines = [(row.claim, row.name, row.measured, short_requirement(row), "PASS" if row.passed else "FAIL")
             for row in rows]
    natural = [max(len(str(x)) for x in column) for column in zip(header, *lines)]
    fixed = natural[0] + natural[4] + 2 * (len(header) - 1)
    free = width - fixed
    check = min(natural[1], max(12, free // 3))
    requirement = min(natural[3], max(12, (free - check) * 2 // 5))
    widths = [natural[0], check, max(12, free - check - requirement), requirement, natural[4]]

    def fmt(cells: tuple[str, ...]) -> list[str]:
        wrapped = [textwrap.wrap(str(cell), w, break_on_hyphens=False) or [""] for cell, w in zip(cells, widths)]
        return ["  ".join((part[i] if i < len(part) else "").ljust(w) for part, w in zip(wrapped, widths)).rstrip()
                for i in range(max(map(len, wrapped)))]

    return "\n".join([*fmt(header), *fmt(tuple("-" * w for w in widths)), *(line for cells in lines
                                                                          for line in fmt(cells))])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm verify``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EXIT_CODES
    parser.add_argument("--claims", nargs="+", metavar="ID",
                        help=f"only these claim ids (case-sensitive): {', '.join(CLAIMS_BY_ID)}")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help=f"JSON output (default {DEFAULT_JSON})")


def main(args: argparse.Namespace) -> int:
    """Print the table, write the JSON; exit status as in :data:`EXIT_CODES`."""
    select_claims(args.claims)  # bad input is refused before any check runs, as is a --json that cannot be written
    if args.json.is_dir():
        raise ValueError(f"--json {args.json} is a folder; give a file name")
    check_writable_dir(args.json.parent, "the folder of --json")
    start = time.perf_counter()
    summary = run_verify(args.claims)
    summary["wall_time_s"] = time.perf_counter() - start
    summary["package_version"] = __version__  # lets `lejepa-wm reproduce` reuse this file
    rows = [CheckResult.from_dict(row) for row in summary["rows"]]
    print(format_table(rows))
    atomic_write_json(args.json, summary)
    failed = [f"{row.claim}/{row.name}" for row in rows if not row.passed]
    print(f"\n{len(rows) - len(failed)} passed, {len(failed)} failed "
          f"in {summary['wall_time_s']:.1f} s; wrote {args.json}")
    for name in failed:
        print(f"FAILED: {name}")
    return 1 if failed else 0
