"""The command line a researcher types: KEY=VALUE settings, --print-config, --dry-run, --no-control, --version,
progress lines outside a terminal, and a verify table that fits the terminal."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from lejepa_wm import __version__
from lejepa_wm.commands.cli import main as cli_main
from lejepa_wm.experiments import get_experiment
from lejepa_wm.experiments.quick_look import NO_CONTROL_TAG, mark_without_control
from lejepa_wm.experiments.scaling import ScalingConfig
from lejepa_wm.experiments.plotting import figure_grid
from lejepa_wm.overrides import config_toml, parse_settings
from lejepa_wm.progress import LineProgress, progress_bar
from lejepa_wm.records import HELD, MEASURED, UNRESOLVED, Bound, CheckResult, HeadlineEntry
from lejepa_wm.commands.verify import format_table

TINY = ["dims=2", "steps=20", "seeds=1", "eval_size=256", "eval_every=10", "encoders=matched_additive",
        "identifiability_encoders=matched_additive", "batch_size=64", "warmup_steps=5"]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli_main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"lejepa-wm {__version__}"


def test_settings_are_typed_by_the_configs_fields() -> None:
    settings = parse_settings(["n=16", "steps=300", "methods=sigreg,whitening", "lr=3e-3", "sigreg_standardize=true",
                               "steps_by_n=[[128, 16000]]", "renderer='published'", "published_steps_by_n=none",
                               "tuning_seeds=[]"], ScalingConfig)
    assert settings == {"dims": (16,), "max_steps": 300, "methods": ("sigreg", "whitening"), "lr": 0.003,
                        "sigreg_standardize": True, "steps_by_n": [[128, 16000]], "renderer": "published",
                        "published_steps_by_n": None, "tuning_seeds": []}


@pytest.mark.parametrize("setting, message", [
    ("steps", "is not KEY=VALUE"),
    ("=3", "is not KEY=VALUE"),
    ("stepz=3", "ScalingConfig has no key 'stepz'; known keys: seeds, tuning_seeds"),
])
def test_a_malformed_or_unknown_setting_is_refused_with_the_known_keys(setting: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_settings([setting], ScalingConfig)


def test_a_key_given_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="'max_steps' is given twice"):
        parse_settings(["steps=3", "max_steps=4"], ScalingConfig)


@pytest.mark.parametrize("setting, message", [
    ("max_steps=abc", "field 'max_steps' must be a valid integer; got 'abc'"),
    ("lr=fast", "field 'lr' must be a valid number; got 'fast'"),
    ("methods=sigreg", "must include the control 'alignment_only'"),
    ("dims=[2, 3]", "'dims'"),
])
def test_a_bad_value_is_refused_before_anything_runs_naming_key_and_value(
        setting: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["run", "scaling", setting, "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out" / "scaling").exists()


def test_a_bad_value_with_restart_deletes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    earlier = tmp_path / "out" / "scaling" / "quick" / "kept.txt"
    earlier.parent.mkdir(parents=True)
    earlier.write_text("an earlier result")
    assert cli_main(["run", "scaling", "max_steps=abc", "--restart", "--out", str(tmp_path / "out")]) == 2
    assert "field 'max_steps' must be a valid integer; got 'abc'" in capsys.readouterr().err
    assert earlier.read_text() == "an earlier result"


def test_print_config_is_toml_that_config_reads_back_to_the_same_settings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["run", "scaling", "n=16", "steps=300", "methods=sigreg", "--no-control", "--print-config"]) == 0
    text = capsys.readouterr().out
    assert "dims = [16]" in text and "max_steps = 300" in text and 'methods = ["sigreg"]' in text
    assert "control = false" in text
    path = tmp_path / "printed.toml"
    path.write_text(text, encoding="utf-8")
    experiment = get_experiment("scaling")
    expected = experiment.load_config("quick", None, parse_settings(["n=16", "steps=300", "methods=sigreg",
                                                                    "control=false"], ScalingConfig))
    assert experiment.load_config("quick", path) == expected
    assert config_toml(expected) == config_toml(experiment.load_config("quick", path))


def test_dry_run_lists_the_runs_with_an_estimate_and_runs_nothing(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert cli_main(["run", "scaling", "n=16", "steps=300", "methods=sigreg", "--no-control", "--dry-run",
                     "--seed", "5", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert re.search(r"scaling at scale quick: (\d+) run\(s\), \1 to execute \(seeds 5, 6\)", text)
    assert re.search(r"n=0016_matched_additive_sigreg_seed=5 +300 steps, ≈ ", text)
    assert re.search(r"compute to execute: ≈ \d", text) and "measured run(s)" in text
    assert "alignment_only" not in text and NO_CONTROL_TAG in text
    assert not out.exists()


def test_no_control_is_refused_where_there_is_no_control(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["run", "reacher", "--no-control", "--dry-run"]) == 2
    assert "experiment 'reacher' has no λ = 0 control to drop" in capsys.readouterr().err


def test_a_config_without_the_control_says_so_and_cannot_hold_it() -> None:
    experiment = get_experiment("scaling")
    assert not experiment.load_config("quick", None, {"control": False, "methods": ("sigreg",)}).control
    with pytest.raises(ValueError, match="must not include 'alignment_only' when control = false"):
        experiment.load_config("quick", None, {"control": False})


def test_results_without_the_control_are_marked_and_never_judged() -> None:
    entries = [HeadlineEntry("T1", "identifiability", "ratio", 0.1, Bound.at_most(0.25), "measured"),
               HeadlineEntry("T1", "effect", "gap", 0.3, None, "measured", scope="no prediction")]
    assert entries[0].verdict == HELD
    fig, _ = figure_grid()
    caption, marked = mark_without_control(fig, "T1: R² against n", entries)
    assert caption.startswith(NO_CONTROL_TAG) and caption.endswith("T1: R² against n")
    assert NO_CONTROL_TAG in fig.get_suptitle()
    assert [entry.verdict for entry in marked] == [UNRESOLVED, MEASURED]
    assert all(entry.name.endswith(NO_CONTROL_TAG) for entry in marked)
    assert "--no-control" in marked[0].requirement


def test_a_run_without_the_control_says_so_in_every_output(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert cli_main(["run", "scaling", *TINY, "methods=sigreg", "--no-control", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.out.count(NO_CONTROL_TAG) >= 3  # before, in the headline, after
    assert "scaling (quick, serial): run 1/1 done (100%)" in captured.out  # one plain line per run, no bar
    assert "\r" not in captured.out + captured.err
    folder = out / "scaling" / "quick"
    assert [path.name for path in (folder / "runs").iterdir()] == ["n=0002_matched_additive_sigreg_seed=0"]
    headline = json.loads((folder / "headline.json").read_text(encoding="utf-8"))
    assert headline and all(entry["name"].endswith(NO_CONTROL_TAG) for entry in headline)
    assert all(entry["verdict"] in (UNRESOLVED, MEASURED) for entry in headline)
    from lejepa_wm.report.gather import figure_caption

    assert figure_caption(folder / "r2_vs_n.png").count(NO_CONTROL_TAG) == 1


def test_progress_is_a_plain_line_per_item_outside_a_terminal() -> None:
    stream = io.StringIO()
    bar = progress_bar(3, "scaling (quick, serial)", "run", stream=stream)
    assert isinstance(bar, LineProgress)
    bar.update()
    bar.set_postfix(failed=1)
    bar.update(2)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2  # one per update, nothing before the first
    assert lines[0].startswith("scaling (quick, serial): run 1/3 done (33%), ") and "left" in lines[0]
    assert lines[1].startswith("scaling (quick, serial): run 3/3 done (100%), ") and lines[1].endswith("failed 1")
    assert "\r" not in stream.getvalue()
    assert not isinstance(progress_bar(3, "x", "run", enabled=False, stream=io.StringIO()), LineProgress)


@pytest.mark.parametrize("width", [60, 80, 132])
def test_the_verify_table_fits_the_terminal_and_keeps_every_word(width: int) -> None:
    rows = [CheckResult.compare("T3", "bound_holds_for_every_random_and_adversarial_encoder",
                                "largest error / bound over 20000 random Hermite-coefficient encoders (n <= 3, "
                                "degree <= 3, rho in (0.01, 0.99)) = 0.9999", 0.9999, Bound.at_most(1.0)),
            CheckResult.logical("T2", "affine_score", "sympy: affine score gives a Gaussian", False,
                                "the only normalizable solution of the ODE is the Gaussian density")]
    table = format_table(rows, width)
    assert max(map(len, table.splitlines())) <= width
    words = " ".join(table.split())
    for word in ("20000", "0.9999", "ODE", "PASS", "FAIL"):
        assert word in words


def test_the_estimate_prices_a_run_at_the_seconds_per_step_of_measured_runs_alike() -> None:
    from lejepa_wm.experiments.base import RunSpec
    from lejepa_wm.experiments.estimate import Measured, estimate_seconds

    def spec(n: int) -> RunSpec:
        return RunSpec("scaling", "quick", f"n={n}", {"labels": {"n": n, "method": "sigreg", "seed": 3},
                                                     "train": {"max_steps": 1000}})

    alike = Measured((("method", "'sigreg'"), ("n", "8")), 20.0, 500, "a machine")
    other = Measured((("method", "'sigreg'"), ("n", "1024")), 900.0, 100, "a machine")
    assert estimate_seconds(spec(8), [alike, other]) == pytest.approx(40.0)  # 0.04 s per step, as the alike run
    assert estimate_seconds(spec(16), [alike, other]) == pytest.approx(1000 * (0.04 + 9.0) / 2)  # no alike run
    assert estimate_seconds(spec(8), []) is None


def test_the_command_line_starts_without_loading_torch_or_matplotlib() -> None:
    import subprocess
    import sys

    code = ("import sys, lejepa_wm.commands.cli as cli; cli.build_parser(); "
            "print(sorted({'torch', 'matplotlib'} & set(sys.modules)))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
