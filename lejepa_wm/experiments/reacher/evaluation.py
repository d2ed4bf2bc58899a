"""Held-out evaluation of a Reacher encoder (probes, pixel baselines, latent planning) and data diagnostics.

Probe targets. Joint angles are compared on the circle's chart (−π, π]:
``wrap(θ) = ((θ + π) mod 2π) − π``. For OU data with the default ``σ = 0.7`` this
equals the generating ``σ z`` except for the 7·10⁻⁶ of angles beyond ±π (0.17 %
for ``σ = 1``), so the angle probe is the latent probe of the theory; for
trajectories it removes the shoulder's full turns, which frames cannot see. Reported:

- ``r2_total``, ``r2_shoulder``, ``r2_wrist``: held-out R² of an affine probe
  from the embedding to the wrapped angles (total and per joint);
- ``r2_sincos``: total R² of an affine probe to (sin θ₁, cos θ₁, sin θ₂, cos θ₂),
  which is continuous across the cut at ±π.

Baselines: the same targets from the raw frames, with no training
(:func:`pixel_baselines`). Frames are flattened to ``H·W·3`` pixel values in
[0, 1]; the principal components are those of the *fit* sample. ``pca<k>``: the
affine least-squares probe on the top ``k`` components (``k = 2``: a linear
encoder of the embedding's size; ``k = 50``: a richer linear summary);
``pixels``: a ridge probe on all pixels (computed in the basis of all
components, an exact rewrite), its penalty chosen on the validation sample
from :data:`RIDGE_GRID` (0 is the minimum-norm least-squares probe: a fit
sample has fewer frames than pixels). The baseline that scores best on the
validation sample (``best``) is the one a verdict compares with; all of them
are reported on the test sample.

Diagnostics of the pair data (per joint): histogram of the wrapped angle
(marginal; the theory needs a Gaussian), Sarle's bimodality coefficient
``(skew² + 1)/kurtosis`` (≤ 1/3 for a Gaussian; above 5/9 suggests bimodality),
the lag-Δ correlation ``corr(θ, θ')`` of the pair with ``θ'`` unwrapped next to
``θ`` (the theory needs one ρ for all joints), and the number of pairs whose
two wrapped angles lie on opposite sides of the cut (``|wrap θ − wrap θ'| > π``).

Planning (:func:`plan`): straight lines in the learned latent, scored against
the oracle straight line in joint space. T4 says that if the embedding is an orthogonal image of the latent, a planner
working in embedding coordinates behaves exactly as one in the true
coordinates: a straight line between the encoded start and goal is the image
of the oracle straight line. Here, for start/goal poses ``θ_s, θ_g``:

1. encode their frames, ``h_s, h_g``; take ``K + 1`` evenly spaced points
   ``h_k = h_s + (k/K)(h_g − h_s)``;
2. decode each ``h_k`` to joint angles by k-nearest-neighbour lookup in a
   reference set of embedded frames with known angles (circular mean of the
   ``k`` neighbours' angles). A *linear* probe would decode a straight latent
   line to a straight joint line whatever the encoder, so the kNN decoder is
   what reveals curvature;
3. the executed path is ``θ_s, θ̂_1, …, θ̂_{K−1}, θ_g`` (the agent starts at the
   true start and must end at the true goal); the oracle is
   ``θ_k = θ_s + (k/K)(θ_g − θ_s)``.

Start and goal are unwrapped angles (the OU latent ``σ z``); the oracle is the
straight line between them. Metrics (differences of decoded angles, which live
in [−π, π), are wrapped into [−π, π)): ``deviation`` = mean over
interior waypoints of ``‖θ̂_k − θ_k‖`` (rad); ``length_ratio`` = path length
``Σ‖θ̂_{k+1} − θ̂_k‖`` over the oracle's ``‖θ_g − θ_s‖``; ``cost_ratio`` =
control cost of tracking the waypoints with one unit of time per step and a
kinematic (velocity-controlled) arm, ``K Σ‖θ̂_{k+1} − θ̂_k‖²``, over the
oracle's ``‖θ_g − θ_s‖²``. By Cauchy–Schwarz ``cost_ratio ≥ length_ratio² ≥ 1``,
with equality exactly for the evenly paced oracle line (for paths that do not
go round the ±π cut, which could be shorter than the oracle).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from scipy import stats

from lejepa_wm.experiments.metrics import linear_probe_r2

__all__ = [
    "JOINTS", "RIDGE_GRID", "wrap", "probe_report", "flatten_pixels", "PixelBasis", "pixel_baselines",
    "pair_diagnostics", "interpolate", "knn_decode", "path_metrics", "plan"
]

JOINTS = ("shoulder", "wrist")
_HISTOGRAM_EDGES = np.linspace(-np.pi, np.pi, 37)
RIDGE_GRID = (0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
"""Ridge penalties of the pixel probe, as multiples of the largest squared singular value of the fit pixels."""
_EIGEN_TOLERANCE = 1e-10
"""Principal components whose variance is below this fraction of the largest are left out (numerical null space)."""


def wrap(angles: np.ndarray) -> np.ndarray:
    """Angles mapped into [−π, π): ``((θ + π) mod 2π) − π``."""
    return np.mod(np.asarray(angles, dtype=np.float64) + np.pi, 2.0 * np.pi) - np.pi


def _sincos(angles: np.ndarray) -> np.ndarray:
    """(sin θ₁, cos θ₁, sin θ₂, cos θ₂) for angles of shape (N, 2) (float64)."""
    return np.stack([np.sin(angles), np.cos(angles)], axis=2).reshape(len(angles), 4)


def probe_report(h_fit: np.ndarray, angles_fit: np.ndarray, h_eval: np.ndarray,
                 angles_eval: np.ndarray) -> dict[str, float]:
    """Angle and (sin, cos) probe R² (see the module docstring), probe fitted on ``*_fit``, scored on ``*_eval``."""
    total, per_joint = linear_probe_r2(h_fit, wrap(angles_fit), h_eval, wrap(angles_eval))
    return _report(total, per_joint, linear_probe_r2(h_fit, _sincos(angles_fit), h_eval, _sincos(angles_eval))[0])


def _report(total: float, per_joint: Sequence[float], sincos_total: float) -> dict[str, float]:
    """A probe's scores: ``r2_total``, ``r2_sincos`` and ``r2_<joint>`` per joint."""
    return {"r2_total": total, "r2_sincos": sincos_total,
            **{f"r2_{joint}": float(value) for joint, value in zip(JOINTS, per_joint)}}


def _r2_scores(prediction: np.ndarray, target: np.ndarray) -> tuple[float, np.ndarray]:
    """Total and per-column R² of ``prediction`` against ``target`` (about the target's own mean)."""
    sse = np.sum((target - prediction) ** 2, axis=0)
    sst = np.sum((target - target.mean(axis=0)) ** 2, axis=0)
    return float(1.0 - sse.sum() / sst.sum()), 1.0 - sse / sst


def flatten_pixels(frames: np.ndarray) -> np.ndarray:
    """uint8 frames (N, H, W, 3) as float64 pixel values in [0, 1], shape (N, H·W·3)."""
    return np.asarray(frames, dtype=np.float64).reshape(len(frames), -1) / 255.0


@dataclass(frozen=True)
class PixelBasis:
    """Principal components of a sample of frames: ``mean`` (D,), ``components`` (r, D) by decreasing variance,
    ``singular`` (r,) the singular values of the centred sample."""

    mean: np.ndarray
    components: np.ndarray
    singular: np.ndarray

    @classmethod
    def fit(cls, frames: np.ndarray) -> "PixelBasis":
        """Principal components of ``frames`` via the eigenvectors of the centred Gram matrix (N ≪ D)."""
        pixels = flatten_pixels(frames)
        mean = pixels.mean(axis=0)
        centred = pixels - mean
        eigenvalues, vectors = np.linalg.eigh(centred @ centred.T)
        eigenvalues, vectors = eigenvalues[::-1], vectors[:, ::-1]  # eigh's ascending order, reversed
        keep = eigenvalues > _EIGEN_TOLERANCE * eigenvalues[0]
        singular = np.sqrt(eigenvalues[keep])
        components = (centred.T @ vectors[:, keep] / singular).T
        return cls(mean, components, singular)

    def project(self, frames: np.ndarray, k: int | None = None) -> np.ndarray:
        """Coordinates of ``frames`` on the top ``k`` components (all of them for ``None``), shape (N, k)."""
        return (flatten_pixels(frames) - self.mean) @ self.components[:k].T


def _ridge(coordinates_fit: np.ndarray, singular: np.ndarray, targets_fit: np.ndarray, penalty: float,
           coordinates: np.ndarray) -> np.ndarray:
    """Ridge prediction (unpenalized intercept) in the fit sample's principal coordinates (``U·S``)."""
    u = coordinates_fit / singular
    weights = (singular / (singular**2 + penalty))[:, None] * (u.T @ (targets_fit - targets_fit.mean(axis=0)))
    return targets_fit.mean(axis=0) + coordinates @ weights


def pixel_baselines(fit: tuple[np.ndarray, np.ndarray], validation: tuple[np.ndarray, np.ndarray],
                    test: tuple[np.ndarray, np.ndarray], components: Sequence[int],
                    basis: PixelBasis) -> dict[str, Any]:
    """Probes from raw pixels (see the module docstring), each scored on ``validation`` and ``test``.

    Each sample is ``(frames, angles)``; ``basis`` is ``PixelBasis.fit(fit[0])``. Returns
    ``{name: {"validation": report, "test": report, ...}}`` for ``pca<k>`` (``k`` in ``components``) and
    ``pixels`` (with its chosen ``penalty``), plus ``best``: the name scoring
    the highest total R² on the validation sample.
    """
    out: dict[str, Any] = {}
    samples = {"validation": validation, "test": test}
    for k in components:
        k_used = min(int(k), len(basis.singular))
        h_fit = basis.project(fit[0], k_used)
        out[f"pca{k}"] = {"components": k_used, **{
            split: probe_report(h_fit, fit[1], basis.project(frames, k_used), angles)
            for split, (frames, angles) in samples.items()}}
    coordinates = {split: basis.project(frames) for split, (frames, _) in {"fit": fit, **samples}.items()}
    targets = (wrap(fit[1]), _sincos(fit[1]))

    def ridge_report(split: str, penalty: float) -> dict[str, float]:
        angles = samples[split][1]
        angle_hat, sincos_hat = (_ridge(coordinates["fit"], basis.singular, target, penalty, coordinates[split])
                                 for target in targets)
        return _report(*_r2_scores(angle_hat, wrap(angles)), _r2_scores(sincos_hat, _sincos(angles))[0])

    scale = float(basis.singular[0] ** 2)
    scores = {c: ridge_report("validation", c * scale)["r2_total"] for c in RIDGE_GRID}
    chosen = max(RIDGE_GRID, key=lambda c: scores[c])
    out["pixels"] = {"penalty": chosen, "penalty_scores": {str(c): scores[c] for c in RIDGE_GRID},
                     **{split: ridge_report(split, chosen * scale) for split in samples}}
    out["best"] = max(out, key=lambda name: out[name]["validation"]["r2_total"])
    return out


def pair_diagnostics(angles: np.ndarray, angles_pos: np.ndarray) -> dict[str, Any]:
    """Per-joint marginal histogram, bimodality coefficient, lag correlation and wrap-around count."""
    wrapped, wrapped_pos = wrap(angles), wrap(angles_pos)
    beside = wrapped + wrap(wrapped_pos - wrapped)
    out: dict[str, Any] = {"histogram_edges": _HISTOGRAM_EDGES.tolist(), "n_pairs": len(angles)}
    for j, joint in enumerate(JOINTS):
        counts, _ = np.histogram(wrapped[:, j], bins=_HISTOGRAM_EDGES)
        out[f"histogram_{joint}"] = counts.tolist()
        if np.ptp(wrapped[:, j]) > 0 and np.ptp(beside[:, j]) > 0:
            out[f"bimodality_{joint}"] = float((stats.skew(wrapped[:, j]) ** 2 + 1.0)
                                               / stats.kurtosis(wrapped[:, j], fisher=False))
            out[f"lag_corr_{joint}"] = float(np.corrcoef(wrapped[:, j], beside[:, j])[0, 1])
        else:  # moments and correlations of a constant joint are undefined: reported as null
            out[f"bimodality_{joint}"] = out[f"lag_corr_{joint}"] = None
        out[f"wraps_{joint}"] = int(np.sum(np.abs(wrapped[:, j] - wrapped_pos[:, j]) > np.pi))
    return out


def interpolate(start: np.ndarray, goal: np.ndarray, steps: int) -> np.ndarray:
    """``steps + 1`` evenly spaced points from ``start`` to ``goal`` (rows), inclusive."""
    fractions = np.linspace(0.0, 1.0, steps + 1)[:, None]
    return np.asarray(start, dtype=np.float64) + fractions * (np.asarray(goal, dtype=np.float64) - start)


def knn_decode(queries: np.ndarray, h_ref: np.ndarray, angles_ref: np.ndarray, k: int) -> np.ndarray:
    """Circular mean of the angles of the ``k`` reference embeddings nearest to each query, shape (Q, 2)."""
    distances = ((queries[:, None, :] - h_ref[None, :, :]) ** 2).sum(axis=-1)
    nearest = np.argpartition(distances, k - 1, axis=1)[:, :k]
    chosen = np.asarray(angles_ref, dtype=np.float64)[nearest]
    return np.arctan2(np.sin(chosen).mean(axis=1), np.cos(chosen).mean(axis=1))


def path_metrics(path: np.ndarray, start: np.ndarray, goal: np.ndarray) -> dict[str, float]:
    """``deviation``, ``max_deviation``, ``length_ratio`` and ``cost_ratio`` of ``path`` (K+1, 2) against the oracle."""
    steps = len(path) - 1
    oracle = interpolate(start, goal, steps)
    distance = float(np.linalg.norm(np.asarray(goal, dtype=np.float64) - start))
    offsets = np.linalg.norm(wrap(path - oracle), axis=1)[1:-1]
    moves = np.linalg.norm(wrap(np.diff(path, axis=0)), axis=1)
    return {"deviation": float(offsets.mean()) if len(offsets) else 0.0,
            "max_deviation": float(offsets.max()) if len(offsets) else 0.0,
            "length_ratio": float(moves.sum() / distance),
            "cost_ratio": float(steps * np.sum(moves**2) / distance**2)}


def plan(h_start: np.ndarray, h_goal: np.ndarray, start: np.ndarray, goal: np.ndarray, h_ref: np.ndarray,
         angles_ref: np.ndarray, steps: int, k: int) -> tuple[np.ndarray, dict[str, float]]:
    """Latent straight-line plan from ``h_start`` to ``h_goal`` decoded by kNN; the executed path and its metrics."""
    decoded = knn_decode(interpolate(h_start, h_goal, steps), h_ref, angles_ref, k)
    # the waypoints the agent tracks: true start, the decoded interior points, true goal
    path = np.vstack([np.asarray(start, dtype=np.float64), decoded[1:-1], np.asarray(goal, dtype=np.float64)])
    return path, path_metrics(path, start, goal)
