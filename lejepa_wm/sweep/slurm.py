"""Running a sweep's runs as SLURM array jobs through ``submitit``.

:class:`SlurmSettings` holds the resources of one run; the defaults are the
``[slurm]`` table of ``slurm.toml`` next to this module, a user file's
``[slurm]`` table overrides them, and command-line options override both.
:class:`SubmititExecutor` submits attempts with ``submitit.AutoExecutor``
(``cluster="slurm"``; ``cluster="local"`` runs the identical submission path as
local subprocesses, which is how the tests exercise it without a cluster).
submitit's logs go to ``<experiment folder>/logs/<job id>/``; each run's
``job.json`` names its job id and log files. The job callable is
checkpointable, so a preempted or timed-out job is requeued by submitit and the
run resumes from the checkpoints in its folder.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import submitit

from lejepa_wm.atomic import atomic_write_json
from lejepa_wm.config import config_from_mapping, read_toml
from lejepa_wm.sweep.executors import SweepExecutor
from lejepa_wm.sweep.worker import RunOutcome, RunTask, outcome_from_exception, run_task
from lejepa_wm.validation import EnvironmentUnavailable, check_choice, check_nonnegative_int, check_positive_int

__all__ = ["DEFAULTS_FILE", "JOB_FILE", "SlurmSettings", "load_slurm_settings", "SubmititExecutor"]

DEFAULTS_FILE = Path(__file__).with_name("slurm.toml")
JOB_FILE = "job.json"
_POLL_SECONDS = {"slurm": 15.0, "local": 0.2}


@dataclass(frozen=True)
class SlurmSettings:
    """Resources of one run on SLURM (defaults in ``slurm.toml``)."""

    partition: str
    time_min: int
    cpus_per_run: int
    gpus_per_run: int
    mem_gb: float
    array_parallelism: int

    def __post_init__(self) -> None:
        for name in ("time_min", "cpus_per_run", "array_parallelism"):
            check_positive_int(getattr(self, name), name)
        check_nonnegative_int(self.gpus_per_run, "gpus_per_run")
        if not self.mem_gb > 0:
            raise ValueError(f"mem_gb must be positive; got {self.mem_gb!r}")


def _slurm_table(path: Path) -> dict[str, Any]:
    table = read_toml(path)
    if not isinstance(table.get("slurm"), dict):
        raise ValueError(f"config file {path} has no [slurm] table")
    return dict(table["slurm"])


def load_slurm_settings(path: Path | None = None, overrides: Mapping[str, Any] | None = None) -> SlurmSettings:
    """Defaults, then the ``[slurm]`` table of ``path``, then ``overrides`` whose value is not ``None``."""
    merged = _slurm_table(DEFAULTS_FILE)
    if path is not None:
        merged.update(_slurm_table(Path(path)))
    merged.update({key: value for key, value in (overrides or {}).items() if value is not None})
    return config_from_mapping(SlurmSettings, merged)


class _CheckpointableRun(submitit.helpers.Checkpointable):
    """The job submitit pickles: one attempt of one run, requeued as is when preempted or timed out."""

    def __call__(self, task: RunTask) -> RunOutcome:
        return run_task(task)


class SubmititExecutor(SweepExecutor):
    """Submits attempts as a job array and polls them until they end."""

    def __init__(self, log_dir: Path, settings: SlurmSettings, job_name: str = "lejepa-wm",
                 cluster: str = "slurm") -> None:
        check_choice(cluster, tuple(_POLL_SECONDS), "submitit cluster")
        if cluster == "slurm" and submitit.SlurmExecutor.affinity() <= 0:
            raise EnvironmentUnavailable("executor 'slurm' needs a SLURM cluster, but 'srun' is not on PATH; "
                               "use --executor local on a single machine")
        self.threads_per_run = settings.cpus_per_run
        self.poll_s = _POLL_SECONDS[cluster]
        self._local = cluster == "local"
        self._executor = submitit.AutoExecutor(folder=Path(log_dir) / "%j", cluster=cluster)
        parameters: dict[str, Any] = {  # SLURM-only keywords of AutoExecutor are prefixed slurm_
            "name": job_name, "timeout_min": settings.time_min, "cpus_per_task": settings.cpus_per_run,
            "mem_gb": settings.mem_gb, "tasks_per_node": 1, "nodes": 1,
            "slurm_array_parallelism": settings.array_parallelism,
        }
        if settings.gpus_per_run:  # some clusters reject an explicit request for zero GPUs
            parameters["gpus_per_node"] = settings.gpus_per_run
        if settings.partition:  # otherwise the cluster's default partition
            parameters["slurm_partition"] = settings.partition
        self._executor.update_parameters(**parameters)

    def submit(self, tasks: Sequence[RunTask], pending: dict[submitit.Job[RunOutcome], RunTask]) -> None:
        """Submit the attempts as one job array, add its jobs to ``pending`` at once (so an interruption while the
        ``job.json`` files are written still cancels them), then write each run's ``job.json``."""
        jobs = self._executor.map_array(_CheckpointableRun(), list(tasks))
        pending.update(zip(jobs, tasks))
        for job, task in zip(jobs, tasks):
            if self._local:
                # submitit waits up to 15 s for a failed job's result file to appear on a slow
                # shared file system; local jobs write to the local disk, so do not wait.
                job._results_timeout_s = 0
            atomic_write_json(task.run_dir() / JOB_FILE, {
                "job_id": job.job_id, "attempt": task.attempt,
                "stdout": str(job.paths.stdout), "stderr": str(job.paths.stderr)})

    def outcomes(self, queue: deque[RunTask]) -> Iterator[tuple[RunTask, RunOutcome]]:
        pending: dict[submitit.Job[RunOutcome], RunTask] = {}
        try:
            while queue or pending:
                if queue:
                    self.submit(list(queue), pending)
                    queue.clear()
                while not (finished := [job for job in pending if job.done()]):
                    time.sleep(self.poll_s)
                for job in finished:
                    task = pending.pop(job)
                    try:
                        outcome = job.result()
                    except Exception as exc:  # noqa: BLE001 - killed, preempted past requeueing, unpicklable result
                        outcome = outcome_from_exception(task, exc)
                    yield task, outcome
        finally:  # jobs still in flight are cancelled
            for job in pending:
                job.cancel(check=False)
