"""The ``lejepa-wm`` command line.

Each subcommand lives in its own module, which defines
``add_arguments(parser)`` and ``main(args) -> int`` (the exit status); every
module is imported when the parser is built, to add its options.

One error boundary for every subcommand: an expected failure (bad input, a
path that cannot be read or written, a missing dependency, a damaged file)
prints one line naming what is wrong and exits 2; any other exception is a bug:
its traceback is shown with a line asking to report it, and the exit status is 3.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
import traceback
from pathlib import Path

from lejepa_wm import __version__

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "verify": ("lejepa_wm.verify", "run every numerical claim check and print a verdict table"),
    "run": ("lejepa_wm.experiments.runner", "train and evaluate one experiment (resumable)"),
    "sweep": ("lejepa_wm.sweep", "run an experiment's grid on a process pool or SLURM"),
    "report": ("lejepa_wm.report", "gather results into results/report.md and report.html"),
    "audit-lean": ("lejepa_wm.lean_audit", "static audit of the Lean sources in LeJEPAProofs/"),
    "reproduce": ("lejepa_wm.reproduce", "verify + quick experiments + report, from a fresh clone"),
}

EXIT_CODES = """exit status (every subcommand):
  0  success
  1  a check failed (verify), or a claim failed under reproduce --strict
  2  bad input or environment (one line names the value or file)
  3  a run or a part crashed (sweep, reproduce), or an unexpected error (a bug: please report it)
  130  interrupted (Ctrl-C); finished results are kept"""

# Failures a user can fix: the package raises these for bad values, unreadable or
# unwritable paths, damaged files, missing dependencies and unusable devices.
EXPECTED_ERRORS = (ValueError, OSError, ImportError, RuntimeError)


def build_parser() -> argparse.ArgumentParser:
    """Parser with one sub-parser per subcommand (each module adds its own options)."""
    parser = argparse.ArgumentParser(
        prog="lejepa-wm",
        description="Checks and experiments for 'When Does LeJEPA Learn a World Model?'",
        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"lejepa-wm {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        sub_parser.set_defaults(_module=module_name)
        importlib.import_module(module_name).add_arguments(sub_parser)
    return parser


def one_line(exc: BaseException) -> str:
    """The error as one line (multi-line messages joined); a file system error names its path."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        paths = " -> ".join(str(name) for name in (exc.filename, exc.filename2) if name is not None)
        return f"{paths}: {exc.strerror}; check the path, its permissions and the free disk space"
    text = " ".join(part.strip() for part in str(exc).splitlines() if part.strip())
    return text or type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``lejepa-wm`` console script; exit status as in :data:`EXIT_CODES`."""
    args = build_parser().parse_args(argv)
    module = importlib.import_module(args._module)
    # A command started in the background by a non-interactive shell inherits SIGINT ignored, and Python then
    # installs no handler: Ctrl-C or `kill -INT` must still stop it, keeping finished results (exit 130).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        out = getattr(args, "out", None)
        if isinstance(out, Path) and out.exists() and not out.is_dir():
            raise ValueError(f"--out {out} is a file, not a folder; give a folder for the results")
        return int(module.main(args))
    except EXPECTED_ERRORS as exc:
        print(f"lejepa-wm {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"lejepa-wm {args.command}: interrupted; finished results are kept, and the same command "
              "continues where it stopped", file=sys.stderr)
        return 130
    except Exception:
        traceback.print_exc()
        print(f"lejepa-wm {args.command}: unexpected error (a bug in lejepa-wm); please report it with the "
              "traceback above", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
