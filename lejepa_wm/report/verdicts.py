"""The verdict of every row the report shows, computed from numbers by :mod:`lejepa_wm.records`.

No text is parsed here. A ``verify`` row is a :class:`~lejepa_wm.records.CheckResult`:
its verdict is recomputed from its value and :class:`~lejepa_wm.records.Bound`
(:meth:`~lejepa_wm.records.CheckResult.judged`), and a stored ``passed`` that
contradicts the numbers fails the row with a note. An experiment's headline
entry is a :class:`~lejepa_wm.records.HeadlineEntry`: its verdict follows
:func:`~lejepa_wm.records.verdict_of` (``not resolved`` when the margin lies
within two standard errors, ``measured`` without a prediction), and a stored
``verdict`` that disagrees with the recomputed one fails the entry with a note.
"""

from __future__ import annotations

from dataclasses import dataclass

from lejepa_wm.records import CheckResult, HeadlineEntry

__all__ = ["JudgedRow", "judge_check"]


@dataclass(frozen=True)
class JudgedRow:
    """A check or headline result as the report shows it: where it comes from, and its recomputed verdict."""

    source: str  # "verify" or the experiment's name
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


def judge_check(row: CheckResult) -> JudgedRow:
    """A ``verify`` row with its verdict recomputed from value and bound (:meth:`CheckResult.judged`)."""
    return JudgedRow("verify", row, *row.judged())
