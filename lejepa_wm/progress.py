"""Progress of a batch of work: a tqdm bar on a terminal, plain log lines elsewhere.

A bar redrawn with carriage returns is unreadable in a log file or a CI
console, and a disabled bar prints nothing for hours. :func:`progress_bar`
returns a tqdm bar when stderr is a terminal and a :class:`LineProgress`
otherwise, printing on stdout (stderr keeps only errors): one line per finished item, ``scaling (quick, serial): run 3/36 done
(8%), 2 min 05 s elapsed, about 22 min 55 s left``, with the postfix (e.g. the
failures) appended.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from tqdm import tqdm

__all__ = ["format_duration", "LineProgress", "progress_bar"]


def format_duration(seconds: float, decimals: int = 0) -> str:
    """``12 s`` (``12.3 s`` with ``decimals=1``: the decimals of a time under a minute), ``4 min 05 s`` or
    ``1 h 02 min``."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.{decimals}f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class LineProgress:
    """The subset of tqdm's interface the package uses, printing one plain line per update (none before the first)."""

    def __init__(self, total: int, desc: str, unit: str, stream: TextIO | None = None) -> None:
        self.total, self.desc, self.unit = total, desc, unit
        self.stream = stream if stream is not None else sys.stdout
        self.done = 0
        self.postfix = ""
        self.start = time.perf_counter()

    def update(self, count: int = 1) -> None:
        """``count`` more items finished: one line with the count, the time so far and an estimate of what is left."""
        self.done += count
        elapsed = time.perf_counter() - self.start
        share = self.done / self.total if self.total else 1.0
        left = f", about {format_duration(elapsed / share - elapsed)} left" if 0 < share < 1 else ""
        postfix = f", {self.postfix}" if self.postfix else ""
        print(f"{self.desc}: {self.unit} {self.done}/{self.total} done ({share:.0%}), "
              f"{format_duration(elapsed)} elapsed{left}{postfix}", file=self.stream, flush=True)

    def set_postfix(self, **values: Any) -> None:
        """Values shown at the end of the next lines (``failed=2`` reads ``failed 2``)."""
        self.postfix = ", ".join(f"{key} {value}" for key, value in values.items())

    def close(self) -> None:
        """Nothing to release (a line per update was printed already)."""


def progress_bar(total: int, desc: str, unit: str, enabled: bool | None = None,
                 stream: TextIO | None = None) -> tqdm | LineProgress:
    """A progress display for ``total`` items.

    ``enabled=None`` (automatic): a tqdm bar on stderr when stderr is a
    terminal, else plain lines on ``stream`` (default stdout, beside the
    command's other output, so that stderr keeps only errors); ``True``: a tqdm
    bar; ``False``: nothing.
    """
    if enabled is None and not sys.stderr.isatty():
        return LineProgress(total, desc, unit, stream)
    return tqdm(total=total, desc=desc, unit=unit, disable=enabled is False)
