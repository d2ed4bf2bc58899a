"""``lejepa-wm sweep``: serial, process-pool and submitit execution of a toy experiment's grid.

The toy experiment (``sweep_toy_experiment.py``) draws one seeded number per
run and can be told to fail or to kill its own process, so every path of the
driver (skip, retry once, report, resume, aggregate) runs in well under a
second per sweep. submitit runs through its local executor, which needs no
SLURM; the SLURM submission itself is checked against fake ``srun``/``sbatch``
programs that record the batch script instead of queueing it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import submitit

import sweep_toy_experiment
from lejepa_wm.atomic import atomic_write_json, read_json
from lejepa_wm.experiments import EXPERIMENT_MODULES
from lejepa_wm.experiments.base import HEADLINE_FILE, METRICS_FILE, SUMMARY_FILE, experiment_dir, run_compute_seconds
from lejepa_wm.commands.options import common_options
from lejepa_wm.commands.sweep import COMMON_OPTIONS, add_arguments, main, print_result
from lejepa_wm.experiments.base import RunTakenOver
from lejepa_wm.sweep.driver import MAX_ATTEMPTS, run_sweep
from lejepa_wm.sweep.executors import PoolExecutor, available_cores
from lejepa_wm.sweep.slurm import (DEFAULTS_FILE, JOB_FILE, SlurmSettings, SubmititExecutor,
                                   load_slurm_settings)
from lejepa_wm.sweep.state import (ERROR_FILE, RUNNING_FILE, RunState, claim_run, committing,
                                   launch_claim, read_marker, refuse_if_busy, release_run)
from lejepa_wm.sweep.status import format_status, sweep_status
from lejepa_wm.sweep.worker import RunTask, pin_threads

SCALE = "quick"


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """Register the toy experiment as ``toy``, importable by module path in spawned workers and jobs."""
    module = sweep_toy_experiment
    package_depth = len(module.__name__.split("."))
    import_root = str(Path(module.__file__).resolve().parents[package_depth - 1])
    monkeypatch.setitem(EXPERIMENT_MODULES, "toy", module.__name__)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [import_root, os.environ.get("PYTHONPATH")])))
    return module


def exp_dir(out: Path) -> Path:
    return experiment_dir(out, "toy", SCALE)


def run_ids(out: Path) -> list[str]:
    return sorted(path.parent.name for path in exp_dir(out).glob(f"runs/*/{METRICS_FILE}"))


def aggregate_bytes(out: Path) -> tuple[bytes, bytes]:
    return (exp_dir(out) / SUMMARY_FILE).read_bytes(), (exp_dir(out) / HEADLINE_FILE).read_bytes()


def grid_ids(toy: ModuleType, **overrides: object) -> list[str]:
    experiment = toy.EXPERIMENT
    return [spec.run_id for spec in experiment.grid(experiment.load_config(SCALE, None, overrides), SCALE)]


def assert_no_running_markers(out: Path) -> None:
    assert list(exp_dir(out).glob(f"runs/*/{RUNNING_FILE}")) == []


def sweep_submitit_local(out: Path, **kwargs: object):
    return run_sweep("toy", SCALE, out, "slurm", submitit_cluster="local", progress=False,
                     slurm_overrides={"time_min": 5, "cpus_per_run": 1}, **kwargs)


def test_serial_sweep_matches_the_pool_and_skips_finished_runs(toy: ModuleType, tmp_path: Path) -> None:
    result = run_sweep("toy", SCALE, tmp_path / "sweep", "serial", progress=False)
    expected = grid_ids(toy)
    assert list(result.executed) == expected and result.reused == () and result.failed == ()
    assert sorted(path.name for path in result.files) == sorted([SUMMARY_FILE, HEADLINE_FILE])
    run_sweep("toy", SCALE, tmp_path / "pool", "local", jobs=2, progress=False)
    assert aggregate_bytes(tmp_path / "sweep") == aggregate_bytes(tmp_path / "pool")

    metrics = {path: path.stat().st_mtime_ns for path in exp_dir(tmp_path / "sweep").glob(f"runs/*/{METRICS_FILE}")}
    again = run_sweep("toy", SCALE, tmp_path / "sweep", "local", jobs=2, progress=False)
    assert again.executed == () and list(again.reused) == expected and again.aggregated
    assert {path: path.stat().st_mtime_ns for path in metrics} == metrics
    assert_no_running_markers(tmp_path / "sweep")


@pytest.mark.slow
def test_tensorboard_is_refused_for_an_experiment_that_does_not_log_its_training(toy: ModuleType,
                                                                                   tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--tensorboard: experiment 'toy' does not log its training"):
        run_sweep("toy", SCALE, tmp_path / "out", "serial", progress=False, tensorboard=tmp_path / "tb")
    assert not (tmp_path / "tb").exists() and not experiment_dir(tmp_path / "out", "toy", SCALE).exists()


def test_pool_and_submitit_aggregate_identically_to_serial(toy: ModuleType, tmp_path: Path) -> None:
    run_sweep("toy", SCALE, tmp_path / "serial", "serial", progress=False)
    pool = run_sweep("toy", SCALE, tmp_path / "pool", "local", jobs=2, progress=False)
    via_submitit = sweep_submitit_local(tmp_path / "submitit")
    assert list(pool.executed) == list(via_submitit.executed) == grid_ids(toy)
    reference = aggregate_bytes(tmp_path / "serial")
    assert aggregate_bytes(tmp_path / "pool") == reference
    assert aggregate_bytes(tmp_path / "submitit") == reference

    pool_metrics = [read_json(path) for path in exp_dir(tmp_path / "pool").glob(f"runs/*/{METRICS_FILE}")]
    assert {m["omp_num_threads"] for m in pool_metrics} == {str(max(1, available_cores() // 2))}
    assert os.getpid() not in {m["pid"] for m in pool_metrics}
    for run_id in run_ids(tmp_path / "submitit"):
        job = read_json(exp_dir(tmp_path / "submitit") / "runs" / run_id / JOB_FILE)
        assert Path(job["stdout"]).is_file() and exp_dir(tmp_path / "submitit") / "logs" in Path(job["stdout"]).parents
    for out in ("pool", "submitit"):
        assert_no_running_markers(tmp_path / out)


def test_failing_run_is_retried_once_then_reported_and_the_relaunch_starts_only_it(
        toy: ModuleType, tmp_path: Path) -> None:
    ids = grid_ids(toy)
    result = run_sweep("toy", SCALE, tmp_path, "local", jobs=2, progress=False,
                       overrides={"fail_always": [1], "fail_once": [2]})
    assert result.failed == (ids[1],)
    assert list(result.executed) == [ids[0], ids[2], ids[3]]
    assert not result.aggregated and not (exp_dir(tmp_path) / SUMMARY_FILE).exists()
    error = read_json(exp_dir(tmp_path) / "runs" / ids[1] / ERROR_FILE)
    assert [attempt["attempt"] for attempt in error["attempts"]] == list(range(1, MAX_ATTEMPTS + 1))
    assert all(f"deliberate failure of {ids[1]}" in attempt["traceback"] for attempt in error["attempts"])
    assert not (exp_dir(tmp_path) / "runs" / ids[2] / ERROR_FILE).exists()
    assert_no_running_markers(tmp_path)

    # The failure is "fixed" for run 1 only; run 2 keeps its settings, so its finished result is reused.
    relaunch = run_sweep("toy", SCALE, tmp_path, "local", jobs=2, progress=False, overrides={"fail_once": [2]})
    assert relaunch.executed == (ids[1],) and relaunch.failed == () and relaunch.aggregated
    assert not (exp_dir(tmp_path) / "runs" / ids[1] / ERROR_FILE).exists()


def test_killed_jobs_are_retried_and_a_job_killed_twice_is_reported(toy: ModuleType, tmp_path: Path) -> None:
    ids = grid_ids(toy)
    result = sweep_submitit_local(tmp_path, overrides={"crash_once": [0], "crash_always": [3]})
    assert result.failed == (ids[3],) and list(result.executed) == ids[:3]
    error = read_json(exp_dir(tmp_path) / "runs" / ids[3] / ERROR_FILE)
    assert len(error["attempts"]) == MAX_ATTEMPTS
    assert all("Job" in attempt["error"] for attempt in error["attempts"])  # submitit's job error
    assert_no_running_markers(tmp_path)


@pytest.mark.slow
def test_a_worker_killed_in_the_pool_breaks_only_its_own_attempt(toy: ModuleType, tmp_path: Path) -> None:
    log = tmp_path / "executions.log"
    result = run_sweep("toy", SCALE, tmp_path / "out", "local", jobs=2, progress=False,
                       overrides={"crash_once": [1], "sleep_s": 0.5, "log": str(log)})
    assert result.failed == () and result.aggregated and list(result.executed) == grid_ids(toy)
    assert [run_id for run_id, _ in result.retried] == ["run01"] and "exited with status 3" in result.retried[0][1]
    starts = [line.split()[1] for line in log.read_text().splitlines() if line.startswith("start")]
    assert sorted(starts) == ["run00", "run01", "run01", "run02", "run03"]  # the neighbours ran once each


def test_a_failure_that_repeats_with_the_same_inputs_is_not_retried(toy: ModuleType, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    result = run_sweep("toy", SCALE, tmp_path, "serial", progress=False, overrides={"fail_value": [2]})
    assert result.failed == ("run02",) and result.retried == ()
    assert result.errors == (("run02", "ValueError: deliberate bad value in run02"),)
    assert len(read_json(exp_dir(tmp_path) / "runs" / "run02" / ERROR_FILE)["attempts"]) == 1
    assert print_result(result, tmp_path) == 3
    assert "FAILED run run02: ValueError: deliberate bad value in run02" in capsys.readouterr().out


def test_an_empty_grid_is_refused(toy: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="gives an empty grid"):
        run_sweep("toy", SCALE, tmp_path, "serial", progress=False, overrides={"n_runs": 0})


def test_a_commit_refuses_an_owner_whose_claim_passed_to_another_process(tmp_path: Path) -> None:
    marker, _ = claim_run(tmp_path, 1)
    with committing(tmp_path, marker):
        pass
    atomic_write_json(tmp_path / RUNNING_FILE, marker | {"token": "the-new-owner", "pid": 4242})
    with pytest.raises(RunTakenOver, match="taken over .pid 4242 on host"):
        with committing(tmp_path, marker):
            raise AssertionError("the block must not run")
    release_run(tmp_path, marker)
    assert read_marker(tmp_path)["token"] == "the-new-owner"  # never another owner's marker


def test_restart_and_fresh_refuse_while_a_launch_or_a_run_uses_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "toy" / SCALE
    with launch_claim(folder):
        with pytest.raises(ValueError, match=r"--fresh would delete .* while a launch is using it \(pid"):
            refuse_if_busy(folder, "--fresh")
    refuse_if_busy(folder, "--fresh")  # the launch has ended: nothing uses the folder
    assert list(folder.iterdir()) == []
    claim_run(folder / "runs" / "run00", 1)
    with pytest.raises(ValueError, match="--restart would delete .* while run run00 is using it"):
        refuse_if_busy(folder, "--restart")
    stale = dict(read_marker(folder / "runs" / "run00"), pid=dead_pid())
    atomic_write_json(folder / ".launch-old.json", stale)
    atomic_write_json(folder / "runs" / "run00" / RUNNING_FILE, stale)
    refuse_if_busy(folder, "--restart")  # both markers are stale: nothing uses the folder
    assert not (folder / ".launch-old.json").exists()


def dead_pid() -> int:
    return int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True).stdout)


def test_status_counts_states_and_estimates_time_left(toy: ModuleType, tmp_path: Path) -> None:
    ids = grid_ids(toy)
    fresh = sweep_status("toy", SCALE, tmp_path)
    assert fresh.counts[RunState.PENDING] == len(ids) and fresh.compute_left_s is None
    assert "no finished run yet" in format_status(fresh, jobs=2)

    run_sweep("toy", SCALE, tmp_path, "serial", progress=False, overrides={"fail_always": [1]})
    runs = exp_dir(tmp_path) / "runs"
    # Run 3 is running (a marker of this live process); run 0 was interrupted (marker of a dead process).
    (runs / ids[3] / METRICS_FILE).unlink()
    claim_run(runs / ids[3], attempt=1)
    started_at = read_json(runs / ids[3] / RUNNING_FILE)["started_at"]
    (runs / ids[0] / METRICS_FILE).unlink()
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True, check=True)
    claim_run(runs / ids[0], attempt=1)
    marker = read_json(runs / ids[0] / RUNNING_FILE) | {"pid": int(finished.stdout)}
    atomic_write_json(runs / ids[0] / RUNNING_FILE, marker)

    elapsed = 0.25
    status = sweep_status("toy", SCALE, tmp_path, now=started_at + elapsed)
    assert {state: status.counts[state] for state in RunState} == {
        RunState.DONE: 1, RunState.RUNNING: 1, RunState.FAILED: 1, RunState.PENDING: 1, RunState.DAMAGED: 0}
    assert status.failed == (ids[1],) and status.runs_left == 3
    wall = read_json(runs / ids[2] / METRICS_FILE)["wall_time_s"]
    assert status.mean_wall_s == pytest.approx(wall)
    assert status.compute_left_s == pytest.approx(2 * wall + max(wall - elapsed, 0.0))
    assert status.wall_left_s(jobs=2) == pytest.approx(status.compute_left_s / 2)
    assert "done 1, running 1, failed 1, pending 1" in format_status(status, jobs=2)


def test_status_costs_each_left_run_as_the_finished_runs_of_its_grid_point(toy: ModuleType, tmp_path: Path) -> None:
    run_sweep("toy", SCALE, tmp_path, "serial", progress=False, overrides={"n_runs": 5})
    runs = exp_dir(tmp_path) / "runs"
    ids = sorted(path.name for path in runs.iterdir())
    for index, run_id in enumerate(ids):  # even runs cost 10 s, odd runs 100 s
        metrics = read_json(runs / run_id / METRICS_FILE) | {"wall_time_s": 10.0 if index % 2 == 0 else 100.0}
        atomic_write_json(runs / run_id / METRICS_FILE, metrics)
    for run_id in (ids[3], ids[4]):
        (runs / run_id / METRICS_FILE).unlink()
    status = sweep_status("toy", SCALE, tmp_path, overrides={"n_runs": 5})
    assert status.mean_wall_s == pytest.approx((10.0 + 100.0 + 10.0) / 3)
    assert status.compute_left_s == pytest.approx(100.0 + 10.0)
    (runs / ids[1] / METRICS_FILE).unlink()  # no odd run finished: an odd run costs the mean of all
    status = sweep_status("toy", SCALE, tmp_path, overrides={"n_runs": 5})
    assert status.compute_left_s == pytest.approx(2 * 10.0 + 10.0)


def test_compute_of_a_resumed_run_adds_the_training_time_before_its_checkpoint() -> None:
    history = [{"step": 500, "seconds": 40.0}, {"step": 1000, "seconds": 90.0}, {"step": 1500, "seconds": 130.0}]
    assert run_compute_seconds({"wall_time_s": 5.0, "resumed_from": None, "history": history}) == 5.0
    assert run_compute_seconds({"wall_time_s": 5.0, "resumed_from": 1000, "history": history}) == 95.0
    assert run_compute_seconds({"wall_time_s": 5.0, "resumed_from": 1250, "history": history}) == 95.0
    assert run_compute_seconds({"wall_time_s": 5.0, "resumed_from": 250, "history": history}) == 5.0
    assert run_compute_seconds({"wall_time_s": 5.0}) == 5.0
    assert run_compute_seconds({"wall_time_s": 5.0, "resumed_from": 1250, "history": [*history[:1], {"step": 1000}]}) \
        == 45.0  # a row without seconds (no evaluation) is passed over
    assert run_compute_seconds({}) is None


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="lejepa-wm sweep", parents=[common_options(*COMMON_OPTIONS)])
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_command_line_sweep_status_aggregate_and_exit_status(toy: ModuleType, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    failing = tmp_path / "failing.toml"
    failing.write_text("fail_always = [0]\n")
    out = str(tmp_path / "results")
    assert main(parse("toy", "--executor", "serial", "--out", out, "--config", str(failing))) == 3  # a run failed: exit status 3
    printed = capsys.readouterr().out
    assert "run run00: an attempt failed (RuntimeError: deliberate failure of run00); it was retried" in printed
    assert "FAILED run run00: RuntimeError: deliberate failure of run00" in printed
    assert main(parse("toy", "--out", out, "--config", str(failing), "--status", "--jobs", "2")) == 0
    assert "done 3, running 0, failed 1, pending 0" in capsys.readouterr().out
    assert main(parse("toy", "--out", out, "--aggregate-only")) == 0
    assert "aggregated 3 of 4 runs" in capsys.readouterr().out
    assert main(parse("toy", "--executor", "serial", "--out", out)) == 0
    printed = capsys.readouterr().out
    assert "reused 3 finished run(s)" in printed and SUMMARY_FILE in printed


def test_a_run_whose_metrics_lack_a_key_the_aggregation_needs_is_named(toy: ModuleType, tmp_path: Path) -> None:
    run_sweep("toy", SCALE, tmp_path, "serial", progress=False)
    path = exp_dir(tmp_path) / "runs" / grid_ids(toy)[2] / METRICS_FILE
    atomic_write_json(path, {key: value for key, value in read_json(path).items() if key != "value"})
    with pytest.raises(ValueError, match=f"cannot aggregate toy: .*{grid_ids(toy)[2]}/{METRICS_FILE} lacks the key "
                                         "'value'"):
        run_sweep("toy", SCALE, tmp_path, "serial", progress=False)


def test_bad_input_gets_a_clear_error(toy: ModuleType, tmp_path: Path) -> None:
    for jobs in (0, -2):
        with pytest.raises(ValueError, match=f"jobs must be a positive integer; got {jobs}"):
            run_sweep("toy", SCALE, tmp_path, "local", jobs=jobs, progress=False)
    with pytest.raises(ValueError, match="unknown executor 'mpi'"):
        run_sweep("toy", SCALE, tmp_path, "mpi", progress=False)
    with pytest.raises(ValueError, match="unknown experiment 'nope'"):
        run_sweep("nope", SCALE, tmp_path, "serial", progress=False)
    with pytest.raises(SystemExit):
        parse("toy", "--executor", "mpi")
    with pytest.raises(ValueError, match="cpus_per_run must be a positive integer; got 0"):
        load_slurm_settings(overrides={"cpus_per_run": 0})
    with pytest.raises(ValueError, match="'cpu_per_run'"):
        load_slurm_settings(overrides={"cpu_per_run": 2})
    with pytest.raises(ValueError, match="device 'cuda' needs gpus_per_run >= 1"):
        run_sweep("toy", SCALE, tmp_path, "slurm", device="cuda", submitit_cluster="local", progress=False)
    with pytest.raises(ValueError, match="no finished run"):
        main(parse("toy", "--out", str(tmp_path), "--aggregate-only"))
    if submitit.SlurmExecutor.affinity() > 0:
        pytest.skip("SLURM is installed here, so the missing-SLURM error cannot be provoked")
    with pytest.raises(RuntimeError, match="srun"):
        run_sweep("toy", SCALE, tmp_path, "slurm", progress=False)


def test_pin_threads_sets_environment_and_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    before = torch.get_num_threads()
    try:
        pin_threads(1)
        assert torch.get_num_threads() == 1 and os.environ["OMP_NUM_THREADS"] == "1"
    finally:
        torch.set_num_threads(before)
    monkeypatch.setattr("lejepa_wm.sweep.executors.available_cores", lambda: 8)
    assert PoolExecutor(3).threads_per_run == 2 and PoolExecutor(9).threads_per_run == 1


def test_slurm_settings_layer_defaults_file_and_options(tmp_path: Path) -> None:
    import tomllib

    defaults = tomllib.loads(DEFAULTS_FILE.read_text())["slurm"]
    assert load_slurm_settings() == SlurmSettings(**defaults)
    user = tmp_path / "cluster.toml"
    user.write_text('[slurm]\npartition = "gpu"\ncpus_per_run = 8\n')
    settings = load_slurm_settings(user, {"mem_gb": 32, "partition": None})
    assert (settings.partition, settings.cpus_per_run, settings.mem_gb) == ("gpu", 8, 32.0)
    assert settings.time_min == defaults["time_min"]
    (tmp_path / "empty.toml").write_text("x = 1\n")
    with pytest.raises(ValueError, match=r"no \[slurm\] table"):
        load_slurm_settings(tmp_path / "empty.toml")


FAKE_SBATCH = """#!/bin/sh
cp "$1" "$SWEEP_TEST_SBATCH_COPY"
echo "Submitted batch job 4242"
"""


def test_slurm_submission_requests_the_configured_resources(toy: ModuleType, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in {"srun": "#!/bin/sh\nexit 0\n", "scancel": "#!/bin/sh\nexit 0\n", "sbatch": FAKE_SBATCH}.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("SWEEP_TEST_SBATCH_COPY", str(tmp_path / "submitted.sh"))

    experiment = toy.EXPERIMENT
    specs = experiment.grid(experiment.load_config(SCALE), SCALE)
    settings = SlurmSettings(partition="gpu", time_min=30, cpus_per_run=8, gpus_per_run=1, mem_gb=12.0,
                             array_parallelism=2)
    executor = SubmititExecutor(exp_dir(tmp_path) / "logs", settings, "lejepa-toy", cluster="slurm")
    tasks = [RunTask(toy.__name__, spec.to_dict(), str(tmp_path), "cuda", executor.threads_per_run)
             for spec in specs]
    jobs: dict = {}
    executor.submit(tasks, jobs)
    script = (tmp_path / "submitted.sh").read_text()
    for line in ("--partition=gpu", "--time=30", "--cpus-per-task=8", "--gpus-per-node=1", "--mem=12GB",
                 f"--array=0-{len(specs) - 1}%2", "--job-name=lejepa-toy"):
        assert f"#SBATCH {line}\n" in script
    assert str(exp_dir(tmp_path) / "logs") in script
    job_ids = [read_json(spec.run_dir(tmp_path) / JOB_FILE)["job_id"] for spec in specs]
    assert job_ids == [f"4242_{index}" for index in range(len(specs))]
    assert executor.threads_per_run == 8 and list(jobs.values()) == tasks


def test_a_claim_refuses_a_live_owner_and_reclaims_a_stale_one(tmp_path: Path) -> None:
    from lejepa_wm.sweep.state import RunOwnedElsewhere, live_marker, release_run

    mine, reclaimed = claim_run(tmp_path, attempt=1)
    assert reclaimed is None and live_marker(tmp_path)["token"] == mine["token"]
    with pytest.raises(RunOwnedElsewhere, match=f"pid {os.getpid()}"):
        claim_run(tmp_path, attempt=1)  # the owner (this process) is alive and its heartbeat is fresh
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    atomic_write_json(tmp_path / RUNNING_FILE, mine | {"pid": int(gone.stdout)})
    theirs, reclaimed = claim_run(tmp_path, attempt=2)
    assert reclaimed is not None and "is gone" in reclaimed and theirs["attempt"] == 2
    release_run(tmp_path, mine)  # not the owner any more: the new owner's marker stays
    assert live_marker(tmp_path)["token"] == theirs["token"]
    release_run(tmp_path, theirs)
    assert not (tmp_path / RUNNING_FILE).exists()


CLAIMANT = """\
import sys, time
from pathlib import Path
from lejepa_wm.sweep.state import RunOwnedElsewhere, claim_run
run_dir, go, done = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
while not go.exists():
    time.sleep(0.01)
try:
    claim_run(run_dir, 1)
    print("owner", flush=True)
except RunOwnedElsewhere:
    print("refused", flush=True)
while not done.exists():  # stay alive, so that the owner's marker stays live for the others
    time.sleep(0.01)
"""


def test_concurrent_claims_of_one_run_make_exactly_one_owner(tmp_path: Path) -> None:
    go, done, run_dir = tmp_path / "go", tmp_path / "done", tmp_path / "run"
    claimants = [subprocess.Popen([sys.executable, "-c", CLAIMANT, str(run_dir), str(go), str(done)],
                                  stdout=subprocess.PIPE, text=True) for _ in range(5)]
    try:
        go.touch()
        said = sorted(claimant.stdout.readline().strip() for claimant in claimants)
    finally:
        done.touch()
        for claimant in claimants:
            claimant.communicate(timeout=60)
    assert said == ["owner"] + ["refused"] * 4


def test_the_heartbeat_keeps_a_marker_fresh_and_stops_when_taken_over(tmp_path: Path) -> None:
    import time

    from lejepa_wm.sweep.state import heartbeat, read_marker

    marker, _ = claim_run(tmp_path, attempt=1)
    first = marker["heartbeat_at"]
    marker["heartbeat_s"] = 0.05
    with heartbeat(tmp_path, marker):
        time.sleep(0.3)
        assert read_marker(tmp_path)["heartbeat_at"] > first
        other = marker | {"token": "someone-else", "heartbeat_at": 0.0}
        atomic_write_json(tmp_path / RUNNING_FILE, other)
        time.sleep(0.3)
    assert read_marker(tmp_path) == other  # never overwritten once another owner holds the run


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux only")
def test_pool_workers_arm_the_parent_death_signal_and_ignore_ctrl_c() -> None:
    script = (
        "import ctypes, os, signal\n"
        "from lejepa_wm.sweep.worker import init_pool_worker\n"
        "init_pool_worker(1, os.getppid())\n"
        "value = ctypes.c_int()\n"
        "ctypes.CDLL(None).prctl(2, ctypes.byref(value), 0, 0, 0)  # PR_GET_PDEATHSIG\n"
        "print(value.value, signal.getsignal(signal.SIGINT) is signal.SIG_IGN, os.environ['OMP_NUM_THREADS'])\n")
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert shown.split() == [str(int(__import__("signal").SIGKILL)), "True", "1"]


def test_an_unknown_submitit_cluster_is_refused_by_name(tmp_path: Path) -> None:
    settings = SlurmSettings(partition="", time_min=30, cpus_per_run=1, gpus_per_run=0, mem_gb=1.0,
                             array_parallelism=1)
    with pytest.raises(ValueError, match="unknown submitit cluster 'Local'"):
        SubmititExecutor(tmp_path, settings, cluster="Local")
