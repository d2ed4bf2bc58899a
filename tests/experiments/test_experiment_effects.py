"""Small end-to-end runs of each synthetic experiment that assert the DIRECTION of the predicted effect.

Each test runs the real pipeline (the sweep driver with the serial executor: grid,
training with checkpoints, metrics.json, aggregate with summary.csv, figures and
headline.json) on a reduced grid of the quick configuration, on the paper's
renderer. Outcomes are seeded, so they are reproducible.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from lejepa_wm.experiments.base import FinishedRun, RunSpec, finished_runs
from lejepa_wm.records import HeadlineEntry
from lejepa_wm.sweep.driver import run_sweep

FAST = {"seeds": 1, "eval_size": 2048, "sigreg_slices": 32}


def _run(tmp_path, name, **overrides):
    result = run_sweep(name, "quick", tmp_path, executor="serial", overrides={**FAST, **overrides}, progress=False)
    assert result.failed == () and result.aggregated
    exp_dir = tmp_path / name / "quick"
    entries = [HeadlineEntry.from_dict(entry) for entry in json.loads((exp_dir / "headline.json").read_text())]
    # Every number is from the test sample, but the objective at the optimum, which is compared on validation
    # batches (EVIDENCE §7: the optimum apart from the optimizer).
    assert entries and all(entry.seeds and entry.split == ("validation" if "objective" in entry.quantity else "test")
                           for entry in entries)
    return {run.spec.run_id: run.row() for run in finished_runs(exp_dir)}, entries, result


def test_scaling_regularizer_keeps_a_rotation_and_the_control_collapses(tmp_path):
    settings = dict(dims=[4], encoders=["matched_scaled"], infonce_encoders=[], max_steps=300,
                    methods=["sigreg", "alignment_only"])
    rows, entries, _ = _run(tmp_path, "scaling", **settings)
    sigreg, control = rows["n=0004_matched_scaled_sigreg_seed=0"], rows["n=0004_matched_scaled_alignment_only_seed=0"]
    assert sigreg["pair_correlation"] == pytest.approx([0.8] * 4, abs=0.04)  # one view z, the other z'
    assert sigreg["raw_observation_r2"] < 0.9  # the world leaves room for an encoder
    assert sigreg["probe_r2"] > sigreg["raw_observation_r2"]
    assert sigreg["procrustes_error"] < 0.5 * control["procrustes_error"]
    assert control["embedding_std"] < 0.6 * sigreg["embedding_std"]  # the control shrinks (collapses)
    effect = next(e for e in entries if "effect" in e.name)
    assert effect.value > 0 and effect.claim == "T1R"
    optimum = next(e for e in entries if e.claim == "T1" and "objective" in e.quantity)
    assert optimum.value == 0  # no run below the world model's objective without identifying z
    assert {"objective_gap", "t3"} <= set(sigreg) and sigreg["objective_gap"]["batches"] == 2048 // 256
    again = run_sweep("scaling", "quick", tmp_path, executor="serial", overrides={**FAST, **settings},
                      progress=False)
    assert again.executed == () and len(again.reused) == 2  # a second invocation reuses every finished run


@pytest.mark.slow
def test_distribution_shortcut_changes_the_law_and_training_beats_the_raw_probe(tmp_path):
    rows, entries, _ = _run(tmp_path, "distribution", betas=[2.0, 4.0], methods=["whitening", "alignment_only"],
                            shortcut_methods=["whitening"], max_steps=300)
    flat, shortcut = rows["beta=4_whitening_mala_seed=3"], rows["beta=4_whitening_shortcut_seed=3"]  # first_seed = 3
    assert flat["probe_r2"] > flat["raw_observation_r2"]
    assert abs(shortcut["excess_kurtosis_z_pos"] - shortcut["excess_kurtosis_z"]) > \
        3 * abs(flat["excess_kurtosis_z_pos"] - flat["excess_kurtosis_z"])
    assert any(e.name.endswith("not stationary") and e.verdict == "held" for e in entries)


@pytest.mark.slow
def test_anisotropic_fast_latent_is_lost_past_ratio_two(tmp_path):
    rows, entries, _ = _run(tmp_path, "anisotropic", ratios=[1.5, 3.0], methods=["whitening", "alignment_only"],
                            max_steps=600)
    below, above = rows["ratio=1.5_whitening_seed=0"], rows["ratio=3_whitening_seed=0"]
    assert below["probe_r2_per_coord"][-1] > 0.85
    assert above["probe_r2_per_coord"][-1] < 0.5 < above["raw_fast_r2"]
    assert above["slow_harmonic_r2"] > 0.7  # it carries H_2 of the slow latent instead
    assert len(set(below["rho"])) == 2  # the per-coordinate rho reaches the metrics


def test_bounds_error_stays_below_the_t3_bound(tmp_path):
    rows, entries, _ = _run(tmp_path, "bounds", methods=["sigreg", "alignment_only"], max_steps=100, eval_every=25,
                            checkpoint_every=50, eval_size=8192)
    with open(tmp_path / "bounds" / "quick" / "summary.csv") as handle:
        points = list(csv.DictReader(handle))
    assert len(points) == 8
    assert all(float(p["error_lower"]) <= float(p["bound_upper"]) for p in points)
    assert entries[0].claim == "T3" and entries[0].verdict == "held"


def _collapsed_point(excess_in_se: float) -> dict:
    """A collapsed encoder's evaluation (T3 holds with equality, error = eps² = n) with the error off by noise."""
    n, se = 4, 0.03
    return {"run_id": "r", "method": "alignment_only", "encoder": "mlp", "n": n, "seed": 0, "step": 100,
            "delta": 0.0, "delta_se": 0.0, "eps": 2.0, "D": 0.0, "D_se": 0.0, "bound": 4.0, "bound_upper": 4.0,
            "error": 4.0 + excess_in_se * se, "error_se": se}


@pytest.mark.parametrize(("excess_in_se", "verdict"), [(1.6, "held"), (1.7, "failed")])
def test_t3_verdict_allows_the_sampling_error_of_the_measured_error(excess_in_se, verdict):
    from lejepa_wm.experiments.bounds import EXPERIMENT, error_allowance, evaluation_points

    assert error_allowance(1) == pytest.approx(1.645, abs=1e-3)  # one run: the one-sided 5% level
    assert error_allowance(54) == pytest.approx(3.11, abs=0.01)
    t3 = {key: value for key, value in _collapsed_point(excess_in_se).items()
          if key in ("delta", "delta_se", "eps", "D", "D_se", "bound", "error", "error_se")}
    run = FinishedRun(RunSpec("bounds", "quick", "r", {"labels": {"method": "alignment_only", "encoder_kind": "mlp",
                                                                 "n": 4, "seed": 0}}),
                      {"rho": 0.8, "history": [{"step": 100, "test": {"t3": t3}}]})
    entry = EXPERIMENT.headline(evaluation_points([run]))[0]
    assert entry.verdict == verdict


def test_error_standard_error_is_that_of_a_sample_mean():
    from lejepa_wm.experiments.metrics import ProcrustesFit

    rng = np.random.default_rng(0)
    z = rng.standard_normal((20000, 4))
    h = np.zeros_like(z)  # collapsed: error = mean ||z - mean z||^2, whose variance per sample is 2n
    fit = ProcrustesFit(np.eye(4), 1.0)
    assert fit.error(h, z) == pytest.approx(4.0, abs=0.1)
    assert fit.error_standard_error(h, z) == pytest.approx(np.sqrt(2 * 4 / len(z)), rel=0.05)


def test_output_dim_partial_rotation_for_m_below_n(tmp_path):
    rows, entries, _ = _run(tmp_path, "output_dim", output_dims=[4], methods=["whitened", "alignment_only"],
                            max_steps=600)
    row = rows["m=0004_whitened_seed=0"]
    assert row["probe_r2"] == pytest.approx(0.5, abs=0.06)  # an m-dimensional subspace of z, no more
    assert row["reverse_r2"] > 0.8  # and h is close to linear in z
    assert entries[0].claim == "M1"
