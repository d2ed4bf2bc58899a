"""Planning by straight lines in the learned latent, scored against the oracle straight line in joint space.

T4 says that if the embedding is an orthogonal image of the latent, a planner
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

import numpy as np

from lejepa_wm.experiments.reacher.evaluation import wrap
from lejepa_wm.validation import check_positive_int


def interpolate(start: np.ndarray, goal: np.ndarray, steps: int) -> np.ndarray:
    """``steps + 1`` evenly spaced points from ``start`` to ``goal`` (rows), inclusive."""
    fractions = np.linspace(0.0, 1.0, steps + 1)[:, None]
    return np.asarray(start, dtype=np.float64) + fractions * (np.asarray(goal, dtype=np.float64) - start)


def knn_decode(queries: np.ndarray, h_ref: np.ndarray, angles_ref: np.ndarray, k: int) -> np.ndarray:
    """Circular mean of the angles of the ``k`` reference embeddings nearest to each query, shape (Q, 2)."""
    check_positive_int(k, "knn")
    if k > len(h_ref):
        raise ValueError(f"knn {k} exceeds the reference set size {len(h_ref)}")
    distances = ((queries[:, None, :] - h_ref[None, :, :]) ** 2).sum(axis=-1)
    nearest = np.argpartition(distances, k - 1, axis=1)[:, :k]
    chosen = np.asarray(angles_ref, dtype=np.float64)[nearest]
    return np.arctan2(np.sin(chosen).mean(axis=1), np.cos(chosen).mean(axis=1))


def path_metrics(path: np.ndarray, start: np.ndarray, goal: np.ndarray) -> dict[str, float]:
    """``deviation``, ``max_deviation``, ``length_ratio`` and ``cost_ratio`` of ``path`` (K+1, 2) against the oracle."""
    path = np.asarray(path, dtype=np.float64)
    steps = len(path) - 1
    oracle = interpolate(start, goal, steps)
    distance = float(np.linalg.norm(np.asarray(goal, dtype=np.float64) - start))
    if distance == 0.0:
        raise ValueError("start and goal coincide; the oracle path is a point")
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
