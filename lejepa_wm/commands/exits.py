"""The exit statuses of every ``lejepa-wm`` subcommand, defined once."""

from __future__ import annotations

__all__ = ["OK", "FAILED", "BAD_INPUT", "CRASHED", "EXIT_CODES"]

OK = 0
FAILED = 1
"""A check failed (``verify``), the Lean audit found a problem, or a claim failed under ``reproduce --strict``."""
BAD_INPUT = 2
CRASHED = 3
"""A run or a part crashed (``run``, ``sweep``, ``reproduce``), or an unexpected error (a bug)."""
INTERRUPTED, OUTPUT_CLOSED, TERMINATED = 130, 141, 143

EXIT_CODES = f"""exit status (every subcommand):
  {OK}  success
  {FAILED}  a check failed (verify), the Lean audit found a problem (audit-lean), or a claim failed
     under reproduce --strict
  {BAD_INPUT}  bad input or environment (one line names the value or file)
  {CRASHED}  a run or a part crashed (run, sweep, reproduce), or an unexpected error (a bug: please report it)
  {INTERRUPTED}  interrupted (Ctrl-C); finished results are kept
  {OUTPUT_CLOSED}  the output was closed (e.g. piped into head); the work was done
  {TERMINATED}  terminated (SIGTERM); finished results are kept"""
