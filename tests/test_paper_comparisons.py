"""The paper's numbers beside the same quantities measured here: each comparison reads the right rows."""

from __future__ import annotations

import csv
from pathlib import Path

from lejepa_wm.report.paper import comparisons


def _summary(path: Path, rows: list[dict[str, object]]) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_the_reacher_comparison_reads_the_models_not_their_controls(tmp_path: Path) -> None:
    """A λ = 0 control shares its model's mixture and seed; averaging it in halved the OU model's R²."""
    def row(seed: int, r2: float, control: bool) -> dict[str, object]:
        return {"ou_fraction": 1.0, "seed": seed, "control": "True" if control else "", "ou_test_r2_total": r2,
                "ou_test_r2_shoulder": r2, "ou_test_r2_wrist": r2}

    path = _summary(tmp_path / "summary.csv", [row(0, 0.98, False), row(0, -0.15, True), row(1, 0.96, False),
                                               row(1, -0.30, True)])
    [found] = comparisons({"reacher": path}, [("T1R", "reacher")])
    assert found.claim == "T1R"
    assert found.measured.startswith("OU-pairs model, test R² on OU frames: 0.9700 ± 0.0100 (shoulder 0.9700")
