"""Build the report, as blocks (:mod:`.blocks`), from the gathered results.

Reading order: a summary table (one line per claim, each verdict linked to its
numerical checks, its rows in the experiment tables and its figures), the
paper's numbers beside the same quantities measured here, a table of
contents, how to read a verdict; then the detail: the claims, the numerical
checks, the experiments (results, figures, folded CSV), the parts of the last
reproduction, the Lean proofs (how to build them, the axiom ledger, the
static audit) and the environment (versions, hardware, seeds, scale, run time
of each part). Every link target is an anchor the document sets itself
(:func:`claim_anchor`, :func:`check_anchor`, :func:`result_anchor`,
``figure-N``), the same in Markdown and HTML.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from lejepa_wm.report.blocks import (Anchor, Badge, Block, BulletList, Cell, Code, CodeBlock, CsvBlock, FigureBlock,
                                     Heading, Line, Link, Strong, Table, cell, cells, paragraph, text_line)
from lejepa_wm.records import (FAILED, HELD, MEASURED, NOT_RUN, UNRESOLVED, Bound, CheckResult, HeadlineEntry,
                               PartOutcome, number_text)
from lejepa_wm.report.gather import VERIFY_FILE, ClaimVerdict, ExperimentSection, Gathered, VerifySection
from lejepa_wm.report.lean import BUILD_COMMANDS, LeanSection
from lejepa_wm.report.paper import comparisons
from lejepa_wm.report.verdicts import JudgedRow

__all__ = [
    "format_seconds", "format_value", "seeds_text", "part_time", "anchor", "claim_anchor", "check_anchor",
    "result_anchor", "claim_summary", "build_document"
]

# Non-interactive (-y): elan installs the toolchain without asking.
_ELAN_INSTALL = "curl https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh -sSf | sh -s -- -y"


def format_seconds(seconds: float | None) -> str:
    """``12.3 s``, ``4 min 05 s`` or ``1 h 02 min``; ``-`` when unknown."""
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def format_value(value: float | None, bound: Bound | None = None) -> str:
    """A measured number in 4 significant digits (``-`` for none).

    With a ``bound``, more digits are shown where 4 would make the value read as
    equal to an end of the bound it differs from (0.99962 against 0.9996).
    """
    if value is None:
        return "-"
    ends = [] if bound is None else [bound.value] + ([bound.upper] if bound.upper is not None else [])
    for digits in range(4, 18):
        text = f"{value:.{digits}g}"
        if all(end == value or f"{end:.{digits}g}" != text for end in ends):
            return text
    return number_text(float(value))


def _quantity_value(record: CheckResult | HeadlineEntry) -> str:
    """``quantity = value``: the number the verdict compares, named (``-`` for a row without one)."""
    if record.value is None:
        return "-" if record.bound is None else f"{record.quantity or 'value'} = none (no number recorded)"
    return f"{record.quantity or 'value'} = {format_value(record.value, record.bound)}"


def seeds_text(seeds: tuple[int, ...], empty: str = "-") -> str:
    """``0, 1, 2``, or ``empty`` without seeds."""
    return ", ".join(map(str, seeds)) or empty


def part_time(part: PartOutcome | None) -> str:
    """The wall time of a part of the last reproduction (``-`` without one)."""
    return format_seconds(part.wall_time_s if part is not None else None)


def _value_cell(record: CheckResult | HeadlineEntry) -> Cell:
    """The value column: ``quantity = value``, then where recorded the standard error and seeds.

    The second line reads ``± 0.002 (standard error over 3 seeds: 0, 1, 2)`` or ``1 seed: 0``.
    """
    seeds = getattr(record, "seeds", ())
    count = f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''}: {seeds_text(seeds)}" if seeds else ""
    error = getattr(record, "standard_error", None)
    spread = count if error is None else f"± {error:.2g} (standard error{' over ' + count if seeds else ''})"
    return cell(_quantity_value(record), spread)


def anchor(name: str) -> str:
    """HTML id of an experiment's section."""
    return f"experiment-{name}".lower().replace("_", "-")


def _verdict_cell(row: JudgedRow) -> Cell:
    """The verdict column: the badge, then the note where the verdict has one."""
    return cell(text_line(Badge(row.status)), row.note)


def _requirement_text(record: CheckResult | HeadlineEntry) -> str:
    """What the value must satisfy, without repeating the quantity the value cell names (``≤ 1e-10``); a
    headline's precondition, and why a measurement has no bound, in full."""
    if record.bound is None:
        return record.requirement
    precondition = getattr(record, "precondition", None)
    if precondition is None:
        return record.bound.describe()
    met = "met" if record.precondition_met else "NOT met"  # type: ignore[union-attr]
    return f"{record.bound.describe()}, provided that {precondition} ({met})"


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def claim_anchor(claim: str) -> str:
    """Anchor of a claim's row in the claims table."""
    return f"claim-{_slug(claim)}"


def check_anchor(claim: str) -> str:
    """Anchor of a claim's first row in the numerical checks' table."""
    return f"check-{_slug(claim)}"


def result_anchor(claim: str, experiment: str) -> str:
    """Anchor of a claim's first row in an experiment's table."""
    return f"result-{_slug(claim)}-{_slug(experiment)}"


def _figure_numbers(gathered: Gathered) -> dict[tuple[str, str], int]:
    """``{(experiment, figure file): number}`` in the order the figures appear."""
    numbers: dict[tuple[str, str], int] = {}
    for section in gathered.experiments:
        for figure in section.figures:
            numbers[(section.name, figure.path.name)] = len(numbers) + 1
    return numbers


def _anchored(rows: tuple[JudgedRow, ...], name: Any) -> list[Anchor | None]:
    """For each row, the anchor of the first row of its claim (``name(claim)``), else ``None``."""
    seen: set[str] = set()
    anchors: list[Anchor | None] = []
    for row in rows:
        anchors.append(None if row.claim in seen else Anchor(name(row.claim)))
        seen.add(row.claim)
    return anchors


def _summary(gathered: Gathered, generated_at: str, version: str) -> list[Block]:
    headline = f"{claim_summary(gathered)} (scale {gathered.scale})."
    return [
        Heading(1, f"When Does LeJEPA Learn a World Model? — results at scale {gathered.scale}", "top"),
        paragraph(f"Generated {generated_at} by lejepa-wm {version}. ", Strong(headline)),
    ]


def _evidence_lines(verdict: ClaimVerdict, figures: dict[tuple[str, str], int]) -> tuple[Cell, Cell]:
    """The summary's two evidence cells: the numerical checks, and each experiment with its rows and figures."""
    checks: list[Line] = []
    experiments: list[Line] = []
    for evidence in verdict.evidence:
        if evidence.source == "verify":
            count = f"{len(evidence.rows)} check{'s' if len(evidence.rows) != 1 else ''}"
            link = [" ", Link(count, f"#{check_anchor(verdict.claim.id)}")] if evidence.rows else []
            checks.append(text_line(Badge(evidence.status), *link))
            continue
        pieces: list[Any] = [f"{evidence.source}: ", Badge(evidence.status)]
        if evidence.rows:
            pieces += [" ", Link("results", f"#{result_anchor(verdict.claim.id, evidence.source)}")]
        named = dict.fromkeys(f for row in evidence.rows for f in row.record.figures)
        for number in sorted(figures[(evidence.source, f)] for f in named if (evidence.source, f) in figures):
            pieces += [", ", Link(f"figure {number}", f"#figure-{number}")]
        experiments.append(text_line(*pieces))
    return tuple(checks) or cell("-"), tuple(experiments) or cell("-")


def _at_a_glance(gathered: Gathered) -> list[Block]:
    figures = _figure_numbers(gathered)
    rows = []
    for verdict in gathered.claims:
        checks, experiments = _evidence_lines(verdict, figures)
        rows.append(cells(cell(text_line(Link(verdict.claim.id, f"#{claim_anchor(verdict.claim.id)}"))),
                          verdict.claim.title, verdict.claim.proof,
                          checks, experiments, cell(text_line(Badge(verdict.status)))))
    return [Heading(2, "At a glance", "at-a-glance"),
            paragraph("One line per claim: how it is proved, the verdict of its numerical checks and of each "
                      "experiment that tests it (linked to their rows and figures below), and the claim's verdict "
                      "(linked to why, in ", Link("Claims", "#claims"), ")."),
            Table(("Claim", "In one line", "Proof", "Numerical checks", "Experiments", "Verdict"), tuple(rows))]


def _paper_beside_here(gathered: Gathered) -> list[Block]:
    summaries = {section.name: section.summary_csv for section in gathered.experiments if section.summary_csv}
    found = comparisons(summaries, ((row.claim, section.name) for section in gathered.experiments
                                    for row in section.rows))
    if not found:
        return []
    figures = _figure_numbers(gathered)

    def figure_cell(experiment: str, name: str | None) -> Cell:
        number = figures.get((experiment, name or ""))
        return cell(text_line(Link(f"figure {number}", f"#figure-{number}"))) if number else cell("-")

    return [Heading(2, "The paper beside here", "paper"),
            paragraph("Where the paper quotes a number, the same quantity measured here (mean ± standard error "
                      "over seeds, test samples, from each experiment's summary.csv). The verdicts rest on what "
                      "training adds beside a baseline and a control, not on these numbers alone."),
            Table(("Claim", "Experiment", "The paper", "Here", "Figure"), tuple(
                cells(Link(item.claim, f"#{claim_anchor(item.claim)}"),
                      Link(item.experiment, f"#{anchor(item.experiment)}"), item.paper, item.measured,
                      figure_cell(item.experiment, item.figure)) for item in found))]


def _contents(gathered: Gathered, paper: bool) -> list[Block]:
    """The table of contents; ``paper``: whether the document has the section "The paper beside here"."""
    experiments = [Link(section.name, f"#{anchor(section.name)}") for section in gathered.experiments]
    spaced: list[Any] = [piece for link in experiments for piece in (", ", link)][1:]
    beside = (text_line(Link("The paper beside here", "#paper")),) if paper else ()
    return [Heading(2, "Contents", "contents"), BulletList((
        text_line(Link("At a glance", "#at-a-glance")), *beside,
        text_line(Link("How to read a verdict", "#verdicts")), text_line(Link("Claims", "#claims")),
        text_line(Link("Numerical checks", "#verify")),
        text_line(Link("Experiments", "#experiments"), ": ", *spaced),
        text_line(Link("Parts of the reproduction", "#parts")), text_line(Link("Lean proofs", "#lean")),
        text_line(Link("Environment", "#environment"))))]


def _how_to_read() -> list[Block]:
    return [Heading(2, "How to read a verdict", "verdicts"), paragraph(
        "A claim holds only if its numerical check (", Code("lejepa-wm verify"), ") and every experiment "
        "that tests it held; each verdict is recomputed here from the stored value and its bound, and a "
        "result whose numbers contradict its recorded verdict counts as failed. Each value is shown as ",
        Code("quantity = value"), " beside the requirement on that same quantity. ", Badge(NOT_RUN),
        " means a part has no results at this scale; ", Badge(FAILED), " means it ran and did not hold, or "
        "raised (its error is shown below); ", Badge(UNRESOLVED), " means the value's distance to its bound "
        "is within two standard errors over seeds, so the data cannot tell which side it is on (or a "
        "precondition of the comparison was not met); ", Badge(MEASURED), " marks a measurement outside the "
        "scope of the theorem it sits beside (no prediction, no verdict). The terms are defined in the "
        "package's docs/GLOSSARY.md. The Lean proofs are not compiled by this report: see ",
        Link("Lean proofs", "#lean"), ".")]


def claim_summary(gathered: Gathered) -> str:
    """``7 of 10 claims held, 1 failed, 1 not resolved, 0 measured, 1 not run``."""
    counts = Counter(verdict.status for verdict in gathered.claims)
    return (f"{counts[HELD]} of {len(gathered.claims)} claims held, {counts[FAILED]} failed, "
            f"{counts[UNRESOLVED]} not resolved, {counts[MEASURED]} measured, {counts[NOT_RUN]} not run")


def _parts(gathered: Gathered) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Parts of the reproduction", "parts")]
    if gathered.reproduce_error is not None:
        blocks.append(CodeBlock(gathered.reproduce_error, "the record of the last reproduction is unreadable"))
    if gathered.reproduce is None:
        return blocks + [paragraph(
            "No ", Code("reproduce.json"), f" at scale {gathered.scale}: the results below were produced by "
            "separate commands. ", Code("lejepa-wm reproduce"), " records each part's status and time.")]
    blocks.append(Table(("Part", "Kind", "Status", "Wall time", "Detail"), tuple(
        cells(part.name, part.kind, Badge(part.status), part_time(part), part.detail or "-")
        for part in gathered.parts)))
    failed = [part for part in gathered.parts if not part.ok]
    if failed:
        blocks.append(paragraph("A failed part whose results were written afterwards (by ", Code("lejepa-wm run"),
                                " or ", Code("lejepa-wm verify"), ") is judged on those newer results."))
    return blocks + [CodeBlock(part.traceback or part.error or "no error recorded",
                               f"{part.name} failed with this error") for part in failed]


def _claim_row(verdict: ClaimVerdict) -> tuple[Cell, ...]:
    claim = verdict.claim
    checks: list[Line] = []
    experiments: list[Line] = []
    for evidence in verdict.evidence:
        if evidence.source == "verify":
            target = [" ", Link("(checks)", f"#{check_anchor(claim.id)}")] if evidence.rows else []
            checks.append(text_line(Badge(evidence.status), f" {evidence.reason}", *target))
        else:
            experiments.append(text_line(Link(evidence.source, f"#{anchor(evidence.source)}"), ": ",
                                         Badge(evidence.status)))  # why: in the verdict cell
    papers = dict.fromkeys([claim.paper] + [row.paper for evidence in verdict.evidence for row in evidence.rows])
    return cells(cell(text_line(Anchor(claim_anchor(claim.id)), Strong(claim.id)), claim.title), claim.statement,
                 claim.kind, cell(*(text_line(Code(name)) for name in claim.lean)) or cell("-"),
                 cell(*checks) or cell("no numerical check"), cell(*experiments) or cell("no experiment"),
                 cell(*papers) or cell("-"), cell(text_line(Badge(verdict.status)), verdict.reason))


def _claims(gathered: Gathered) -> list[Block]:
    header = ("Claim", "Statement", "Kind", "Lean declaration(s)", "Numerical check", "Experiment",
              "Paper", "Verdict")
    return [Heading(2, "Claims", "claims"), Table(header, tuple(_claim_row(v) for v in gathered.claims))]


def _detail(record: CheckResult) -> str:
    """What a check measured in words, unless it only restates the value cell (it starts with the quantity)."""
    return "-" if record.quantity and record.measured.startswith(record.quantity) else record.measured


def _claim_cell(claim: str, target: Anchor | None) -> Cell:
    """A row's claim, linked to the claims table, carrying the row's anchor where it is the claim's first."""
    return cell(text_line(*([target] if target is not None else []), Link(claim, f"#{claim_anchor(claim)}")))


def _failure(error: str, title: str, part: PartOutcome | None) -> list[Block]:
    """A section's error, and where its traceback is if its part of the reproduction recorded one."""
    blocks: list[Block] = [CodeBlock(error, title)]
    if part is not None and part.traceback:
        blocks.append(paragraph("Its traceback is under ", Link("Parts of the reproduction", "#parts"), "."))
    return blocks


def _verify(verify: VerifySection) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Numerical checks", "verify"), paragraph(
        "Status ", Badge(verify.status), f"; wall time {format_seconds(verify.wall_time_s)}; from ",
        Code(VERIFY_FILE), ".")]
    if verify.part is not None and verify.part.detail:
        blocks.append(paragraph(verify.part.detail))
    if verify.rows:
        anchors = _anchored(verify.rows, check_anchor)
        blocks.append(Table(("Claim", "Check", "Value", "Requirement", "Detail", "Verdict"), tuple(
            cells(_claim_cell(row.claim, target), row.name, _value_cell(row.record), _requirement_text(row.record),
                  _detail(row.record), _verdict_cell(row)) for row, target in zip(verify.rows, anchors))))
    if verify.error:
        blocks += _failure(verify.error, "verify failed with this error", verify.part)
    blocks += [CodeBlock(row.error, f"{row.claim}/{row.name} raised") for row in verify.rows if row.error]
    if verify.status == NOT_RUN:
        blocks.append(paragraph("Run ", Code("lejepa-wm verify"), " to produce it."))
    return blocks


def _experiment(section: ExperimentSection, first_figure: int) -> list[Block]:
    described = [section.description.rstrip(".") + ". "] if section.description else []
    blocks: list[Block] = [Heading(3, section.name, anchor(section.name)), paragraph(
        "Status ", Badge(section.status), ". ", *described, "Folder ", Code(f"{section.name}/{section.scale}/"), ".")]
    if section.status == NOT_RUN:
        return blocks + [paragraph("Not run at this scale: ",
                                   Code(f"lejepa-wm run {section.name} --scale {section.scale}"), ".")]
    if section.error:
        return blocks + _failure(section.error, f"{section.name} failed with this error", section.part)
    blocks.append(paragraph(f"{section.runs_finished} finished run(s){section.coverage()}, "
                            f"{format_seconds(section.compute_time_s)} of compute; seeds "
                            f"{seeds_text(section.seeds, 'not recorded')}; machines: {section.machines_text()}."))
    if section.damaged:
        blocks.append(CodeBlock("\n".join(section.damaged),
                                f"{section.name} has damaged result files (not counted as finished runs)"))
    anchors = _anchored(section.rows, lambda claim: result_anchor(claim, section.name))
    blocks.append(Table(("Claim", "Result", "Value", "Requirement", "Split", "Measured", "Paper", "Verdict"), tuple(
        cells(_claim_cell(row.claim, target), row.name, _value_cell(row.record), _requirement_text(row.record),
              getattr(row.record, "split", "-"), row.record.measured, row.paper or "-", _verdict_cell(row))
        for row, target in zip(section.rows, anchors))))
    if section.summary_csv is not None:
        blocks.append(CsvBlock(f"{section.name}/{section.scale}/{section.summary_csv.name}"))
    return blocks + [replace(figure, number=first_figure + i) for i, figure in enumerate(section.figures)]


def _experiments(gathered: Gathered) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Experiments", "experiments")]
    for section in gathered.experiments:
        blocks += _experiment(section, 1 + sum(isinstance(block, FigureBlock) for block in blocks))
    return blocks


def _lean(lean: LeanSection) -> list[Block]:
    blocks: list[Block] = [
        Heading(2, "Lean proofs", "lean"),
        paragraph("The proofs are not compiled by this report. To check them on a machine with "
                  "internet access, install Lean's version manager elan, then run in the "
                  "repository root (the first command downloads Mathlib's compiled cache):"),
        CodeBlock("\n".join((_ELAN_INSTALL, *BUILD_COMMANDS))),
    ]
    if not lean.ledger_found:
        return blocks + [paragraph("No axiom ledger ", Code("LeJEPAProofs/AXIOMS.md"), " was found.")]
    if lean.error:
        return blocks + [CodeBlock(lean.error, "reading the axiom ledger failed")]
    blocks.append(paragraph(
        f"The proofs rest on {len(lean.axioms)} axiom(s), classical facts Mathlib lacks, listed in ",
        Code("LeJEPAProofs/AXIOMS.md"), "; each is checked numerically by the Python test(s) named:"))
    blocks.append(Table(("Axiom", "File", "Claim stating it", "Python test(s)"), tuple(
        cells(Code(entry.axiom), Code(entry.file), ", ".join(entry.claims) or "-",
              cell(*(text_line(Code(test), " ", Badge("present" if exists else "missing"))
                     for test, exists in entry.tests)) or cell("none named"))
        for entry in lean.axioms)))
    findings = lean.audit_findings or ()
    if findings:
        return blocks + [paragraph("Static audit (", Code("lejepa-wm audit-lean"), f"): {len(findings)} problem(s):"),
                         BulletList(tuple(text_line(finding) for finding in findings))]
    return blocks + [paragraph("Static audit (", Code("lejepa-wm audit-lean"), "): no problems — no sorry/admit, "
                               "axioms equal the ledger, every claim's declaration exists. It does not replace ",
                               Code("lake build"), ".")]


def _environment(gathered: Gathered, environment: dict[str, Any]) -> list[Block]:
    packages = ", ".join(f"{name} {version}" for name, version in environment["packages"].items())
    items = [("Python", f"{environment['python']} on {environment['platform']}"), ("Packages", packages),
             ("CPU", f"{environment['cpu']}, {environment['cores']} usable core(s)"),
             ("GPU", ", ".join(environment["gpus"]) or "none seen by torch"), ("Scale", gathered.scale)]
    record = gathered.reproduce
    if record is not None:
        items.append(("Reproduction", f"seed offset {record.seed}, device {record.device}, total wall "
                                      f"time {format_seconds(record.wall_time_s)}"))
    time_rows = [cells("verify", format_seconds(gathered.verify.wall_time_s), part_time(gathered.verify.part), "-")]
    time_rows += [cells(section.name, format_seconds(section.compute_time_s) if section.runs_finished else "-",
                        part_time(section.part), seeds_text(section.seeds)) for section in gathered.experiments]
    blocks: list[Block] = [
        Heading(2, "Environment", "environment"),
        BulletList(tuple(text_line(Strong(f"{name}:"), " ", value) for name, value in items)),
        paragraph("Run time of each part: the compute its stored results took (summed over runs, whenever they ran) "
                  "and the wall time of the last reproduction (short when results were reused)."),
        Table(("Part", "Compute", "Last reproduction", "Seeds"), tuple(time_rows)),
    ]
    if gathered.verify.seconds_per_claim:
        blocks.append(paragraph("verify, per claim: " + ", ".join(
            f"{claim} {format_seconds(seconds)}" for claim, seconds in gathered.verify.seconds_per_claim.items())))
    return blocks


def build_document(gathered: Gathered, lean: LeanSection, environment: dict[str, Any], generated_at: str,
                   version: str) -> list[Block]:
    """The whole report as blocks, in reading order."""
    paper = _paper_beside_here(gathered)
    return (_summary(gathered, generated_at, version) + _at_a_glance(gathered) + paper
            + _contents(gathered, bool(paper)) + _how_to_read() + _claims(gathered) + _verify(gathered.verify)
            + _experiments(gathered) + _parts(gathered) + _lean(lean) + _environment(gathered, environment))
