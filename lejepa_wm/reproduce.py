"""``lejepa-wm reproduce``: from a fresh clone to one report — verify, every quick experiment, report.

Parts, in order: ``verify`` (every claim's numerical checks), each experiment of
:data:`REPRODUCED_EXPERIMENTS` through :func:`lejepa_wm.experiments.runner.run_experiment`,
then ``report``. A second invocation reuses what is finished: experiment runs
with a ``metrics.json`` are never recomputed, and ``verify.json`` is reused
when it was written by this same package version and covers every claim;
``--fresh`` recomputes everything. Each part's status, wall time and error
(with traceback) go to ``<out>/reproduce.json``, rewritten atomically after
every part; a part that raises is recorded as failed and the next part runs.
The exit status is 0 only if every part ran and every claim held.
"""

from __future__ import annotations

import argparse
import time
import traceback
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from tqdm import tqdm

from lejepa_wm import __version__
from lejepa_wm.atomic import atomic_write_json, read_json
from lejepa_wm.claims import CLAIMS
from lejepa_wm.config import SCALES
from lejepa_wm.device import DEVICE_CHOICES
from lejepa_wm.experiments import SYNTHETIC_EXPERIMENTS
from lejepa_wm.experiments.runner import run_experiment
from lejepa_wm.report import write_report
from lejepa_wm.report.environment import collect_environment
from lejepa_wm.report.gather import REPRODUCE_FILE, VERIFY_FILE, Gathered, gather
from lejepa_wm.validation import check_choice
from lejepa_wm.verify import run_verify

DEFAULT_OUT = Path("results")
REPRODUCED_EXPERIMENTS: tuple[str, ...] = (*SYNTHETIC_EXPERIMENTS, "reacher")


@dataclass
class PartOutcome:
    """One part of the reproduction as recorded in ``reproduce.json``."""

    name: str
    kind: str  # "verify", "experiment" or "report"
    status: str  # "ok" or "failed"
    wall_time_s: float
    detail: str
    reused: bool
    error: str | None = None
    traceback: str | None = None


def _stamp() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def reusable_verify(path: Path) -> tuple[bool, str]:
    """Whether ``verify.json`` at ``path`` may be reused, and why (or why not)."""
    if not path.exists():
        return False, f"no {path}"
    try:
        data = read_json(path)
    except ValueError as exc:
        return False, f"{path} is unreadable ({exc})"
    version = data.get("package_version") if isinstance(data, dict) else None
    if version is None:
        return False, f"{path} does not record the package version that wrote it"
    if version != __version__:
        return False, f"{path} was written by lejepa-wm {version}, this is {__version__}"
    covered = {row.get("claim") for row in data.get("rows", []) if isinstance(row, dict)}
    missing = [claim.id for claim in CLAIMS if claim.checks is not None and claim.id not in covered]
    if missing:
        return False, f"{path} lacks the checks of {', '.join(missing)}"
    return True, f"reused {path} (written by this package version, {__version__})"


def check_same_seed(out: Path, scale: str, seed: int) -> None:
    """Refuse to mix runs of two seed offsets: finished runs are reused by run id, whatever their seed."""
    path = Path(out) / REPRODUCE_FILE
    if not path.exists():
        return
    earlier = read_json(path)
    if earlier.get("scale") == scale and earlier.get("seed", seed) != seed:
        raise ValueError(f"results in {out} were produced with seed offset {earlier['seed']}, not {seed}; "
                         "pass --fresh to recompute them or choose another --out")


def verify_part(out: Path, fresh: bool, progress: bool) -> tuple[str, bool]:
    """Run (or reuse) every claim's checks, one claim at a time with a progress bar; write ``verify.json``."""
    path = Path(out) / VERIFY_FILE
    if not fresh:
        reuse, why = reusable_verify(path)
        if reuse:
            return why, True
        print(f"verify: recomputing — {why}")
    start = time.perf_counter()
    rows: list[dict[str, Any]] = []
    seconds: dict[str, float] = {}
    for claim in tqdm(CLAIMS, desc="verify", unit="claim", disable=not progress):
        summary = run_verify([claim.id])
        rows += summary["rows"]
        seconds.update(summary["seconds_per_claim"])
    result = {"passed": all(row["passed"] for row in rows), "rows": rows, "seconds_per_claim": seconds,
              "wall_time_s": time.perf_counter() - start, "package_version": __version__}
    atomic_write_json(path, result)
    failed = sum(not row["passed"] for row in rows)
    return f"ran {len(rows)} checks: {len(rows) - failed} passed, {failed} failed", False


def experiment_part(name: str, out: Path, scale: str, seed: int, device: str, fresh: bool,
                    progress: bool) -> tuple[str, bool]:
    """Run (or resume) one experiment at ``scale``; say how many runs were executed and reused."""
    summary = run_experiment(name, scale, out, seed=seed, device=device, restart=fresh, progress=progress)
    executed, reused = len(summary["executed"]), len(summary["reused"])
    if executed == 0 and reused:
        return f"reused {reused} finished run(s), nothing recomputed", True
    detail = f"executed {executed} run(s)"
    return detail + (f", reused {reused} finished run(s)" if reused else ""), False


class ReproduceLog:
    """The ``reproduce.json`` record, rewritten atomically whenever a part finishes."""

    def __init__(self, out: Path, scale: str, seed: int, device: str, fresh: bool) -> None:
        self.path = Path(out) / REPRODUCE_FILE
        self.start = time.perf_counter()
        self.record: dict[str, Any] = {
            "package_version": __version__, "scale": scale, "seed": seed, "device": device, "fresh": fresh,
            "started_at": _stamp(), "finished_at": None, "wall_time_s": 0.0, "parts": [],
            "environment": collect_environment(),
        }
        self.save()

    def save(self) -> None:
        """Write the record (with the wall time so far)."""
        self.record["wall_time_s"] = time.perf_counter() - self.start
        atomic_write_json(self.path, self.record)

    def add(self, outcome: PartOutcome) -> None:
        """Append a finished part and save."""
        self.record["parts"].append(asdict(outcome))
        self.save()

    @property
    def outcomes(self) -> list[dict[str, Any]]:
        """The parts recorded so far."""
        return self.record["parts"]


def run_part(name: str, kind: str, action: Callable[[], tuple[str, bool]]) -> PartOutcome:
    """Run one part; an exception becomes a failed outcome carrying the error and its traceback."""
    start = time.perf_counter()
    try:
        detail, reused = action()
    except Exception as exc:  # recorded and reported; the next part still runs
        error = f"{type(exc).__name__}: {exc}"
        return PartOutcome(name, kind, "failed", time.perf_counter() - start, error, False, error,
                           traceback.format_exc())
    return PartOutcome(name, kind, "ok", time.perf_counter() - start, detail, reused)


def _announce(index: int, total: int, outcome: PartOutcome) -> None:
    verdict = "done" if outcome.status == "ok" else "FAILED"
    print(f"[{index}/{total}] {outcome.name}: {verdict} in {outcome.wall_time_s:.1f} s — {outcome.detail}")


def reproduce(out: Path = DEFAULT_OUT, scale: str = "quick", seed: int = 0, device: str = "cpu",
              fresh: bool = False, experiments: tuple[str, ...] = REPRODUCED_EXPERIMENTS,
              progress: bool = True) -> dict[str, Any]:
    """Run every part, write the report, and return the final ``reproduce.json`` record."""
    check_choice(scale, SCALES, "scale")
    check_choice(device, DEVICE_CHOICES, "device")
    out = Path(out)
    if not fresh:
        check_same_seed(out, scale, seed)
    log = ReproduceLog(out, scale, seed, device, fresh)
    total = 2 + len(experiments)
    steps: list[tuple[str, str, Callable[[], tuple[str, bool]]]] = [
        ("verify", "verify", lambda: verify_part(out, fresh, progress))]
    steps += [(name, "experiment",
               lambda name=name: experiment_part(name, out, scale, seed, device, fresh, progress))
              for name in experiments]
    for index, (name, kind, action) in enumerate(steps, 1):
        print(f"[{index}/{total}] {name} ...", flush=True)
        outcome = run_part(name, kind, action)
        log.add(outcome)
        _announce(index, total, outcome)

    written: list[Any] = []

    def report_action() -> tuple[str, bool]:
        written.append(write_report(out, scale))
        return f"wrote {written[0].markdown} and {written[0].html}", False

    print(f"[{total}/{total}] report ...", flush=True)
    outcome = run_part("report", "report", report_action)
    _announce(total, total, outcome)
    claims = _claim_statuses(written[0].gathered if written else None, out, scale)
    all_held = bool(claims) and all(status == "held" for status in claims.values())
    parts_ok = all(part["status"] == "ok" for part in log.outcomes) and outcome.status == "ok"
    log.record.update(finished_at=_stamp(), claims=claims, all_claims_held=all_held,
                      exit_status=0 if parts_ok and all_held else 1)
    log.add(outcome)
    return log.record


def _claim_statuses(gathered: Gathered | None, out: Path, scale: str) -> dict[str, str]:
    """Each claim's verdict, from the report if it was written, else gathered directly (empty if that fails)."""
    if gathered is None:
        try:
            gathered = gather(out, scale)
        except Exception as exc:  # already reported through the failed report part
            print(f"could not judge the claims: {type(exc).__name__}: {exc}")
            return {}
    return {verdict.claim.id: verdict.status for verdict in gathered.claims}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``lejepa-wm reproduce``."""
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="results root (default: results)")
    parser.add_argument("--scale", choices=SCALES, default="quick", help="experiment scale (default: quick)")
    parser.add_argument("--seed", type=int, default=0, help="offset added to every run's seed")
    parser.add_argument("--device", choices=DEVICE_CHOICES, default="cpu")
    parser.add_argument("--fresh", action="store_true",
                        help="recompute everything instead of reusing finished results")


def main(args: argparse.Namespace) -> int:
    """Reproduce, print where the report is; 0 only if every part ran and every claim held."""
    record = reproduce(args.out, args.scale, args.seed, args.device, args.fresh)
    failed = [part for part in record["parts"] if part["status"] != "ok"]
    statuses = list(record["claims"].values())
    print(f"\n{statuses.count('held')} of {len(statuses)} claims held, {statuses.count('failed')} failed, "
          f"{statuses.count('not run')} not run; {len(failed)} part(s) failed; "
          f"{record['wall_time_s']:.0f} s in all.")
    for part in failed:
        print(f"FAILED part {part['name']}: {part['error']}")
    report = Path(args.out) / "report.html"
    if report.exists():
        print(f"Report: {report} (and {Path(args.out) / 'report.md'}); record: {Path(args.out) / REPRODUCE_FILE}")
    return int(record["exit_status"])
