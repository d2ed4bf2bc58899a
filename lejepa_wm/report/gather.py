"""Gather what ``verify``, the experiments and ``reproduce`` wrote into one report model.

Inputs below the results root ``out``:

- ``verify.json`` (``lejepa-wm verify``): ``{"passed", "rows": [CheckResult dicts], ...}``;
- ``<experiment>/<scale>/headline.json``, ``summary.csv``, figures and
  ``runs/<run_id>/{spec,metrics}.json`` (:mod:`lejepa_wm.experiments.base`);
- ``reproduce.json`` (``lejepa-wm reproduce``): the status, wall time and error
  of each part of the last reproduction.

Every verdict is recomputed from the stored numbers (:mod:`.verdicts`). A part
that is missing is ``not run``; a part that raised, or whose files are
malformed, is ``failed`` and carries its error, and never stops the others
from being gathered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lejepa_wm.atomic import read_json
from lejepa_wm.claims import CLAIMS, Claim
from lejepa_wm.experiments import EXPERIMENT_MODULES, get_experiment
from lejepa_wm.experiments.base import HEADLINE_FILE, METRICS_FILE, SPEC_FILE, SUMMARY_FILE, experiment_dir
from lejepa_wm.report.verdicts import FAILED, HELD, MEASURED, NOT_RUN, combine, judge

VERIFY_FILE = "verify.json"
REPRODUCE_FILE = "reproduce.json"
CHECK_KEYS = ("claim", "name", "measured", "value", "tolerance", "passed")
HEADLINE_KEYS = ("claim", "name", "measured", "value", "expected", "passed")


@dataclass(frozen=True)
class Row:
    """One judged result: a ``verify`` check or an experiment's headline entry."""

    claim: str
    source: str  # "verify" or the experiment's name
    name: str
    measured: str
    value: float | None
    bound: str
    recorded: bool | None
    status: str
    note: str | None = None
    paper: str | None = None
    figures: tuple[str, ...] = ()
    error: str | None = None  # traceback of a check module that raised


@dataclass(frozen=True)
class PartRecord:
    """What ``reproduce`` recorded for one part (``verify``, an experiment or ``report``)."""

    name: str
    kind: str
    status: str  # "ok" or "failed"
    wall_time_s: float | None
    detail: str
    error: str | None
    traceback: str | None


@dataclass(frozen=True)
class VerifySection:
    """The numerical checks: status ``held``/``failed``/``not run``, rows, timings, error."""

    path: Path
    status: str
    rows: tuple[Row, ...] = ()
    wall_time_s: float | None = None
    seconds_per_claim: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    part: PartRecord | None = None


@dataclass(frozen=True)
class Figure:
    """A figure of an experiment: its file (relative to the results root and absolute) and caption."""

    experiment: str
    relative: str
    path: Path
    caption: str


@dataclass(frozen=True)
class ExperimentSection:
    """One experiment at one scale: its verdict rows, figures, runs and any error."""

    name: str
    scale: str
    folder: Path
    status: str
    description: str | None = None
    rows: tuple[Row, ...] = ()
    figures: tuple[Figure, ...] = ()
    summary_csv: Path | None = None
    runs_finished: int = 0
    compute_time_s: float = 0.0
    seeds: tuple[int, ...] = ()
    error: str | None = None
    part: PartRecord | None = None


@dataclass(frozen=True)
class Evidence:
    """One part of a claim's verdict (``verify`` or an experiment) and why it has that status."""

    source: str
    status: str
    reason: str
    rows: tuple[Row, ...] = ()


@dataclass(frozen=True)
class ClaimVerdict:
    """A claim with the evidence gathered for it and the overall verdict."""

    claim: Claim
    evidence: tuple[Evidence, ...]
    status: str
    reason: str


@dataclass(frozen=True)
class Gathered:
    """Everything the renderers need, except the environment and the Lean ledger."""

    out: Path
    scale: str
    verify: VerifySection
    experiments: tuple[ExperimentSection, ...]
    claims: tuple[ClaimVerdict, ...]
    reproduce: dict[str, Any] | None
    parts: tuple[PartRecord, ...]
    reproduce_error: str | None = None

    @property
    def all_held(self) -> bool:
        """Whether every claim of the registry held."""
        return all(verdict.status == HELD for verdict in self.claims)


def _first_line(text: str) -> str:
    lines = [line for line in str(text).strip().splitlines() if line.strip()]
    return lines[-1] if lines else str(text)


def load_reproduce(out: Path, scale: str) -> tuple[dict[str, Any] | None, tuple[PartRecord, ...], str | None]:
    """``reproduce.json`` and its part records if it exists and was written at this scale, and any read error."""
    path = Path(out) / REPRODUCE_FILE
    if not path.exists():
        return None, (), None
    try:
        record = read_json(path)
        if record.get("scale") != scale:
            return None, (), None
        parts = tuple(
            PartRecord(name=str(p["name"]), kind=str(p.get("kind", "")), status=str(p.get("status", "")),
                       wall_time_s=p.get("wall_time_s"), detail=str(p.get("detail", "")),
                       error=p.get("error"), traceback=p.get("traceback"))
            for p in record.get("parts", [])
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return None, (), f"{path.name} is malformed and was ignored: {type(exc).__name__}: {exc}"
    return record, parts, None


def _check_keys(entry: Any, keys: tuple[str, ...], where: str) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: entry {entry!r} is not an object")
    missing = [key for key in keys if key not in entry]
    if missing:
        raise ValueError(f"{where}: entry {entry.get('name', entry)!r} lacks {', '.join(missing)}")
    return entry


def _row(entry: dict[str, Any], source: str, bound_key: str) -> Row:
    verdict = judge(entry["value"], str(entry[bound_key]), entry["passed"])
    details = entry.get("details")
    traceback = details.get("traceback") if isinstance(details, dict) else None
    return Row(claim=str(entry["claim"]), source=source, name=str(entry["name"]), measured=str(entry["measured"]),
               value=entry["value"], bound=str(entry[bound_key]), recorded=entry["passed"],
               status=verdict.status, note=verdict.note, paper=entry.get("paper"),
               figures=tuple(str(f) for f in entry.get("figures", []) or []), error=traceback)


def superseded(result: Path, record_time: float | None) -> bool:
    """Whether ``result`` was written after the ``reproduce.json`` recorded at ``record_time`` (by a later run)."""
    return record_time is not None and result.exists() and result.stat().st_mtime > record_time


def gather_verify(out: Path, part: PartRecord | None, record_time: float | None = None) -> VerifySection:
    """Read ``verify.json``; a failed ``reproduce`` part or a malformed file makes the section failed.

    A part failure is ignored once ``verify.json`` is newer than the record (``record_time``, its mtime).
    """
    path = Path(out) / VERIFY_FILE
    if part is not None and part.status != "ok" and not superseded(path, record_time):
        return VerifySection(path, FAILED, error=part.error or "failed without an error message", part=part)
    if not path.exists():
        return VerifySection(path, NOT_RUN, error=None, part=part)
    try:
        data = read_json(path)
        if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
            raise ValueError(f"{path.name} has no list of rows")
        rows = tuple(_row(_check_keys(entry, CHECK_KEYS, path.name), "verify", "tolerance")
                     for entry in data["rows"])
    except (ValueError, TypeError, json.JSONDecodeError) as exc:
        return VerifySection(path, FAILED, error=f"malformed {path.name}: {exc}", part=part)
    status = combine([row.status for row in rows]) if rows else FAILED
    return VerifySection(path, status, rows, data.get("wall_time_s"), dict(data.get("seconds_per_claim", {})),
                         None if rows else f"{path.name} has no rows", part)


def figure_caption(path: Path) -> str | None:
    """Caption stored in the PNG itself (``savefig(metadata={"Title": ..., "Description": ...})``)."""
    from PIL import Image

    if path.suffix.lower() != ".png":
        return None

    with Image.open(path) as image:
        text = dict(getattr(image, "text", {}) or {})
    parts = [text[key].strip() for key in ("Title", "Description") if text.get(key, "").strip()]
    return ". ".join(part.rstrip(".") for part in parts) + "." if parts else None


def _default_caption(name: str, file: str, rows: tuple[Row, ...]) -> str:
    """Caption of a figure without one of its own: the headline results that cite it (measured values above)."""
    users = [f"{row.claim} — {row.name}" for row in rows if file in row.figures]
    if not users:
        return f"{file} of experiment {name}."
    return f"{file} of experiment {name}, the figure for: {'; '.join(users)}."


def _runs(folder: Path) -> tuple[int, float, tuple[int, ...]]:
    """Number of finished runs, their summed compute time, and the seeds their specs name."""
    count, seconds, seeds = 0, 0.0, set()
    for metrics_path in sorted((folder / "runs").glob(f"*/{METRICS_FILE}")):
        count += 1
        metrics = read_json(metrics_path)
        if isinstance(metrics.get("wall_time_s"), (int, float)):
            seconds += float(metrics["wall_time_s"])
        spec_path = metrics_path.parent / SPEC_FILE
        if spec_path.exists():
            seed = read_json(spec_path).get("params", {}).get("seed")
            if isinstance(seed, int) and not isinstance(seed, bool):
                seeds.add(seed)
    return count, seconds, tuple(sorted(seeds))


def experiment_description(name: str) -> str | None:
    """The experiment's own one-line description, or ``None`` if its module cannot be imported."""
    try:
        return str(get_experiment(name).description)
    except Exception:  # a broken experiment module is reported through its results, not here
        return None


def gather_experiment(out: Path, name: str, scale: str, part: PartRecord | None,
                      record_time: float | None = None) -> ExperimentSection:
    """Read one experiment's folder at ``scale``; failures become a failed section with the error.

    A part failure is ignored once ``headline.json`` is newer than the record (``record_time``, its mtime),
    i.e. after the experiment was rerun successfully on its own.
    """
    folder = experiment_dir(out, name, scale)
    description = experiment_description(name)
    if part is not None and part.status != "ok" and not superseded(folder / HEADLINE_FILE, record_time):
        return ExperimentSection(name, scale, folder, FAILED, description,
                                 error=part.error or "failed without an error message", part=part)
    headline = folder / HEADLINE_FILE
    if not headline.exists():
        return ExperimentSection(name, scale, folder, NOT_RUN, description, part=part)
    try:
        entries = read_json(headline)
        if not isinstance(entries, list) or not entries:
            raise ValueError(f"{HEADLINE_FILE} must be a non-empty list of entries")
        rows = tuple(_row(_check_keys(entry, HEADLINE_KEYS, HEADLINE_FILE), name, "expected") for entry in entries)
        runs_finished, compute_time, seeds = _runs(folder)
        named = list(dict.fromkeys(f for row in rows for f in row.figures))
        missing = [f for f in named if not (folder / f).is_file()]
        if missing:
            raise ValueError(f"{HEADLINE_FILE} names figure(s) that do not exist: {', '.join(missing)}")
        extra = sorted(p.name for p in folder.glob("*.png") if p.name not in named)
        figures = tuple(
            Figure(name, (folder / f).relative_to(out).as_posix(), folder / f,
                   figure_caption(folder / f) or _default_caption(name, f, rows))
            for f in named + extra
        )
    except (ValueError, TypeError, KeyError, OSError, json.JSONDecodeError) as exc:
        return ExperimentSection(name, scale, folder, FAILED, description, error=f"{type(exc).__name__}: {exc}",
                                 part=part)
    summary = folder / SUMMARY_FILE
    return ExperimentSection(name, scale, folder, combine([row.status for row in rows]), description, rows, figures,
                             summary if summary.exists() else None, runs_finished, compute_time, seeds, None, part)


def _verify_evidence(claim: Claim, verify: VerifySection) -> Evidence | None:
    if claim.checks is None:
        return None
    if verify.status == NOT_RUN:
        return Evidence("verify", NOT_RUN, f"no {VERIFY_FILE} (verify has not run)")
    rows = tuple(row for row in verify.rows if row.claim == claim.id)
    if verify.error is not None and not rows:
        return Evidence("verify", FAILED, f"verify failed: {_first_line(verify.error)}")
    if not rows:
        return Evidence("verify", NOT_RUN, f"{VERIFY_FILE} has no check of {claim.id}")
    status = combine([row.status for row in rows])
    failed = [row for row in rows if row.status == FAILED]
    reason = (f"{len(rows)} check(s) held" if status == HELD else
              f"{len(failed)} of {len(rows)} check(s) failed: " + ", ".join(row.name for row in failed))
    return Evidence("verify", status, reason, rows)


def _experiment_evidence(claim: Claim, section: ExperimentSection, required: bool) -> Evidence | None:
    if section.status == NOT_RUN:
        return Evidence(section.name, NOT_RUN, f"experiment {section.name} has no results at scale "
                                               f"{section.scale}") if required else None
    if section.error is not None:
        return Evidence(section.name, FAILED,
                        f"experiment {section.name} failed: {_first_line(section.error)}") if required else None
    rows = tuple(row for row in section.rows if row.claim == claim.id)
    if not rows:
        return Evidence(section.name, NOT_RUN,
                        f"{section.name}'s {HEADLINE_FILE} has no entry for {claim.id}") if required else None
    status = combine([row.status for row in rows])
    failed = [row for row in rows if row.status == FAILED]
    measured = sum(row.status == MEASURED for row in rows)
    if status == FAILED:
        reason = f"{len(failed)} of {len(rows)} headline result(s) failed: " + ", ".join(row.name for row in failed)
    else:
        reason = f"{len(rows) - measured} headline result(s) {status}"
    if measured:
        reason += f", {measured} measured outside the theorem's scope (no prediction)"
    return Evidence(section.name, status, reason, rows)


def judge_claim(claim: Claim, verify: VerifySection, experiments: tuple[ExperimentSection, ...]) -> ClaimVerdict:
    """Overall verdict of a claim: held only if its check and every experiment that tests it held."""
    evidence = [_verify_evidence(claim, verify)]
    evidence += [_experiment_evidence(claim, section, section.name in claim.experiments) for section in experiments]
    kept = tuple(item for item in evidence if item is not None)
    if not kept:
        return ClaimVerdict(claim, kept, NOT_RUN, "nothing tests this claim numerically")
    status = combine([item.status for item in kept])
    reason = "; ".join(f"{item.source}: {item.reason}" for item in kept if item.status == status)
    return ClaimVerdict(claim, kept, status, reason)


def experiment_names() -> tuple[str, ...]:
    """Every experiment the package defines, in the registry's order."""
    return tuple(EXPERIMENT_MODULES)


def gather(out: Path, scale: str, claims: tuple[Claim, ...] = CLAIMS) -> Gathered:
    """Read every result below ``out`` at ``scale`` and judge every claim."""
    out = Path(out)
    reproduce, parts, reproduce_error = load_reproduce(out, scale)
    record_time = (out / REPRODUCE_FILE).stat().st_mtime if reproduce is not None else None
    by_name = {part.name: part for part in parts}
    verify = gather_verify(out, by_name.get("verify"), record_time)
    experiments = tuple(gather_experiment(out, name, scale, by_name.get(name), record_time)
                        for name in experiment_names())
    verdicts = tuple(judge_claim(claim, verify, experiments) for claim in claims)
    return Gathered(out, scale, verify, experiments, verdicts, reproduce, parts, reproduce_error)
