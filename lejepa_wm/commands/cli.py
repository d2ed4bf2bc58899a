"""The ``lejepa-wm`` command line.

Each subcommand lives in its own module of :mod:`lejepa_wm.commands`, which
defines ``COMMON_OPTIONS`` (the shared options it takes, :mod:`.options`),
``add_arguments(parser)`` and ``main(args) -> int`` (the exit status,
:mod:`.exits`).

One error boundary for every subcommand: an expected failure (a bad value,
``ValueError``; a path that cannot be read or written, ``OSError``; a missing
dependency, ``ImportError``; what this machine lacks,
:class:`~lejepa_wm.validation.EnvironmentUnavailable`) prints one line naming
what is wrong and exits 2; any other exception is a bug: its traceback is shown
with a line asking to report it, and the exit status is 3.

Signals and output: Ctrl-C (SIGINT) and SIGTERM both stop the command the same
way (each run's claim is released, finished results are kept) and each has its
own exit status (130, 143). Output never fails a command whose work is done:
text a terminal's encoding cannot show is escaped, and a closed output (``|
head``) ends the command quietly with status 141, as a shell reports SIGPIPE.
Every path option refuses an empty path.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import traceback
from pathlib import Path
from types import FrameType, ModuleType

from lejepa_wm import __version__
from lejepa_wm.commands import audit_lean, exits, report, reproduce, run, sweep, verify
from lejepa_wm.commands.options import common_options, path_argument
from lejepa_wm.validation import EnvironmentUnavailable

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

SUBCOMMANDS: dict[str, tuple[ModuleType, str]] = {
    "verify": (verify, "run every numerical claim check and print a verdict table"),
    "run": (run, "train and evaluate one experiment (resumable)"),
    "sweep": (sweep, "run an experiment's grid on a process pool or SLURM"),
    "report": (report, "gather results into results/report.md and report.html"),
    "audit-lean": (audit_lean, "static audit of the Lean sources in LeJEPAProofs/"),
    "reproduce": (reproduce, "verify + quick experiments + report, from a fresh clone"),
}

_EXPECTED_ERRORS = (ValueError, OSError, ImportError, EnvironmentUnavailable)
"""Failures a user can fix: bad values, unreadable or unwritable paths, damaged files, missing dependencies,
what this machine lacks. Every other exception is a bug."""


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread as Ctrl-C raises ``KeyboardInterrupt`` (so every cleanup runs)."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the cleanup short
    raise _Terminated("SIGTERM")


def build_parser() -> argparse.ArgumentParser:
    """Parser with one sub-parser per subcommand (each module adds its own options)."""
    parser = argparse.ArgumentParser(
        prog="lejepa-wm",
        description="Checks and experiments for 'When Does LeJEPA Learn a World Model?'",
        epilog=exits.EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"lejepa-wm {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text,
                                    parents=[common_options(*module.COMMON_OPTIONS)])
        sub_parser.set_defaults(_command=module)
        module.add_arguments(sub_parser)
        sub_parser.register("type", Path, path_argument)  # every ``type=Path`` option of the subcommand
    return parser


def _one_line(exc: BaseException) -> str:
    """The error as one line (multi-line messages joined); a file system error names its path."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        paths = " -> ".join(str(name) for name in (exc.filename, exc.filename2) if name is not None)
        return f"{paths}: {exc.strerror}; check the path, its permissions and the free disk space"
    text = " ".join(part.strip() for part in str(exc).splitlines() if part.strip())
    return text or type(exc).__name__


def _escape_unencodable_output() -> None:
    """Let stdout and stderr escape what their encoding cannot show (an ASCII-only terminal) instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError):  # not a text file (a test's StringIO): nothing to reconfigure
            stream.reconfigure(errors="backslashreplace")


def _say(line: str) -> None:
    """One line on stderr, unless stderr itself is closed."""
    with contextlib.suppress(OSError):  # a closed pipe (BrokenPipeError) included
        print(line, file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``lejepa-wm`` console script; exit status as in :data:`~.exits.EXIT_CODES`."""
    _escape_unencodable_output()
    args = build_parser().parse_args(argv)
    # A command started in the background by a non-interactive shell inherits SIGINT ignored, and Python then
    # installs no handler: Ctrl-C or `kill -INT` must still stop it, keeping finished results (exit 130).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    previous_sigterm = signal.signal(signal.SIGTERM, _terminate)
    try:
        out = getattr(args, "out", None)
        if isinstance(out, Path) and out.exists() and not out.is_dir():
            raise ValueError(f"--out {out} is a file, not a folder; give a folder for the results")
        status = int(args._command.main(args))
        sys.stdout.flush()  # a closed output shows here, inside the boundary, not at interpreter exit
        return status
    except BrokenPipeError:  # the reader of our output went away: not bad input, and the work is done
        # what is left for stdout goes to the null device (no error at exit), unless stdout is not a file (tests)
        with contextlib.suppress(OSError, ValueError, AttributeError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
        return exits.OUTPUT_CLOSED
    except _EXPECTED_ERRORS as exc:
        _say(f"lejepa-wm {args.command}: error: {_one_line(exc)}")
        return exits.BAD_INPUT
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (a _Terminated)
        terminated = isinstance(exc, _Terminated)
        _say(f"lejepa-wm {args.command}: {'terminated (SIGTERM)' if terminated else 'interrupted'}; finished "
             "results are kept, and the same command continues where it stopped")
        return exits.TERMINATED if terminated else exits.INTERRUPTED
    except Exception:
        traceback.print_exc()
        _say(f"lejepa-wm {args.command}: unexpected error (a bug in lejepa-wm); please report it with the "
             "traceback above")
        return exits.CRASHED
    finally:
        signal.signal(signal.SIGTERM, previous_sigterm)


if __name__ == "__main__":
    sys.exit(main())
