"""Aggregation and report writing killed at random points: every published set a reader sees is whole.

Each try forks a child that runs the real publication — the scaling
experiment's ``aggregate`` on the shipped quick-scale runs, or ``write_report``
on the report fixture — and kills itself with SIGKILL just before its N-th
file-system call (an ``os`` function, ``flock``, or a read, write or close of a
file object), N drawn at random (fixed seed) from the calls made once the
publication has begun: its lock, staging, the commit, the renames and the cleanup.
After each kill, the set a reader sees (:func:`~lejepa_wm.atomic.read_publication`,
which completes a committed publication) must be the previous set or the new
one: for an experiment, ``summary.csv``, the figure and ``headline.json`` equal,
byte for byte, those of the previous or of an uninterrupted aggregation; for the
report, ``report.md`` and ``report.html`` from the same rendering. The tries
fork, so they run where ``os.fork`` exists; each takes about a second.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import shutil
import signal
import sys
import traceback
from pathlib import Path
from types import FrameType
from typing import Callable

import pytest
from PIL import Image

from lejepa_wm.atomic import publishing, read_publication
from lejepa_wm.experiments import get_experiment
from lejepa_wm.report import HTML_FILE, MARKDOWN_FILE, REPORT_PUBLISHED_FILE, write_report
from lejepa_wm.report.gather import gather_experiment

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not hasattr(os, "fork"), reason="the tries fork a child to kill (POSIX only)")]

TRIES = 24
SEED = 20260732
REFERENCE = Path(__file__).resolve().parents[2] / "reference" / "scaling" / "quick"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "report"
EXPERIMENT_SET = ("summary.csv", "r2_vs_n.png", "headline.json")
IO_MODULES = {"posix", "nt", "fcntl"}
IO_METHODS = {"read", "readinto", "write", "close", "flush"}
PUBLISHING = publishing.__wrapped__.__code__  # the generator behind the context manager


def file_system_call(function: object) -> bool:
    """Whether calling ``function`` touches the file system (see the module docstring; a file object in memory,
    such as the buffer a figure is rendered into, does not)."""
    if getattr(function, "__module__", None) in IO_MODULES:
        return True
    owner = getattr(function, "__self__", None)
    return (getattr(function, "__name__", None) in IO_METHODS and isinstance(owner, io.IOBase)
            and not isinstance(owner, (io.BytesIO, io.StringIO)))


def run_in_child(action: Callable[[], None], kill_at: int | None, calls_log: Path | None = None) -> int:
    """Run ``action`` in a forked child killed just before its ``kill_at``-th file-system call (``None``: never;
    the number of its calls, and of those made before the publication began, then go to ``calls_log``); return
    the child's wait status."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        calls, publication_from = 0, None

        def profile(frame: FrameType, event: str, arg: object) -> None:
            nonlocal calls, publication_from
            if event == "call" and publication_from is None and frame.f_code is PUBLISHING:
                publication_from = calls
            elif event == "c_call" and file_system_call(arg):
                calls += 1
                if calls == kill_at:
                    os.kill(os.getpid(), signal.SIGKILL)

        try:
            sys.setprofile(profile)
            action()
            sys.setprofile(None)
            if calls_log is not None:
                calls_log.write_text(json.dumps({"calls": calls, "publication_from": publication_from}))
        except BaseException:  # noqa: BLE001 - shown, then the child ends with a status the test rejects
            sys.setprofile(None)
            traceback.print_exc()
            os._exit(3)
        os._exit(0)
    return os.waitpid(pid, 0)[1]


def kill_points(action: Callable[[], None], scratch: Path) -> list[int]:
    """``TRIES`` distinct call numbers (1-based) from the publication of ``action``: the calls made once
    :func:`~lejepa_wm.atomic.publishing` has begun (taking the lock, staging, the commit, the renames, cleaning up)."""
    log = scratch / "calls.json"
    assert run_in_child(action, None, log) == 0
    counted = json.loads(log.read_text())
    window = range(counted["publication_from"] + 1, counted["calls"] + 1)
    return sorted(random.Random(SEED).sample(window, min(TRIES, len(window))))


def killed(status: int) -> bool:
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


@pytest.mark.skipif(not REFERENCE.is_dir(), reason="the shipped quick-scale scaling runs (reference/) are absent")
def test_an_aggregation_killed_anywhere_leaves_the_previous_set_or_the_new_one(tmp_path: Path) -> None:
    experiment = get_experiment("scaling")
    config = experiment.load_config("quick")
    template = tmp_path / "template" / "scaling" / "quick"
    shutil.copytree(REFERENCE / "runs", template / "runs")
    held_out = sorted((template / "runs").iterdir())[0]
    shutil.move(held_out, tmp_path / held_out.name)
    experiment.aggregate(template, config)  # the previous set: one run fewer
    shutil.move(tmp_path / held_out.name, held_out)
    previous = {name: (template / name).read_bytes() for name in EXPERIMENT_SET}

    def copy(name: str) -> Path:
        folder = tmp_path / name / "scaling" / "quick"
        shutil.copytree(template, folder)
        return folder

    uninterrupted = copy("uninterrupted")
    experiment.aggregate(uninterrupted, config)
    new = {name: (uninterrupted / name).read_bytes() for name in EXPERIMENT_SET}
    assert new != previous

    calibration = copy("calibration")
    points = kill_points(lambda: experiment.aggregate(calibration, config), tmp_path)
    assert len(points) >= 20
    seen = {"previous": 0, "new": 0}
    for point in points:
        folder = copy(f"try{point}")
        assert killed(run_in_child(lambda: experiment.aggregate(folder, config), point)), point
        read_publication(folder)
        found = {name: (folder / name).read_bytes() for name in EXPERIMENT_SET}
        assert found in (previous, new), f"killed before call {point}: a mix of the previous set and the new one"
        seen["previous" if found == previous else "new"] += 1
        section = gather_experiment(folder.parents[1], "scaling", "quick", None)
        assert section.error is None and not section.damaged, (point, section.error, section.damaged)
    assert seen["previous"] and seen["new"], seen  # the kills fell on both sides of the commit


def report_out(root: Path) -> Path:
    """The report fixture with the figures its headlines name (readable images)."""
    out = root / "results"
    shutil.copytree(FIXTURE, out)
    for figure in ("scaling/quick/r2_vs_dim.png", "distribution/quick/r2_vs_beta.png"):
        Image.new("RGB", (4, 4)).save(out / figure)
    return out


def rendering_of(text: str) -> tuple[str, str]:
    """The time stamp and the claim summary a report states (the same in report.md and report.html)."""
    stamp = re.search(r"Generated (.+?) by lejepa-wm", text)
    summary = re.search(r"\d+ of \d+ claims held, \d+ failed", text)
    assert stamp and summary
    return stamp.group(1), summary.group(0)


def test_report_writing_killed_anywhere_leaves_a_matching_pair(tmp_path: Path) -> None:
    template = report_out(tmp_path / "template")
    shutil.move(template / "verify.json", tmp_path / "verify.json")
    write_report(template, "quick")  # the previous pair: no numerical checks yet
    shutil.move(tmp_path / "verify.json", template / "verify.json")
    previous = {name: (template / name).read_bytes() for name in (MARKDOWN_FILE, HTML_FILE)}

    def copy(name: str) -> Path:
        out = tmp_path / name
        shutil.copytree(template, out)
        return out

    calibration = copy("calibration")
    points = kill_points(lambda: write_report(calibration, "quick"), tmp_path)
    assert len(points) >= 20
    seen = {"previous": 0, "new": 0}
    for point in points:
        out = copy(f"try{point}")
        assert killed(run_in_child(lambda: write_report(out, "quick"), point)), point
        publication = read_publication(out, REPORT_PUBLISHED_FILE)
        assert publication is not None
        found = {name: (out / name).read_bytes() for name in (MARKDOWN_FILE, HTML_FILE)}
        if found == previous:
            seen["previous"] += 1
            continue
        markdown, html = (found[name].decode("utf-8") for name in (MARKDOWN_FILE, HTML_FILE))
        assert rendering_of(markdown) == rendering_of(html), f"killed before call {point}: the pair is out of step"
        assert rendering_of(markdown)[1] != rendering_of(previous[MARKDOWN_FILE].decode("utf-8"))[1]
        seen["new"] += 1
    assert seen["previous"] and seen["new"], seen
