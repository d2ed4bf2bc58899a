"""The ``lejepa-wm`` command line.

Each subcommand lives in its own module, which defines
``add_arguments(parser)`` and ``main(args) -> int`` (the exit status). Modules
are imported only when their subcommand runs.
"""

from __future__ import annotations

import argparse
import importlib
import sys

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "verify": ("lejepa_wm.verify", "run every numerical claim check and print a verdict table"),
    "run": ("lejepa_wm.experiments.runner", "train and evaluate one experiment (resumable)"),
    "sweep": ("lejepa_wm.sweep", "run an experiment's grid on a process pool or SLURM"),
    "report": ("lejepa_wm.report", "gather results into results/report.md and report.html"),
    "audit-lean": ("lejepa_wm.lean_audit", "static audit of the Lean sources in LeJEPAProofs/"),
    "reproduce": ("lejepa_wm.reproduce", "verify + quick experiments + report, from a fresh clone"),
}


def build_parser() -> argparse.ArgumentParser:
    """Parser with one sub-parser per subcommand (each module adds its own options)."""
    parser = argparse.ArgumentParser(
        prog="lejepa-wm",
        description="Checks and experiments for 'When Does LeJEPA Learn a World Model?'",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        sub_parser = sub.add_parser(name, help=help_text, description=help_text)
        sub_parser.set_defaults(_module=module_name)
        module = importlib.import_module(module_name)
        module.add_arguments(sub_parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``lejepa-wm`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    module = importlib.import_module(args._module)
    try:
        return int(module.main(args))
    except (ValueError, FileNotFoundError, RuntimeError) as exc:
        print(f"lejepa-wm {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
