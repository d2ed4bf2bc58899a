"""``lejepa-wm reproduce``: from a fresh clone to one report — verify, every quick experiment, report.

Parts, in order: ``verify`` (every claim's numerical checks), each experiment of
:data:`REPRODUCED_EXPERIMENTS` through the sweep driver
(:func:`lejepa_wm.sweep.driver.run_sweep`, the same path as ``lejepa-wm run``
and ``lejepa-wm sweep``: on the CPU the synthetic experiments run on a process
pool with one run per available core, one thread each, which gives the same
numbers as a serial run; Reacher, whose runs share data made by the first
of them, and any run on a GPU go one at a time), then ``report``. A second
invocation reuses what is finished: experiment runs with a ``metrics.json`` are
never recomputed, and ``verify.json`` is reused when it was written by this
same package version and covers every claim; ``--fresh`` recomputes everything
(each experiment's folder at this scale is deleted first, as ``run --restart``
does). Each part's :class:`~lejepa_wm.records.PartOutcome` goes to
``<out>/reproduce.json``, rewritten atomically before and after every part
(``current_part`` names the part in progress, ``pid`` and ``host`` the process);
a part that raises, or an experiment with a run that failed, is recorded as
failed and the next part runs. A reproduction stopped by Ctrl-C or SIGTERM
records why in ``interrupted``; one that was killed leaves ``finished_at``
empty with ``current_part`` set, and the report shows either as interrupted.
``--fresh`` refuses, before any part, while a live launch or run uses one of
the experiments' folders; each experiment's own check of this machine
(Reacher's rendering back-end) runs before any part too.

Exit status (:data:`_EXIT_CODES`): a claim that does not hold is a finding of the
report, not an error: the exit status is 0 whenever every part ran and the
report was written; 3 when a part crashed; ``--strict`` makes a failed claim
exit 1; bad input exits 2 before any part starts.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import sys
import time
import traceback
from dataclasses import replace
from datetime import datetime, timezone
from functools import partial
from pathlib import Path
from typing import Any, Callable

from tqdm import tqdm

from lejepa_wm import __version__
from lejepa_wm.atomic import atomic_write_json, read_json
from lejepa_wm.commands import exits
from lejepa_wm.config import SCALES
from lejepa_wm.experiments import SYNTHETIC_EXPERIMENTS
from lejepa_wm.experiments.base import experiment_dir, is_done
from lejepa_wm.records import FAILED, VERDICTS, PartOutcome, ReproduceRecord, VerifyRecord
from lejepa_wm.report import HTML_FILE, MARKDOWN_FILE, WrittenReport, write_report
from lejepa_wm.report.environment import collect_environment
from lejepa_wm.report.gather import REPRODUCE_FILE, VERIFY_FILE, Gathered, gather
from lejepa_wm.schema import read
from lejepa_wm.sweep.driver import DEFAULT_OUT, check_environment, check_launch, run_sweep
from lejepa_wm.sweep.state import ERROR_FILE, plan_sweep, refuse_if_busy
from lejepa_wm.sweep.worker import error_line
from lejepa_wm.numerics.checks import CHECKED_CLAIMS, run_verify
from lejepa_wm.validation import check_choice

__all__ = ["REPRODUCED_EXPERIMENTS", "COMMON_OPTIONS", "reusable_verify", "reproduce", "add_arguments", "main"]

REPRODUCED_EXPERIMENTS: tuple[str, ...] = (*SYNTHETIC_EXPERIMENTS, "reacher")
COMMON_OPTIONS = ("out", "scale", "seed", "device")
_EXIT_CODES = f"""exit status:
  {exits.OK}  every part ran and the report was written, whatever the verdicts
     (a claim that does not hold is a finding shown in the report)
  {exits.FAILED}  --strict only: every part ran, but a claim failed
  {exits.BAD_INPUT}  bad input, before any part starts (an option, an unwritable --out, a
     device that is not there, results of another seed offset)
  {exits.CRASHED}  a part crashed (its error and traceback are in reproduce.json and the report)"""


class _PartFailed(Exception):
    """A part that ended without raising but did not finish its job; ``details`` is shown as its traceback."""

    def __init__(self, message: str, details: str | None = None) -> None:
        super().__init__(message)
        self.details = details


def _stamp() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def reusable_verify(path: Path) -> tuple[bool, str]:
    """Whether ``verify.json`` at ``path`` may be reused, and why (or why not)."""
    if not path.exists():
        return False, f"no {path}"
    try:
        record = read(VerifyRecord, read_json(path), path.name)
    except (OSError, ValueError) as exc:
        return False, f"{path} is unreadable ({exc})"
    version = record.package_version
    if version is None:
        return False, f"{path} does not record the package version that wrote it"
    if version != __version__:
        return False, f"{path} was written by lejepa-wm {version}, this is {__version__}"
    missing = [claim.id for claim in CHECKED_CLAIMS if claim.id not in {row.claim for row in record.rows}]
    if missing:
        return False, f"{path} lacks the checks of {', '.join(missing)}"
    return True, f"reused {path} (written by this package version, {__version__})"


def _verify_part(out: Path, fresh: bool, progress: bool) -> tuple[str, bool]:
    """Run (or reuse) every claim's checks, one claim at a time with a progress bar; write ``verify.json``."""
    path = out / VERIFY_FILE
    reuse, why = (False, "--fresh") if fresh else reusable_verify(path)
    if reuse:
        return why, True
    start = time.perf_counter()
    claims = [run_verify([claim.id])
              for claim in tqdm(CHECKED_CLAIMS, desc="verify", unit="claim", disable=not progress, leave=False)]
    record = VerifyRecord(tuple(row for part in claims for row in part.rows),
                          {claim: seconds for part in claims for claim, seconds in part.seconds_per_claim.items()},
                          time.perf_counter() - start, __version__)
    atomic_write_json(path, record.to_dict())
    failed = sum(not row.passed for row in record.rows)
    return f"ran {len(record.rows)} checks ({why}): {len(record.rows) - failed} passed, {failed} failed", False


def _run_traceback(folder: Path, run_id: str) -> str:
    """The last recorded traceback of a failed run (from its ``error.json``; where to look if it is unreadable)."""
    path = folder / "runs" / run_id / ERROR_FILE
    try:
        return str(read_json(path)["attempts"][-1].get("traceback") or "")
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
        return f"see {path}"


def _check_before_parts(out: Path, scale: str, seed: int, device: str, fresh: bool,
                       experiments: tuple[str, ...]) -> None:
    """Refuse, before any part: without ``--fresh``, results of another seed offset (finished runs are reused by
    run id, whatever their seed); with it, a live launch or run using an experiment's folder; and a machine that
    cannot execute an experiment with runs left (its ``check_environment``)."""
    path = out / REPRODUCE_FILE
    if not fresh and path.exists():
        try:
            earlier = read(ReproduceRecord, read_json(path), path.name)
        except ValueError as exc:
            raise ValueError(f"{path} is unreadable ({exc}); pass --fresh to start over") from None
        if earlier.scale == scale and earlier.seed != seed:
            raise ValueError(f"results in {out} were produced with seed offset {earlier.seed}, not {seed}; "
                             "pass --fresh to recompute them or choose another --out")
    for name in experiments:
        if fresh:
            refuse_if_busy(experiment_dir(out, name, scale), "--fresh")
        plan = plan_sweep(name, scale, out, seed)
        if fresh or not all(is_done(spec, out) for spec in plan.specs):
            check_environment(plan, device)


def _experiment_part(name: str, out: Path, scale: str, seed: int, device: str, fresh: bool,
                    progress: bool, jobs: int | None = None) -> tuple[str, bool]:
    """Run (or resume) one experiment at ``scale`` through the sweep driver; say what was executed and reused."""
    folder = experiment_dir(out, name, scale)
    if fresh and folder.exists():
        refuse_if_busy(folder, "--fresh")
        shutil.rmtree(folder)
    serial = name not in SYNTHETIC_EXPERIMENTS or device != "cpu" or jobs == 1  # Reacher's runs share data
    result = run_sweep(name, scale, out, executor="serial" if serial else "local", jobs=None if serial else jobs,
                       seed=seed, device=device, progress=progress)
    if result.failed:
        message = f"{len(result.failed)} run(s) failed: " + "; ".join(f"{run_id}: {error}"
                                                                      for run_id, error in result.errors)
        details = "\n".join(f"--- run {run_id}: {error}\n{_run_traceback(folder, run_id)}"
                            for run_id, error in result.errors)
        raise _PartFailed(message, details)
    if not result.aggregated and result.elsewhere:
        run_id, owner = result.elsewhere[0]
        raise _PartFailed(f"{len(result.elsewhere)} run(s) of {name} are running in another process (e.g. {run_id}, "
                         f"{owner}); run reproduce again once they finish")
    if not result.aggregated:
        raise _PartFailed(f"not every run of {name} finished, so nothing was aggregated")
    executed, reused = len(result.executed), len(result.reused)
    if executed == 0 and reused:
        return f"reused {reused} finished run(s), nothing recomputed", True
    return f"executed {executed} run(s)" + (f", reused {reused} finished run(s)" if reused else ""), False


def reproduce(out: Path = DEFAULT_OUT, scale: str = "quick", seed: int = 0, device: str = "cpu",
              fresh: bool = False, experiments: tuple[str, ...] = REPRODUCED_EXPERIMENTS,
              progress: bool | None = None, strict: bool = False, jobs: int | None = None) -> ReproduceRecord:
    """Run every part, write the report, and return the final ``reproduce.json`` record.

    ``progress``: progress bars (default: only when stderr is a terminal).
    ``jobs``: runs at a time for the synthetic experiments on the CPU (default:
    the available cores; 1 runs everything in this process). Bad
    input raises ``ValueError`` (or ``EnvironmentUnavailable`` for a missing device) before
    any part starts: the scale here, the rest as for a sweep
    (:func:`~lejepa_wm.sweep.driver.check_launch`; a CUDA device that is not
    there stops us here, once), an unknown experiment as its plan is made.

    Each part is a ``(name, kind, action)`` row; an action returns what it did and whether it reused finished
    results. A part that raises becomes a failed :class:`~lejepa_wm.records.PartOutcome` carrying the error and
    its traceback, and the next part runs. Once the report part ended, the record gets every claim's verdict
    (from the report, else gathered directly; none if that fails too) and the exit status: 3 if a part
    crashed, else 1 if ``strict`` and a claim failed, else 0.
    """
    check_choice(scale, SCALES, "scale")
    out = check_launch(out, "local", jobs, seed, device)
    progress = sys.stderr.isatty() if progress is None else progress
    _check_before_parts(out, scale, seed, device, fresh, experiments)
    start = time.perf_counter()
    record = ReproduceRecord(__version__, scale, seed, device, fresh, strict, _stamp(), os.getpid(),
                             socket.gethostname(), collect_environment())

    def save(**changes: Any) -> None:  # reproduce.json, rewritten atomically whenever a part starts or finishes
        nonlocal record
        record = replace(record, wall_time_s=time.perf_counter() - start, **changes)
        atomic_write_json(out / REPRODUCE_FILE, record.to_dict())

    written: list[WrittenReport] = []

    def write() -> tuple[str, bool]:
        written.append(write_report(out, scale))
        return f"wrote {written[0].markdown} and {written[0].html}", False

    save()
    steps: list[tuple[str, str, Callable[[], tuple[str, bool]]]] = [
        ("verify", "verify", partial(_verify_part, out, fresh, progress)),
        *((name, "experiment", partial(_experiment_part, name, out, scale, seed, device, fresh, progress, jobs))
          for name in experiments),
        ("report", "report", write)]
    for index, (name, kind, action) in enumerate(steps, 1):
        if progress:  # on a terminal the bars follow; in a log, one line per part
            print(f"[{index}/{len(steps)}] {name} ...", flush=True)
        save(current_part={"name": name, "kind": kind})
        part_start = time.perf_counter()
        try:
            detail, reused = action()
            outcome = PartOutcome(name, kind, "ok", time.perf_counter() - part_start, detail, reused)
        except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: say so in the record, then stop
            save(interrupted=f"{'terminated (SIGTERM)' if str(exc) == 'SIGTERM' else 'interrupted (Ctrl-C)'}"
                             f" during part {name}, at {_stamp()}")
            raise
        except Exception as exc:  # recorded and reported; the next part still runs
            planned = isinstance(exc, _PartFailed)
            error = str(exc) if planned else error_line(exc)
            details = exc.details if planned else traceback.format_exc()
            outcome = PartOutcome(name, kind, "failed", time.perf_counter() - part_start, error, False, error, details)
        parts = (*record.parts, outcome)
        finished: dict[str, Any] = {}
        if kind == "report":  # every claim's verdict, from the report if it was written, else gathered directly
            gathered: Gathered | None = None
            try:
                gathered = written[0].gathered if written else gather(out, scale)
            except Exception as exc:  # already reported through the failed report part
                print(f"could not judge the claims: {type(exc).__name__}: {exc}")
            claims = {verdict.claim.id: verdict.status for verdict in gathered.claims} if gathered is not None else {}
            crashed = not all(part.ok for part in parts)
            status = exits.CRASHED if crashed else exits.FAILED if strict and FAILED in claims.values() else exits.OK
            finished = dict(finished_at=_stamp(), claims=claims, exit_status=status)
        save(current_part=None, parts=parts, **finished)
        verdict = "done" if outcome.ok else "FAILED"
        print(f"[{index}/{len(steps)}] {name}: {verdict} in {outcome.wall_time_s or 0.0:.1f} s — {outcome.detail}",
              flush=True)
    return record


def _summary_lines(record: ReproduceRecord, out: Path) -> list[str]:
    """The closing summary: every claim by verdict, the parts that failed, where the report is, the exit status."""
    claims = record.claims or {}
    by_status = {status: [claim for claim, verdict in claims.items() if verdict == status] for status in VERDICTS}
    groups = [f"{len(names)} {status}" + (f" ({', '.join(names)})" if names else "")
              for status, names in by_status.items()]
    failed = [part for part in record.parts if not part.ok]
    lines = ["", f"Claims ({len(claims)}): " + ", ".join(groups) + ".",
             f"Parts: {len(record.parts) - len(failed)} of {len(record.parts)} ran, {len(failed)} crashed; "
             f"{record.wall_time_s:.0f} s in all."]
    lines += [f"CRASHED part {part.name}: {part.error}" for part in failed]
    report = (f"Report: {out / HTML_FILE} (and {out / MARKDOWN_FILE})" if record.parts[-1].ok  # always the last part
              else "No report was written (see the report part above)")
    lines.append(f"{report}; record: {out / REPRODUCE_FILE}")
    status = record.exit_status
    meaning = {exits.OK: "every part ran; verdicts are findings, see the report"
                          + ("" if record.strict else " (--strict exits 1 on a failed claim)"),
               exits.FAILED: "--strict and a claim failed", exits.CRASHED: "a part crashed"}[status]
    lines.append(f"Exit status {status}: {meaning}.")
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm reproduce``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = _EXIT_CODES
    parser.add_argument("--fresh", action="store_true",
                        help="recompute everything instead of reusing finished results")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a claim failed (default: exit 0)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="synthetic runs at a time on the CPU (default: the available cores; 1: all in this "
                             "process)")


def main(args: argparse.Namespace) -> int:
    """Reproduce, print the summary and where the report is; exit status as in :data:`_EXIT_CODES`."""
    record = reproduce(args.out, args.scale, args.seed, args.device, args.fresh, strict=args.strict, jobs=args.jobs)
    print("\n".join(_summary_lines(record, args.out)))
    return int(record.exit_status)  # type: ignore[arg-type]
