"""``lejepa-wm audit-lean``: print the findings of the static Lean audit (:mod:`lejepa_wm.lean_audit`).

The Lean workflow runs it without installing the package (``python -m
lejepa_wm.commands.audit_lean``), so this module and what it imports need
nothing beyond the standard library.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lejepa_wm.claims import CLAIMS
from lejepa_wm.commands import exits
from lejepa_wm.lean_audit import AUDIT_FILE, audit_with_pins, check_axiom_log, default_root, lean_sources, probe_source

__all__ = ["COMMON_OPTIONS", "add_arguments", "main"]

COMMON_OPTIONS: tuple[str, ...] = ()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm audit-lean``."""
    parser.add_argument("--root", type=Path, default=None, help="repository root (default: auto)")
    parser.add_argument("--write-probe", type=Path, default=None, metavar="FILE",
                        help="also write a Lean file printing the axioms of every pinned declaration")
    parser.add_argument("--check-log", type=Path, default=None, metavar="FILE",
                        help="also check Lean's output for that file: every pinned declaration printed, "
                             "with exactly its pinned axioms")


def main(args: argparse.Namespace) -> int:
    """Print the findings (or a summary of what was audited) and return 1 if any."""
    root = args.root or default_root()
    pins, findings = audit_with_pins(root, CLAIMS)
    if args.write_probe is not None:
        args.write_probe.write_text(probe_source(pins), encoding="utf-8")
    if args.check_log is not None:
        findings += check_axiom_log(args.check_log.read_text(encoding="utf-8"), pins)
    for finding in findings:
        print(finding)
    if findings:
        print(f"\naudit-lean: {len(findings)} problem(s)")
        return exits.FAILED
    files = lean_sources(root)
    decls = [d for lean in files for d in lean.declarations]
    axioms = sorted(d.name for d in decls if d.keyword == "axiom")
    print(f"audit-lean: OK — {len(files)} files, {len(decls)} declarations, {len(axioms)} axiom(s) "
          f"(all in the ledger, each cites an existing numerical test): {', '.join(axioms)}; "
          f"{len(pins)} axiom pins in {AUDIT_FILE}")
    print("The audit is static; check the proofs themselves with `lake exe cache get && lake build`.")
    return exits.OK


if __name__ == "__main__":  # the Lean workflow runs the audit without installing the package
    _parser = argparse.ArgumentParser(prog="python -m lejepa_wm.commands.audit_lean")
    add_arguments(_parser)
    raise SystemExit(main(_parser.parse_args()))
