"""Replay every fault and bad input of issue 15 and judge how ``lejepa-wm`` answers.

Run it on its own (``python tests/faults/replay_faults.py``, ``--markdown`` for a
Markdown table, ``--group NAME`` for one group); ``tests/faults/test_faults.py``
drives the same cases under pytest. Each case prints one row: the case, the exit
status, the message judged, whether it is *clear* and whether anything was *lost*.

A case is **clear** when the exit status is the one expected, no Python
traceback was shown (unless the case is an unexpected error, which must keep its
traceback and ask to be reported), and the message is one line that names the
bad value or file (every string of ``Case.names``). **Lost** means a finished
result was removed or changed, a run executed twice, or a run's training was
thrown away. A refused input (exit status 2) must also leave every file as it
was and start no run.

Groups, as in the issue:

- ``killed``: ``kill -9`` of a sweep launcher, Ctrl-C, two launches at once,
  markers of live, dead, silent, remote and damaged owners;
- ``errors``: paths that are files, unwritable or read-only, config folders,
  unknown claims, results lacking a key: one line, never a traceback;
- ``window``: a kill between the final evaluation and ``metrics.json``, and the
  temporary files of killed writes;
- ``validation``: every config value and option checked on loading, before
  any run;
- ``damaged``: damaged ``metrics.json``, ``spec.json``, ``verify.json``,
  ``headline.json``, ``reproduce.json``, ``error.json`` and markers.

Groups of issue 32 (faults, round two), one per kind it lists:

- ``deleted``: ``reproduce --fresh`` and ``run --restart`` while a live run or
  launch uses the folder;
- ``twice``: a suspended owner taken over and resumed, SIGTERM to one pool
  worker, SIGTERM to the launcher;
- ``out-of-step``: aggregation killed, a NaN metric or a full disk between the
  files of one result, a bad figure between ``report.md`` and ``report.html``;
- ``hangs``: FIFOs where a config, ``metrics.json`` or a figure belongs,
  ``--config /dev/zero``, an absurd thread count;
- ``wrong``: quick results copied under ``full/``, a killed reproduction, SIGReg
  directions that are not unit vectors;
- ``accepted``: values that must be refused where they enter (cross-field
  rules, ``--out ""``, a figure outside the results, metrics of the wrong type);
- ``vague``: failures that repeat, a truncated checkpoint, a full disk, seed
  keys, a closed pipe, an ASCII-only terminal;
- ``crash``: Reacher with an unusable ``MUJOCO_GL``.

Besides *lost*, each case counts a run that **executed twice** (two finished
results, or a run restarted because its neighbour died) and a command that
**hung** (still running after its time limit, then killed).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import hashlib
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

TESTS_DIR = Path(__file__).resolve().parents[1]
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

TOY_MODULE = "sweep_toy_experiment"
SCALE = "quick"
GROUPS = ("killed", "errors", "window", "validation", "damaged", "deleted", "twice", "out-of-step", "hangs",
          "wrong", "accepted", "vague", "crash")
KILL_GRACE_S = 10.0
# A real synthetic run, as small as the configuration allows (a few seconds on one core).
TINY_SCALING = {"dims": [2], "seeds": 1, "max_steps": 40, "eval_every": 10, "checkpoint_every": 20,
                "warmup_steps": 5, "eval_size": 256, "batch_size": 64, "sigreg_slices": 8}


class NotApplicable(Exception):
    """The case cannot be provoked on this machine (e.g. every folder is writable for root)."""


@dataclass
class Observed:
    """What a case produced: the exit status, the output, the line judged, and what went wrong."""

    status: int | None
    stdout: str = ""
    stderr: str = ""
    message: str | None = None
    lost: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    double: list[str] = field(default_factory=list)
    hung: str | None = None


@dataclass(frozen=True)
class Case:
    """One fault or bad input: how to provoke it and what a good answer looks like.

    ``names`` are strings the message must contain (``{work}`` stands for the
    case's folder); ``traceback`` marks an unexpected error, which must show its
    traceback.
    """

    group: str
    name: str
    action: Callable[[Path], Observed]
    status: int
    names: tuple[str, ...] = ()
    traceback: bool = False
    slow: bool = False


@dataclass(frozen=True)
class Outcome:
    """The judged result of one case."""

    case: Case
    status: int | None
    message: str
    clear: bool
    lost: bool
    problems: tuple[str, ...]
    skipped: str | None = None
    double: bool = False
    hung: bool = False


# --- running the command line ------------------------------------------------------------------------------


@contextlib.contextmanager
def toy_registered() -> Iterator[None]:
    """Make the toy experiment of ``tests/sweep_toy_experiment.py`` available as ``toy`` (here and in workers)."""
    from lejepa_wm.experiments import EXPERIMENT_MODULES

    old = os.environ.get("PYTHONPATH")
    EXPERIMENT_MODULES["toy"] = TOY_MODULE
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS_DIR), old]))
    try:
        yield
    finally:
        EXPERIMENT_MODULES.pop("toy", None)
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


@contextlib.contextmanager
def patched(target: str, replacement: object) -> Iterator[None]:
    """Replace ``module.attribute`` (``target``) for the duration."""
    import importlib

    module_name, attribute = target.rsplit(".", 1)
    module = importlib.import_module(module_name)
    original = getattr(module, attribute)
    setattr(module, attribute, replacement)
    try:
        yield
    finally:
        setattr(module, attribute, original)


@contextlib.contextmanager
def forbidden(*targets: str) -> Iterator[list[str]]:
    """Make each ``module.function`` raise if called; yield the list of those that were called."""
    called: list[str] = []
    with contextlib.ExitStack() as stack:
        for target in targets:
            def refuse(*args: object, _target: str = target, **kwargs: object) -> None:
                called.append(_target)
                raise RuntimeError(f"{_target} was called, but the input should have been refused first")

            stack.enter_context(patched(target, refuse))
        yield called


NO_WORK = ("lejepa_wm.sweep.worker.execute_run", "lejepa_wm.commands.verify.run_verify",
           "lejepa_wm.commands.reproduce.run_verify", "lejepa_wm.commands.reproduce.run_sweep")


def cli(argv: list[str], forbid: tuple[str, ...] = ()) -> Observed:
    """Run ``lejepa-wm ARGV`` in this process; capture its output; report calls of ``forbid`` as problems."""
    from lejepa_wm.commands import cli as cli_module

    out, err = io.StringIO(), io.StringIO()
    with forbidden(*forbid) as called, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status: int | None = cli_module.main([str(arg) for arg in argv])
        except SystemExit as exc:  # argparse
            status = exc.code if isinstance(exc.code, int) else 1
        except BaseException:  # noqa: BLE001 - escaped the error boundary: shown as it would be
            traceback.print_exc(file=err)
            status = None
    observed = Observed(status, out.getvalue(), err.getvalue())
    observed.problems += [f"work started before the error ({name})" for name in dict.fromkeys(called)]
    return observed


def snapshot(root: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Relative path -> content hash of every file below ``root`` (names in ``skip`` left out)."""
    files = {}
    for path in sorted(Path(root).rglob("*")):
        if path.is_file() and path.name not in skip:
            files[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


def compare(before: dict[str, str], after: dict[str, str], observed: Observed, strict: bool = True) -> None:
    """Removed or changed files are lost; with ``strict``, new files are a problem (a refusal writes nothing)."""
    observed.lost += [f"removed {name}" for name in before if name not in after]
    observed.lost += [f"changed {name}" for name in before if name in after and after[name] != before[name]]
    if strict:
        added = [name for name in after if name not in before]
        if added:
            observed.problems.append(f"wrote {added[0]} before refusing")


# --- fixtures ----------------------------------------------------------------------------------------------


def toy_results(work: Path, **overrides: object) -> Path:
    """A finished toy sweep (four runs, aggregated) below ``work/results``; return the results root."""
    from lejepa_wm.sweep.driver import run_sweep

    out = work / "results"
    run_sweep("toy", SCALE, out, "serial", progress=False, overrides=overrides or None)
    return out


def toy_run(out: Path, run_id: str) -> Path:
    return out / "toy" / SCALE / "runs" / run_id


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def unwritable(work: Path, exists: bool) -> Path:
    """A folder that cannot be written (``exists``: it exists; else it cannot be created either)."""
    if os.geteuid() != 0:
        locked = work / "locked"
        locked.mkdir(exist_ok=True)
        locked.chmod(0o555)
        return locked if exists else locked / "out"
    candidate = Path("/sys") if exists else Path("/sys/lejepa-wm-out")  # read-only even for root
    try:
        handle, probe = tempfile.mkstemp(dir=candidate if exists else candidate.parent)
    except OSError:
        return candidate
    os.close(handle)
    os.unlink(probe)
    raise NotApplicable("no unwritable folder on this machine (running as root)")


def unlock(work: Path) -> None:
    locked = work / "locked"
    if locked.exists():
        locked.chmod(0o755)


def marker(pid: int, host: str | None = None, age_s: float = 0.0, silent_s: float = 0.0) -> dict[str, object]:
    now = time.time()
    return {"host": host or socket.gethostname(), "pid": pid, "token": "replay", "started_at": now - age_s,
            "heartbeat_at": now - silent_s, "heartbeat_s": 30.0, "attempt": 1}


def dead_pid() -> int:
    """The process id of a process that has ended."""
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True)
    return int(finished.stdout)


# --- subprocesses ------------------------------------------------------------------------------------------

LAUNCHER = """\
import sys
sys.path.insert(0, {tests!r})
from lejepa_wm.experiments import EXPERIMENT_MODULES
EXPERIMENT_MODULES["toy"] = {module!r}
from lejepa_wm.commands.cli import main
if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
"""


def launch(work: Path, argv: list[str], tag: str, sigint_ignored: bool = False) -> subprocess.Popen:
    """Start ``lejepa-wm ARGV`` (with the toy experiment) as its own session; output to ``work/TAG.out``.

    ``sigint_ignored``: start it as a shell starts a background job, with SIGINT ignored."""
    script = write(work / "launch_toy.py", LAUNCHER.format(tests=str(TESTS_DIR), module=TOY_MODULE))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(TESTS_DIR), os.environ.get("PYTHONPATH")])))
    log = open(work / f"{tag}.out", "w", encoding="utf-8")  # noqa: SIM115 - closed by finish()
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None
    return subprocess.Popen([sys.executable, str(script), *map(str, argv)], cwd=work, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=ignore)


def finish(process: subprocess.Popen, work: Path, tag: str, timeout: float = 120.0) -> Observed:
    status = process.wait(timeout=timeout)
    process.stdout = None
    text = (work / f"{tag}.out").read_text(encoding="utf-8")
    return Observed(status, text, "")


def session_processes(session: int) -> list[int]:
    """Processes of ``session`` that are alive (zombies, already dead, are left out); Linux ``/proc`` only."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == session and fields[0] != b"Z":
            alive.append(int(entry.name))
    return alive


def needs_proc() -> None:
    if not Path("/proc/self/stat").exists():
        raise NotApplicable("needs Linux /proc to list a session's processes")


def read_log(path: Path) -> list[tuple[str, str, int, float]]:
    """Lines ``start|end run_id pid time`` that the toy runs append."""
    if not path.exists():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        kind, run_id, pid, stamp = line.split()
        rows.append((kind, run_id, int(pid), float(stamp)))
    return rows


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.05)


def toy_config(work: Path, **keys: object) -> Path:
    lines = [f"{key} = {json.dumps(value)}" for key, value in keys.items()]
    return write(work / "toy.toml", "\n".join(lines) + "\n")


# --- group "killed" ----------------------------------------------------------------------------------------

_KILLED: dict[str, dict[str, object]] = {}


def killed_sweep() -> dict[str, object]:
    """``kill -9`` of a ``sweep --executor local --jobs 2`` launcher mid-way, then the same command again.

    Done once per process and shared by the two cases that judge it.
    """
    if "result" in _KILLED:
        return _KILLED["result"]
    needs_proc()
    work = Path(tempfile.mkdtemp(prefix="lejepa-wm-killed-"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    log = work / "executions.log"
    config = toy_config(work, n_runs=6, sleep_s=1.5, log=str(log))
    argv = ["sweep", "toy", "--executor", "local", "--jobs", "2", "--out", work / "results", "--config", config]
    process = launch(work, argv, "first")

    def in_flight() -> bool:
        rows = read_log(log)
        ends = sum(kind == "end" for kind, *_ in rows)
        return ends >= 2 and sum(kind == "start" for kind, *_ in rows) > ends

    wait_for(in_flight, 60.0, "two finished runs and one in flight")
    before_kill = session_processes(process.pid)
    killed_at = time.time()
    os.kill(process.pid, signal.SIGKILL)
    first = finish(process, work, "first")
    deadline, survivors = time.monotonic() + KILL_GRACE_S, session_processes(process.pid)
    while survivors and time.monotonic() < deadline:
        time.sleep(0.1)
        survivors = session_processes(process.pid)
    gone_after = KILL_GRACE_S - max(0.0, deadline - time.monotonic())
    for pid in survivors:  # never leave them behind, whatever the verdict
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    rows_at_kill = read_log(log)
    # Finished means metrics.json is on disk: a run killed after logging "end" but before its result was written
    # is not finished, and running it again is right.
    finished_before = {run_id for kind, run_id, _, _ in rows_at_kill
                       if kind == "start" and (toy_run(work / "results", run_id) / "metrics.json").exists()}
    old_pids = {pid for _, _, pid, _ in rows_at_kill}
    relaunch = finish(launch(work, argv, "second"), work, "second")
    rows = read_log(log)
    result = {"work": work, "first": first, "before_kill": before_kill, "survivors": survivors,
              "gone_after": gone_after, "killed_at": killed_at, "rows_at_kill": rows_at_kill,
              "finished_before": finished_before, "old_pids": old_pids, "relaunch": relaunch, "rows": rows}
    _KILLED["result"] = result
    return result


def kill_leaves_nothing_running(work: Path) -> Observed:
    result = killed_sweep()
    observed = Observed(result["first"].status, result["first"].stdout)
    late = [run_id for kind, run_id, pid, stamp in result["rows"]
            if kind == "start" and pid in result["old_pids"] and stamp >= result["killed_at"]]
    if result["survivors"]:
        observed.problems.append(f"{len(result['survivors'])} process(es) of the sweep alive {KILL_GRACE_S:.0f} s "
                                 f"after the kill: {result['survivors']}")
    if late:
        observed.problems.append(f"a worker started {late[0]} after its launcher was killed")
    observed.message = (f"{len(result['before_kill'])} processes before the kill, none alive "
                        f"{result['gone_after']:.1f} s after it; no run started after it")
    if len(result["before_kill"]) < 3:
        observed.problems.append("the pool had not started (fewer than three processes in the session)")
    return observed


def relaunch_runs_each_missing_run_once(work: Path) -> Observed:
    result = killed_sweep()
    relaunch: Observed = result["relaunch"]
    rows = result["rows"]
    observed = Observed(relaunch.status, relaunch.stdout)
    missing = {f"run{index:02d}" for index in range(6)} - result["finished_before"]
    after = rows[len(result["rows_at_kill"]):]
    started = [run_id for kind, run_id, _, _ in after if kind == "start"]
    ends_after = {run_id: sum(1 for kind, rid, _, _ in after if kind == "end" and rid == run_id) for run_id in missing}
    if sorted(started) != sorted(missing):
        observed.problems.append(f"the relaunch started {sorted(started)}, the missing runs are {sorted(missing)}")
    observed.double += [f"{run_id} finished {count} times after the relaunch"
                        for run_id, count in ends_after.items() if count > 1]
    observed.lost += [f"{run_id} did not finish after the relaunch" for run_id, count in ends_after.items()
                      if count == 0]
    observed.lost += [f"{run_id} has no metrics.json after the relaunch"
                      for run_id in (f"run{index:02d}" for index in range(6))
                      if not (toy_run(result["work"] / "results", run_id) / "metrics.json").exists()]
    in_flight = {run_id for kind, run_id, _, _ in result["rows_at_kill"] if kind == "start"} - result["finished_before"]
    lines = [line for line in relaunch.stdout.splitlines() if line.startswith("reclaimed run")]
    unreported = [run_id for run_id in in_flight if not any(f"run {run_id}:" in line for line in lines)]
    if unreported:
        observed.problems.append(f"the relaunch did not say it reclaimed {unreported}")
    if not (result["work"] / "results" / "toy" / SCALE / "summary.csv").exists():
        observed.lost.append("the relaunch did not aggregate")
    observed.message = (f"{lines[0]} (+{len(lines) - 1} more); ran {len(started)} missing run(s), each once"
                        if lines else "no reclaim reported")
    return observed


def two_launches_at_once(work: Path) -> Observed:
    """A second launch while the first runs: no run executes twice; the second names what runs elsewhere."""
    needs_proc()
    log = work / "executions.log"
    config = toy_config(work, n_runs=4, sleep_s=3.0, log=str(log))
    common = ["--out", work / "results", "--config", config]
    first = launch(work, ["sweep", "toy", "--executor", "local", "--jobs", "2", *common], "first")
    wait_for(lambda: sum(kind == "start" for kind, *_ in read_log(log)) >= 2, 60.0, "two runs in flight")
    second = finish(launch(work, ["sweep", "toy", "--executor", "serial", *common], "second"), work, "second")
    finish(first, work, "first")
    rows = read_log(log)
    observed = Observed(second.status, second.stdout)
    for index in range(4):
        run_id = f"run{index:02d}"
        count = sum(1 for kind, rid, _, _ in rows if kind == "start" and rid == run_id)
        if count != 1:
            (observed.double if count > 1 else observed.lost).append(f"{run_id} executed {count} times")
    return observed


def owned_run(work: Path, owner: dict[str, object] | str) -> Path:
    """Finished toy results with run01 unfinished and holding the marker ``owner`` (a dict, or raw text)."""
    out = toy_results(work)
    run_dir = toy_run(out, "run01")
    (run_dir / "metrics.json").unlink()
    write(run_dir / "running.json", owner if isinstance(owner, str) else json.dumps(owner))
    return out


def relaunch_with_marker(owner_factory: Callable[[], dict[str, object] | str], live: bool,
                         slurm_job: str | None = None) -> Callable[[Path], Observed]:
    def action(work: Path) -> Observed:
        out = owned_run(work, owner_factory())
        run_dir = toy_run(out, "run01")
        before = (run_dir / "running.json").read_bytes()
        with contextlib.ExitStack() as stack:
            if slurm_job is not None:  # this launch runs inside that SLURM job (requeued on another node)
                stack.enter_context(patched("os.environ", dict(os.environ, SLURM_JOB_ID=slurm_job)))
            observed = cli(["run", "toy", "--out", out])
        if live:
            if (run_dir / "metrics.json").exists():
                observed.lost.append("started run01 although its owner is alive")
            if not (run_dir / "running.json").exists() or (run_dir / "running.json").read_bytes() != before:
                observed.problems.append("touched the live owner's marker")
        else:
            if not (run_dir / "metrics.json").exists():
                observed.problems.append("did not run the reclaimed run01")
            if (run_dir / "running.json").exists():
                observed.problems.append("left a marker behind")
        return observed

    return action


def status_names_owners(work: Path) -> Observed:
    out = owned_run(work, marker(os.getpid()))
    write(toy_run(out, "run02") / "running.json", json.dumps(marker(dead_pid())))
    (toy_run(out, "run02") / "metrics.json").unlink()
    observed = cli(["sweep", "toy", "--status", "--out", out])
    observed.message = next((line for line in observed.stdout.splitlines() if line.startswith("running:")), "")
    if "reclaims them): run02" not in observed.stdout:
        observed.problems.append("did not list the stale marker of run02")
    return observed


def orphaned_worker_starts_nothing(work: Path) -> Observed:
    """A pool worker handed a queued run after its launcher died exits without starting it."""
    log = work / "executions.log"
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(TESTS_DIR)!r})
        import lejepa_wm.sweep.worker as worker
        from sweep_toy_experiment import EXPERIMENT
        spec = EXPERIMENT.grid(EXPERIMENT.load_config("quick", overrides={{"log": {str(log)!r}}}), "quick")[0]
        worker._parent_pid = os.getppid() + 4_000_000  # the launcher this worker served is gone
        worker.run_task(worker.RunTask({TOY_MODULE!r}, spec.to_dict(), {str(work / "results")!r}))
        print("the queued run was started")
    """)
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    observed = Observed(finished.returncode, finished.stdout, finished.stderr)
    if read_log(log) or (work / "results").exists():
        observed.problems.append("the orphaned worker started the run")
    observed.message = f"the worker exited with status {finished.returncode} before claiming the run"
    return observed


POOL_WITHOUT_DEATH_SIGNAL = """\
import concurrent.futures as cf, multiprocessing, os, sys, time
sys.path.insert(0, {tests!r})
sys.path.insert(0, {faults!r})
from lejepa_wm.sweep.worker import RunTask, run_task
from sweep_toy_experiment import EXPERIMENT
import replay_faults

if __name__ == "__main__":
    config = EXPERIMENT.load_config("quick", overrides={{"n_runs": 3, "sleep_s": 1.5, "log": {log!r}}})
    pool = cf.ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                  initializer=replay_faults.init_worker_without_death_signal,
                                  initargs=(1, os.getpid()))
    for spec in EXPERIMENT.grid(config, "quick"):
        pool.submit(run_task, RunTask({module!r}, spec.to_dict(), {out!r}, threads=1))
    time.sleep(600)
"""


def init_worker_without_death_signal(threads: int, parent_pid: int) -> None:
    """Pool worker initializer with the Linux parent-death signal disabled: only the portable fallback is left."""
    import lejepa_wm.sweep.worker as worker

    worker.set_parent_death_signal = lambda *args, **kwargs: False
    worker.init_pool_worker(threads, parent_pid)


def fallback_without_death_signal(work: Path) -> Observed:
    """Without ``PR_SET_PDEATHSIG`` (other systems), the polling fallback ends the worker and its queue."""
    needs_proc()
    log = work / "executions.log"
    script = write(work / "pool.py", POOL_WITHOUT_DEATH_SIGNAL.format(
        tests=str(TESTS_DIR), faults=str(Path(__file__).parent), log=str(log), module=TOY_MODULE,
        out=str(work / "results")))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS_DIR), str(Path(__file__).parent)]))
    process = subprocess.Popen([sys.executable, str(script)], env=env, start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: any(kind == "start" for kind, *_ in read_log(log)), 60.0, "the first run to start")
    except TimeoutError:
        process.kill()
        raise
    killed_at = time.time()
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    deadline = time.monotonic() + KILL_GRACE_S
    while session_processes(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = session_processes(process.pid)
    seconds = time.time() - killed_at
    for pid in survivors:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    observed = Observed(-signal.SIGKILL)
    late = [run_id for kind, run_id, _, stamp in read_log(log) if kind == "start" and stamp >= killed_at]
    if survivors:
        observed.problems.append(f"worker(s) {survivors} alive {KILL_GRACE_S:.0f} s after the launcher's kill")
    if late:
        observed.problems.append(f"the orphaned worker started the queued {late[0]}")
    observed.message = f"no process of the pool alive {seconds:.1f} s after the kill; no queued run started"
    return observed


def ctrl_c(work: Path, sigint_ignored: bool = False) -> Observed:
    """Ctrl-C (SIGINT to the launcher's process group): exit 130, one line, nothing left running, no marker;
    also for a launcher that inherited SIGINT ignored (a background job of a shell script)."""
    needs_proc()
    log = work / "executions.log"
    # runs far longer than any scheduling delay of this process on a loaded machine: the sweep cannot finish
    # before the Ctrl-C arrives (the interrupted runs are stopped at once, so the test does not wait for them)
    config = toy_config(work, n_runs=4, sleep_s=60.0, log=str(log))
    process = launch(work, ["sweep", "toy", "--executor", "local", "--jobs", "2", "--out", work / "results",
                            "--config", config], "first", sigint_ignored)
    wait_for(lambda: sum(kind == "start" for kind, *_ in read_log(log)) >= 2, 60.0, "two runs in flight")
    os.killpg(process.pid, signal.SIGINT)
    observed = finish(process, work, "first")
    observed.stderr, observed.stdout = observed.stdout, ""
    deadline = time.monotonic() + KILL_GRACE_S
    while session_processes(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = session_processes(process.pid)
    for pid in survivors:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if survivors:
        observed.problems.append(f"{survivors} alive {KILL_GRACE_S:.0f} s after Ctrl-C")
    markers = list((work / "results").rglob("running.json"))
    if markers:
        observed.problems.append(f"left {markers[0]} behind")
    return observed


# --- group "window" ----------------------------------------------------------------------------------------

KILL_AT_METRICS = """\
import json, os, signal, sys
from pathlib import Path
import lejepa_wm.experiments.base as base
from lejepa_wm.experiments import get_experiment
from lejepa_wm.sweep.worker import RunTask, run_task

experiment = get_experiment("scaling")
spec = experiment.grid(experiment.load_config("quick", overrides=json.loads(sys.argv[2])), "quick", 0)[0]
original = base.atomic_write_json

def write(path, obj):
    if Path(path).name == base.METRICS_FILE:  # the final evaluation is done; die before the result is written
        os.kill(os.getpid(), signal.SIGKILL)
    return original(path, obj)

base.atomic_write_json = write
run_task(RunTask("lejepa_wm.experiments.scaling", spec.to_dict(), sys.argv[1]))
"""


def tiny_scaling_task(out: Path):
    from lejepa_wm.experiments import get_experiment
    from lejepa_wm.sweep.worker import RunTask

    experiment = get_experiment("scaling")
    spec = experiment.grid(experiment.load_config(SCALE, overrides=TINY_SCALING), SCALE, 0)[0]
    return RunTask("lejepa_wm.experiments.scaling", spec.to_dict(), str(out)), spec


def kill_before_metrics(work: Path) -> Observed:
    """``kill -9`` after the final evaluation, before ``metrics.json``: the relaunch trains nothing again."""
    import torch

    from lejepa_wm.atomic import read_json
    from lejepa_wm.experiments.base import CHECKPOINT_FILE
    from lejepa_wm.sweep.worker import run_task

    threads = torch.get_num_threads()
    try:
        reference_task, spec = tiny_scaling_task(work / "reference")
        run_task(reference_task)
        reference = read_json(spec.run_dir(work / "reference") / "metrics.json")
        killed = subprocess.run([sys.executable, "-c", KILL_AT_METRICS, str(work / "results"),
                                 json.dumps(TINY_SCALING)], capture_output=True, text=True, timeout=300)
        run_dir = spec.run_dir(work / "results")
        observed = Observed(killed.returncode, killed.stdout, killed.stderr)
        if killed.returncode != -signal.SIGKILL:
            observed.problems.append(f"the run was not killed at metrics.json (status {killed.returncode})")
            return observed
        checkpoint = run_dir / CHECKPOINT_FILE
        if not checkpoint.exists() or not torch.load(checkpoint, weights_only=False).get("finished"):
            observed.lost.append("the final checkpoint is gone: the run would restart from step 0")
            return observed
        task, _ = tiny_scaling_task(work / "results")
        outcome = run_task(task)
    finally:
        torch.set_num_threads(threads)
    metrics = read_json(run_dir / "metrics.json")
    observed.status = 0 if outcome.ok else 3
    if not outcome.ok:
        observed.problems.append(f"the relaunch failed: {outcome.error}")
    if metrics.get("resumed_from") != metrics.get("steps"):
        observed.lost.append(f"trained again from step {metrics.get('resumed_from')} of {metrics.get('steps')}")
    keys = ("probe_r2", "validation_r2", "residual_ratio", "steps")
    differ = [key for key in keys if metrics.get(key) != reference.get(key)]
    if differ:
        observed.lost.append(f"the resumed run differs from an uninterrupted one in {differ}")
    if checkpoint.exists():
        observed.problems.append("the checkpoint was kept after metrics.json was written")
    if outcome.reclaimed is None:
        observed.problems.append("the killed run's marker was not reclaimed")
    observed.message = (f"resumed from step {metrics.get('resumed_from')} of {metrics.get('steps')} (the final "
                        f"checkpoint): nothing retrained, metrics equal to an uninterrupted run")
    return observed


def stale_temporaries(work: Path) -> Observed:
    """Temporary files of killed atomic writes are removed when the run starts again."""
    out = toy_results(work)
    run_dir = toy_run(out, "run02")
    (run_dir / "metrics.json").unlink()
    leftovers = [write(run_dir / ".metrics.json.x1y2.tmp", "{\"half"), write(run_dir / ".checkpoint.pt.z9.tmp", b"\0"),
                 write(out / "toy" / SCALE / ".summary.csv.k3.tmp", "run_id,se")]
    os.utime(leftovers[-1], (time.time() - 3600, time.time() - 3600))  # a killed aggregation, an hour ago
    observed = cli(["run", "toy", "--out", out])
    remaining = [path.name for path in leftovers if path.exists()]
    if remaining:
        observed.problems.append(f"left {remaining} behind")
    if not (run_dir / "metrics.json").exists():
        observed.problems.append("did not finish run02")
    return observed


# --- groups "errors", "validation", "damaged": the command line ----------------------------------------


def refused(argv: list[object], setup: Callable[[Path], None] | None = None, toy: bool = True,
            cuda_absent: bool = False) -> Callable[[Path], Observed]:
    """A bad input: ``lejepa-wm ARGV`` (``{work}``, ``{results}`` filled in) must refuse it and touch nothing."""

    def action(work: Path) -> Observed:
        results = toy_results(work) if toy else work / "results"
        if setup is not None:
            setup(work)
        args = [str(arg).format(work=work, results=results) for arg in argv]
        before = snapshot(work)
        with contextlib.ExitStack() as stack:
            if cuda_absent:
                import torch

                stack.enter_context(patched("torch.cuda.is_available", lambda: False))
                del torch
            observed = cli(args, forbid=NO_WORK)
        compare(before, snapshot(work), observed)
        unlock(work)
        return observed

    return action


def config_file(text: str | bytes, name: str = "bad.toml") -> Callable[[Path], None]:
    return lambda work: write(work / name, text) and None


def bad_config(experiment: str, text: str | bytes, command: str = "run") -> Callable[[Path], Observed]:
    argv: list[object] = [command, experiment, "--config", "{work}/bad.toml", "--out", "{results}"]
    if command == "sweep":
        argv += ["--executor", "serial"]
    return refused(argv, config_file(text))


def ran(argv: list[object], prepare: Callable[[Path], None], check: Callable[[Path, Observed], None] | None = None,
        keep: Callable[[Path], dict[str, str]] | None = None) -> Callable[[Path], Observed]:
    """A command that must succeed despite a damaged file: ``prepare`` damages, ``check`` judges the result."""

    def action(work: Path) -> Observed:
        results = toy_results(work)
        prepare(work)
        before = keep(work) if keep else {}
        observed = cli([str(arg).format(work=work, results=results) for arg in argv])
        if keep:
            compare(before, keep(work), observed, strict=False)
        if check is not None:
            check(work, observed)
        return observed

    return action


def finished_toy_files(work: Path) -> dict[str, str]:
    """The finished runs' files, which no command may remove or change."""
    root = work / "results" / "toy" / SCALE / "runs"
    return {name: digest for name, digest in snapshot(root).items()
            if name.endswith(("metrics.json", "spec.json")) and (root / name).parent.joinpath("metrics.json").exists()}


def drop_key(run_id: str, key: str) -> Callable[[Path], None]:
    def prepare(work: Path) -> None:
        path = toy_run(work / "results", run_id) / "metrics.json"
        metrics = json.loads(path.read_text())
        metrics.pop(key)
        path.write_text(json.dumps(metrics))

    return prepare


def damage(relative: str, text: str | bytes) -> Callable[[Path], None]:
    return lambda work: write(work / "results" / relative, text) and None


def rerun_check(run_id: str, executions: int = 1) -> Callable[[Path, Observed], None]:
    def check(work: Path, observed: Observed) -> None:
        from lejepa_wm.atomic import read_json

        metrics = read_json(toy_run(work / "results", run_id) / "metrics.json")
        if not isinstance(metrics, dict) or "value" not in metrics:
            observed.problems.append(f"{run_id} was not run again")

    return check


def report_fixture(work: Path) -> Path:
    """The report test fixture (verify.json, two experiments with runs) with the figures its headlines name."""
    from PIL import Image

    out = work / "results"
    shutil.copytree(TESTS_DIR / "fixtures" / "report", out)
    for headline in out.glob(f"*/{SCALE}/headline.json"):
        for entry in json.loads(headline.read_text()):
            for figure in entry.get("figures", []):
                Image.new("RGB", (4, 4)).save(headline.parent / figure)
    return out


REPORT_FILES = ("report.md", "report.html", "report.published.json", ".publish.lock")
"""What ``report`` writes: the pair, the record of its publication, the lock that serializes publications."""


def damaged_report(relative: str, text: str | bytes, label: str) -> Callable[[Path], Observed]:
    """``report`` with one damaged result file: the report is written and names the file in its section."""

    def action(work: Path) -> Observed:
        out = report_fixture(work)
        write(out / relative, text)
        before = snapshot(out, skip=REPORT_FILES)
        observed = cli(["report", "--out", out])
        compare(before, snapshot(out, skip=REPORT_FILES), observed)
        report = out / "report.md"
        if not report.exists():
            observed.problems.append("no report was written")
            return observed
        lines = [line.replace("\\_", "_") for line in report.read_text(encoding="utf-8").splitlines()]
        lines = [line for line in lines if label in line
                 and any(word in line for word in ("damaged", "malformed", "not valid", "must be"))]
        observed.message = min(lines, key=len)[:240] if lines else "the report does not name " + label
        return observed

    return action


def unexpected_error(work: Path) -> Observed:
    """A bug (an exception that is no expected failure) keeps its traceback and asks to be reported."""
    from sweep_toy_experiment import EXPERIMENT

    out = toy_results(work)

    def broken(exp_dir: Path, config: object) -> list[Path]:
        return [Path(str(1 / 0))]

    EXPERIMENT.aggregate = broken
    try:
        return cli(["run", "toy", "--out", out])
    finally:
        del EXPERIMENT.aggregate


def unwritable_out(command: list[str], exists: bool) -> Callable[[Path], Observed]:
    def action(work: Path) -> Observed:
        folder = unwritable(work, exists)
        try:
            return refused([*command, "--out", folder])(work)
        finally:
            unlock(work)

    return action


def unwritable_json(work: Path) -> Observed:
    folder = unwritable(work, exists=True)
    try:
        return refused(["verify", "--claims", "T1", "--json", folder / "verify.json"], toy=False)(work)
    finally:
        unlock(work)


def no_cuda(command: list[str]) -> Callable[[Path], Observed]:
    return refused(command, cuda_absent=True)


# --- issue 32: faults, round two ---------------------------------------------------------------------------


def cli_process(work: Path, argv: list[object], timeout: float = 60.0, env: dict[str, str] | None = None,
                memory_limit: int | None = None, close_stdout: bool = False) -> Observed:
    """Run ``lejepa-wm ARGV`` (the toy experiment registered) in a process of its own session.

    A command still running after ``timeout`` seconds is killed with its whole
    session and counted as a hang. ``memory_limit`` caps its address space (a
    reader without bound then fails instead of exhausting the machine);
    ``close_stdout`` gives it a stdout pipe whose reading end is closed at once.
    """
    import resource

    script = write(work / "launch_toy.py", LAUNCHER.format(tests=str(TESTS_DIR), module=TOY_MODULE))
    base = dict(os.environ) if env is None else env
    base["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS_DIR), os.environ.get("PYTHONPATH")]))

    def limit() -> None:
        if memory_limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    process = subprocess.Popen([sys.executable, str(script), *map(str, argv)], cwd=work, env=base,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=limit)
    if close_stdout:
        process.stdout.close()
        process.stdout = None
    hung = None
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        hung = f"still running {timeout:.0f} s after it started; killed"
    observed = Observed(None if hung else process.returncode, out or "", err or "")
    observed.hung = hung
    return observed


def api(call: Callable[[], object]) -> Callable[[Path], Observed]:
    """Misuse of the Python API: a ``ValueError`` is the clear refusal (status 2), anything accepted is status 0."""

    def action(work: Path) -> Observed:
        try:
            result = call()
        except ValueError as exc:
            return Observed(2, "", f"ValueError: {exc}")
        return Observed(0, "", "", message=f"accepted without an error, returning {result!r}"[:200])

    return action


def fifo(path: Path) -> Path:
    """A named pipe at ``path`` (nobody ever writes to it)."""
    if not hasattr(os, "mkfifo"):
        raise NotApplicable("needs os.mkfifo (POSIX)")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    return path


def set_metric(run_dir: Path, key: str, value: object, raw: str | None = None) -> None:
    """Store ``value`` under ``key`` in the run's ``metrics.json`` (or the raw JSON text ``raw``, e.g. ``NaN``)."""
    path = run_dir / "metrics.json"
    metrics = json.loads(path.read_text())
    metrics[key] = value if raw is None else "@@raw@@"
    text = json.dumps(metrics)
    path.write_text(text.replace('"@@raw@@"', raw) if raw is not None else text)


def toy_set(exp_dir: Path) -> tuple[bytes, bytes] | None:
    """The toy's published ``(summary.csv, headline.json)`` as a reader sees them (an interrupted publication
    completed first, where the package publishes sets); ``None`` if either is missing."""
    from lejepa_wm import atomic

    reader = getattr(atomic, "read_publication", None)
    if reader is not None:
        with contextlib.suppress(ValueError):
            reader(exp_dir)
    try:
        return (exp_dir / "summary.csv").read_bytes(), (exp_dir / "headline.json").read_bytes()
    except FileNotFoundError:
        return None


def toy_set_problem(exp_dir: Path) -> str | None:
    """Why the toy's summary and headline do not belong to one aggregation (the headline's mean is the mean of
    the summary's values), or ``None``."""
    import csv

    found = toy_set(exp_dir)
    if found is None:
        return "summary.csv or headline.json is missing"
    rows = list(csv.DictReader(io.StringIO(found[0].decode())))
    values = [float(row["value"]) for row in rows]
    mean = json.loads(found[1])[0]["value"]
    if not values or mean != sum(values) / len(values):
        return f"headline.json's mean {mean!r} is not the mean of summary.csv's {len(values)} values: out of step"
    return None


def fresh_while_owned(work: Path) -> Observed:
    """``reproduce --fresh`` while a live process owns a run of a reproduced experiment: refused, nothing deleted."""
    out = work / "results"
    runs = out / "scaling" / SCALE / "runs"
    write(runs / "n=0002_done" / "metrics.json", json.dumps({"probe_r2": 0.5}))
    write(runs / "n=0002_busy" / "running.json", json.dumps(marker(os.getpid())))
    before = snapshot(work)
    observed = cli(["reproduce", "--fresh", "--out", out], forbid=NO_WORK)
    compare(before, snapshot(work), observed)
    return observed


def restart_while_launched(work: Path) -> Observed:
    """``run --restart`` while another launch is between two of its runs (no run marker, a live launch marker)."""
    out = toy_results(work)
    write(out / "toy" / SCALE / ".launch-replay.json", json.dumps(marker(os.getpid())))
    before = snapshot(work)
    observed = cli(["run", "toy", "--restart", "--out", out], forbid=NO_WORK)
    compare(before, snapshot(work), observed)
    return observed


SUSPENDED_OWNER = """\
import sys
sys.path.insert(0, {tests!r})
import lejepa_wm.sweep.state as state
state.HEARTBEAT_S = 0.2  # its marker turns stale after a second of silence: the case need not wait minutes
from lejepa_wm.sweep.worker import RunTask, run_task
from sweep_toy_experiment import EXPERIMENT
config = EXPERIMENT.load_config("quick", overrides={{"n_runs": 1, "sleep_s": 2.0, "log": {log!r}}})
outcome = run_task(RunTask({module!r}, EXPERIMENT.grid(config, "quick")[0].to_dict(), {out!r}))
print("dropped" if outcome.elsewhere else ("finished" if outcome.ok else "failed"), outcome.error)
"""


def suspended_owner(work: Path) -> Observed:
    """A worker suspended (SIGSTOP) until its run is taken over and finished elsewhere, then resumed: it must
    drop its result (the new owner's ``metrics.json`` stays), not finish the run a second time."""
    needs_proc()
    log, out = work / "executions.log", work / "results"
    config = toy_config(work, n_runs=1, sleep_s=2.0, log=str(log))
    script = write(work / "owner.py", SUSPENDED_OWNER.format(tests=str(TESTS_DIR), log=str(log), module=TOY_MODULE,
                                                             out=str(out)))
    owner = subprocess.Popen([sys.executable, str(script)], cwd=work, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        wait_for(lambda: any(kind == "start" for kind, *_ in read_log(log)), 60.0, "the owner to start its run")
        os.kill(owner.pid, signal.SIGSTOP)
        time.sleep(1.5)  # its heartbeat falls silent
        observed = cli(["run", "toy", "--out", out, "--config", config])
        metrics_path = toy_run(out, "run00") / "metrics.json"
        finished = metrics_path.read_bytes() if metrics_path.exists() else b""
        os.kill(owner.pid, signal.SIGCONT)
        said = owner.communicate(timeout=60)[0].strip()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(owner.pid, signal.SIGKILL)
    if not finished:
        observed.problems.append("the relaunch did not finish run00 while its owner was suspended")
    elif metrics_path.read_bytes() != finished:
        observed.double.append("the resumed owner finished run00 a second time (its metrics.json replaced the "
                               "relaunch's)")
    if not said.startswith("dropped"):
        observed.problems.append(f"the resumed owner did not drop its result: {said!r}")
    return observed


def sigterm_to_one_worker(work: Path) -> Observed:
    """SIGTERM to the pool worker of one run: that run's attempt fails and is retried (and said so); the run
    in flight beside it carries on and executes once."""
    needs_proc()
    log = work / "executions.log"
    config = toy_config(work, n_runs=2, sleep_s=4.0, log=str(log))
    process = launch(work, ["sweep", "toy", "--executor", "local", "--jobs", "2", "--out", work / "results",
                            "--config", config], "first")
    wait_for(lambda: sum(kind == "start" for kind, *_ in read_log(log)) >= 2, 60.0, "two runs in flight")
    victim = next(pid for kind, run_id, pid, _ in read_log(log) if kind == "start" and run_id == "run00")
    os.kill(victim, signal.SIGTERM)
    observed = finish(process, work, "first")
    starts = [run_id for kind, run_id, _, _ in read_log(log) if kind == "start"]
    if starts.count("run01") > 1:
        observed.double.append(f"run01, beside the killed worker, was started {starts.count('run01')} times")
    if starts.count("run00") != 2:
        observed.problems.append(f"the killed run00 was started {starts.count('run00')} times, not 2 (retried once)")
    observed.lost += [f"{run_id} has no metrics.json" for run_id in ("run00", "run01")
                      if not (toy_run(work / "results", run_id) / "metrics.json").exists()]
    return observed


def sigterm_to_launcher(work: Path) -> Observed:
    """SIGTERM to a sweep's launcher: handled like Ctrl-C, with its own exit status; no worker or claim left."""
    needs_proc()
    log = work / "executions.log"
    config = toy_config(work, n_runs=4, sleep_s=60.0, log=str(log))
    process = launch(work, ["sweep", "toy", "--executor", "local", "--jobs", "2", "--out", work / "results",
                            "--config", config], "first")
    wait_for(lambda: sum(kind == "start" for kind, *_ in read_log(log)) >= 2, 60.0, "two runs in flight")
    os.kill(process.pid, signal.SIGTERM)
    observed = finish(process, work, "first")
    observed.stderr, observed.stdout = observed.stdout, ""
    deadline = time.monotonic() + KILL_GRACE_S
    while session_processes(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = session_processes(process.pid)
    for pid in survivors:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    if survivors:
        observed.problems.append(f"{survivors} alive {KILL_GRACE_S:.0f} s after SIGTERM")
    markers = list((work / "results").rglob("running.json"))
    if markers:
        observed.problems.append(f"left the claim {markers[0]} behind")
    return observed


KILL_AT_HEADLINE = """\
import os, signal, sys
from pathlib import Path
sys.path.insert(0, {tests!r})
import lejepa_wm.atomic as atomic
from sweep_toy_experiment import EXPERIMENT

original = atomic.atomic_write_bytes

def write(path, data):
    if Path(path).name == "headline.json":  # summary.csv is written: die before the headline is
        os.kill(os.getpid(), signal.SIGKILL)
    return original(path, data)

atomic.atomic_write_bytes = write
EXPERIMENT.aggregate(Path(sys.argv[1]), EXPERIMENT.load_config("quick"))
"""


def aggregation_killed(work: Path) -> Observed:
    """``kill -9`` of an aggregation between ``summary.csv`` and ``headline.json``: readers see the previous set."""
    out = toy_results(work)
    exp_dir = out / "toy" / SCALE
    previous = toy_set(exp_dir)
    set_metric(toy_run(out, "run02"), "value", 0.123456)  # the next aggregation differs
    killed = subprocess.run([sys.executable, "-c", KILL_AT_HEADLINE.format(tests=str(TESTS_DIR)), str(exp_dir)],
                            capture_output=True, text=True, timeout=120)
    observed = Observed(killed.returncode, killed.stdout, killed.stderr)
    problem = toy_set_problem(exp_dir)
    if problem is not None:
        observed.lost.append(problem)
    elif toy_set(exp_dir) != previous:
        observed.lost.append("the set changed although its aggregation was killed")
    observed.message = ("killed while writing headline.json; summary.csv and headline.json are "
                        + ("still the previous set" if not observed.lost else "out of step"))
    return observed


def consistent_toy_set(work: Path, observed: Observed) -> None:
    problem = toy_set_problem(work / "results" / "toy" / SCALE)
    if problem is not None:
        observed.lost.append(problem)


def full_disk(marker_name: str) -> Callable[[int], None]:
    """An ``os.fsync`` that fails with ENOSPC for the temporary file of ``marker_name`` (Linux ``/proc``)."""
    import errno

    original = os.fsync

    def fsync(fd: int) -> None:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if f".{marker_name}." in Path(target).name:
            raise OSError(errno.ENOSPC, "No space left on device")
        original(fd)

    return fsync


def disk_full_between(work: Path) -> Observed:
    """A full disk while the aggregation writes ``headline.json``: one line naming the file; the previous set
    stays whole."""
    needs_proc()
    out = toy_results(work)
    set_metric(toy_run(out, "run02"), "value", 0.123456)
    with patched("os.fsync", full_disk("headline.json")):
        observed = cli(["sweep", "toy", "--aggregate-only", "--out", out])
    consistent_toy_set(work, observed)
    return observed


def disk_full_in_run(work: Path) -> Observed:
    """A full disk while a run writes its ``metrics.json``: the failed run's cause is printed, with the path."""
    needs_proc()
    out = toy_results(work)
    (toy_run(out, "run01") / "metrics.json").unlink()
    with patched("os.fsync", full_disk("metrics.json")):
        return cli(["run", "toy", "--out", out])


def report_pair_written(work: Path, observed: Observed, name: str) -> None:
    """Both report files were rewritten by this command (neither keeps the stale text), and report.md names
    ``name`` in the line judged."""
    out = work / "results"
    stale = [file for file in ("report.md", "report.html") if not (out / file).exists()
             or (out / file).read_text(encoding="utf-8") == "STALE"]
    if stale:
        observed.lost.append(f"{' and '.join(stale)} kept the previous report beside a new one: out of step")
        return
    lines = [line for line in (out / "report.md").read_text(encoding="utf-8").splitlines() if name in line]
    observed.message = min(lines, key=len)[:240] if lines else f"report.md does not name {name}"


def bad_figure_between(work: Path) -> Observed:
    """A folder named like a figure: its section fails, and report.md and report.html are both written."""
    out = report_fixture(work)
    (out / "scaling" / SCALE / "extra.png").mkdir()
    for name in ("report.md", "report.html"):
        write(out / name, "STALE")
    observed = cli(["report", "--out", out])
    report_pair_written(work, observed, "extra.png")
    return observed


def report_with_fifo(relative: str, label: str) -> Callable[[Path], Observed]:
    """``report`` with a FIFO where a result file belongs: no hang; the section names it."""

    def action(work: Path) -> Observed:
        out = report_fixture(work)
        fifo(out / relative)
        for name in ("report.md", "report.html"):
            write(out / name, "STALE")
        observed = cli_process(work, ["report", "--out", out], timeout=60.0)
        if observed.hung is None:
            report_pair_written(work, observed, label)
        return observed

    return action


def config_fifo(work: Path) -> Observed:
    return cli_process(work, ["run", "toy", "--config", fifo(work / "config.toml"), "--out", work / "results"],
                       timeout=30.0)


def config_dev_zero(work: Path) -> Observed:
    if not Path("/dev/zero").exists():
        raise NotApplicable("no /dev/zero here")
    return cli_process(work, ["run", "toy", "--config", "/dev/zero", "--out", work / "results"], timeout=60.0,
                       memory_limit=2**30)


def copied_under_full(work: Path) -> Observed:
    """Quick results copied under ``full/``: ``report --scale full`` refuses them as full-scale evidence."""
    out = toy_results(work)
    shutil.copytree(out / "toy" / SCALE, out / "toy" / "full")
    observed = cli(["report", "--scale", "full", "--out", out])
    lines = [line for line in (out / "report.md").read_text(encoding="utf-8").splitlines()
             if "copied from elsewhere" in line]
    observed.message = min(lines, key=len)[:240] if lines else "report.md shows the copied results as full-scale"
    return observed


def killed_reproduction(work: Path) -> Observed:
    """The record a killed ``reproduce`` leaves (no ``finished_at``, a part in progress, its process gone):
    the report shows that part as interrupted."""
    from lejepa_wm.records import PartOutcome
    from lejepa_wm.report.environment import collect_environment

    out = report_fixture(work)
    record = {"package_version": "0.1.0", "scale": SCALE, "seed": 0, "device": "cpu", "fresh": False,
              "strict": False, "started_at": "2026-01-02T03:04:05+00:00", "finished_at": None,
              "wall_time_s": 12.0, "parts": [PartOutcome("verify", "verify", "ok", 12.0, "ran checks").to_dict()],
              "current_part": {"name": "scaling", "kind": "experiment"}, "interrupted": None, "pid": dead_pid(),
              "host": socket.gethostname(), "environment": collect_environment()}
    write(out / "reproduce.json", json.dumps(record))
    observed = cli(["report", "--out", out])
    lines = [line for line in (out / "report.md").read_text(encoding="utf-8").splitlines()
             if "interrupted" in line and "scaling" in line]
    observed.message = min(lines, key=len)[:240] if lines else "report.md shows the killed reproduction as finished"
    return observed


def probe_from_a_single_fit_row() -> object:
    import numpy as np

    from lejepa_wm.experiments.metrics import linear_probe_r2

    rng = np.random.default_rng(0)
    h, z = rng.normal(size=(64, 4)), rng.normal(size=(64, 4))
    return linear_probe_r2(h[:1], z[:1], h, z)


def sigreg_with_long_directions() -> object:
    import torch

    from lejepa_wm.experiments.objectives import epps_pulley_knots, random_directions, sigreg_statistic

    generator = torch.Generator().manual_seed(0)
    h = torch.randn(64, 4, generator=generator)
    knots, weights = epps_pulley_knots()
    return float(sigreg_statistic(h, 2.0 * random_directions(4, 8, generator), knots, weights))


def empty_out(work: Path) -> Observed:
    """``run toy --out ""`` (in the case's folder, so a silent acceptance writes nowhere else)."""
    before = snapshot(work)
    with contextlib.chdir(work):
        observed = cli(["run", "toy", "--out", ""], forbid=NO_WORK)
    compare(before, snapshot(work), observed)
    return observed


def figure_outside(work: Path) -> Observed:
    """A headline naming a figure outside the results folder: not embedded; its section names it."""
    from PIL import Image

    out = report_fixture(work)
    Image.new("RGB", (4, 4)).save(work / "outside.png")
    headline = out / "scaling" / SCALE / "headline.json"
    entries = json.loads(headline.read_text())
    entries[0]["figures"] = ["../../../outside.png"]
    headline.write_text(json.dumps(entries))
    observed = cli(["report", "--out", out])
    lines = [line for line in (out / "report.md").read_text(encoding="utf-8").splitlines() if "outside.png" in line]
    observed.message = min(lines, key=len)[:240] if lines else "report.md does not name outside.png"
    return observed


def fixture_metrics(relative: str, **changes: object) -> str:
    """The report fixture's metrics file ``relative`` with ``changes``, as JSON text."""
    metrics = json.loads((TESTS_DIR / "fixtures" / "report" / relative).read_text())
    return json.dumps({**metrics, **changes})


def tiny_scaling(work: Path, **keys: object) -> Path:
    """A TOML config of a two-run scaling grid (one encoder, SIGReg and the control) of forty steps."""
    settings = {**TINY_SCALING, "encoders": ["matched_additive"], "identifiability_encoders": ["matched_additive"],
                "methods": ["sigreg", "alignment_only"], **keys}
    return write(work / "tiny.toml", "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items()))


def diverging(work: Path) -> Observed:
    """A learning rate that makes training diverge: failed once, not retried, the cause printed."""
    out = work / "results"
    observed = cli(["run", "scaling", "--config", tiny_scaling(work, lr=1e9), "--out", out])
    for path in (out / "scaling" / SCALE / "runs").glob("*/error.json"):
        attempts = len(json.loads(path.read_text())["attempts"])
        if attempts != 1:
            observed.problems.append(f"{path.parent.name} was attempted {attempts} times (a divergence repeats)")
    return observed


def truncated_checkpoint(work: Path) -> Observed:
    """A truncated ``checkpoint.pt`` (a kill during a copy, a full disk): discarded with a warning, the run
    starts afresh and finishes."""
    from lejepa_wm.experiments import get_experiment

    out = work / "results"
    config_path = tiny_scaling(work)
    experiment = get_experiment("scaling")
    spec = experiment.grid(experiment.load_config(SCALE, config_path), SCALE)[0]
    write(spec.run_dir(out) / "spec.json", json.dumps(spec.to_dict()))
    write(spec.run_dir(out) / "checkpoint.pt", b"PK\x03\x04" + bytes(60))
    observed = cli(["run", "scaling", "--config", config_path, "--out", out])
    if not (spec.run_dir(out) / "metrics.json").exists():
        observed.problems.append(f"{spec.run_id} did not finish")
    return observed


def closed_pipe(work: Path) -> Observed:
    """``report`` whose output is closed (``| head -c0``): the report is written, and the status is not bad input."""
    out = report_fixture(work)
    observed = cli_process(work, ["report", "--out", out], close_stdout=True)
    written = (out / "report.md").exists() and (out / "report.html").exists()
    errors = [line for line in observed.stderr.splitlines() if line.strip()]
    observed.message = (f"exit status {observed.status}; report {'written' if written else 'NOT written'}; "
                        f"stderr: {errors[-1] if errors else 'nothing'}")
    if not written:
        observed.lost.append("the report was not written")
    if errors:
        observed.problems.append(f"printed an error for a closed output: {errors[-1]}")
    return observed


def ascii_terminal(work: Path) -> Observed:
    """``verify`` on a terminal that can show ASCII only: the table is printed (non-ASCII escaped), results kept."""
    observed = cli_process(work, ["verify", "--claims", "P5", "--json", work / "verify.json"],
                           env=dict(os.environ, PYTHONIOENCODING="ascii"))
    if not (work / "verify.json").exists():
        observed.lost.append("verify.json was not written")
    return observed


def reacher_without_display(work: Path) -> Observed:
    """``run reacher`` with ``MUJOCO_GL=glfw`` and no display: refused before any work, naming the fix."""
    import importlib.util

    if importlib.util.find_spec("mujoco") is None:  # never imported here: MUJOCO_GL is read on the first import
        raise NotApplicable("the reacher extra (mujoco) is not installed")
    env = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "WAYLAND_DISPLAY")}
    return cli_process(work, ["run", "reacher", "--out", work / "results"], timeout=120.0,
                       env=dict(env, MUJOCO_GL="glfw"))


def cases() -> list[Case]:
    """Every case, group by group."""
    k, e, w, v, d, deleted, twice, step, hangs, wrong, accepted, vague, crash = GROUPS
    dead = dead_pid
    here = socket.gethostname()
    toy_out = ["--out", "{results}"]
    tiny = ("dims = [2]\nseeds = 1\nmax_steps = 20\nwarmup_steps = 5\neval_every = 10\ncheckpoint_every = 20\n"
            "eval_size = 256\n")
    out: list[Case] = [
        # 1. A killed sweep.
        Case(k, "kill -9 of a `sweep --executor local --jobs 2` launcher: nothing of it left running",
             kill_leaves_nothing_running, -signal.SIGKILL, ("none alive",), slow=True),
        Case(k, "the relaunch reclaims the killed runs and executes each missing run exactly once",
             relaunch_runs_each_missing_run_once, 0, ("reclaimed run", "is gone", "each once"), slow=True),
        Case(k, "a second launch while the first runs: no run executes twice, the second says what runs elsewhere",
             two_launches_at_once, 0, ("running elsewhere",), slow=True),
        Case(k, "Ctrl-C of a local sweep: one line, nothing left running, no marker left",
             ctrl_c, 130, ("interrupted", "finished results are kept"), slow=True),
        Case(k, "Ctrl-C of a local sweep started with SIGINT ignored (a shell's background job): the same",
             lambda work: ctrl_c(work, sigint_ignored=True), 130, ("interrupted", "finished results are kept"),
             slow=True),
        Case(k, "a pool worker whose launcher died is handed a queued run: it starts nothing",
             orphaned_worker_starts_nothing, 70, ("exited",)),
        Case(k, "without the Linux parent-death signal, the polling fallback ends the orphaned pool",
             fallback_without_death_signal, -signal.SIGKILL, ("no process of the pool alive",), slow=True),
        Case(k, "relaunch while the run's owner is alive on this host (fresh heartbeat): not started",
             relaunch_with_marker(lambda: marker(os.getpid()), live=True), 0,
             ("running elsewhere", "run01", f"pid {os.getpid()} on host {here}")),
        Case(k, "marker of a process that is gone: reclaimed, said so",
             relaunch_with_marker(lambda: marker(dead()), live=False), 0, ("reclaimed run run01", "is gone")),
        Case(k, "marker of a live process whose heartbeat stopped an hour ago: reclaimed, said so",
             relaunch_with_marker(lambda: marker(os.getpid(), silent_s=3600.0), live=False), 0,
             ("reclaimed run run01", "no heartbeat for 3600 s")),
        Case(k, "marker from another host (a SLURM node) with a fresh heartbeat: running elsewhere",
             relaunch_with_marker(lambda: marker(12345, host="node-elsewhere"), live=True), 0,
             ("running elsewhere", "run01", "node-elsewhere")),
        Case(k, "marker from another host whose heartbeat stopped: reclaimed, said so",
             relaunch_with_marker(lambda: marker(12345, host="node-elsewhere", silent_s=3600.0), live=False), 0,
             ("reclaimed run run01", "node-elsewhere")),
        Case(k, "marker of a SLURM job seen from the same job requeued on another node: reclaimed",
             relaunch_with_marker(lambda: marker(12345, host="node-before") | {"slurm_job": "777"}, live=False,
                                  slurm_job="777"), 0, ("reclaimed run run01", "SLURM job 777 was requeued")),
        Case(k, "damaged running.json: reclaimed, said so",
             relaunch_with_marker(lambda: "{\"pid\": ", live=False), 0, ("reclaimed run run01", "damaged")),
        Case(k, "running.json without an owner's process id: reclaimed, said so",
             relaunch_with_marker(lambda: json.dumps({"host": "vm", "note": "half a marker"}), live=False), 0,
             ("reclaimed run run01", "damaged")),
        Case(k, "`sweep --status` names the live owner and the stale markers",
             status_names_owners, 0, ("running: run01", f"pid {os.getpid()}")),
        # 2. Tracebacks and paths: one line instead.
        Case(e, "run --out that is a file", refused(["run", "toy", "--out", "{work}/a_file"],
                                                   config_file("x", "a_file")), 2, ("{work}/a_file", "is a file")),
        Case(e, "sweep --out that is a file", refused(["sweep", "toy", "--out", "{work}/a_file"],
                                                     config_file("x", "a_file")), 2, ("{work}/a_file", "is a file")),
        Case(e, "sweep --status --out that is a file",
             refused(["sweep", "toy", "--status", "--out", "{work}/a_file"], config_file("x", "a_file")), 2,
             ("{work}/a_file", "is a file")),
        Case(e, "reproduce --out that is a file", refused(["reproduce", "--out", "{work}/a_file"],
                                                         config_file("x", "a_file"), toy=False), 2,
             ("{work}/a_file", "is a file")),
        Case(e, "report --out that is a file", refused(["report", "--out", "{work}/a_file"],
                                                      config_file("x", "a_file"), toy=False), 2,
             ("{work}/a_file", "is a file")),
        Case(e, "run --out below a file", refused(["run", "toy", "--out", "{work}/a_file/results"],
                                                 config_file("x", "a_file")), 2, ("{work}/a_file",)),
        Case(e, "run --out that cannot be created", unwritable_out(["run", "toy"], exists=False), 2,
             ("--out", "not writable")),
        Case(e, "run --out: a read-only folder", unwritable_out(["run", "toy"], exists=True), 2,
             ("--out", "not writable")),
        Case(e, "sweep --out: a read-only folder", unwritable_out(["sweep", "toy"], exists=True), 2,
             ("--out", "not writable")),
        Case(e, "reproduce --out: a read-only folder", unwritable_out(["reproduce"], exists=True), 2,
             ("--out", "not writable")),
        Case(e, "report --out: a read-only folder", unwritable_out(["report"], exists=True), 2,
             ("--out", "not writable")),
        Case(e, "run --config that is a folder", refused(["run", "toy", "--config", "{work}", *toy_out]), 2,
             ("{work}", "is a folder")),
        Case(e, "sweep --config that is a folder", refused(["sweep", "toy", "--config", "{work}", *toy_out]), 2,
             ("{work}", "is a folder")),
        Case(e, "run --config that does not exist",
             refused(["run", "toy", "--config", "{work}/missing.toml", *toy_out]), 2,
             ("{work}/missing.toml", "does not exist")),
        Case(e, "run --config below a file",
             refused(["run", "toy", "--config", "{work}/a_file/c.toml", *toy_out], config_file("x", "a_file")), 2,
             ("{work}/a_file/c.toml", "cannot be read")),
        Case(e, "sweep --slurm-config that is a folder",
             refused(["sweep", "toy", "--executor", "slurm", "--slurm-config", "{work}", *toy_out],
                     lambda work: toy_run(work / "results", "run00").joinpath("metrics.json").unlink()), 2,
             ("{work}", "is a folder")),
        Case(e, "sweep --slurm-config with a TOML syntax error",
             refused(["sweep", "toy", "--executor", "slurm", "--slurm-config", "{work}/bad.toml", *toy_out],
                     lambda work: (write(work / "bad.toml", "[slurm\n"),
                                   toy_run(work / "results", "run00").joinpath("metrics.json").unlink()) and None),
             2, ("{work}/bad.toml", "TOML syntax error")),
        Case(e, "verify --claims T9 (no such claim)", refused(["verify", "--claims", "T9"], toy=False), 2,
             ("'T9'", "known claims")),
        Case(e, "verify --claims t2 (wrong case)", refused(["verify", "--claims", "t2"], toy=False), 2,
             ("'t2'", "did you mean 'T2'")),
        Case(e, "verify --json that is a folder", refused(["verify", "--json", "{work}"], toy=False), 2,
             ("{work}", "is a folder")),
        Case(e, "verify --json below a file, refused before any check runs",
             refused(["verify", "--json", "{work}/a_file/v.json"], config_file("x", "a_file"), toy=False), 2,
             ("{work}/a_file", "is a file")),
        Case(e, "verify --json in a read-only folder, refused before any check runs", unwritable_json, 2,
             ("--json", "not writable")),
        Case(e, "a metrics.json lacking a key the aggregation needs (sweep --aggregate-only)",
             refused(["sweep", "toy", "--aggregate-only", *toy_out], drop_key("run01", "value")), 2,
             ("run01/metrics.json", "'value'")),
        Case(e, "a metrics.json lacking a key the aggregation needs (run)",
             refused(["run", "toy", *toy_out], drop_key("run02", "value")), 2, ("run02/metrics.json", "'value'")),
        Case(e, "unknown experiment", refused(["run", "nope", *toy_out]), 2, ("'nope'",)),
        Case(e, "unknown executor", refused(["sweep", "toy", "--executor", "mpi", *toy_out]), 2, ("'mpi'",)),
        Case(e, "unknown scale", refused(["run", "toy", "--scale", "huge", *toy_out]), 2, ("'huge'",)),
        Case(e, "--seed that is not a number", refused(["run", "toy", "--seed", "one", *toy_out]), 2, ("'one'",)),
        Case(e, "an unexpected exception (a bug) keeps its traceback and asks to be reported",
             unexpected_error, 3, ("please report",), traceback=True),
        # 3. The window that lost a whole run.
        Case(w, "kill -9 between the final evaluation and metrics.json: resumes from the final checkpoint",
             kill_before_metrics, 0, ("resumed from step 40 of 40", "nothing retrained"), slow=True),
        Case(w, "temporary files of killed writes are removed (run folder: at its start; experiment: on aggregating)",
             stale_temporaries, 0, ("executed 1 run(s)",)),
        # 4. Late or vague validation: refused on loading, before any run.
        Case(v, "eval_size < 32", bad_config("scaling", "eval_size = 16\n"), 2, ("'eval_size'", "16")),
        Case(v, "warmup_steps < 0", bad_config("scaling", "warmup_steps = -1\n", "sweep"), 2,
             ("warmup_steps", "-1")),
        Case(v, "weight_decay < 0", bad_config("scaling", "weight_decay = -1.0\n", "sweep"), 2,
             ("weight_decay", "-1.0")),
        Case(v, "decay_fraction > 1", bad_config("scaling", "decay_fraction = 2.0\n"), 2, ("decay_fraction", "2.0")),
        Case(v, "decay_fraction = nan", bad_config("scaling", "decay_fraction = nan\n"), 2,
             ("'decay_fraction'", "nan")),
        Case(v, "shift_gain = inf", bad_config("scaling", "shift_gain = inf\n"), 2, ("'shift_gain'", "inf")),
        Case(v, "log_scale_gain = nan", bad_config("distribution", "log_scale_gain = nan\n"), 2,
             ("'log_scale_gain'", "nan")),
        Case(v, "run --seed -1", refused(["run", "scaling", "--seed", "-1", *toy_out]), 2, ("--seed", "-1")),
        Case(v, "sweep --seed -1", refused(["sweep", "scaling", "--seed", "-1", *toy_out]), 2, ("--seed", "-1")),
        Case(v, "sweep --status --seed -1", refused(["sweep", "toy", "--status", "--seed", "-1", *toy_out]), 2,
             ("--seed", "-1")),
        Case(v, "reproduce --seed -2", refused(["reproduce", "--seed", "-2", "--out", "{work}/r"], toy=False), 2,
             ("seed", "-2")),
        Case(v, "a TOML syntax error names the file", bad_config("scaling", "seeds = \n"), 2,
             ("{work}/bad.toml", "TOML syntax error", "line 1")),
        Case(v, "a config file that is not UTF-8", bad_config("scaling", b"seeds = 2\n\xff\xfe\n"), 2,
             ("{work}/bad.toml", "UTF-8")),
        Case(v, "a config file holding only the other scale's table", bad_config("scaling", "[full]\nseeds = 2\n"), 2,
             ("{work}/bad.toml", "[quick]")),
        Case(v, "the dead key probe_size", bad_config("scaling", "probe_size = 100\n"), 2, ("'probe_size'",)),
        Case(v, "an unknown key", bad_config("bounds", "learning_rate = 0.1\n"), 2, ("'learning_rate'",)),
        Case(v, "an unknown table", bad_config("scaling", "[fast]\nseeds = 1\n"), 2, ("{work}/bad.toml", "fast")),
        Case(v, "tables mixed with top-level keys", bad_config("scaling", "seeds = 1\n[quick]\nseeds = 2\n"), 2,
             ("{work}/bad.toml", "seeds")),
        Case(v, "a [quick] entry that is not a table", bad_config("scaling", "quick = 3\n"), 2, ("'quick'",)),
        Case(v, "a value of the wrong type", bad_config("scaling", "lr = \"big\"\n"), 2, ("'lr'", "big")),
        Case(v, "true where an integer belongs", bad_config("output_dim", "seeds = true\n"), 2, ("'seeds'", "True")),
        Case(v, "seeds = 0", bad_config("anisotropic", "seeds = 0\n"), 2, ("'seeds'", "0")),
        Case(v, "rho outside (0, 1)", bad_config("scaling", "rho = 1.5\n"), 2, ("'rho'", "1.5")),
        Case(v, "a dimension that is not even and >= 2", bad_config("scaling", "dims = [0, 2]\n"), 2, ("'dims'",)),
        Case(v, "an unknown encoder", bad_config("scaling", "encoder = \"cnn9\"\n"), 2, ("'encoder'", "cnn9")),
        Case(v, "an unknown method", bad_config("scaling", "methods = [\"bogus\"]\n"), 2, ("'methods'", "bogus")),
        Case(v, "stop_r2 > 1", bad_config("scaling", "stop_r2 = 2.0\n"), 2, ("'stop_r2'", "2.0")),
        Case(v, "a run seed that was used for tuning", bad_config("scaling", "tuning_seeds = [0]\n"), 2,
             ("tuning_seeds", "[0]")),
        Case(v, "checkpoint_every not a multiple of eval_every",
             bad_config("scaling", "eval_every = 10\ncheckpoint_every = 25\n"), 2, ("checkpoint_every", "25")),
        Case(v, "max_steps = 0", bad_config("scaling", "max_steps = 0\n"), 2, ("max_steps", "0")),
        Case(v, "batch_size = 0", bad_config("distribution", "batch_size = 0\n"), 2, ("batch_size", "0")),
        Case(v, "sigreg_weight = 0", bad_config("scaling", "sigreg_weight = 0.0\n"), 2, ("'sigreg_weight'", "0.0")),
        Case(v, "renderer_layers = 0", bad_config("scaling", "renderer_layers = 0\n"), 2, ("renderer", "0")),
        Case(v, "a bad value in an otherwise tiny config", bad_config("scaling", tiny + "lr = -1.0\n"), 2,
             ("lr", "-1.0")),
        Case(v, "an unknown Reacher key", bad_config("reacher", "image_sise = 64\n"), 2, ("'image_sise'",)),
        Case(v, "sweep --jobs -3 --status", refused(["sweep", "toy", "--jobs", "-3", "--status", *toy_out]), 2,
             ("--jobs", "-3")),
        Case(v, "sweep --jobs 0", refused(["sweep", "toy", "--jobs", "0", *toy_out]), 2, ("--jobs", "0")),
        Case(v, "sweep --jobs -1 --aggregate-only", refused(["sweep", "toy", "--jobs", "-1", "--aggregate-only",
                                                            *toy_out]), 2, ("--jobs", "-1")),
        Case(v, "sweep --device cuda without CUDA: once, before any run",
             no_cuda(["sweep", "scaling", "--device", "cuda", "--executor", "local", "--out", "{work}/r"]), 2,
             ("'cuda'", "no CUDA device", "--device cpu")),
        Case(v, "run --device cuda without CUDA", no_cuda(["run", "scaling", "--device", "cuda", "--out", "{work}/r"]),
             2, ("'cuda'", "no CUDA device")),
        Case(v, "reproduce --device cuda without CUDA",
             no_cuda(["reproduce", "--device", "cuda", "--out", "{work}/r"]), 2, ("'cuda'", "no CUDA device")),
        Case(v, "--device cuda on SLURM with gpus_per_run = 0",
             refused(["sweep", "toy", "--executor", "slurm", "--device", "cuda", "--gpus-per-run", "0", *toy_out],
                     lambda work: toy_run(work / "results", "run00").joinpath("metrics.json").unlink()), 2,
             ("gpus_per_run", "0")),
        Case(v, "a SLURM time limit of 0 minutes",
             refused(["sweep", "toy", "--executor", "slurm", "--time-min", "0", *toy_out],
                     lambda work: toy_run(work / "results", "run00").joinpath("metrics.json").unlink()), 2,
             ("time_min", "0")),
        # 5. Damaged results.
        Case(d, "report: a metrics.json that is a list", damaged_report("scaling/quick/runs/n=8/metrics.json",
                                                                         "[1, 2]\n", "runs/n=8/metrics.json"), 0,
             ("runs/n=8/metrics.json", "the data must be an object")),
        Case(d, "report: a spec.json that is a list", damaged_report("scaling/quick/runs/n=8/spec.json", "[]\n",
                                                                      "runs/n=8/spec.json"), 0,
             ("runs/n=8/spec.json",)),
        Case(d, "report: a metrics.json that is not JSON", damaged_report("distribution/quick/runs/beta=1/metrics.json",
                                                                           "{\"probe", "runs/beta=1/metrics.json"),
             0, ("runs/beta=1/metrics.json", "not valid JSON")),
        Case(d, "report: a verify.json field of the wrong type",
             damaged_report("verify.json", json.dumps({"passed": True, "rows": [], "wall_time_s": "fast"}),
                            "verify.json"), 0, ("verify.json", "'wall_time_s'")),
        Case(d, "report: a verify.json that is not JSON", damaged_report("verify.json", "{rows", "verify.json"), 0,
             ("verify.json", "not valid JSON")),
        Case(d, "report: a verify.json row of the wrong type",
             damaged_report("verify.json", json.dumps({"passed": True, "rows": [7]}), "verify.json"), 0,
             ("verify.json", "rows")),
        Case(d, "report: a headline.json that is an object", damaged_report("scaling/quick/headline.json", "{}",
                                                                             "headline.json"), 0,
             ("headline.json", "the data must be a valid array")),
        Case(d, "report: a reproduce.json that is not JSON", damaged_report("reproduce.json", "{\"scale\"",
                                                                             "reproduce.json"), 0,
             ("reproduce.json",)),
        Case(d, "sweep --status: a damaged metrics.json is shown as damaged, not done",
             ran(["sweep", "toy", "--status", *toy_out], damage("toy/quick/runs/run01/metrics.json", "{\"val")),
             0, ("damaged metrics.json", "run01")),
        Case(d, "run: a run whose metrics.json is not JSON is run again",
             ran(["run", "toy", *toy_out], damage("toy/quick/runs/run01/metrics.json", "{\"val"),
                 rerun_check("run01"), keep=lambda work: {k: v for k, v in finished_toy_files(work).items()
                                                          if not k.startswith("run01/")}),
             0, ("ran again 1 run(s)", "damaged", "run01")),
        Case(d, "sweep: a run whose metrics.json is a list is run again",
             ran(["sweep", "toy", "--jobs", "1", *toy_out], damage("toy/quick/runs/run02/metrics.json", "[]"),
                 rerun_check("run02"), keep=lambda work: {k: v for k, v in finished_toy_files(work).items()
                                                          if not k.startswith("run02/")}),
             0, ("ran again 1 run(s)", "run02")),
        Case(d, "run: a finished run whose spec.json is damaged is run again",
             ran(["run", "toy", *toy_out], damage("toy/quick/runs/run03/spec.json", "[\"x\""),
                 rerun_check("run03"), keep=lambda work: {k: v for k, v in finished_toy_files(work).items()
                                                          if not k.startswith("run03/")}),
             0, ("ran again 1 run(s)", "run03")),
        Case(d, "sweep --aggregate-only skips a damaged run and says how many it aggregated",
             ran(["sweep", "toy", "--aggregate-only", *toy_out], damage("toy/quick/runs/run00/metrics.json", "{")),
             0, ("aggregated 3 of 4 runs",)),
        Case(d, "a damaged error.json does not stop a failing run from being retried and recorded",
             ran(["run", "toy", "--config", "{work}/fail.toml", *toy_out],
                 lambda work: (write(work / "fail.toml", "fail_once = [1]\n"),
                               shutil.rmtree(toy_run(work / "results", "run01")),
                               write(toy_run(work / "results", "run01") / "error.json", "{\"attempts\": 3")) and None),
             0, ("executed 1 run(s)",)),
        Case(d, "reproduce: a damaged reproduce.json is named, before any part runs",
             refused(["reproduce", "--out", "{work}/r"], lambda work: write(work / "r" / "reproduce.json", "{\"seed"),
                     toy=False), 2, ("{work}/r/reproduce.json", "--fresh")),
    ]
    cores = os.cpu_count() if not hasattr(os, "sched_getaffinity") else len(os.sched_getaffinity(0))
    n8 = "scaling/quick/runs/n=8/metrics.json"
    out += [
        # 6. Finished results deleted.
        Case(deleted, "reproduce --fresh while a live process owns a run: refused before any part, nothing deleted",
             fresh_while_owned, 2, ("--fresh", "run n=0002_busy", f"pid {os.getpid()}")),
        Case(deleted, "run --restart while a launch is between two runs (a live launch marker): refused",
             restart_while_launched, 2, ("--restart", "a launch", f"pid {os.getpid()}")),
        # 7. A run executed twice.
        Case(twice, "a worker suspended (SIGSTOP) until its run is taken over, then resumed: drops its result",
             suspended_owner, 0, ("reclaimed run run00", "no heartbeat"), slow=True),
        Case(twice, "SIGTERM to one pool worker: its run is retried and said so; the neighbouring run executes once",
             sigterm_to_one_worker, 0, ("run run00", "SIGTERM", "retried"), slow=True),
        Case(twice, "SIGTERM to a sweep's launcher: one line, exit 143, no worker and no claim left",
             sigterm_to_launcher, 143, ("terminated (SIGTERM)", "finished results are kept"), slow=True),
        # 8. Results out of step with each other.
        Case(step, "kill -9 of an aggregation between summary.csv and headline.json: the previous set stays whole",
             aggregation_killed, -signal.SIGKILL, ("still the previous set",)),
        Case(step, "a NaN metric: the run is damaged, the published summary and headline agree",
             ran(["sweep", "toy", "--aggregate-only", *toy_out],
                 lambda work: set_metric(toy_run(work / "results", "run01"), "value", None, raw="NaN"),
                 consistent_toy_set), 0, ("aggregated 3 of 4 runs",)),
        Case(step, "a full disk while writing headline.json: one line naming the file, the previous set whole",
             disk_full_between, 2, ("headline.json", "No space left on device")),
        Case(step, "report: a folder named like a figure fails its section; report.md and report.html both written",
             bad_figure_between, 0, ("extra.png", "folder")),
        # 9. Hangs.
        Case(hangs, "run --config that is a FIFO: refused at once", config_fifo, 2, ("{work}/config.toml", "FIFO")),
        Case(hangs, "run --config /dev/zero: refused at once, nothing read", config_dev_zero, 2,
             ("/dev/zero", "character device")),
        Case(hangs, "report: a metrics.json that is a FIFO is named as damaged",
             report_with_fifo(n8, "runs/n=8/metrics.json"), 0, ("runs/n=8/metrics.json", "FIFO"), slow=True),
        Case(hangs, "report: a figure that is a FIFO fails its section", report_with_fifo(
            "scaling/quick/extra.png", "extra.png"), 0, ("extra.png", "FIFO"), slow=True),
        Case(hangs, "an absurd thread count (cpu_threads = 100000)", bad_config("scaling", "cpu_threads = 100000\n"),
             2, ("'cpu_threads'", "100000")),
        # 10. Silently wrong.
        Case(wrong, "quick-scale results copied under full/ are refused as full-scale evidence", copied_under_full, 0,
             ("published.json", "'quick'", "toy/full")),
        Case(wrong, "a killed reproduce is shown as interrupted, not finished", killed_reproduction, 0,
             ("interrupted", "scaling", "killed?")),
        Case(wrong, "SIGReg directions that are not unit vectors (the statistic's API)",
             api(sigreg_with_long_directions), 2, ("unit vectors", "norm 2.0")),
        Case(wrong, "a probe R² from a single fit sample row (the probe's API)",
             api(probe_from_a_single_fit_row), 2, ("5 coefficients", "got 1 rows")),
        # 11. Silently accepted.
        Case(accepted, "batch_size = 1", bad_config("scaling", "batch_size = 1\n"), 2, ("batch_size", "1")),
        Case(accepted, "warmup_steps > max_steps", bad_config("scaling", "max_steps = 100\nwarmup_steps = 200\n"), 2,
             ("warmup_steps (200)", "max_steps (100)")),
        Case(accepted, "a fit sample smaller than the probe at the grid's largest n",
             bad_config("scaling", "eval_size = 40\ndims = [64]\n"), 2, ("'eval_size'", "must exceed 65", "40")),
        Case(accepted, "an evaluation size of 10^9", bad_config("scaling", "eval_size = 1000000000\n"), 2,
             ("'eval_size'", "1000000000")),
        Case(accepted, "more threads per run than usable cores",
             bad_config("scaling", f"cpu_threads = {cores + 1}\n"), 2, ("'cpu_threads'", str(cores + 1))),
        Case(accepted, "run --out \"\" (the empty path)", empty_out, 2, ("--out", "empty path")),
        Case(accepted, "report: a headline figure outside the results folder is not embedded", figure_outside, 0,
             ("outside.png", "not a file name")),
        Case(accepted, "report: a negative run time in metrics.json",
             damaged_report(n8, fixture_metrics("scaling/quick/runs/n=8/metrics.json", wall_time_s=-5.0),
                            "runs/n=8/metrics.json"), 0, ("runs/n=8/metrics.json", "'wall_time_s'", "-5.0")),
        Case(accepted, "report: a metric stored as a string",
             damaged_report(n8, fixture_metrics("scaling/quick/runs/n=8/metrics.json", probe_r2="0.99"),
                            "runs/n=8/metrics.json"), 0, ("runs/n=8/metrics.json", "'probe_r2'", "'0.99'")),
        # 12. Vague errors.
        Case(vague, "a diverging learning rate: not retried, the cause printed", diverging, 3,
             ("FAILED run", "TrainingDivergedError", "diverged"), slow=True),
        Case(vague, "a truncated checkpoint: discarded with a warning, the run starts afresh and finishes",
             truncated_checkpoint, 0, ("checkpoint.pt", "discarded", "starts afresh"), slow=True),
        Case(vague, "a full disk while a run writes metrics.json: the cause printed with the path",
             disk_full_in_run, 3, ("FAILED run run01", "run01/metrics.json", "No space left on device")),
        Case(vague, "first_seed = -1 names its key", bad_config("scaling", "first_seed = -1\n"), 2,
             ("'first_seed'", "-1")),
        Case(vague, "tuning_seeds = [-3] names its key", bad_config("scaling", "tuning_seeds = [-3]\n"), 2,
             ("'tuning_seeds'", "-3")),
        Case(vague, "report with its output closed (| head -c0): written, exit 141, no error",
             closed_pipe, 141, ("exit status 141", "report written"), slow=True),
        Case(vague, "verify on an ASCII-only terminal: the table printed with escapes, results written",
             ascii_terminal, 0, ("\\u2264",)),
        # 13. Crash.
        Case(crash, "run reacher with MUJOCO_GL=glfw and no display: refused before any work, naming the fix",
             reacher_without_display, 2, ("MUJOCO_GL=glfw", "MUJOCO_GL=egl"), slow=True),
    ]
    return out


# --- judging -----------------------------------------------------------------------------------------------


def error_lines(text: str) -> list[str]:
    """The lines of an error output that are not argparse's usage text."""
    lines, in_usage = [], False
    for line in text.splitlines():
        if line.startswith("usage:"):
            in_usage = True
            continue
        if in_usage and line.startswith(" "):
            continue
        in_usage = False
        if line.strip():
            lines.append(line)
    return lines


def judge(case: Case, observed: Observed, work: Path) -> Outcome:
    problems = list(observed.problems)
    names = [name.format(work=work) for name in case.names]
    shown = observed.stdout + observed.stderr
    if observed.status != case.status:
        problems.insert(0, f"exit status {observed.status}, expected {case.status}")
    if case.traceback:
        if "Traceback (most recent call last)" not in shown:
            problems.append("the traceback of the unexpected error is not shown")
    elif "Traceback (most recent call last)" in shown:
        problems.append("shows a Python traceback")
    message = observed.message
    if message is None:
        if case.status in (2, 130) or case.traceback:
            errors = error_lines(observed.stderr)
            if case.traceback:
                errors = errors[-1:]
            elif len(errors) != 1:
                problems.append(f"{len(errors)} error lines instead of one")
            message = errors[-1] if errors else ""
        else:
            lines = [line for line in shown.splitlines() if names and names[0] in line]
            message = lines[0] if lines else (shown.strip().splitlines() or [""])[-1]
    missing = [name for name in names if name not in message]
    if missing:
        problems.append(f"the message does not name {missing[0]!r}")
    message = message.replace(str(work), "{work}")
    if observed.hung is not None:
        problems.append(f"hung: {observed.hung}")
    return Outcome(case, observed.status, message, not problems, bool(observed.lost),
                   tuple(problems + [f"lost: {item}" for item in observed.lost]
                         + [f"executed twice: {item}" for item in observed.double]),
                   double=bool(observed.double), hung=observed.hung is not None)


def run_case(case: Case, work: Path) -> Outcome:
    """Provoke ``case`` in the empty folder ``work`` and judge the answer."""
    from lejepa_wm.experiments import EXPERIMENT_MODULES

    work.mkdir(parents=True, exist_ok=True)
    with toy_registered():
        try:
            observed = case.action(work)
        except NotApplicable as exc:
            return Outcome(case, None, "", True, False, (), skipped=str(exc))
        finally:
            unlock(work)
    assert "toy" not in EXPERIMENT_MODULES
    return judge(case, observed, work)


# --- the table ---------------------------------------------------------------------------------------------


def counts(outcomes: list[Outcome]) -> dict[str, int]:
    tried = [outcome for outcome in outcomes if outcome.skipped is None]
    return {"tried": len(tried), "clear": sum(outcome.clear for outcome in tried),
            "lost": sum(outcome.lost for outcome in tried), "double": sum(outcome.double for outcome in tried),
            "hangs": sum(outcome.hung for outcome in tried), "skipped": len(outcomes) - len(tried)}


def format_table(outcomes: list[Outcome], markdown: bool = False) -> str:
    def flag(outcome: Outcome, value: bool, good: bool = False) -> str:
        if outcome.skipped:
            return "-"
        return ("yes" if value else "NO") if good else ("YES" if value else "no")

    rows = [(outcome.case.group, outcome.case.name,
             "-" if outcome.skipped else str(outcome.status),
             (outcome.skipped and f"not applicable here: {outcome.skipped}") or outcome.message,
             flag(outcome, outcome.clear, good=True), flag(outcome, outcome.lost), flag(outcome, outcome.double),
             flag(outcome, outcome.hung)) for outcome in outcomes]
    header = ("group", "case", "exit", "message", "clear?", "lost?", "twice?", "hung?")
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
        return "\n".join(lines)
    lines = []
    for row in rows:
        lines.append(f"{row[0]:<11} {row[2]:>4}  clear {row[4]:<3} lost {row[5]:<3} twice {row[6]:<3} "
                     f"hung {row[7]:<3} {row[1]}")
        lines.append(f"{'':<16}-> {row[3]}")
    for outcome in outcomes:
        for problem in outcome.problems if not outcome.clear or outcome.lost or outcome.double else ():
            lines.append(f"PROBLEM [{outcome.case.group}] {outcome.case.name}: {problem}")
    return "\n".join(lines)


def replay(groups: tuple[str, ...] = GROUPS, progress: bool = True) -> list[Outcome]:
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="lejepa-wm-faults-") as root:
        for index, case in enumerate(case for case in cases() if case.group in groups):
            start = time.perf_counter()
            outcome = run_case(case, Path(root) / f"case{index:03d}")
            if progress:
                good = outcome.clear and not (outcome.lost or outcome.double or outcome.hung)
                verdict = "skipped" if outcome.skipped else ("ok" if good else "FAIL")
                print(f"[{index + 1:3d}] {verdict:<7} {time.perf_counter() - start:5.1f} s  {case.name}",
                      file=sys.stderr, flush=True)
            outcomes.append(outcome)
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--group", choices=GROUPS, action="append", help="only these groups (default: all)")
    parser.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    outcomes = replay(tuple(args.group or GROUPS), progress=not args.quiet)
    print(format_table(outcomes, args.markdown))
    total = counts(outcomes)
    by_group = ", ".join(f"{group} {sum(1 for o in outcomes if o.case.group == group and o.skipped is None)}"
                         for group in GROUPS)
    print(f"\ntried {total['tried']} ({by_group}), clear {total['clear']}, lost {total['lost']}, "
          f"double runs {total['double']}, hangs {total['hangs']}"
          + (f", not applicable here {total['skipped']}" if total["skipped"] else "")
          + f"; {time.perf_counter() - start:.0f} s")
    perfect = total["clear"] == total["tried"] and total["lost"] == total["double"] == total["hangs"] == 0
    return 0 if perfect else 1


if __name__ == "__main__":
    sys.exit(main())
