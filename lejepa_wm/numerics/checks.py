"""Running the claims' numerical checks: the check module of every claim, imported by name, and their rows.

:data:`CHECK_MODULES` holds every check module of the claim registry
(:mod:`lejepa_wm.claims` names each by its module path); :func:`run_verify`
runs the checks of the selected claims, one claim at a time, each error
reported as a failed row so one broken check never hides the others.
"""

from __future__ import annotations

import time
import traceback
from types import ModuleType

from threadpoolctl import threadpool_limits

from lejepa_wm import __version__
from lejepa_wm.claims import CLAIMS, CLAIMS_BY_ID, Claim
from lejepa_wm.numerics import (verify_c1, verify_hermite, verify_loss, verify_m1, verify_mehler, verify_p5,
                                verify_t1, verify_t2, verify_t3, verify_t4)
from lejepa_wm.records import CheckResult, VerifyRecord

__all__ = ["CHECK_MODULES", "CHECKED_CLAIMS", "claim_checks", "select_claims", "run_verify"]

CHECK_MODULES: dict[str, ModuleType] = {module.__name__: module for module in (
    verify_hermite, verify_mehler, verify_loss, verify_t1, verify_c1, verify_t2, verify_t3, verify_t4, verify_p5,
    verify_m1)}
"""Every check module by its module path; each defines ``run_checks() -> list[CheckResult]``."""


CHECKED_CLAIMS: tuple[Claim, ...] = tuple(claim for claim in CLAIMS if claim.checks is not None)
"""The claims ``verify`` checks: every claim but the procedures, which only experiments judge."""


def claim_checks(claim: Claim) -> list[CheckResult]:
    """Run the checks of ``claim`` (none for a claim without a check module)."""
    return [] if claim.checks is None else list(CHECK_MODULES[claim.checks].run_checks())


def select_claims(claim_ids: list[str] | None) -> list[Claim]:
    """The claims named by ``claim_ids`` (every claim with checks by default, :data:`CHECKED_CLAIMS`).

    ``ValueError`` names an unknown id, and an id of a claim that has no numerical
    check (a procedure claim such as ``T1R``, judged by its experiments alone).
    """
    checked = ", ".join(claim.id for claim in CHECKED_CLAIMS)
    for claim_id in claim_ids or ():
        if claim_id not in CLAIMS_BY_ID:
            hint = next((f" (did you mean {name!r}?)" for name in CLAIMS_BY_ID if name.lower() == claim_id.lower()), "")
            raise ValueError(f"unknown claim {claim_id!r}{hint}; known claims with checks: {checked}")
        claim = CLAIMS_BY_ID[claim_id]
        if claim.checks is None:
            raise ValueError(f"claim {claim_id!r} has no numerical checks (a {claim.kind} claim, judged by the "
                             f"experiments {', '.join(claim.experiments)}); claims with checks: {checked}")
    return [CLAIMS_BY_ID[claim_id] for claim_id in claim_ids] if claim_ids else list(CHECKED_CLAIMS)


def run_verify(claim_ids: list[str] | None = None) -> VerifyRecord:
    """Run the checks of the selected claims (all by default); return their rows, each claim's seconds, the wall
    time and the package version (which lets ``lejepa-wm reproduce`` reuse a ``verify.json`` of its own version).

    The checks solve many small dense problems; multi-threaded BLAS makes those
    slower (and on a busy machine far slower), so they run with one BLAS thread.
    """
    rows: list[CheckResult] = []
    timings: dict[str, float] = {}
    begin = time.perf_counter()
    for claim in select_claims(claim_ids):
        start = time.perf_counter()
        try:
            with threadpool_limits(1, "blas"):
                results = claim_checks(claim)
            if not results:
                raise RuntimeError(f"claim {claim.id} has no numerical checks")
        except Exception as exc:  # reported as a failed row, never swallowed
            results = [CheckResult.logical(claim.id, "error", f"{type(exc).__name__}: {exc}", False,
                                           "the check module runs without raising",
                                           details={"traceback": traceback.format_exc()})]
        timings[claim.id] = time.perf_counter() - start
        rows.extend(results)
    return VerifyRecord(tuple(rows), timings, time.perf_counter() - begin, __version__)
