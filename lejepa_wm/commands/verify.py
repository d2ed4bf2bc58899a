"""``lejepa-wm verify``: run every claim's numerical checks and print a verdict table.

Each row is a :class:`lejepa_wm.records.CheckResult`: a measured value against
its :class:`~lejepa_wm.records.Bound`, or a logical condition stated in words.
The checks themselves run in :func:`lejepa_wm.numerics.checks.run_verify`.

Exit status: 0 every check passed; 1 a check failed (or its module raised);
2 bad input, found before any check runs (an unknown claim id, a ``--json``
path that cannot be written).
"""

from __future__ import annotations

import argparse
import shutil
import textwrap
from pathlib import Path

from lejepa_wm.atomic import atomic_write_json
from lejepa_wm.commands import exits
from lejepa_wm.numerics.checks import CHECKED_CLAIMS, run_verify, select_claims
from lejepa_wm.records import CheckResult
from lejepa_wm.validation import check_writable_dir

__all__ = ["COMMON_OPTIONS", "format_table", "add_arguments", "main"]

_DEFAULT_JSON = Path("results") / "verify.json"
_MIN_WIDTH = 60
"""The narrowest table ``verify`` prints, whatever the terminal."""
_EXIT_CODES = f"""exit status:
  {exits.OK}  every check passed
  {exits.FAILED}  a check failed, or a check module raised (shown as a failed row)
  {exits.BAD_INPUT}  bad input, before any check runs: an unknown claim id, a --json path that cannot be written"""
COMMON_OPTIONS: tuple[str, ...] = ()


def format_table(rows: list[CheckResult], width: int | None = None) -> str:
    """Text table (claim, check, measured, requirement, verdict) at most ``width`` characters wide; the requirement
    is written without repeating the quantity (``≤ 1e-10``).

    ``width`` defaults to the terminal's (``COLUMNS``; 100 when the output is
    not a terminal), never below :data:`_MIN_WIDTH`. Long cells wrap onto more
    lines of their row instead of being cut, so nothing measured is lost.
    """
    width = max(_MIN_WIDTH, width or shutil.get_terminal_size((100, 24)).columns)
    header = ("claim", "check", "measured", "requirement", "verdict")
    lines = [(row.claim, row.name, row.measured, row.bound.describe() if row.bound is not None else row.requirement,
              "PASS" if row.passed else "FAIL") for row in rows]
    natural = [max(len(str(x)) for x in column) for column in zip(header, *lines)]
    free = width - natural[0] - natural[4] - 2 * (len(header) - 1)  # what the claim and verdict columns leave
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
    parser.epilog = _EXIT_CODES
    parser.add_argument("--claims", nargs="+", metavar="ID",
                        help="only these claim ids (case-sensitive): "
                             f"{', '.join(claim.id for claim in CHECKED_CLAIMS)}")
    parser.add_argument("--json", type=Path, default=_DEFAULT_JSON, help=f"JSON output (default {_DEFAULT_JSON})")


def main(args: argparse.Namespace) -> int:
    """Print the table, write the JSON; exit status as in :data:`_EXIT_CODES`."""
    select_claims(args.claims)  # bad input is refused before any check runs, as is a --json that cannot be written
    if args.json.is_dir():
        raise ValueError(f"--json {args.json} is a folder; give a file name")
    check_writable_dir(args.json.parent, "the folder of --json")
    record = run_verify(args.claims)
    print(format_table(list(record.rows)))
    atomic_write_json(args.json, record.to_dict())
    failed = [f"{row.claim}/{row.name}" for row in record.rows if not row.passed]
    print(f"\n{len(record.rows) - len(failed)} passed, {len(failed)} failed "
          f"in {record.wall_time_s:.1f} s; wrote {args.json}")
    for name in failed:
        print(f"FAILED: {name}")
    return exits.FAILED if failed else exits.OK
