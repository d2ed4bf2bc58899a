"""Results of a launch without the λ = 0 control (``--no-control``): a quick look, marked so everywhere.

Every verdict of the package rests on what training adds beside a control
trained as long (a control that can show the effect). A launch
that drops the control for speed still aggregates, but its figure carries a
title and caption saying so, and every headline entry is renamed and gets the
unmet precondition :data:`_NO_CONTROL`, so its verdict is "not resolved"
(a measurement stays a measurement) wherever it is shown.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from lejepa_wm.records import HeadlineEntry

if TYPE_CHECKING:  # the command line imports this module for its tags, without loading matplotlib
    from matplotlib.figure import Figure

__all__ = ["NO_CONTROL_TAG", "mark_without_control"]

_NO_CONTROL = "a λ = 0 control trained beside the regularized runs (this launch had none: --no-control)"
NO_CONTROL_TAG = "[no control]"


def mark_without_control(fig: Figure, caption: str, entries: list[HeadlineEntry]) -> tuple[str, list[HeadlineEntry]]:
    """Title ``fig`` as a quick look; return the caption and the entries marked as without a control."""
    fig.suptitle(f"{NO_CONTROL_TAG} quick look without the λ = 0 control: not evidence", color="#8a1010")
    marked = [replace(entry, name=f"{entry.name} {NO_CONTROL_TAG}", precondition_met=False,
                      precondition=_NO_CONTROL if entry.precondition is None
                      else f"{entry.precondition}; and {_NO_CONTROL}")
              for entry in entries]
    return f"{NO_CONTROL_TAG} Without the λ = 0 control (--no-control), a quick look. {caption}", marked
