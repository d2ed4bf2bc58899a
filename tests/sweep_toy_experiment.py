"""A tiny experiment satisfying the experiment protocol, for the sweep tests.

Each run draws one number from ``random.Random(seed)``; ``aggregate`` publishes
``summary.csv`` and ``headline.json`` from the finished runs as one set, so results can be
compared byte for byte across executors. Runs listed in the config can be made
to fail: ``fail_always`` raise on every attempt, ``fail_once`` raise on their
first attempt only, ``fail_value`` raise a ``ValueError`` (a failure the same inputs repeat), ``crash_once`` and ``crash_always`` kill their own process
(as a preempted or out-of-memory job would end) on the first or every attempt. The first attempt is detected
by a marker file in the run folder, so it works across processes. ``sleep_s`` makes every run take that long,
and ``log`` names a file to which each execution appends ``start``/``end`` lines (run id, process id, time), so
the fault tests can kill a sweep mid-way and count how often each run executed.
"""

from __future__ import annotations

import csv
import io
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from lejepa_wm.atomic import atomic_write_json, atomic_write_text
from lejepa_wm.config import load_scaled_config
from lejepa_wm.records import Bound, HeadlineEntry
from lejepa_wm.experiments.base import HEADLINE_FILE, SUMMARY_FILE, RunSpec, finished_runs, publish_results

DEFAULTS = Path(__file__).with_suffix(".toml")
FIRST_ATTEMPT_MARKER = "first_attempt_seen"


@dataclass(frozen=True)
class ToyConfig:
    n_runs: int
    fail_always: tuple[int, ...] = ()
    fail_once: tuple[int, ...] = ()
    fail_value: tuple[int, ...] = ()
    crash_once: tuple[int, ...] = ()
    crash_always: tuple[int, ...] = ()
    sleep_s: float = 0.0
    log: str = ""


def _first_attempt(run_dir: Path) -> bool:
    marker = run_dir / FIRST_ATTEMPT_MARKER
    if marker.exists():
        return False
    marker.touch()
    return True


def _append(path: str, line: str) -> None:
    """Append one line to ``path`` in one write (lines of concurrent processes never interleave)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


class ToyExperiment:
    name = "toy"
    description = "one seeded random number per run"

    def load_config(self, scale: str, path: Path | None = None,
                    overrides: Mapping[str, Any] | None = None) -> ToyConfig:
        return load_scaled_config(ToyConfig, DEFAULTS, scale, path, overrides)

    def grid(self, config: ToyConfig, scale: str, seed: int = 0) -> list[RunSpec]:
        def mode(index: int) -> str:
            for name in ("fail_always", "fail_once", "fail_value", "crash_once", "crash_always"):
                if index in getattr(config, name):
                    return name
            return "ok"

        extra = {key: getattr(config, key) for key in ("sleep_s", "log") if getattr(config, key)}
        return [RunSpec(self.name, scale, f"run{index:02d}",
                        {"seed": seed + index, "mode": mode(index), **extra,
                         "labels": {"parity": index % 2, "seed": seed + index}})
                for index in range(config.n_runs)]

    def execute(self, spec: RunSpec, run_dir: Path, device: str = "cpu") -> dict[str, Any]:
        log = spec.params.get("log")
        if log:
            _append(log, f"start {spec.run_id} {os.getpid()} {time.time():.3f}")
        time.sleep(spec.params.get("sleep_s", 0.0))
        if log:
            _append(log, f"end {spec.run_id} {os.getpid()} {time.time():.3f}")
        mode = spec.params["mode"]
        if mode == "fail_always" or (mode == "fail_once" and _first_attempt(run_dir)):
            raise RuntimeError(f"deliberate failure of {spec.run_id}")
        if mode == "fail_value":
            raise ValueError(f"deliberate bad value in {spec.run_id}")
        if mode == "crash_always" or (mode == "crash_once" and _first_attempt(run_dir)):
            os._exit(3)
        return {"value": random.Random(spec.params["seed"]).random(),
                "omp_num_threads": os.environ.get("OMP_NUM_THREADS"), "pid": os.getpid()}

    def aggregate(self, exp_dir: Path, config: ToyConfig) -> list[Path]:
        rows = [run.row() for run in finished_runs(exp_dir)]
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["run_id", "seed", "value"])
        for row in rows:
            writer.writerow([row["run_id"], row["seed"], repr(row["value"])])
        mean = sum(row["value"] for row in rows) / len(rows)
        entries = [HeadlineEntry(claim="toy", name="mean of the runs' values", quantity="mean value", value=mean,
                                 bound=Bound.between(0.0, 1.0), measured=f"{mean:.6f}").to_dict()]
        with publish_results(exp_dir) as stage:
            atomic_write_text(stage.path / SUMMARY_FILE, buffer.getvalue())
            atomic_write_json(stage.path / HEADLINE_FILE, entries)
        return list(stage.published)


EXPERIMENT = ToyExperiment()
