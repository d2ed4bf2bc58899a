"""Write the report, as Markdown (:mod:`.render_markdown`), from the gathered results.

Reading order: a summary table (one line per claim, each verdict linked to its
numerical checks, its rows in the experiment tables and its figures), the
paper's numbers beside the same quantities measured here, a table of
contents, how to read a verdict; then the detail: the claims, the numerical
checks, the experiments (results, figures, folded CSV), the parts of the last
reproduction, the Lean proofs (how to build them, the axiom ledger, the
static audit) and the environment (versions, hardware, seeds, scale, run time
of each part). Every link target is an anchor the document sets itself
(:func:`anchor`, ``figure-N``), the same in Markdown and HTML.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any, Callable

from lejepa_wm.progress import format_duration
from lejepa_wm.records import (FAILED, HELD, MEASURED, NOT_RUN, UNRESOLVED, Bound, CheckResult, Environment,
                               HeadlineEntry, PartOutcome)
from lejepa_wm.report.gather import (VERIFY_FILE, ClaimVerdict, Evidence, ExperimentSection, Gathered, JudgedRow,
                                     VerifySection)
from lejepa_wm.report.lean import BUILD_COMMANDS, LeanSection
from lejepa_wm.report.paper import Comparison, comparisons
from lejepa_wm.report.render_markdown import (Markdown, anchor_tag, badge, bullets, cell, code, code_block, document,
                                              figure, heading, line, link, strong, table)

__all__ = [
    "format_seconds", "format_value", "seeds_text", "part_time", "anchor", "count_text", "evidence_cells",
    "claim_summary", "paper_comparisons", "report_title", "build_document"
]

# Non-interactive (-y): elan installs the toolchain without asking.
_ELAN_INSTALL = "curl https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh -sSf | sh -s -- -y"


def format_seconds(seconds: float | None) -> str:
    """``12.3 s``, ``4 min 05 s`` or ``1 h 02 min`` (:func:`~lejepa_wm.progress.format_duration` with a decimal
    under a minute); ``-`` when unknown."""
    return "-" if seconds is None else format_duration(seconds, decimals=1)


def format_value(value: float | None, bound: Bound | None = None) -> str:
    """A measured number in 4 significant digits (``-`` for none).

    With a ``bound``, more digits are shown where 4 would make the value read as
    equal to an end of the bound it differs from (0.99962 against 0.9996); 17 digits tell any two floats apart.
    """
    if value is None:
        return "-"
    ends = [] if bound is None else [bound.value] + ([bound.upper] if bound.upper is not None else [])
    digits = 4
    while any(end != value and f"{end:.{digits}g}" == f"{value:.{digits}g}" for end in ends):
        digits += 1
    return f"{value:.{digits}g}"


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


def _value_cell(record: CheckResult | HeadlineEntry) -> Markdown:
    """The value column: ``quantity = value``, then where recorded the standard error and seeds.

    The second line reads ``± 0.002 (standard error over 3 seeds: 0, 1, 2)`` or ``1 seed: 0``.
    """
    seeds = getattr(record, "seeds", ())
    count = f"{count_text(len(seeds), 'seed')}: {seeds_text(seeds)}" if seeds else ""
    error = getattr(record, "standard_error", None)
    spread = count if error is None else f"± {error:.2g} (standard error{' over ' + count if seeds else ''})"
    return cell(_quantity_value(record), spread)


def anchor(kind: str, *names: str) -> str:
    """The id of what the report links to: ``claim-t1`` (a claim's row in the claims table), ``check-t1`` (its
    first row among the numerical checks), ``result-t1r-scaling`` (its first row in an experiment's table),
    ``experiment-output-dim`` (an experiment's section): each name in lower case, other characters than letters
    and digits as dashes."""
    slugs = ["".join(c if c.isalnum() else "-" for c in name.lower()).strip("-") for name in names]
    return "-".join([kind, *slugs])


def _requirement_text(record: CheckResult | HeadlineEntry) -> str:
    """What the value must satisfy, without repeating the quantity the value cell names (``≤ 1e-10``): the record's
    requirement with its quantity left unnamed (a headline's precondition, and why a measurement has no bound, in
    full)."""
    return replace(record, quantity="").requirement


def _claim_cells(rows: tuple[JudgedRow, ...], kind: str, *names: str) -> list[Markdown]:
    """Each row's claim, linked to the claims table; the first row of a claim carries the anchor of ``kind``
    (:func:`anchor`), of the claim and ``names``."""
    firsts = [all(earlier.claim != row.claim for earlier in rows[:index]) for index, row in enumerate(rows)]
    return [line(anchor_tag(anchor(kind, row.claim, *names)) if first else Markdown(""),
                 link(row.claim, f"#{anchor('claim', row.claim)}")) for row, first in zip(rows, firsts)]


def count_text(count: int, noun: str) -> str:
    """``1 check``, ``5 checks``: the count and the noun, plural unless the count is 1."""
    return f"{count} {noun}{'s' if count != 1 else ''}"


def evidence_cells(verdict: ClaimVerdict, check: Callable[[Evidence], Markdown], result: Callable[[Evidence], Markdown],
                   empty: tuple[str, str] = ("-", "-")) -> tuple[Markdown, Markdown]:
    """A claim's two evidence cells: its numerical checks (each written by ``check``) and its experiments (each by
    ``result``); ``empty`` fills a cell without any."""
    checks = [check(item) for item in verdict.evidence if item.source == "verify"]
    results = [result(item) for item in verdict.evidence if item.source != "verify"]
    return cell(*checks) or cell(empty[0]), cell(*results) or cell(empty[1])


def _glance_cells(verdict: ClaimVerdict, figures: dict[tuple[str, str], int]) -> tuple[Markdown, Markdown]:
    """The summary's two evidence cells: the numerical checks, and each experiment with its rows and figures."""
    claim = verdict.claim.id

    def checks(evidence: Evidence) -> Markdown:
        count = link(count_text(len(evidence.rows), "check"), f"#{anchor('check', claim)}")
        return line(badge(evidence.status), *([" ", count] if evidence.rows else []))

    def results(evidence: Evidence) -> Markdown:
        pieces: list[Any] = [f"{evidence.source}: ", badge(evidence.status)]
        if evidence.rows:
            pieces += [" ", link("results", f"#{anchor('result', claim, evidence.source)}")]
        named = dict.fromkeys(f for row in evidence.rows for f in row.record.figures)
        for number in sorted(figures[(evidence.source, f)] for f in named if (evidence.source, f) in figures):
            pieces += [", ", link(f"figure {number}", f"#figure-{number}")]
        return line(*pieces)

    return evidence_cells(verdict, checks, results)


def _at_a_glance(gathered: Gathered, figures: dict[tuple[str, str], int]) -> list[str]:
    rows = [(link(verdict.claim.id, f"#{anchor('claim', verdict.claim.id)}"), verdict.claim.title,
             verdict.claim.proof, *_glance_cells(verdict, figures), badge(verdict.status))
            for verdict in gathered.claims]
    return [heading(2, "At a glance", "at-a-glance"),
            line("One line per claim: how it is proved, the verdict of its numerical checks and of each "
                 "experiment that tests it (linked to their rows and figures below), and the claim's verdict "
                 "(linked to why, in ", link("Claims", "#claims"), ")."),
            table(("Claim", "In one line", "Proof", "Numerical checks", "Experiments", "Verdict"), rows)]


def paper_comparisons(gathered: Gathered) -> list[Comparison]:
    """The paper's numbers beside the same quantities measured in the experiments with a ``summary.csv``."""
    summaries = {section.name: section.summary_csv for section in gathered.experiments if section.summary_csv}
    return comparisons(summaries, ((row.claim, section.name) for section in gathered.experiments
                                   for row in section.rows))


def _paper_beside_here(gathered: Gathered, figures: dict[tuple[str, str], int]) -> list[str]:
    found = paper_comparisons(gathered)
    if not found:
        return []

    def figure_cell(experiment: str, name: str | None) -> Markdown:
        number = figures.get((experiment, name or ""))
        return link(f"figure {number}", f"#figure-{number}") if number else "-"

    return [heading(2, "The paper beside here", "paper"),
            line("Where the paper quotes a number, the same quantity measured here (mean ± standard error "
                 "over seeds, test samples, from each experiment's summary.csv). The verdicts rest on what "
                 "training adds beside a baseline and a control, not on these numbers alone."),
            table(("Claim", "Experiment", "The paper", "Here", "Figure"), (
                (link(item.claim, f"#{anchor('claim', item.claim)}"),
                 link(item.experiment, f"#{anchor('experiment', item.experiment)}"), item.paper, item.measured,
                 figure_cell(item.experiment, item.figure)) for item in found))]


def _contents(gathered: Gathered, paper: bool) -> list[str]:
    """The table of contents; ``paper``: whether the document has the section "The paper beside here"."""
    experiments = ", ".join(link(section.name, f"#{anchor('experiment', section.name)}")
                            for section in gathered.experiments)
    beside = (link("The paper beside here", "#paper"),) if paper else ()
    return [heading(2, "Contents", "contents"), bullets((
        link("At a glance", "#at-a-glance"), *beside, link("How to read a verdict", "#verdicts"),
        link("Claims", "#claims"), link("Numerical checks", "#verify"),
        line(link("Experiments", "#experiments"), ": ", Markdown(experiments)),
        link("Parts of the reproduction", "#parts"), link("Lean proofs", "#lean"),
        link("Environment", "#environment")))]


def _how_to_read() -> list[str]:
    return [heading(2, "How to read a verdict", "verdicts"), line(
        "A claim holds only if its numerical check (", code("lejepa-wm verify"), ") and every experiment "
        "that tests it held; each verdict is recomputed here from the stored value and its bound, and a "
        "result whose numbers contradict its recorded verdict counts as failed. Each value is shown as ",
        code("quantity = value"), " beside the requirement on that same quantity. ", badge(NOT_RUN),
        " means a part has no results at this scale; ", badge(FAILED), " means it ran and did not hold, or "
        "raised (its error is shown below); ", badge(UNRESOLVED), " means the value's distance to its bound "
        "is within two standard errors over seeds, so the data cannot tell which side it is on (or a "
        "precondition of the comparison was not met); ", badge(MEASURED), " marks a measurement outside the "
        "scope of the theorem it sits beside (no prediction, no verdict). The terms are defined in the "
        "package's docs/GLOSSARY.md. The Lean proofs are not compiled by this report: see ",
        link("Lean proofs", "#lean"), ".")]


def claim_summary(gathered: Gathered) -> str:
    """``7 of 10 claims held, 1 failed, 1 not resolved, 0 measured, 1 not run``."""
    counts = Counter(verdict.status for verdict in gathered.claims)
    return (f"{counts[HELD]} of {len(gathered.claims)} claims held, {counts[FAILED]} failed, "
            f"{counts[UNRESOLVED]} not resolved, {counts[MEASURED]} measured, {counts[NOT_RUN]} not run")


def _parts(gathered: Gathered) -> list[str]:
    blocks: list[str] = [heading(2, "Parts of the reproduction", "parts")]
    if gathered.reproduce_error is not None:
        blocks.append(code_block(gathered.reproduce_error, "the record of the last reproduction is unreadable"))
    if gathered.reproduce is None:
        return blocks + [line(
            "No ", code("reproduce.json"), f" at scale {gathered.scale}: the results below were produced by "
            "separate commands. ", code("lejepa-wm reproduce"), " records each part's status and time.")]
    blocks.append(table(("Part", "Kind", "Status", "Wall time", "Detail"), (
        (part.name, part.kind, badge(part.status), part_time(part), part.detail or "-") for part in gathered.parts)))
    failed = [part for part in gathered.parts if not part.ok]
    if failed:
        blocks.append(line("A failed part whose results were written afterwards (by ", code("lejepa-wm run"),
                           " or ", code("lejepa-wm verify"), ") is judged on those newer results."))
    return blocks + [code_block(part.traceback or part.error or "no error recorded",
                                f"{part.name} failed with this error") for part in failed]


def _claim_row(verdict: ClaimVerdict) -> tuple[Markdown, ...]:
    claim = verdict.claim

    def checks(evidence: Evidence) -> Markdown:
        target = [" ", link("(checks)", f"#{anchor('check', claim.id)}")] if evidence.rows else []
        return line(badge(evidence.status), f" {evidence.reason}", *target)

    def results(evidence: Evidence) -> Markdown:  # why: in the verdict cell
        return line(link(evidence.source, f"#{anchor('experiment', evidence.source)}"), ": ", badge(evidence.status))

    papers = dict.fromkeys([claim.paper] + [row.paper for evidence in verdict.evidence for row in evidence.rows])
    return (cell(line(anchor_tag(anchor("claim", claim.id)), strong(claim.id)), claim.title), claim.statement,
            claim.kind, cell(*map(code, claim.lean)) or cell("-"),
            *evidence_cells(verdict, checks, results, ("no numerical check", "no experiment")),
            cell(*papers) or cell("-"), cell(badge(verdict.status), verdict.reason))


def _claims(gathered: Gathered) -> list[str]:
    header = ("Claim", "Statement", "Kind", "Lean declaration(s)", "Numerical check", "Experiment",
              "Paper", "Verdict")
    return [heading(2, "Claims", "claims"), table(header, map(_claim_row, gathered.claims))]


def _detail(record: CheckResult) -> str:
    """What a check measured in words, unless it only restates the value cell (it starts with the quantity)."""
    return "-" if record.quantity and record.measured.startswith(record.quantity) else record.measured


def _failure(error: str, title: str, part: PartOutcome | None) -> list[str]:
    """A section's error, and where its traceback is if its part of the reproduction recorded one."""
    blocks: list[str] = [code_block(error, title)]
    if part is not None and part.traceback:
        blocks.append(line("Its traceback is under ", link("Parts of the reproduction", "#parts"), "."))
    return blocks


def _verify(verify: VerifySection) -> list[str]:
    blocks: list[str] = [heading(2, "Numerical checks", "verify"), line(
        "Status ", badge(verify.status), f"; wall time {format_seconds(verify.wall_time_s)}; from ",
        code(VERIFY_FILE), ".")]
    if verify.part is not None and verify.part.detail:
        blocks.append(line(verify.part.detail))
    if verify.rows:
        blocks.append(table(("Claim", "Check", "Value", "Requirement", "Detail", "Verdict"), (
            (claim, row.name, _value_cell(row.record), _requirement_text(row.record), _detail(row.record),
             cell(badge(row.status), row.note))
            for row, claim in zip(verify.rows, _claim_cells(verify.rows, "check")))))
    if verify.error:
        blocks += _failure(verify.error, "verify failed with this error", verify.part)
    blocks += [code_block(row.error, f"{row.claim}/{row.name} raised") for row in verify.rows if row.error]
    if verify.status == NOT_RUN:
        blocks.append(line("Run ", code("lejepa-wm verify"), " to produce it."))
    return blocks


def _experiment(section: ExperimentSection, figures: dict[tuple[str, str], int]) -> list[str]:
    described = [section.description.rstrip(".") + ". "] if section.description else []
    blocks: list[str] = [heading(3, section.name, anchor("experiment", section.name)), line(
        "Status ", badge(section.status), ". ", *described, "Folder ", code(f"{section.name}/{section.scale}/"), ".")]
    if section.status == NOT_RUN:
        return blocks + [line("Not run at this scale: ", code(f"lejepa-wm run {section.name} --scale {section.scale}"),
                              ".")]
    if section.error:
        return blocks + _failure(section.error, f"{section.name} failed with this error", section.part)
    blocks.append(line(f"{section.runs_finished} finished run(s){section.coverage()}, "
                       f"{format_seconds(section.compute_time_s)} of compute; seeds "
                       f"{seeds_text(section.seeds, 'not recorded')}; machines: {section.machines_text()}."))
    if section.damaged:
        blocks.append(code_block("\n".join(section.damaged),
                                 f"{section.name} has damaged result files (not counted as finished runs)"))
    blocks.append(table(("Claim", "Result", "Value", "Requirement", "Split", "Measured", "Paper", "Verdict"), (
        (claim, row.name, _value_cell(row.record), _requirement_text(row.record),
         getattr(row.record, "split", "-"), row.record.measured, row.paper or "-", cell(badge(row.status), row.note))
        for row, claim in zip(section.rows, _claim_cells(section.rows, "result", section.name)))))
    if section.summary_csv is not None:
        relative = f"{section.name}/{section.scale}/{section.summary_csv.name}"
        blocks.append(line("All runs: ", link(relative, relative)))  # the HTML shows the table itself, folded
    return blocks + [figure(figures[(section.name, item.path.name)], item.relative, item.caption)
                     for item in section.figures]


def _experiments(gathered: Gathered, figures: dict[tuple[str, str], int]) -> list[str]:
    return [heading(2, "Experiments", "experiments"),
            *(block for section in gathered.experiments for block in _experiment(section, figures))]


def _lean(lean: LeanSection) -> list[str]:
    blocks: list[str] = [
        heading(2, "Lean proofs", "lean"),
        line("The proofs are not compiled by this report. To check them on a machine with "
             "internet access, install Lean's version manager elan, then run in the "
             "repository root (the first command downloads Mathlib's compiled cache):"),
        code_block("\n".join((_ELAN_INSTALL, *BUILD_COMMANDS))),
    ]
    if not lean.ledger_found:
        return blocks + [line("No axiom ledger ", code("LeJEPAProofs/AXIOMS.md"), " was found.")]
    if lean.error:
        return blocks + [code_block(lean.error, "reading the axiom ledger failed")]
    blocks.append(line(
        f"The proofs rest on {len(lean.axioms)} axiom(s), classical facts Mathlib lacks, listed in ",
        code("LeJEPAProofs/AXIOMS.md"), "; each is checked numerically by the Python test(s) named:"))
    blocks.append(table(("Axiom", "File", "Claim stating it", "Python test(s)"), (
        (code(entry.axiom), code(entry.file), ", ".join(entry.claims) or "-",
         cell(*(line(code(test), " ", badge("present" if exists else "missing")) for test, exists in entry.tests))
         or cell("none named"))
        for entry in lean.axioms)))
    if lean.audit_findings:
        return blocks + [line("Static audit (", code("lejepa-wm audit-lean"),
                              f"): {len(lean.audit_findings)} problem(s):"), bullets(lean.audit_findings)]
    return blocks + [line("Static audit (", code("lejepa-wm audit-lean"), "): no problems — no sorry/admit, "
                          "axioms equal the ledger, every claim's declaration exists. It does not replace ",
                          code("lake build"), ".")]


def _environment(gathered: Gathered, environment: Environment) -> list[str]:
    packages = ", ".join(f"{name} {version}" for name, version in environment["packages"].items())
    items = [("Python", f"{environment['python']} on {environment['platform']}"), ("Packages", packages),
             ("CPU", f"{environment['cpu']}, {environment['cores']} usable core(s)"),
             ("GPU", ", ".join(environment["gpus"]) or "none seen by torch"), ("Scale", gathered.scale)]
    record = gathered.reproduce
    if record is not None:
        items.append(("Reproduction", f"seed offset {record.seed}, device {record.device}, total wall "
                                      f"time {format_seconds(record.wall_time_s)}"))
    time_rows = [("verify", format_seconds(gathered.verify.wall_time_s), part_time(gathered.verify.part), "-")]
    time_rows += [(section.name, format_seconds(section.compute_time_s) if section.runs_finished else "-",
                   part_time(section.part), seeds_text(section.seeds)) for section in gathered.experiments]
    blocks: list[str] = [
        heading(2, "Environment", "environment"),
        bullets(line(strong(f"{name}:"), " ", value) for name, value in items),
        line("Run time of each part: the compute its stored results took (summed over runs, whenever they ran) "
             "and the wall time of the last reproduction (short when results were reused)."),
        table(("Part", "Compute", "Last reproduction", "Seeds"), time_rows),
    ]
    if gathered.verify.seconds_per_claim:
        blocks.append(line("verify, per claim: " + ", ".join(
            f"{claim} {format_seconds(seconds)}" for claim, seconds in gathered.verify.seconds_per_claim.items())))
    return blocks


def report_title(scale: str) -> str:
    return f"When Does LeJEPA Learn a World Model? — results at scale {scale}"


def build_document(gathered: Gathered, lean: LeanSection, environment: Environment, generated_at: str,
                   version: str) -> str:
    """The whole report as Markdown, in reading order."""
    shown = [(section.name, item.path.name) for section in gathered.experiments for item in section.figures]
    figures = {key: number for number, key in enumerate(shown, 1)}  # (experiment, figure file): number, in order
    paper = _paper_beside_here(gathered, figures)
    headline = f"{claim_summary(gathered)} (scale {gathered.scale})."
    summary = [heading(1, report_title(gathered.scale), "top"),
               line(f"Generated {generated_at} by lejepa-wm {version}. ", strong(headline))]
    return document(summary + _at_a_glance(gathered, figures) + paper + _contents(gathered, bool(paper))
                    + _how_to_read() + _claims(gathered) + _verify(gathered.verify) + _experiments(gathered, figures)
                    + _parts(gathered) + _lean(lean) + _environment(gathered, environment))
