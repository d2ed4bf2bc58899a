"""Gather what ``verify``, the experiments and ``reproduce`` wrote into one report model.

Inputs below the results root ``out``, each read through the records of
:mod:`lejepa_wm.records` (``from_dict``), never by parsing text:

- ``verify.json`` (``lejepa-wm verify``): ``{"passed", "rows": [CheckResult.to_dict()], ...}``;
- ``<experiment>/<scale>/headline.json``: a JSON list of ``HeadlineEntry.to_dict()``
  objects, plus ``summary.csv``, figures and ``runs/<run_id>/{spec,metrics}.json``
  (:mod:`lejepa_wm.experiments.base`);
- ``reproduce.json`` (``lejepa-wm reproduce``): a :class:`~lejepa_wm.records.ReproduceRecord`,
  with the :class:`~lejepa_wm.records.PartOutcome` of each part of the last reproduction.

Every verdict is recomputed from the stored numbers, never parsed from text
(:class:`JudgedRow`): a check's from its value and bound
(:meth:`~lejepa_wm.records.CheckResult.judged`), a headline entry's by
:func:`~lejepa_wm.records.verdict_of`; a stored ``passed`` or ``verdict`` that
contradicts the numbers fails the row with a note. A part
that is missing is ``not run``; a part that raised is ``failed`` and carries its
error, and so does the part a reproduction was in when it was interrupted or
killed. A damaged file (not JSON, a list where an object belongs, a field of the
wrong type, a metric of the wrong type, a FIFO or device where a file belongs)
makes only its own section ``failed``, with an error naming the file and the
field, and never stops the others from being gathered: the report is always
written.

An experiment's results are read as the set its aggregation published
(:func:`~lejepa_wm.atomic.read_publication`: ``published.json`` names each file's
hash, so a summary, figure or headline changed afterwards is detected), and must
belong where they lie: a published set or a run whose spec names another
experiment or scale than its folder (quick results copied under ``full/``)
fails the section. Each figure is validated here (a readable image inside the
results folder), so a bad one fails its own section only.
"""

from __future__ import annotations

import io
import os
import socket
from collections import Counter
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, TypeVar

from lejepa_wm.atomic import PUBLISHED_FILE, read_named_json, read_publication, read_regular
from lejepa_wm.claims import CLAIMS, Claim
from lejepa_wm.experiments import EXPERIMENT_MODULES, get_experiment
from lejepa_wm.experiments.base import (HEADLINE_FILE, METRICS_FILE, SPEC_FILE, SUMMARY_FILE, experiment_dir,
                                       folder_labels, read_run, run_compute_seconds)
from lejepa_wm.machine import describe_machine
from lejepa_wm.records import (FAILED, MEASURED, NOT_RUN, UNRESOLVED, CheckResult, HeadlineEntry, PartOutcome,
                               ReproduceRecord, VerifyRecord, combine)
from lejepa_wm.schema import read
from lejepa_wm.sweep.state import process_exists

__all__ = [
    "VERIFY_FILE", "REPRODUCE_FILE", "JudgedRow", "Figure", "VerifySection", "ExperimentSection", "Evidence",
    "ClaimVerdict", "Gathered", "interrupted_part", "figure_caption", "gather_experiment", "gather"
]

_T = TypeVar("_T")

VERIFY_FILE = "verify.json"
REPRODUCE_FILE = "reproduce.json"
_FIGURE_LIMIT = 64 * 2**20
"""The largest figure or summary embedded in the report (bytes)."""


@dataclass(frozen=True)
class JudgedRow:
    """A check or headline result as the report shows it: where it comes from (``verify`` or the experiment's
    name), and its verdict recomputed from the numbers with the note that explains a contradiction."""

    source: str
    record: CheckResult | HeadlineEntry
    status: str
    note: str | None = None

    @property
    def claim(self) -> str:
        return self.record.claim

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def paper(self) -> str | None:
        return getattr(self.record, "paper", None)

    @property
    def error(self) -> str | None:
        """The traceback a check module that raised left in its row, if any."""
        traceback = getattr(self.record, "details", {}).get("traceback")
        return traceback if isinstance(traceback, str) else None


@dataclass(frozen=True)
class Figure:
    """An image file (``relative`` to the results root, ``path`` on disk) and its caption; the report numbers it."""

    relative: str
    path: Path
    caption: str


@dataclass(frozen=True)
class VerifySection:
    """The numerical checks (``verify.json``): status, judged rows, timings, and the error that failed the section."""

    status: str
    rows: tuple[JudgedRow, ...] = ()
    wall_time_s: float | None = None
    seconds_per_claim: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    part: PartOutcome | None = None


@dataclass(frozen=True)
class ExperimentSection:
    """One experiment at one scale: its judged headline rows, figures, runs, and what failed it.

    ``error`` is set when the section cannot be shown (its part raised, its
    ``headline.json`` is damaged); ``damaged`` lists run files that are damaged
    (the rows are still shown, but the section is failed).
    """

    name: str
    scale: str
    status: str
    description: str | None = None
    rows: tuple[JudgedRow, ...] = ()
    figures: tuple[Figure, ...] = ()
    summary_csv: Path | None = None
    runs_finished: int = 0
    compute_time_s: float = 0.0
    seeds: tuple[int, ...] = ()
    error: str | None = None
    part: PartOutcome | None = None
    damaged: tuple[str, ...] = ()
    runs_planned: int | None = None  # None (both) when the default grid cannot be built
    runs_of_grid: int | None = None
    machines: tuple[tuple[str, int], ...] = ()

    def machines_text(self) -> str:
        """Which machines the finished runs ran on, with how many runs each (``"-"`` without runs)."""
        return "; ".join(f"{machine} ({count} runs)" for machine, count in self.machines) or "-"

    @property
    def partial(self) -> bool:
        """Whether fewer runs of the default grid have finished than it holds (the verdicts cover only those)."""
        return self.runs_planned is not None and self.runs_of_grid < self.runs_planned  # type: ignore[operator]

    def coverage(self) -> str:
        """``" (partial grid: X of Y runs finished ...)"`` for a partial section, else ``""``."""
        return (f" (partial grid: {self.runs_of_grid} of {self.runs_planned} runs of the default {self.scale} "
                f"grid finished; its verdicts cover those runs only)") if self.partial else ""


@dataclass(frozen=True)
class Evidence:
    """One part of a claim's verdict (``verify`` or an experiment) and why it has that status."""

    source: str
    status: str
    reason: str
    rows: tuple[JudgedRow, ...] = ()


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

    scale: str
    verify: VerifySection
    experiments: tuple[ExperimentSection, ...]
    claims: tuple[ClaimVerdict, ...]
    reproduce: ReproduceRecord | None
    parts: tuple[PartOutcome, ...]
    reproduce_error: str | None = None


def _last_line(text: str) -> str:
    """The last line of ``text`` that is not blank (``text`` itself when all of it is blank)."""
    return (text.strip().splitlines() or [text])[-1]


def interrupted_part(record: ReproduceRecord) -> PartOutcome | None:
    """The part a reproduction was in when it stopped without finishing, as a failed part; ``None`` when it
    finished or is still running (its process is alive on this host)."""
    if record.finished_at is not None:
        return None
    if record.interrupted is None and record.host == socket.gethostname() and (
            record.pid == os.getpid() or process_exists(record.pid)):
        return None
    current = record.current_part or {}
    name, kind = current.get("name", "reproduce"), current.get("kind", "reproduce")
    why = record.interrupted or f"the reproduction stopped during part {name} without finishing (killed?)"
    return PartOutcome(name, kind, "failed", None, f"interrupted: {why}", error=(
        f"interrupted: {why}; run `lejepa-wm reproduce` again to finish it"))


def _load_reproduce(out: Path, scale: str) -> tuple[ReproduceRecord | None, tuple[PartOutcome, ...], str | None]:
    """``reproduce.json`` and its part records if it exists and was written at this scale, and any read error.

    A reproduction that stopped without finishing gains a failed part for the part it was in
    (:func:`interrupted_part`).
    """
    path = out / REPRODUCE_FILE
    if not path.exists():
        return None, (), None
    try:
        data = read_named_json(path, REPRODUCE_FILE)
        if isinstance(data, dict) and data.get("scale") != scale:
            return None, (), None
        record = read(ReproduceRecord, data, REPRODUCE_FILE)
    except ValueError as exc:
        return None, (), f"{REPRODUCE_FILE} is malformed and was ignored: {exc}"
    stopped = interrupted_part(record)
    return record, record.parts + ((stopped,) if stopped is not None else ()), None


def _unread(section: Callable[..., _T], part: PartOutcome | None, result: Path, record_time: float | None) -> _T | None:
    """The section (made by ``section(status, ...)``) when its ``result`` file is not to be read, else ``None``.

    ``failed`` with the error of a failed ``part`` of the reproduction recorded at ``record_time`` (unless
    ``result`` was written after the record, by a later run), else ``not run`` when ``result`` does not exist.
    """
    rerun = record_time is not None and result.exists() and result.stat().st_mtime > record_time
    if part is not None and not part.ok and not rerun:
        return section(FAILED, error=part.error or "failed without an error message")
    return None if result.exists() else section(NOT_RUN)


def _gather_verify(out: Path, part: PartOutcome | None, record_time: float | None = None) -> VerifySection:
    """Read ``verify.json``; a failed ``reproduce`` part (:func:`_unread`) or a damaged file fails the section."""
    path = out / VERIFY_FILE
    section = partial(VerifySection, part=part)
    if (unread := _unread(section, part, path, record_time)) is not None:
        return unread
    try:
        record = read(VerifyRecord, read_named_json(path, VERIFY_FILE), VERIFY_FILE)
    except ValueError as exc:
        return section(FAILED, error=f"damaged {VERIFY_FILE}: {exc}")
    if not record.rows:
        return section(FAILED, error=f"{VERIFY_FILE} has no rows")
    rows = tuple(JudgedRow("verify", check, *check.judged()) for check in record.rows)
    return section(combine([row.status for row in rows]), rows, record.wall_time_s, record.seconds_per_claim)


def figure_caption(path: Path) -> str | None:
    """Caption stored in the PNG itself (``savefig(metadata={"Title": ..., "Description": ...})``)."""
    from PIL import Image

    try:
        with Image.open(path) as image:
            text = dict(getattr(image, "text", {}) or {})
    except (OSError, SyntaxError, ValueError):  # PIL's errors for a damaged image: no caption to read
        return None
    parts = [text[key].strip() for key in ("Title", "Description") if text.get(key, "").strip()]
    return ". ".join(part.rstrip(".") for part in parts) + "." if parts else None


def _figure(path: Path, out: Path, default_caption: str) -> Figure:
    """The figure at ``path``, captioned by its own caption, else ``default_caption``; ``ValueError`` naming it
    unless it is a readable PNG image inside ``out`` (the experiments draw their figures as PNG, which carries
    their captions)."""
    label = path.relative_to(out).as_posix()
    if not path.resolve().is_relative_to(out.resolve()):
        raise ValueError(f"figure {label} lies outside the results folder {out}")
    data = read_regular(path, _FIGURE_LIMIT)
    if path.suffix.lower() != ".png":
        raise ValueError(f"figure {label} has unsupported type {path.suffix.lower()!r}; expected .png")
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            found = image.format
            image.verify()
    except Exception as exc:  # PIL raises many kinds for a damaged image
        raise ValueError(f"figure {label} is not a readable image ({type(exc).__name__}: {exc})") from None
    if found != "PNG":
        raise ValueError(f"figure {label} holds a {found} image, not PNG")
    return Figure(label, path, figure_caption(path) or default_caption)


def _default_caption(name: str, file: str, rows: tuple[JudgedRow, ...]) -> str:
    """Caption of a figure without one of its own: the headline results that cite it (measured values above)."""
    users = "; ".join(f"{row.claim} — {row.name}" for row in rows if file in row.record.figures)
    return f"{file} of experiment {name}" + (f", the figure for: {users}." if users else ".")


def _read_runs(folder: Path, out: Path, planned: frozenset[str] | None) -> dict[str, Any]:
    """The finished runs below ``folder`` as :class:`ExperimentSection` fields (``planned``: the default grid's ids).

    A run with a damaged ``metrics.json`` or ``spec.json`` is listed in ``damaged``, not counted.
    """
    seconds, seeds, damaged, run_ids, machines = 0.0, set(), [], set(), Counter()
    for metrics_path in sorted((folder / "runs").glob(f"*/{METRICS_FILE}")):
        try:
            run = read_run(metrics_path.parent, out)
            if (why := run.misplaced(folder)) is not None:
                raise ValueError(f"{(metrics_path.parent / SPEC_FILE).relative_to(out).as_posix()} {why}")
        except ValueError as exc:
            damaged.append(str(exc))
            continue
        run_ids.add(metrics_path.parent.name)
        machines[describe_machine(run.metrics.get("machine"))] += 1
        seconds += run_compute_seconds(run.metrics) or 0.0
        seed = run.spec.labels.get("seed", run.spec.params.get("seed"))
        if isinstance(seed, int) and not isinstance(seed, bool):
            seeds.add(seed)
    return dict(runs_finished=len(run_ids), compute_time_s=seconds, seeds=tuple(sorted(seeds)), damaged=tuple(damaged),
                machines=tuple(machines.most_common()), runs_planned=None if planned is None else len(planned),
                runs_of_grid=None if planned is None else len(planned & run_ids))


def _read_headline(path: Path, source: str) -> tuple[JudgedRow, ...]:
    """The judged entries of ``headline.json`` (a non-empty list of ``HeadlineEntry.to_dict()`` objects)."""
    data = read_named_json(path, HEADLINE_FILE)
    entries = read(list[HeadlineEntry], data, HEADLINE_FILE)
    if not entries:
        raise ValueError(f"{HEADLINE_FILE} must be a non-empty list of entries; got an empty list")
    return tuple(JudgedRow(source, entry, *entry.judged(raw.get("verdict"))) for entry, raw in zip(entries, data))


def gather_experiment(out: Path, name: str, scale: str, part: PartOutcome | None,
                      record_time: float | None = None) -> ExperimentSection:
    """Read one experiment's folder at ``scale``; failures become a failed section with the error.

    A failed part (:func:`_unread`) counts until ``headline.json`` is rewritten after the record.
    """
    folder = experiment_dir(out, name, scale)
    headline = folder / HEADLINE_FILE
    description: str | None = None
    planned: frozenset[str] | None = None  # the run ids of the default grid at ``scale`` (its shipped config)
    with suppress(Exception):  # a broken experiment module is reported through its results
        experiment = get_experiment(name)
        description = str(experiment.description)
        planned = frozenset(spec.run_id for spec in experiment.grid(experiment.load_config(scale), scale))
    section = partial(ExperimentSection, name, scale, part=part, description=description)
    if (unread := _unread(section, part, headline, record_time)) is not None:
        return unread
    try:
        published = read_publication(folder)
        if published is not None and published.labels != folder_labels(folder):
            raise ValueError(f"{PUBLISHED_FILE} records experiment {published.labels.get('experiment')!r} at scale "
                             f"{published.labels.get('scale')!r}, but lies in {name}/{scale}/ (copied from "
                             "elsewhere?)")
        if published is not None and HEADLINE_FILE not in published.files:
            raise ValueError(f"{HEADLINE_FILE} is not part of the set published in {PUBLISHED_FILE}")
        rows = _read_headline(headline, name)
        named = list(dict.fromkeys(f for row in rows for f in row.record.figures))
        strays = [f for f in named if not f or Path(f).name != f or f in (".", "..")]
        if strays:
            raise ValueError(f"{HEADLINE_FILE} names figure {strays[0]!r}, which is not a file name in {folder}")
        missing = [f for f in named if not (folder / f).exists()]
        if missing:
            raise ValueError(f"{HEADLINE_FILE} names figure(s) that do not exist: {', '.join(missing)}")
        candidates = published.files if published is not None else [p.name for p in folder.glob("*.png")]
        extra = sorted(f for f in candidates if f.endswith(".png") and f not in named)
        figures = tuple(_figure(folder / f, out, _default_caption(name, f, rows)) for f in named + extra)
        summary = folder / SUMMARY_FILE
        if summary.exists():
            try:
                read_regular(summary, _FIGURE_LIMIT).decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"{SUMMARY_FILE} is not UTF-8 text") from None
    except (ValueError, OSError) as exc:  # OSError: a figure that cannot be opened
        return section(FAILED, error=f"{type(exc).__name__}: {exc}")
    runs = _read_runs(folder, out, planned)
    status = FAILED if runs["damaged"] else combine([row.status for row in rows])
    return section(status, rows=rows, figures=figures, summary_csv=summary if summary.exists() else None, **runs)


def _rows_evidence(source: str, rows: tuple[JudgedRow, ...], noun: str, note: str = "") -> Evidence:
    """The combined verdict of a claim's ``rows`` from ``source``, with a reason naming what failed or is unresolved."""
    status = combine([row.status for row in rows])
    by_status = {key: [row.name for row in rows if row.status == key] for key in (FAILED, UNRESOLVED, MEASURED)}
    if status == FAILED:
        reason = f"{len(by_status[FAILED])} of {len(rows)} {noun} failed: " + ", ".join(by_status[FAILED])
    else:
        reason = f"{len(rows) - len(by_status[MEASURED])} {noun} {status}"
    if by_status[UNRESOLVED]:
        named = "" if status == UNRESOLVED else "; not resolved"
        reason += f"{named} (margin within two standard errors): {', '.join(by_status[UNRESOLVED])}"
    if by_status[MEASURED]:
        reason += f", {len(by_status[MEASURED])} measured outside the theorem's scope (no prediction)"
    return Evidence(source, status, reason + note, rows)


def _verify_evidence(claim: Claim, verify: VerifySection) -> Evidence | None:
    if claim.checks is None:
        return None
    if verify.status == NOT_RUN:
        return Evidence("verify", NOT_RUN, f"no {VERIFY_FILE} (verify has not run)")
    rows = tuple(row for row in verify.rows if row.claim == claim.id)
    if verify.error is not None and not rows:
        return Evidence("verify", FAILED, f"verify failed: {_last_line(verify.error)}")
    if not rows:
        return Evidence("verify", NOT_RUN, f"{VERIFY_FILE} has no check of {claim.id}")
    return _rows_evidence("verify", rows, "check(s)")  # a check is held or failed


def _experiment_evidence(claim: Claim, section: ExperimentSection, required: bool) -> Evidence | None:
    rows = tuple(row for row in section.rows if row.claim == claim.id)
    if not rows:  # no results, a failed section or no entry of this claim: evidence only where the claim needs it
        if not required:
            return None
        if section.status == NOT_RUN:
            return Evidence(section.name, NOT_RUN, f"experiment {section.name} has no results at scale {section.scale}")
        if section.error is not None:
            return Evidence(section.name, FAILED, f"experiment {section.name} failed: {_last_line(section.error)}")
        return Evidence(section.name, NOT_RUN, f"{section.name}'s {HEADLINE_FILE} has no entry for {claim.id}")
    if section.damaged:
        return Evidence(section.name, FAILED, f"experiment {section.name} has damaged result file(s): "
                                              + "; ".join(section.damaged), rows)
    return _rows_evidence(section.name, rows, "headline result(s)", section.coverage())


def _judge_claim(claim: Claim, verify: VerifySection, experiments: tuple[ExperimentSection, ...]) -> ClaimVerdict:
    """Overall verdict of a claim: held only if its check and every experiment that tests it held."""
    evidence = [_verify_evidence(claim, verify)]
    evidence += [_experiment_evidence(claim, section, section.name in claim.experiments) for section in experiments]
    kept = tuple(item for item in evidence if item is not None)
    if not kept:
        return ClaimVerdict(claim, kept, NOT_RUN, "nothing tests this claim numerically")
    status = combine([item.status for item in kept])
    reason = "; ".join(f"{item.source}: {item.reason}" for item in kept if item.status == status)
    return ClaimVerdict(claim, kept, status, reason)


def gather(out: Path, scale: str) -> Gathered:
    """Read every result below ``out`` at ``scale`` and judge every claim."""
    reproduce, parts, reproduce_error = _load_reproduce(out, scale)
    record_time = (out / REPRODUCE_FILE).stat().st_mtime if reproduce is not None else None
    by_name = {part.name: part for part in parts}
    verify = _gather_verify(out, by_name.get("verify"), record_time)
    experiments = tuple(gather_experiment(out, name, scale, by_name.get(name), record_time)
                        for name in EXPERIMENT_MODULES)
    verdicts = tuple(_judge_claim(claim, verify, experiments) for claim in CLAIMS)
    return Gathered(scale, verify, experiments, verdicts, reproduce, parts, reproduce_error)
