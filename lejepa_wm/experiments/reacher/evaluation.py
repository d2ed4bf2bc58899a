"""Held-out evaluation of a Reacher encoder and diagnostics of how the data violate the theory.

Probe targets. Joint angles are compared on the circle's chart (−π, π]:
``wrap(θ) = ((θ + π) mod 2π) − π``. For OU data with the default ``σ = 0.7`` this
equals the generating ``σ z`` except for the 7·10⁻⁶ of angles beyond ±π (0.17 %
for ``σ = 1``), so the angle probe is the latent probe of the theory; for
trajectories it removes the shoulder's full turns, which frames cannot see. Reported:

- ``r2_total``, ``r2_shoulder``, ``r2_wrist``: held-out R² of an affine probe
  from the embedding to the wrapped angles (total and per joint);
- ``r2_sincos``: total R² of an affine probe to (sin θ₁, cos θ₁, sin θ₂, cos θ₂),
  which is continuous across the cut at ±π.

Diagnostics of the pair data (per joint): histogram of the wrapped angle
(marginal; the theory needs a Gaussian), Sarle's bimodality coefficient
``(skew² + 1)/kurtosis`` (≤ 1/3 for a Gaussian; above 5/9 suggests bimodality),
the lag-Δ correlation ``corr(θ, θ')`` of the pair with ``θ'`` unwrapped next to
``θ`` (the theory needs one ρ for all joints), and the number of pairs whose
two wrapped angles lie on opposite sides of the cut (``|wrap θ − wrap θ'| > π``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from lejepa_wm.experiments.metrics import linear_probe_r2

JOINTS = ("shoulder", "wrist")
HISTOGRAM_EDGES = np.linspace(-np.pi, np.pi, 37)


def wrap(angles: np.ndarray) -> np.ndarray:
    """Angles mapped into [−π, π): ``((θ + π) mod 2π) − π``."""
    return np.mod(np.asarray(angles, dtype=np.float64) + np.pi, 2.0 * np.pi) - np.pi


def sincos(angles: np.ndarray) -> np.ndarray:
    """(sin θ₁, cos θ₁, sin θ₂, cos θ₂) for angles of shape (N, 2)."""
    angles = np.asarray(angles, dtype=np.float64)
    return np.column_stack([np.sin(angles[:, 0]), np.cos(angles[:, 0]), np.sin(angles[:, 1]), np.cos(angles[:, 1])])


def probe_report(h_fit: np.ndarray, angles_fit: np.ndarray, h_eval: np.ndarray,
                 angles_eval: np.ndarray) -> dict[str, float]:
    """Angle and (sin, cos) probe R² (see the module docstring), probe fitted on ``*_fit``, scored on ``*_eval``."""
    total, per_joint = linear_probe_r2(h_fit, wrap(angles_fit), h_eval, wrap(angles_eval))
    sincos_total, _ = linear_probe_r2(h_fit, sincos(angles_fit), h_eval, sincos(angles_eval))
    report = {"r2_total": total, "r2_sincos": sincos_total}
    report.update({f"r2_{joint}": float(value) for joint, value in zip(JOINTS, per_joint)})
    return report


def pair_diagnostics(angles: np.ndarray, angles_pos: np.ndarray) -> dict[str, Any]:
    """Per-joint marginal histogram, bimodality coefficient, lag correlation and wrap-around count."""
    angles = np.asarray(angles, dtype=np.float64)
    angles_pos = np.asarray(angles_pos, dtype=np.float64)
    if angles.shape != angles_pos.shape or angles.ndim != 2 or angles.shape[1] != 2:
        raise ValueError(f"angles must be two (N, 2) arrays of equal shape; got {angles.shape} and {angles_pos.shape}")
    wrapped, wrapped_pos = wrap(angles), wrap(angles_pos)
    beside = wrapped + wrap(wrapped_pos - wrapped)
    out: dict[str, Any] = {"histogram_edges": HISTOGRAM_EDGES.tolist(), "n_pairs": len(angles)}
    for j, joint in enumerate(JOINTS):
        counts, _ = np.histogram(wrapped[:, j], bins=HISTOGRAM_EDGES)
        out[f"histogram_{joint}"] = counts.tolist()
        varies = np.ptp(wrapped[:, j]) > 0 and np.ptp(beside[:, j]) > 0
        if varies:  # moments and correlations of a constant joint are undefined: reported as null
            skew = stats.skew(wrapped[:, j])
            kurtosis = stats.kurtosis(wrapped[:, j], fisher=False)
            out[f"bimodality_{joint}"] = float((skew**2 + 1.0) / kurtosis)
            out[f"lag_corr_{joint}"] = float(np.corrcoef(wrapped[:, j], beside[:, j])[0, 1])
        else:
            out[f"bimodality_{joint}"] = out[f"lag_corr_{joint}"] = None
        out[f"wraps_{joint}"] = int(np.sum(np.abs(wrapped[:, j] - wrapped_pos[:, j]) > np.pi))
    return out
