"""What the report says about the Lean proofs: the axiom ledger and the static audit.

The report never claims the proofs were compiled: nothing here runs Lean. It
lists the axioms the proofs rest on (``LeJEPAProofs/AXIOMS.md``), the claims
whose Lean declarations name each axiom, the Python tests that check each axiom
numerically and whether those tests exist, and the findings of the static
audit (:mod:`lejepa_wm.lean_audit`). Users compile the proofs themselves with
:data:`BUILD_COMMANDS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lejepa_wm import lean_audit
from lejepa_wm.claims import CLAIMS, Claim

__all__ = ["BUILD_COMMANDS", "AxiomEntry", "LeanSection", "gather_lean"]

BUILD_COMMANDS = ("lake exe cache get", "lake build")  # in the repository root (lakefile.lean)


@dataclass(frozen=True)
class AxiomEntry:
    """One ledger row: the axiom, its file, the claims that use it, its tests and whether each exists."""

    axiom: str
    file: str
    claims: tuple[str, ...]
    tests: tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class LeanSection:
    """The ledger (empty if absent), the audit's findings, and any error met while reading them."""

    ledger_found: bool
    axioms: tuple[AxiomEntry, ...]
    audit_findings: tuple[str, ...] | None
    error: str | None


def _claims_using(axiom: str, claims: tuple[Claim, ...]) -> tuple[str, ...]:
    """Ids of the claims one of whose Lean declarations is ``axiom`` (with or without namespace)."""
    short = axiom.rsplit(".", 1)[-1]
    return tuple(claim.id for claim in claims if any(decl.rsplit(".", 1)[-1] == short for decl in claim.lean))


def gather_lean(root: Path, claims: tuple[Claim, ...] = CLAIMS) -> LeanSection:
    """Read the ledger and run the static audit of the Lean project below ``root``."""
    if not (root / lean_audit.LEDGER).exists():
        return LeanSection(False, (), None, None)
    try:
        axioms = tuple(AxiomEntry(row.axiom, row.file, _claims_using(row.axiom, claims),
                                  tuple((test, lean_audit.test_exists(root, test)) for test in row.tests))
                       for row in lean_audit.read_ledger(root))
        findings = tuple(str(finding) for finding in lean_audit.audit(root, claims))
    except Exception as exc:  # a broken ledger is shown in the report, it does not stop it
        return LeanSection(True, (), None, f"{type(exc).__name__}: {exc}")
    return LeanSection(True, axioms, findings, None)
