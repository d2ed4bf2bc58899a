"""The Reacher experiment's steps: shared data (policy + four cached datasets), then one model's training and evaluation.

Shared data live in ``<experiment folder>/data/`` and are made once by the
first run that needs them: the SAC policy (``policy-<hash>/policy.zip`` with
``policy.json``: steps, training time, success rate), OU train/test pairs and
trajectory train/test pairs. Train and test sets use different seeds (test
trajectories start from different initial poses).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch

from lejepa_wm.atomic import atomic_write_bytes, atomic_write_json, read_json
from lejepa_wm.experiments.reacher import policy as sac
from lejepa_wm.experiments.reacher.config import ReacherConfig
from lejepa_wm.experiments.reacher.datasets import build_ou_dataset, build_trajectory_dataset
from lejepa_wm.experiments.reacher.encoder import embed_frames, train_encoder
from lejepa_wm.experiments.reacher.evaluation import pair_diagnostics, probe_report
from lejepa_wm.experiments.reacher.planning import plan
from lejepa_wm.experiments.reacher.rendering import ReacherRenderer

TEST_SEED_OFFSET = 7919
SAMPLE_FRAMES = 8


def _policy_folder(root: Path, config: ReacherConfig, seed: int) -> Path:
    settings = {"sac_steps": config.sac_steps, "sac_reward": config.sac_reward, "seed": seed,
                "episode_steps": config.episode_steps, "target_xy": list(config.target_xy)}
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:10]
    return root / f"policy-{digest}"


def prepare_policy(root: Path, config: ReacherConfig, seed: int,
                   progress: bool = True) -> tuple[Any, Any, dict[str, Any], str]:
    """Train (or load) the SAC policy; return ``(model, env, info, policy_id)``."""
    folder = _policy_folder(root, config, seed)
    env = sac.make_env(config.target_xy, config.episode_steps, config.sac_reward)
    model_path, info_path = folder / "policy.zip", folder / "policy.json"
    if info_path.exists():
        return sac.load_policy(model_path, env), env, read_json(info_path), folder.name
    start = time.perf_counter()
    model = sac.train_sac(env, config.sac_steps, seed, progress=progress)
    seconds = time.perf_counter() - start
    sac.save_policy(model, model_path)
    info = {"sac_steps": config.sac_steps, "sac_reward": config.sac_reward, "train_seconds": seconds,
            "steps_per_second": config.sac_steps / seconds,
            "success_rate": sac.success_rate(model, env, config.success_episodes, seed + TEST_SEED_OFFSET),
            "success_episodes": config.success_episodes}
    atomic_write_json(info_path, info)
    return model, env, info, folder.name


def prepare_data(root: Path, config: ReacherConfig, seed: int, progress: bool = True) -> dict[str, Any]:
    """Policy and the four datasets (made if missing), plus the time spent making them."""
    start = time.perf_counter()
    with ReacherRenderer(config.image_size, config.target_xy) as renderer:
        data: dict[str, Any] = {}
        for split, count, split_seed in (("train", config.train_pairs, seed),
                                         ("test", config.test_pairs, seed + TEST_SEED_OFFSET)):
            data[f"ou_{split}"], _ = build_ou_dataset(root, f"ou-{split}", renderer, count, config.chunk_pairs,
                                                       config.ou_rho, config.angle_scale, split_seed, progress)
        model, env, info, policy_id = prepare_policy(root, config, seed, progress)
        episodes_per_chunk = max(1, config.chunk_pairs // config.pairs_per_episode)
        for split, count, split_seed in (("train", config.train_pairs, seed),
                                         ("test", config.test_pairs, seed + TEST_SEED_OFFSET)):
            n_episodes = -(-count // config.pairs_per_episode)
            data[f"traj_{split}"], _ = build_trajectory_dataset(
                root, f"traj-{split}", renderer, lambda s: sac.rollout_angles(model, env, s), policy_id,
                n_episodes, episodes_per_chunk, config.traj_delta, split_seed, progress)
    data["policy"] = info
    data["seconds"] = time.perf_counter() - start
    return data


def mixture(ou: dict[str, np.ndarray], traj: dict[str, np.ndarray], ou_fraction: float, size: int,
            seed: int) -> dict[str, np.ndarray]:
    """``size`` training pairs: ``round(ou_fraction · size)`` random OU pairs, the rest random trajectory pairs."""
    rng = np.random.default_rng(seed)
    n_ou = int(round(ou_fraction * size))
    if n_ou > len(ou["frames"]) or size - n_ou > len(traj["frames"]):
        raise ValueError(f"mixture of {size} pairs needs more pairs than the datasets hold")
    take_ou = np.sort(rng.choice(len(ou["frames"]), n_ou, replace=False))
    take_traj = np.sort(rng.choice(len(traj["frames"]), size - n_ou, replace=False))
    return {key: np.concatenate([ou[key][take_ou], traj[key][take_traj]]) for key in ou}


def _halves(n: int) -> tuple[slice, slice]:
    """Fit / eval split of a test set: even and odd rows.

    Interleaving keeps both halves on the same episodes; a split into first and
    second half would give a quick-scale trajectory test set (about ten
    episodes) halves with different shares of the two wrist modes, and a probe
    whose R² is dominated by that mean shift.
    """
    return slice(0, n, 2), slice(1, n, 2)


def plan_endpoints(angles: np.ndarray, count: int, min_distance: float, seed: int) -> list[tuple[int, int]]:
    """``count`` index pairs (start, goal) with both poses inside (−0.9π, 0.9π)² and at least ``min_distance`` apart."""
    inside = np.flatnonzero(np.all(np.abs(angles) < 0.9 * np.pi, axis=1))
    rng = np.random.default_rng(seed)
    pairs: list[tuple[int, int]] = []
    for _ in range(100 * count):
        start, goal = rng.choice(inside, 2, replace=False)
        if np.linalg.norm(angles[goal] - angles[start]) >= min_distance:
            pairs.append((int(start), int(goal)))
            if len(pairs) == count:
                return pairs
    raise ValueError(f"could not find {count} start/goal pairs {min_distance} rad apart in the test set")


def run_model(data: dict[str, Any], config: ReacherConfig, ou_fraction: float, seed: int, run_dir: Path,
              device: torch.device, progress: bool = True) -> dict[str, Any]:
    """Train one encoder on a mixture, evaluate probes on both test sets, plan; return metrics.

    Writes ``checkpoint.pt`` (encoder, resumable), ``plans.npz`` (executed paths,
    starts, goals) and ``samples.npz`` (a few training frames) into ``run_dir``.
    """
    train = mixture(data["ou_train"], data["traj_train"], ou_fraction, config.train_pairs, seed)
    start = time.perf_counter()
    model, history = train_encoder(train["frames"], train["frames_pos"], embed_dim=config.embed_dim,
                                   epochs=config.epochs, batch_size=config.batch_size, lr=config.lr,
                                   sigreg_weight=config.sigreg_weight, sigreg_slices=config.sigreg_slices,
                                   lr_schedule=config.lr_schedule,
                                   seed=seed, device=device, checkpoint=run_dir / "checkpoint.pt", progress=progress)
    metrics: dict[str, Any] = {"train_seconds": time.perf_counter() - start, "final_loss": history[-1],
                               "ou_fraction": ou_fraction}
    embeddings = {}
    for kind in ("ou", "traj"):
        test = data[f"{kind}_test"]
        h = embed_frames(model, test["frames"], device)
        embeddings[kind] = h
        fit, held = _halves(len(h))
        report = probe_report(h[fit], test["angles"][fit], h[held], test["angles"][held])
        metrics.update({f"{kind}_test_{key}": value for key, value in report.items()})
    metrics.update({f"data_{key}": value for key, value in pair_diagnostics(train["angles"], train["angles_pos"]).items()})
    ou_test = data["ou_test"]
    fit, held = _halves(len(ou_test["angles"]))
    h_ref, angles_ref = embeddings["ou"][fit], ou_test["angles"][fit]
    held_angles, held_h = ou_test["angles"][held], embeddings["ou"][held]
    paths, endpoints, rows = [], [], []
    for start_i, goal_i in plan_endpoints(held_angles, config.plan_pairs, config.min_plan_distance, seed):
        path, row = plan(held_h[start_i], held_h[goal_i], held_angles[start_i], held_angles[goal_i],
                         h_ref, angles_ref, config.plan_steps, config.knn)
        paths.append(path)
        endpoints.append((held_angles[start_i], held_angles[goal_i]))
        rows.append(row)
    for key in rows[0]:
        metrics[f"plan_{key}"] = float(np.mean([row[key] for row in rows]))
    buffer_paths = {"paths": np.asarray(paths), "starts": np.asarray([e[0] for e in endpoints]),
                    "goals": np.asarray([e[1] for e in endpoints])}
    _save_npz(run_dir / "plans.npz", buffer_paths)
    _save_npz(run_dir / "samples.npz", {"frames": train["frames"][:: max(1, len(train["frames"]) // SAMPLE_FRAMES)][:SAMPLE_FRAMES]})
    return metrics


def _save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    import io

    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    atomic_write_bytes(path, buffer.getvalue())


def config_dict(config: ReacherConfig) -> dict[str, Any]:
    """JSON-ready form of ``config`` (tuples become lists)."""
    return json.loads(json.dumps(asdict(config)))
