"""Build the report, as blocks (:mod:`.blocks`), from the gathered results.

Sections: summary, parts of the last reproduction, claims table, numerical
checks, experiments (results, figures, folded CSV), Lean proofs (how to build
them, the axiom ledger, the static audit) and environment (versions, hardware,
seeds, scale, run time of each part).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from lejepa_wm.report.blocks import (Badge, Block, BulletList, Cell, Code, CodeBlock, CsvBlock, Heading, Line, Link,
                                     Paragraph, Strong, Table, cell, text_line)
from lejepa_wm.records import Bound, CheckResult, HeadlineEntry, PartOutcome, number_text
from lejepa_wm.report.gather import ClaimVerdict, ExperimentSection, Gathered, VerifySection
from lejepa_wm.report.lean import BUILD_COMMANDS, LeanSection
from lejepa_wm.report.verdicts import FAILED, HELD, MEASURED, NOT_RUN, UNRESOLVED, JudgedRow

# Non-interactive (-y): elan installs the toolchain without asking.
ELAN_INSTALL = "curl https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh -sSf | sh -s -- -y"


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


def format_value(value: Any, bound: Bound | None = None) -> str:
    """A measured number in 4 significant digits (``-`` for none).

    With a ``bound``, more digits are shown where 4 would make the value read as
    equal to an end of the bound it differs from (0.99962 against 0.9996).
    """
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    ends = [] if bound is None else [bound.value] + ([bound.upper] if bound.upper is not None else [])
    for digits in range(4, 18):
        text = f"{value:.{digits}g}"
        if all(end == value or f"{end:.{digits}g}" != text for end in ends):
            return text
    return number_text(float(value))


def quantity_value(record: CheckResult | HeadlineEntry) -> str:
    """``quantity = value``: the number the verdict compares, named (``-`` for a row without one)."""
    if record.value is None:
        return "-" if record.bound is None else f"{record.quantity or 'value'} = none (no number recorded)"
    return f"{record.quantity or 'value'} = {format_value(record.value, record.bound)}"


def uncertainty(entry: HeadlineEntry) -> str | None:
    """``± 0.002 (standard error over 3 seeds: 0, 1, 2)``, ``1 seed: 0``, or ``None`` when nothing is recorded."""
    seeds = ", ".join(map(str, entry.seeds))
    count = f"{len(entry.seeds)} seed{'s' if len(entry.seeds) != 1 else ''}"
    if entry.standard_error is not None:
        over = f" over {count}: {seeds}" if entry.seeds else ""
        return f"± {entry.standard_error:.2g} (standard error{over})"
    return f"{count}: {seeds}" if entry.seeds else None


def value_cell(record: CheckResult | HeadlineEntry) -> Cell:
    """The value column: ``quantity = value``, then the standard error and seeds where recorded."""
    lines = [quantity_value(record)]
    if isinstance(record, HeadlineEntry) and uncertainty(record):
        lines.append(uncertainty(record))  # type: ignore[arg-type]
    return cell(*lines)


def short_requirement(record: CheckResult | HeadlineEntry) -> str:
    """The requirement without repeating the quantity (``≤ 1e-10``), for compact lines."""
    if record.bound is not None:
        return record.bound.describe()
    return record.requirement


def anchor(kind: str, name: str) -> str:
    """HTML id of a claim's or experiment's section."""
    return f"{kind}-{name}".lower().replace("_", "-")


def verdict_cell(row: JudgedRow) -> Cell:
    """The verdict column: the badge, then the note where the verdict has one."""
    return cell(text_line(Badge(row.status)), *([row.note] if row.note else []))


def _row_line(row: JudgedRow) -> Line:
    """Compact form for the claims table: the named value (or, without one, the measured text) and its requirement."""
    record = row.record
    shown = quantity_value(record) if record.value is not None else record.measured
    pieces: list[Any] = [f"{row.name}: {shown} (requirement: {short_requirement(record)}) ", Badge(row.status)]
    if row.note:
        pieces.append(f" — {row.note}")
    return text_line(*pieces)


def _summary(gathered: Gathered, generated_at: str, version: str) -> list[Block]:
    headline = f"{claim_summary(gathered)} (scale {gathered.scale})."
    return [
        Heading(1, f"When Does LeJEPA Learn a World Model? — results at scale {gathered.scale}", "top"),
        Paragraph(text_line(f"Generated {generated_at} by lejepa-wm {version}. ", Strong(headline))),
        Paragraph(text_line(
            "A claim holds only if its numerical check (", Code("lejepa-wm verify"), ") and every experiment "
            "that tests it held; each verdict is recomputed here from the stored value and its bound, and a "
            "result whose numbers contradict its recorded verdict counts as failed. Each value is shown as ",
            Code("quantity = value"), " beside the requirement on that same quantity. ", Badge(NOT_RUN),
            " means a part has no results at this scale; ", Badge(FAILED), " means it ran and did not hold, or "
            "raised (its error is shown below); ", Badge(UNRESOLVED), " means the value's distance to its bound "
            "is within two standard errors over seeds, so the data cannot tell which side it is on; ",
            Badge(MEASURED), " marks a measurement outside the scope of the theorem it sits beside (no "
            "prediction, no verdict). The Lean proofs are not compiled by this report: see ",
            Link("Lean proofs", "#lean"), ".")),
    ]


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
        blocks.append(Paragraph(text_line(
            "No ", Code("reproduce.json"), f" at scale {gathered.scale}: the results below were produced by "
            "separate commands. ", Code("lejepa-wm reproduce"), " records each part's status and time.")))
        return blocks
    rows = tuple(
        (cell(part.name), cell(part.kind), cell(text_line(Badge(part.status))),
         cell(format_seconds(part.wall_time_s)), cell(part.detail or "-"))
        for part in gathered.parts
    )
    blocks.append(Table(("Part", "Kind", "Status", "Wall time", "Detail"), rows))
    failed = [part for part in gathered.parts if not part.ok]
    if failed:
        blocks.append(Paragraph(text_line(
            "A failed part whose results were written afterwards (by ", Code("lejepa-wm run"), " or ",
            Code("lejepa-wm verify"), ") is judged on those newer results.")))
    blocks += [CodeBlock(part.traceback or part.error or "no error recorded", f"{part.name} failed with this error")
               for part in failed]
    return blocks


def _claim_row(verdict: ClaimVerdict) -> tuple[Cell, ...]:
    claim = verdict.claim
    checks: list[Line] = []
    experiments: list[Line] = []
    for evidence in verdict.evidence:
        if evidence.source == "verify":
            checks += [_row_line(row) for row in evidence.rows] or [text_line(evidence.reason, " ",
                                                                              Badge(evidence.status))]
        else:
            experiments.append(text_line(Link(evidence.source, f"#{anchor('experiment', evidence.source)}"),
                                         ": ", Badge(evidence.status)))
            experiments += [_row_line(row) for row in evidence.rows] or [text_line(evidence.reason)]
    papers = [claim.paper] if claim.paper else []
    papers += [row.paper for evidence in verdict.evidence for row in evidence.rows if row.paper]
    return (
        cell(text_line(Strong(claim.id)), claim.title),
        cell(claim.statement),
        cell(claim.kind),
        cell(*(text_line(Code(name)) for name in claim.lean)) if claim.lean else cell("-"),
        cell(*checks) if checks else cell("no numerical check"),
        cell(*experiments) if experiments else cell("no experiment"),
        cell(*dict.fromkeys(papers)) if papers else cell("-"),
        cell(text_line(Badge(verdict.status)), verdict.reason),
    )


def _claims(gathered: Gathered) -> list[Block]:
    header = ("Claim", "Statement", "Kind", "Lean declaration(s)", "Numerical check", "Experiment",
              "Paper", "Verdict")
    return [Heading(2, "Claims", "claims"), Table(header, tuple(_claim_row(v) for v in gathered.claims))]


def _failure(error: str, title: str, part: PartOutcome | None) -> list[Block]:
    """A section's error, and where its traceback is if its part of the reproduction recorded one."""
    blocks: list[Block] = [CodeBlock(error, title)]
    if part is not None and part.traceback:
        blocks.append(Paragraph(text_line("Its traceback is under ", Link("Parts of the reproduction", "#parts"), ".")))
    return blocks


def _verify(verify: VerifySection) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Numerical checks", "verify"),
                           Paragraph(text_line("Status ", Badge(verify.status), f"; wall time "
                                               f"{format_seconds(verify.wall_time_s)}; from ",
                                               Code(verify.path.name), "."))]
    if verify.part is not None and verify.part.detail:
        blocks.append(Paragraph(text_line(verify.part.detail)))
    if verify.rows:
        blocks.append(Table(
            ("Claim", "Check", "Value", "Requirement", "Measured", "Verdict"),
            tuple((cell(row.claim), cell(row.name), value_cell(row.record), cell(row.record.requirement),
                   cell(row.record.measured), verdict_cell(row))
                  for row in verify.rows)))
    if verify.error:
        blocks += _failure(verify.error, "verify failed with this error", verify.part)
    blocks += [CodeBlock(row.error, f"{row.claim}/{row.name} raised") for row in verify.rows if row.error]
    if verify.status == NOT_RUN:
        blocks.append(Paragraph(text_line("Run ", Code("lejepa-wm verify"), " to produce it.")))
    return blocks


def _experiment(section: ExperimentSection, first_figure: int) -> list[Block]:
    blocks: list[Block] = [Heading(3, section.name, anchor("experiment", section.name))]
    intro: list[Any] = ["Status ", Badge(section.status), ". "]
    if section.description:
        intro.append(section.description.rstrip(".") + ". ")
    intro += ["Folder ", Code(f"{section.name}/{section.scale}/"), "."]
    blocks.append(Paragraph(text_line(*intro)))
    if section.status == NOT_RUN:
        blocks.append(Paragraph(text_line("Not run at this scale: ",
                                          Code(f"lejepa-wm run {section.name} --scale {section.scale}"), ".")))
        return blocks
    if section.error:
        return blocks + _failure(section.error, f"{section.name} failed with this error", section.part)
    seeds = ", ".join(map(str, section.seeds)) or "not recorded"
    coverage = f" ({section.coverage()})" if section.partial else ""
    blocks.append(Paragraph(text_line(f"{section.runs_finished} finished run(s){coverage}, "
                                      f"{format_seconds(section.compute_time_s)} of compute; seeds {seeds}; "
                                      f"machines: {section.machines_text()}.")))
    if section.damaged:
        blocks.append(CodeBlock("\n".join(section.damaged),
                                f"{section.name} has damaged result files (not counted as finished runs)"))
    blocks.append(Table(
        ("Claim", "Result", "Value", "Requirement", "Split", "Measured", "Paper", "Verdict"),
        tuple((cell(text_line(Link(row.claim, "#claims"))), cell(row.name), value_cell(row.record),
               cell(row.record.requirement), cell(getattr(row.record, "split", "-")), cell(row.record.measured),
               cell(row.paper or "-"), verdict_cell(row))
              for row in section.rows)))
    if section.summary_csv is not None:
        blocks.append(CsvBlock(f"{section.name}/{section.scale}/{section.summary_csv.name}", section.summary_csv))
    blocks += [replace(figure, number=first_figure + i) for i, figure in enumerate(section.figures)]
    return blocks


def _experiments(gathered: Gathered) -> list[Block]:
    blocks: list[Block] = [Heading(2, "Experiments", "experiments")]
    number = 1
    for section in gathered.experiments:
        blocks += _experiment(section, number)
        number += len(section.figures)
    return blocks


def _lean(lean: LeanSection) -> list[Block]:
    blocks: list[Block] = [
        Heading(2, "Lean proofs", "lean"),
        Paragraph(text_line("The proofs are not compiled by this report. To check them on a machine with "
                            "internet access, install Lean's version manager elan, then run in the "
                            "repository root (the first command downloads Mathlib's compiled cache):")),
        CodeBlock("\n".join((ELAN_INSTALL, *BUILD_COMMANDS))),
    ]
    if not lean.ledger_found:
        blocks.append(Paragraph(text_line("No axiom ledger ", Code("LeJEPAProofs/AXIOMS.md"), " was found.")))
        return blocks
    if lean.error:
        blocks.append(CodeBlock(lean.error, "reading the axiom ledger failed"))
        return blocks
    blocks.append(Paragraph(text_line(
        f"The proofs rest on {len(lean.axioms)} axiom(s), classical facts Mathlib lacks, listed in ",
        Code("LeJEPAProofs/AXIOMS.md"), "; each is checked numerically by the Python test(s) named:")))
    blocks.append(Table(
        ("Axiom", "File", "Claim stating it", "Python test(s)"),
        tuple((cell(text_line(Code(entry.axiom))), cell(text_line(Code(entry.file))),
               cell(", ".join(entry.claims) or "-"),
               cell(*(text_line(Code(test), " ", Badge("present" if exists else "missing"))
                      for test, exists in entry.tests)) if entry.tests else cell("none named"))
              for entry in lean.axioms)))
    findings = lean.audit_findings or ()
    if findings:
        blocks.append(Paragraph(text_line("Static audit (", Code("lejepa-wm audit-lean"), f"): {len(findings)} "
                                          "problem(s):")))
        blocks.append(BulletList(tuple(text_line(finding) for finding in findings)))
    else:
        blocks.append(Paragraph(text_line("Static audit (", Code("lejepa-wm audit-lean"), "): no problems — no "
                                          "sorry/admit, axioms equal the ledger, every claim's declaration "
                                          "exists. It does not replace ", Code("lake build"), ".")))
    return blocks


def _environment(gathered: Gathered, environment: dict[str, Any]) -> list[Block]:
    packages = ", ".join(f"{name} {version}" for name, version in environment["packages"].items())
    gpus = ", ".join(environment["gpus"]) or "none seen by torch"
    items: list[Line] = [
        text_line(Strong("Python:"), " ", environment["python"], " on ", environment["platform"]),
        text_line(Strong("Packages:"), " ", packages),
        text_line(Strong("CPU:"), " ", f"{environment['cpu']}, {environment['cores']} usable core(s)"),
        text_line(Strong("GPU:"), " ", gpus),
        text_line(Strong("Scale:"), " ", gathered.scale),
    ]
    if gathered.reproduce is not None:
        items.append(text_line(Strong("Reproduction:"), " ",
                               f"seed offset {gathered.reproduce.get('seed')}, device "
                               f"{gathered.reproduce.get('device')}, total wall time "
                               f"{format_seconds(gathered.reproduce.get('wall_time_s'))}"))
    blocks: list[Block] = [Heading(2, "Environment", "environment"), BulletList(tuple(items))]
    time_rows = [(cell("verify"), cell(format_seconds(gathered.verify.wall_time_s)),
                  cell(format_seconds(gathered.verify.part.wall_time_s) if gathered.verify.part else "-"),
                  cell("-"))]
    time_rows += [(cell(section.name), cell(format_seconds(section.compute_time_s) if section.runs_finished else "-"),
                   cell(format_seconds(section.part.wall_time_s) if section.part else "-"),
                   cell(", ".join(map(str, section.seeds)) or "-"))
                  for section in gathered.experiments]
    blocks.append(Paragraph(text_line("Run time of each part: the compute its stored results took (summed over "
                                      "runs, whenever they ran) and the wall time of the last reproduction "
                                      "(short when results were reused).")))
    blocks.append(Table(("Part", "Compute", "Last reproduction", "Seeds"), tuple(time_rows)))
    if gathered.verify.seconds_per_claim:
        blocks.append(Paragraph(text_line("verify, per claim: " + ", ".join(
            f"{claim} {format_seconds(seconds)}" for claim, seconds in gathered.verify.seconds_per_claim.items()))))
    return blocks


def build_document(gathered: Gathered, lean: LeanSection, environment: dict[str, Any], generated_at: str,
                   version: str) -> list[Block]:
    """The whole report as blocks, in reading order."""
    return (_summary(gathered, generated_at, version) + _parts(gathered) + _claims(gathered)
            + _verify(gathered.verify) + _experiments(gathered) + _lean(lean)
            + _environment(gathered, environment))
