"""Verdict logic of the headline entries, on hand-made result rows (no training).

Every verdict must fail for the identity encoder (an embedding that is the raw
observation: residual ratio 1 at every setting, R² equal to the raw probe's),
and a margin within two standard errors is "not resolved".
"""

from __future__ import annotations

import math
from dataclasses import replace

from lejepa_wm.experiments.anisotropic import EXPERIMENT as ANISOTROPIC
from lejepa_wm.experiments.distribution import peak_entry
from lejepa_wm.experiments.evidence import over_seeds
from lejepa_wm.experiments.output_dim import EXPERIMENT as OUTPUT_DIM
from lejepa_wm.experiments.scaling import EXPERIMENT as SCALING, verdicts_by_n
from lejepa_wm.records import FAILED, HELD, MEASURED, UNRESOLVED, Bound


def _distribution_rows(ratio_by_beta: dict[float, list[float]], method: str = "whitening") -> list[dict]:
    return [{"channel": "mala", "method": method, "beta": beta, "residual_ratio": value, "probe_r2": 1 - 0.3 * value,
             "raw_observation_r2": 0.7, "seed": seed}
            for beta, values in ratio_by_beta.items() for seed, value in enumerate(values)]


def test_t2_peak_is_judged_on_the_residual_ratio_with_a_paired_standard_error():
    entry = peak_entry(_distribution_rows({1.5: [0.10, 0.12], 2.0: [0.01, 0.02], 4.0: [0.20, 0.22]}), "whitening")
    assert math.isclose(entry.value, 0.11 - 0.015)
    assert math.isclose(entry.standard_error, math.sqrt(0.5 * (0.09 - 0.10) ** 2) / math.sqrt(2))
    assert entry.verdict == HELD and entry.split == "test" and entry.seeds == (0, 1)


def test_t2_margin_below_two_standard_errors_is_not_resolved():
    entry = peak_entry(_distribution_rows({1.5: [0.05, 0.02], 2.0: [0.01, 0.04], 4.0: [0.3, 0.3]}, "sigreg"), "sigreg")
    assert entry.verdict == UNRESOLVED


def test_t2_never_holds_for_the_identity_encoder_and_infonce_is_only_measured():
    identity = _distribution_rows({1.5: [1.0, 1.0], 2.0: [1.0, 1.0], 4.0: [1.0, 1.0]})
    entry = peak_entry(identity, "whitening")
    assert entry.verdict == UNRESOLVED and not entry.precondition_met  # it never reaches the optimum at β = 2
    converged_but_no_peak = _distribution_rows({1.5: [0.01, 0.012], 2.0: [0.05, 0.052], 4.0: [0.2, 0.2]})
    assert peak_entry(converged_but_no_peak, "whitening").verdict == FAILED
    assert peak_entry(_distribution_rows({1.5: [0.1], 2.0: [0.2]}, "infonce"), "infonce").verdict == MEASURED
    lejepa = peak_entry(_distribution_rows({1.5: [0.1, 0.1], 2.0: [0.01, 0.01]}, "sigreg_lejepa"), "sigreg_lejepa")
    assert lejepa.verdict == MEASURED and "LeJEPA's own statistic" in lejepa.scope  # shown beside, not judged


def _scaling_rows(ratio: float, scale: float, control_error: float, reading: str = "at the answer",
                  ceiling: float | None = None) -> list[dict]:
    rows = []
    methods = ("sigreg", "whitening", "alignment_only") + (("supervised",) if ceiling is not None else ())
    for n in (2, 8):
        for seed in (0, 1):
            for method in methods:
                error = control_error if method == "alignment_only" else 0.01 * n
                supervised = method == "supervised"
                rows.append({"n": n, "seed": seed, "method": method, "encoder_kind": "matched_scaled",
                             "run_id": f"n={n}_{method}_seed={seed}", "kept": True,
                             "residual_ratio": ratio + 0.001 * seed,
                             "probe_r2": ceiling if supervised else 1 - 0.3 * ratio,
                             "raw_observation_r2": 0.7, "procrustes_per_dim": error / n,
                             "embedding_std": scale, "scale_free_error": 0.01, "t3_error": None,
                             "optimum_reading": None if supervised else reading})
    return rows


def test_t1_fails_for_the_identity_encoder_and_holds_for_a_rotation():
    config = SCALING.load_config("quick", overrides={"encoders": ["matched_scaled"],
                                                     "identifiability_encoders": ["matched_scaled"]})
    identity = SCALING.headline(_scaling_rows(1.0, 1.0, 0.01), config)
    t1 = [e for e in identity if "identifiability" in e.name]
    assert t1 and all(e.verdict == FAILED for e in t1)
    rotation = SCALING.headline(_scaling_rows(0.01, 1.0, 0.9), config)
    assert all(e.verdict == HELD for e in rotation if "identifiability" in e.name)
    effect = [e for e in rotation if "effect" in e.name]
    assert effect and all(e.verdict == HELD for e in effect)  # the collapsed control is far from a rotation


def _optimum(entries: list) -> object:
    return next(e for e in entries if e.claim == "T1" and "objective" in e.quantity)


def test_t1_optimum_is_not_resolved_without_a_run_at_the_answer_and_fails_on_a_run_below_it():
    config = SCALING.load_config("quick", overrides={"encoders": ["matched_scaled"]})
    identity = SCALING.headline(_scaling_rows(1.0, 1.0, 0.01, reading="above the answer"), config)
    assert _optimum(identity).verdict == UNRESOLVED  # nothing reached the optimum: the comparison has no power
    assert _optimum(SCALING.headline(_scaling_rows(0.01, 1.0, 0.9), config)).verdict == HELD
    contradiction = SCALING.headline(_scaling_rows(1.0, 1.0, 0.01, reading="below the answer"), config)
    assert _optimum(contradiction).verdict == FAILED and _optimum(contradiction).value == 12


def test_t1_reached_is_not_judged_where_the_supervised_ceiling_misses_the_target():
    config = SCALING.load_config("quick", overrides={"encoders": ["matched_scaled"],
                                                     "identifiability_encoders": ["matched_scaled"]})
    needed = 1 - config.residual_target * 0.3  # raw R² 0.7
    limited = SCALING.headline(_scaling_rows(1.0, 1.0, 0.01, ceiling=needed - 0.05), config)
    rows = [e for e in limited if "identifiability" in e.name]
    assert rows and all(e.verdict == MEASURED and "capacity" in e.scope for e in rows)
    able = SCALING.headline(_scaling_rows(1.0, 1.0, 0.01, ceiling=0.9999), config)
    assert all(e.verdict == FAILED for e in able if "identifiability" in e.name)


def test_p5_fails_for_the_identity_encoder():
    config = ANISOTROPIC.load_config("quick")
    rows = [{"method": "whitening", "ratio": r, "seed": s, "fast_r2": 0.8, "raw_fast_r2": 0.8, "n": 2, "fast": 1,
             "slow_harmonic_r2": 0.0} for r in config.ratios for s in (0, 1)]
    assert ANISOTROPIC.headline(rows, config)[0].verdict == FAILED
    rows = [{**row, "fast_r2": 0.99 if row["ratio"] < 2 else 0.01} for row in rows]
    entry = ANISOTROPIC.headline(rows, config)[0]
    assert entry.verdict == HELD
    band = [r for r in config.ratios if abs(r - 2) <= config.unjudged_band]
    assert all(f"ratio {r:g} seed {s}:" in entry.measured for r in band for s in (0, 1))  # shown seed by seed
    assert "ceiling of 1.000" in entry.measured  # one fast among two: H₂ of the one slow latent, R² up to 1


def _m1(rows: list[dict], config, method: str, part: str):
    """The M1 entry of ``method`` whose name contains ``part``."""
    return next(e for e in OUTPUT_DIM.headline(rows, config) if e.name.startswith(f"output_dim ({method}")
                and part in e.name)


def _runs(config, method: str, r2=lambda m, n, seed: min(m, n) / n, gap: float = 0.0) -> list[dict]:
    return [{"run_id": f"m={m}_{method}_seed={s}", "method": method, "m": m, "n": config.n, "seed": s,
             "probe_r2": r2(m, config.n, s), "raw_observation_r2": 0.7, "optimum_reading": "at the answer",
             "gap_to_answer": gap, "gap_to_answer_se": 0.001, "embedding_std": 1.0}
            for m in config.output_dims for s in (0, 1)]


def test_m1_under_the_hard_constraint_judges_each_run_against_its_own_objective_gap():
    config = OUTPUT_DIM.load_config("quick")
    scale = 2 * config.n * config.rho * (1 - config.rho)  # gap per unit of R² deficit
    assert _m1(_runs(config, "whitened"), config, "whitened", "objective gap allows").verdict == HELD
    identity = _runs(config, "whitened", r2=lambda m, n, s: 0.7)
    assert _m1(identity, config, "whitened", "objective gap allows").verdict == FAILED
    # Far above the answer's objective, any R² is allowed: the bound says nothing, so it is not resolved.
    far = _runs(config, "whitened", r2=lambda m, n, s: 0.7, gap=10.0 * scale)
    assert _m1(far, config, "whitened", "objective gap allows").verdict == UNRESOLVED
    # A deficit of 0.05 is allowed by a gap worth 0.06 of R², not by one worth 0.01.
    short = lambda m, n, s: min(m, n) / n - 0.05
    assert _m1(_runs(config, "whitened", short, 0.06 * scale), config, "whitened", "gap allows").verdict == HELD
    assert _m1(_runs(config, "whitened", short, 0.01 * scale), config, "whitened", "gap allows").verdict == FAILED
    assert _m1(_runs(config, "whitened"), config, "whitened", "whitened, every run").verdict == MEASURED
    # A run below the answer's objective contradicts the spectral claim itself.
    below = [{**row, "optimum_reading": "below the answer", "gap_to_answer": -0.3} if row["seed"] == 0 else row
             for row in _runs(config, "whitened")]
    assert _m1(below, config, "whitened", "no run scores below").verdict == FAILED
    assert _m1(_runs(config, "whitened"), config, "whitened", "no run scores below").verdict == HELD
    # ... unless it escaped the constraint: coordinates shrunk below the whitening ridge put it outside M1's
    # hypothesis (named, not counted), for the optimum and for the gap's allowance alike.
    m = max(config.output_dims)
    escaped = [{**row, "embedding_std": 1 - 1.5 / m, "probe_r2": 0.5} if row["seed"] == 0 and row["m"] == m else row
               for row in below]
    entry = _m1(escaped, config, "whitened", "no run scores below")
    assert entry.verdict == FAILED and f"m={m}_whitened_seed=0 (std" in entry.measured  # the smaller m still count
    only_escaped = [{**row, "optimum_reading": "at the answer", "gap_to_answer": 0.0}
                    if row["seed"] == 0 and row["m"] != m else row for row in escaped]
    assert _m1(only_escaped, config, "whitened", "no run scores below").verdict == HELD
    assert _m1(only_escaped, config, "whitened", "gap allows").verdict == HELD


def test_m1_for_a_soft_penalty_is_judged_with_the_ceilings_tolerance():
    config = replace(OUTPUT_DIM.load_config("quick"), methods=("whitening", "alignment_only", "supervised"),
                     judged_methods=("whitening",))
    ceiling = [{"method": "supervised", "m": config.n, "n": config.n, "seed": s, "probe_r2": 0.995,
                "raw_observation_r2": 0.7, "optimum_reading": None} for s in (0, 1)]
    identity = _runs(config, "whitening", r2=lambda m, n, s: 0.7)
    assert _m1(identity + ceiling, config, "whitening", "= min(m, n)/n").verdict == FAILED
    exact = _runs(config, "whitening", r2=lambda m, n, s: min(m, n) / n + 0.0005 * s)
    assert _m1(exact + ceiling, config, "whitening", "= min(m, n)/n").verdict == HELD
    assert _m1(exact, config, "whitening", "= min(m, n)/n").verdict == UNRESOLVED  # no ceiling: may not hold z
    weak = [{**row, "probe_r2": 0.9} for row in ceiling]
    assert _m1(exact + weak, config, "whitening", "= min(m, n)/n").verdict == UNRESOLVED  # a ceiling below 0.99


def test_t1_verdict_at_each_n_applies_the_verdict_rule_to_that_n_alone():
    per_n = [(2, over_seeds({0: 0.004, 1: 0.005, 2: 0.006}, higher_is_better=False)),  # held
             (4, over_seeds({0: 0.5, 1: 0.6, 2: 0.7}, higher_is_better=False)),  # failed
             (8, over_seeds({0: 0.001, 1: 0.01, 2: 0.03}, higher_is_better=False)),  # within 2 se
             (16, over_seeds({0: 0.002}, higher_is_better=False))]  # one seed: no standard error
    text = verdicts_by_n(per_n, Bound.at_most(0.01))
    assert text == ("verdict at each n on its own: held at n = 2, 16; failed at n = 4; "
                    "not resolved at n = 8")
