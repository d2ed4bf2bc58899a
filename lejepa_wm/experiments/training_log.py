"""An optional TensorBoard log of training: each evaluation's scalars, in one folder per run.

``lejepa-wm run|sweep --tensorboard DIR`` hands every run it executes a log in
``DIR/<experiment>/<scale>/<run id>``: each row of the run's training history
(the rows ``metrics.json`` keeps as ``history``, written as they are recorded)
becomes TensorBoard scalars, one per numeric key (``loss_total``, ``probe_r2``,
``lr``, ...), against the training step. ``tensorboard --logdir DIR`` shows
them while a sweep runs. The log is a view of the run and is never read back:
results are the run's ``metrics.json``. It needs the ``tensorboard`` package
(``pip install 'lejepa-wm[tensorboard]'``); :func:`check_tensorboard` refuses a
launch without it before any run starts.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from lejepa_wm.validation import EnvironmentUnavailable

__all__ = ["EvaluationLog", "check_tensorboard", "tensorboard_log"]

EvaluationLog = Callable[[Mapping[str, Any]], None]
"""Receives one row of a run's training history as it is recorded (see :func:`~lejepa_wm.experiments.training.train`)."""


def check_tensorboard() -> None:
    """Raise :class:`EnvironmentUnavailable` (naming the fix) if the ``tensorboard`` package is not installed."""
    if importlib.util.find_spec("tensorboard") is None:
        raise EnvironmentUnavailable("--tensorboard needs the tensorboard package, which is not installed; "
                                     "pip install 'lejepa-wm[tensorboard]' (or leave out --tensorboard)")


def _scalars(row: Mapping[str, Any]) -> dict[str, float]:
    """The row's finite numbers (booleans, nested records and the step itself left out)."""
    return {key: float(value) for key, value in row.items()
            if key != "step" and isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value)}


@contextlib.contextmanager
def tensorboard_log(folder: Path | None) -> Iterator[EvaluationLog | None]:
    """A log writing each history row to TensorBoard event files in ``folder`` (``None``: no log).

    The event files are flushed and closed when the context ends, whether the run finished or raised.
    """
    if folder is None:
        yield None
        return
    check_tensorboard()
    from torch.utils.tensorboard import SummaryWriter  # optional dependency: imported only when asked for

    writer = SummaryWriter(log_dir=str(folder))

    def log(row: Mapping[str, Any]) -> None:
        for key, value in _scalars(row).items():
            writer.add_scalar(key, value, global_step=int(row["step"]))

    try:
        yield log
    finally:
        writer.close()
