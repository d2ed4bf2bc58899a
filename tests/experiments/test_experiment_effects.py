"""Small end-to-end runs of each synthetic experiment that assert the DIRECTION of the predicted effect.

Each test runs the real pipeline (``run_experiment``: grid, training with checkpoints,
metrics.json, aggregate with summary.csv, figures and headline.json) on a reduced
grid of the quick configuration. Outcomes are seeded, so they are reproducible.
"""

from __future__ import annotations

import csv
import json

import pytest

from lejepa_wm.experiments.base import load_finished_metrics
from lejepa_wm.experiments.runner import run_experiment

FAST = {"seeds": 1, "probe_size": 1024, "eval_size": 2048, "sigreg_slices": 32}


def _run(tmp_path, name, **overrides):
    summary = run_experiment(name, "quick", out=tmp_path, overrides={**FAST, **overrides}, progress=False)
    exp_dir = tmp_path / name / "quick"
    for file in summary["files"]:
        assert (exp_dir / file.split("/")[-1]).exists()
    headline = json.loads((exp_dir / "headline.json").read_text())
    assert all((entry["passed"] is None or isinstance(entry["passed"], bool)) and entry["claim"] for entry in headline)
    return {row["run_id"]: row for row in load_finished_metrics(exp_dir)}, headline, summary


def test_scaling_regularizer_keeps_a_rotation_and_the_control_drifts(tmp_path):
    rows, headline, _ = _run(tmp_path, "scaling", dims=[4], methods=["sigreg", "alignment_only"], max_steps=150,
                             encoders=["matched"])
    sigreg, control = rows["n=0004_matched_sigreg_seed=0"], rows["n=0004_matched_alignment_only_seed=0"]
    assert sigreg["pair_correlation"] == pytest.approx(0.8, abs=0.03)  # one view z, the other z'
    assert sigreg["probe_r2"] > 0.99
    assert sigreg["procrustes_error"] < 0.5 * control["procrustes_error"]
    assert sigreg["embedding_std"] > 3 * control["embedding_std"]  # the control shrinks (collapses)
    control_entry = next(e for e in headline if "control" in e["name"])
    assert control_entry["passed"]
    # resume: a second invocation reuses every finished run
    again = run_experiment("scaling", "quick", out=tmp_path, progress=False,
                           overrides={**FAST, "dims": [4], "methods": ["sigreg", "alignment_only"], "max_steps": 150,
                                      "encoders": ["matched"]})
    assert again["executed"] == [] and len(again["reused"]) == 2


def test_distribution_linear_r2_peaks_at_the_gaussian(tmp_path):
    rows, headline, _ = _run(tmp_path, "distribution", betas=[2.0, 4.0], methods=["whitening"],
                             shortcut_methods=["whitening"], max_steps=300)
    gaussian, flat = rows["beta=2_whitening_mala_seed=0"], rows["beta=4_whitening_mala_seed=0"]
    assert gaussian["probe_r2"] > flat["probe_r2"]
    shortcut = rows["beta=4_whitening_shortcut_seed=0"]
    assert abs(shortcut["excess_kurtosis_z_pos"] - shortcut["excess_kurtosis_z"]) > \
        3 * abs(flat["excess_kurtosis_z_pos"] - flat["excess_kurtosis_z"])
    assert headline[0]["claim"] == "T2" and headline[0]["passed"]


def test_anisotropic_fast_latent_is_lost_past_ratio_two(tmp_path):
    rows, headline, _ = _run(tmp_path, "anisotropic", ratios=[1.5, 3.0], methods=["whitening"], max_steps=300)
    below, above = rows["ratio=1.5_whitening_seed=0"], rows["ratio=3_whitening_seed=0"]
    assert below["probe_r2_per_coord"][-1] > 0.9
    assert above["probe_r2_per_coord"][-1] < 0.5
    assert above["slow_harmonic_r2"] > 0.8  # it carries H_2 of the slow latent instead
    assert headline[0]["claim"] == "P5" and headline[0]["passed"]


def test_bounds_error_stays_below_the_t3_bound(tmp_path):
    rows, headline, _ = _run(tmp_path, "bounds", methods=["sigreg"], max_steps=100, eval_every=25,
                             checkpoint_every=50, eval_size=8192)
    with open(tmp_path / "bounds" / "quick" / "summary.csv") as handle:
        points = list(csv.DictReader(handle))
    assert len(points) == 4
    assert all(float(p["error"]) <= float(p["bound_upper"]) for p in points)
    assert headline[0]["claim"] == "T3" and headline[0]["passed"]


def test_output_dim_partial_rotation_for_m_below_n(tmp_path):
    rows, headline, _ = _run(tmp_path, "output_dim", output_dims=[2], methods=["whitening"], max_steps=300)
    row = rows["m=0002_whitening_seed=0"]
    assert row["probe_r2"] == pytest.approx(0.5, abs=0.05)  # an m-dimensional subspace of z, no more
    assert row["reverse_r2"] > 0.95  # and h is linear in z
    assert headline[0]["claim"] == "M1"
