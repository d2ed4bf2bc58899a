"""Every fault and bad input of issues 15 and 32, replayed by ``replay_faults.py``: exit status, one clear line,
nothing lost, no run executed twice, no hang.

Each case of :func:`replay_faults.cases` is one test. A case passes when the
command exits with the expected status, shows no traceback (an unexpected error
must show one and ask to be reported), prints one line naming the bad value or
file, loses nothing (no finished result removed or changed, no training thrown
away, no set of result files left out of step), executes no run twice and
does not hang. The cases that kill processes or train a real
(tiny) run take a few seconds each and are marked ``slow``; ``make test`` runs
them too. ``python tests/faults/replay_faults.py`` prints the same cases as a
table with the counts quoted in the README.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import replay_faults
from replay_faults import GROUPS, Case, cases, run_case

CASES = cases()


def case_id(case: Case) -> str:
    return f"{case.group}-" + re.sub(r"[^a-z0-9]+", "-", case.name.lower()).strip("-")[:60]


@pytest.mark.parametrize("case", [pytest.param(case, marks=pytest.mark.slow) if case.slow else case
                                  for case in CASES], ids=case_id)
def test_fault_is_answered_clearly_and_loses_nothing(case: Case, tmp_path: Path) -> None:
    outcome = run_case(case, tmp_path / "work")
    if outcome.skipped is not None:
        pytest.skip(outcome.skipped)
    assert outcome.status == case.status, outcome.problems
    assert outcome.clear, f"{outcome.message!r}: {'; '.join(outcome.problems)}"
    assert not outcome.lost, "; ".join(outcome.problems)
    assert not outcome.double, "; ".join(outcome.problems)
    assert not outcome.hung, "; ".join(outcome.problems)


def test_every_group_of_the_issue_has_cases_with_distinct_names() -> None:
    assert {case.group for case in CASES} == set(GROUPS)
    names = [case.name for case in CASES]
    assert len(names) == len(set(names))
    assert len({case_id(case) for case in CASES}) == len(CASES)


def test_the_table_counts_tried_clear_lost_double_runs_and_hangs() -> None:
    judged = [replay_faults.Outcome(CASES[0], 2, "m", True, False, ()),
              replay_faults.Outcome(CASES[1], 0, "m", False, True, ("lost: x",)),
              replay_faults.Outcome(CASES[2], None, "", True, False, (), skipped="not here"),
              replay_faults.Outcome(CASES[3], 0, "m", False, False, ("executed twice: y",), double=True),
              replay_faults.Outcome(CASES[4], None, "", False, False, ("hung: z",), hung=True)]
    assert replay_faults.counts(judged) == {"tried": 4, "clear": 1, "lost": 1, "double": 1, "hangs": 1, "skipped": 1}
    table = replay_faults.format_table(judged, markdown=True)
    assert table.count("\n") == 6 and "| clear? | lost? | twice? | hung? |" in table
