"""Cached, resumable datasets of positive pairs of Reacher frames.

Both kinds store, per pair, the two frames (uint8, 64×64×3) and the joint
angles (shoulder, wrist) that produced them:

- **OU pairs** (:func:`ou_pair_angles`): latent ``z ~ N(0, I₂)``, positive view
  ``z' = ρ z + √(1 − ρ²) ξ`` — the exact OU channel of THEORY.md — and joint
  angles ``θ = σ z`` (radians, ``σ`` = ``angle_scale``), written directly into
  the physics state. The angles are *not* wrapped before rendering; a frame
  sees them modulo 2π, which matters only when ``|θ| > π`` (probability
  ``2Φ(−π/σ)``: 7·10⁻⁶ for the default ``σ = 0.7``, 0.17 % for ``σ = 1``;
  counted as wrap-arounds by the diagnostics).
- **Trajectory pairs** (:func:`trajectory_pair_angles`): frames ``Δ`` control
  steps apart along episodes of a trained policy. The shoulder angle is
  continuous along an episode and may leave (−π, π]. Each pair also stores
  the index of its episode (``episode``), so that held-out data can be split
  by episode (:func:`split_by_episode`): neighbouring frames of one episode
  are nearly identical, and must never sit on both sides of a split.

Generation is split into chunks whose content depends only on ``(seed, chunk
index)``; each chunk is written atomically as ``chunk_#####.npz`` next to
``metadata.json`` (seed, counts, ρ or Δ, renderer, ...). An interrupted
generation resumes at the first missing chunk and ends with arrays identical to
an uninterrupted one; a finished dataset is simply loaded.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
from tqdm import tqdm

from lejepa_wm.atomic import atomic_write_bytes, atomic_write_json, read_json

__all__ = [
    "ARRAY_KEYS", "digest", "save_npz", "build_chunked", "load_chunks", "ou_pair_angles", "trajectory_pair_angles",
    "split_by_episode", "episode_seed", "build_ou_dataset", "build_trajectory_dataset"
]

ARRAY_KEYS = ("frames", "frames_pos", "angles", "angles_pos")


def digest(metadata: Mapping[str, Any]) -> str:
    """The first 10 hex digits of the SHA-256 of ``metadata`` as sorted JSON (names cached data by content)."""
    return hashlib.sha256(json.dumps(dict(metadata), sort_keys=True).encode()).hexdigest()[:10]


def save_npz(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` as one ``.npz`` file atomically."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    atomic_write_bytes(path, buffer.getvalue())


def _chunk_path(folder: Path, index: int) -> Path:
    return folder / f"chunk_{index:05d}.npz"


def build_chunked(root: Path, name: str, metadata: Mapping[str, Any], count: int, per_chunk: int,
                  make_chunk: Callable[[int, range], dict[str, np.ndarray]],
                  progress: bool = True) -> tuple[dict[str, np.ndarray], Path]:
    """Create (or resume, or load) a chunked dataset of ``count`` items; return its concatenated arrays and folder.

    Chunk ``i`` holds items ``i · per_chunk … (i + 1) · per_chunk − 1`` (the
    last may hold fewer); ``make_chunk(i, items)`` must be a deterministic function
    of ``i`` and its item indices ``items``. The folder is ``root/<name>-<digest
    of the metadata>``. A folder whose ``metadata.json`` differs from
    ``metadata`` raises ``ValueError``.
    """
    n_chunks = -(-count // per_chunk)
    folder = Path(root) / f"{name}-{digest(metadata)}"
    meta = {**dict(metadata), "n_chunks": n_chunks}
    meta_path = folder / "metadata.json"
    if not meta_path.exists():
        atomic_write_json(meta_path, meta)
    elif read_json(meta_path) != json.loads(json.dumps(meta)):
        raise ValueError(f"dataset folder {folder} holds different metadata; delete it to regenerate")
    missing = [i for i in range(n_chunks) if not _chunk_path(folder, i).exists()]
    for index in tqdm(missing, desc=f"render {name}", unit="chunk", disable=not progress or not missing):
        items = range(index * per_chunk, min(count, (index + 1) * per_chunk))
        save_npz(_chunk_path(folder, index), make_chunk(index, items))
    return load_chunks(folder, n_chunks), folder


def load_chunks(folder: Path, n_chunks: int) -> dict[str, np.ndarray]:
    """Concatenate the arrays of chunks ``0 .. n_chunks-1`` key by key."""
    parts: dict[str, list[np.ndarray]] = {}
    for index in range(n_chunks):
        with np.load(_chunk_path(folder, index)) as chunk:
            for key in chunk.files:
                parts.setdefault(key, []).append(chunk[key])
    return {key: np.concatenate(values) for key, values in parts.items()}


def ou_pair_angles(n: int, rho: float, angle_scale: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` OU pairs of joint angles ``(σ z, σ z')`` with ``z' = ρ z + √(1−ρ²) ξ``, each of shape (n, 2)."""
    z = rng.standard_normal((n, 2))
    z_pos = rho * z + np.sqrt(1.0 - rho**2) * rng.standard_normal((n, 2))
    return angle_scale * z, angle_scale * z_pos


def trajectory_pair_angles(episodes: list[np.ndarray], delta: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows of all pairs ``(t, t + Δ)`` (``Δ ≥ 1`` steps apart) within each episode, concatenated.

    An episode is an array of shape (T, ...) indexed by step: its angles (T, 2) or its frames (T, H, W, 3).
    """
    return np.concatenate([rows[:-delta] for rows in episodes]), np.concatenate([rows[delta:] for rows in episodes])


def split_by_episode(episodes: np.ndarray, parts: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Row indices of ``parts`` samples, each made of whole episodes (no episode in two samples).

    ``episodes`` holds the episode index of every row; the distinct episodes are
    shuffled with ``rng`` and dealt into ``parts`` groups of (almost) equal size.
    """
    groups = np.array_split(rng.permutation(np.unique(episodes)), parts)
    return [np.flatnonzero(np.isin(episodes, group)) for group in groups]


def episode_seed(seed: int, episode: int) -> int:
    """A 32-bit seed for episode ``episode`` of a dataset seeded ``seed`` (numpy ``SeedSequence``)."""
    return int(np.random.SeedSequence([seed, episode]).generate_state(1)[0])


def build_ou_dataset(root: Path, name: str, renderer: Any, n_pairs: int, chunk_pairs: int, rho: float,
                     angle_scale: float, seed: int, progress: bool = True) -> tuple[dict[str, np.ndarray], Path]:
    """Cached OU pair dataset of ``n_pairs`` pairs (chunk ``i`` drawn from ``default_rng([seed, i])``)."""
    metadata = {"kind": "ou", "seed": seed, "n_pairs": n_pairs, "chunk_pairs": chunk_pairs, "rho": rho,
                "angle_scale": angle_scale, "renderer": renderer.description,
                "angles": "theta = angle_scale * z, z ~ N(0, I2), not wrapped before rendering"}

    def make_chunk(index: int, pairs: range) -> dict[str, np.ndarray]:
        angles, angles_pos = ou_pair_angles(len(pairs), rho, angle_scale, np.random.default_rng([seed, index]))
        return {"frames": renderer.render(angles), "frames_pos": renderer.render(angles_pos),
                "angles": angles.astype(np.float64), "angles_pos": angles_pos.astype(np.float64)}

    return build_chunked(root, name, metadata, n_pairs, chunk_pairs, make_chunk, progress)


def build_trajectory_dataset(root: Path, name: str, renderer: Any, rollout: Callable[[int], np.ndarray],
                             policy_id: str, n_episodes: int, episodes_per_chunk: int, delta: int, seed: int,
                             progress: bool = True) -> tuple[dict[str, np.ndarray], Path]:
    """Cached trajectory pair dataset: ``rollout(episode_seed)`` gives one episode's angles (T, 2).

    Episode ``k`` uses the 32-bit seed :func:`episode_seed` ``(seed, k)``, and its pairs store ``k`` in
    ``episode``; ``policy_id`` names the policy in the metadata so a retrained policy never reuses old frames.
    """
    metadata = {"kind": "trajectory", "seed": seed, "n_episodes": n_episodes,
                "episodes_per_chunk": episodes_per_chunk, "delta": delta, "policy": policy_id,
                "renderer": renderer.description,
                "angles": "physics qpos along the episode (shoulder continuous, not wrapped)",
                "arrays": [*ARRAY_KEYS, "episode"]}

    def make_chunk(index: int, episodes: range) -> dict[str, np.ndarray]:
        rollouts = [rollout(episode_seed(seed, k)) for k in episodes]
        # each pose rendered once: frames are a function of the pose
        frames, frames_pos = trajectory_pair_angles([renderer.render(poses) for poses in rollouts], delta)
        angles, angles_pos = trajectory_pair_angles(rollouts, delta)
        episode = [np.full(len(poses) - delta, k, dtype=np.int64) for k, poses in zip(episodes, rollouts)]
        return {"frames": frames, "frames_pos": frames_pos, "episode": np.concatenate(episode),
                "angles": angles.astype(np.float64), "angles_pos": angles_pos.astype(np.float64)}

    return build_chunked(root, name, metadata, n_episodes, episodes_per_chunk, make_chunk, progress)
