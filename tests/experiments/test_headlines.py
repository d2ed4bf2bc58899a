"""Verdict logic of the headline entries, on hand-made result rows (no training)."""

from __future__ import annotations

import math

from lejepa_wm.experiments.distribution import EXPERIMENT as DISTRIBUTION


def _rows(r2_by_beta: dict[float, list[float]], method: str = "whitening") -> list[dict]:
    return [{"channel": "mala", "method": method, "beta": beta, "probe_r2": value, "seed": seed}
            for beta, values in r2_by_beta.items() for seed, value in enumerate(values)]


def test_distribution_peak_reports_margin_and_its_standard_error():
    entry = DISTRIBUTION.headline(_rows({1.5: [0.97, 0.98], 2.0: [0.99, 0.995], 4.0: [0.96, 0.962]}))[0]
    assert entry["passed"] and math.isclose(entry["value"], 0.9925 - 0.975)
    error = math.hypot(math.sqrt(0.5 * 0.005**2) / math.sqrt(2), math.sqrt(0.5 * 0.01**2) / math.sqrt(2))
    assert f"β=2 minus β=1.5: +0.0175 ± {error:.4f}" in entry["measured"]


def test_distribution_peak_fails_when_another_beta_is_higher():
    entry = DISTRIBUTION.headline(_rows({1.5: [0.997], 2.0: [0.9945], 4.0: [0.987]}, "infonce"))[0]
    assert not entry["passed"] and entry["value"] < 0
    assert "standard error" not in entry["measured"]  # one seed: no error bar to give
