"""The Reacher experiment's steps: shared data (policy, datasets, splits, baselines), then one model.

Shared data live in ``<experiment folder>/data/`` and are made once, by the
first run that needs them; every model of a launch sees the same data. They are
drawn from the seed streams of the data seed (:func:`data_seeds`, the
``--seed`` offset): the OU held-out samples ``fit``, ``validation`` and
``test`` each from the stream of that name, and the rest of the world (the SAC
policy, the training sets, the held-out episodes and how they are split, the
planning endpoints) from seeds spawned from its ``renderer`` stream, the
world's randomness (Reacher's renderer itself is fixed physics).

- ``ou-train``, ``traj-train``: the training pairs (a model trains on a
  mixture of them);
- ``ou-fit``, ``ou-validation``, ``ou-test``: three independent OU samples;
- ``traj-heldout``: ``3 · heldout_episodes`` policy episodes, split by
  episode into ``fit``, ``validation`` and ``test`` (no episode in two samples);
- ``baselines-<hash>.json``: the pixel probes of
  :func:`~lejepa_wm.experiments.reacher.evaluation.pixel_baselines` on both kinds of
  held-out data, the planning endpoints (pairs of OU test frames) and the
  latent-planning baseline on the top two principal components of the pixels.

One model (:func:`run_model`) trains on its mixture through the shared loop
(:func:`lejepa_wm.experiments.training.train`): weights from its ``init``
stream, the mixture, the batch order and SIGReg's directions from its
``batches`` stream. Probes are fitted on ``fit`` and scored on ``validation``
(recorded during training, never used to stop) and on ``test`` (reported).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import torch

from lejepa_wm.atomic import atomic_write_json, read_json
from lejepa_wm.experiments.evidence import residual_ratio
from lejepa_wm.experiments.heldout import SPLITS
from lejepa_wm.experiments.objectives import build_objective
from lejepa_wm.experiments.reacher import policy as sac
from lejepa_wm.experiments.reacher.config import ReacherConfig
from lejepa_wm.experiments.reacher.datasets import (ARRAY_KEYS, build_ou_dataset, build_trajectory_dataset, digest,
                                                    save_npz, split_by_episode)
from lejepa_wm.experiments.reacher.encoder import build_frame_encoder, embed_frames
from lejepa_wm.experiments.reacher.evaluation import (RIDGE_GRID, PixelBasis, pair_diagnostics, pixel_baselines,
                                                      plan, probe_report)
from lejepa_wm.experiments.reacher.rendering import ReacherRenderer
from lejepa_wm.experiments.training import DatasetPairs, train
from lejepa_wm.experiments.training_log import EvaluationLog
from lejepa_wm.seeds import SeedStreams, spawn_seeds

__all__ = ["PLAN_BASELINE", "data_seeds", "prepare_data", "run_model"]

_KINDS = ("ou", "traj")
_WORLD_SEEDS = ("policy", "policy_eval", "ou_train", "traj_train", "traj_heldout", "traj_split", "plans")
_SAMPLE_FRAMES = 8
PLAN_BASELINE = "pca2"
_HISTORY_KEYS = ("step", "seconds", "lr", "loss_total", "loss_alignment", "loss_sigreg", "probe_r2", "traj_probe_r2")
"""The keys of a history row worth storing in ``metrics.json``."""


def data_seeds(data_seed: int) -> dict[str, int]:
    """Seeds of the shared data (see the module docstring), by name."""
    streams = SeedStreams.derive(data_seed)
    world = dict(zip(_WORLD_SEEDS, spawn_seeds(streams.renderer, len(_WORLD_SEEDS))))
    return {**world, **{f"ou_{split}": streams.seed(split) for split in SPLITS}}


def _prepare_policy(root: Path, config: ReacherConfig, seeds: Mapping[str, int],
                   progress: bool = True) -> tuple[Any, Any, dict[str, Any], str]:
    """Train (or load) the SAC policy; return ``(model, env, info, policy_id)``.

    SAC (through NumPy's legacy seeding) and dm_control take 32-bit seeds: the
    policy seed is the stream seed modulo 2³².
    """
    seed = seeds["policy"] % 2**32
    settings = {"sac_steps": config.sac_steps, "sac_reward": config.sac_reward, "seed": seed,
                "episode_steps": config.episode_steps, "target_xy": list(config.target_xy)}
    folder = root / f"policy-{digest(settings)}"
    env = sac.make_env(config.target_xy, config.episode_steps, config.sac_reward)
    model_path, info_path = folder / "policy.zip", folder / "policy.json"
    if info_path.exists():
        return sac.load_policy(model_path, env), env, read_json(info_path), folder.name
    start = time.perf_counter()
    model = sac.train_sac(env, config.sac_steps, seed, progress=progress)
    seconds = time.perf_counter() - start
    sac.save_policy(model, model_path)
    info = {"sac_steps": config.sac_steps, "sac_reward": config.sac_reward, "seed": seed, "train_seconds": seconds,
            "steps_per_second": config.sac_steps / seconds,
            "success_rate": sac.success_rate(model, env, config.success_episodes, seeds["policy_eval"]),
            "success_episodes": config.success_episodes}
    atomic_write_json(info_path, info)
    return model, env, info, folder.name


def _plan_endpoints(angles: np.ndarray, count: int, min_distance: float,
                   rng: np.random.Generator) -> list[tuple[int, int]]:
    """``count`` index pairs (start, goal) with both poses inside (−0.9π, 0.9π)² and at least ``min_distance`` apart."""
    inside = np.flatnonzero(np.all(np.abs(angles) < 0.9 * np.pi, axis=1))
    pairs: list[tuple[int, int]] = []
    for _ in range(100 * count):
        start, goal = rng.choice(inside, 2, replace=False)
        if np.linalg.norm(angles[goal] - angles[start]) >= min_distance:
            pairs.append((int(start), int(goal)))
            if len(pairs) == count:
                return pairs
    raise ValueError(f"could not find {count} start/goal pairs {min_distance} rad apart in the test set")


def _plan_all(h_test: np.ndarray, h_fit: np.ndarray, data: Mapping[str, Any], config: ReacherConfig,
             endpoints: Sequence[Sequence[int]]) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """Latent straight-line plans between OU test frames, decoded by kNN among the OU fit frames.

    Returns the mean of each path metric and the arrays of ``plans.npz`` (paths, starts, goals).
    """
    test_angles, fit_angles = data["ou_test"]["angles"], data["ou_fit"]["angles"]
    starts, goals = np.asarray(endpoints).T
    paths, rows = zip(*(plan(h_test[s], h_test[g], test_angles[s], test_angles[g], h_fit, fit_angles,
                             config.plan_steps, config.knn) for s, g in zip(starts, goals)))
    means = {key: float(np.mean([row[key] for row in rows])) for key in rows[0]}
    return means, {"paths": np.asarray(paths), "starts": test_angles[starts], "goals": test_angles[goals]}


def prepare_data(root: Path, config: ReacherConfig, data_seed: int, progress: bool = True) -> dict[str, Any]:
    """Policy, datasets, splits and baselines (made if missing), plus the time spent making them."""
    start = time.perf_counter()
    seeds = data_seeds(data_seed)
    data: dict[str, Any] = {"seeds": seeds}
    folders: dict[str, Path] = {}
    with ReacherRenderer(config.image_size, config.target_xy) as renderer:
        for name, count in (("train", config.train_pairs), *((split, config.heldout_pairs) for split in SPLITS)):
            data[f"ou_{name}"], folders[f"ou_{name}"] = build_ou_dataset(
                root, f"ou-{name}", renderer, count, config.chunk_pairs, config.ou_rho, config.angle_scale,
                seeds[f"ou_{name}"], progress)
        model, env, info, policy_id = _prepare_policy(root, config, seeds, progress)
        episodes_per_chunk = max(1, config.chunk_pairs // config.pairs_per_episode)
        for name, n_episodes in (("train", -(-config.train_pairs // config.pairs_per_episode)),
                                 ("heldout", 3 * config.heldout_episodes)):
            data[f"traj_{name}"], folders[f"traj_{name}"] = build_trajectory_dataset(
                root, f"traj-{name}", renderer, lambda s: sac.rollout_angles(model, env, s), policy_id,
                n_episodes, episodes_per_chunk, config.traj_delta, seeds[f"traj_{name}"], progress)
    heldout = data.pop("traj_heldout")
    parts = split_by_episode(heldout["episode"], len(SPLITS), np.random.default_rng(seeds["traj_split"]))
    for split, rows in zip(SPLITS, parts):
        data[f"traj_{split}"] = {key: value[rows] for key, value in heldout.items()}
    settings = {"datasets": {key: folder.name for key, folder in folders.items()}, "split_seed": seeds["traj_split"],
                "plan_seed": seeds["plans"],
                "pca_components": list(config.pca_components), "ridge_grid": list(RIDGE_GRID),
                "plan": [config.plan_pairs, config.min_plan_distance, config.plan_steps, config.knn]}
    path = root / f"baselines-{digest(settings)}.json"
    if not path.exists():  # made once; every run reads them back from the file
        # pixel probes of both kinds of held-out data, the planning endpoints and the PCA-2 planner
        clock = time.perf_counter()
        baselines: dict[str, Any] = {}
        for kind in _KINDS:
            samples = [(data[f"{kind}_{split}"]["frames"], data[f"{kind}_{split}"]["angles"]) for split in SPLITS]
            basis = PixelBasis.fit(samples[0][0])
            baselines[kind] = pixel_baselines(*samples, config.pca_components, basis)
            if kind == "ou":
                endpoints = _plan_endpoints(data["ou_test"]["angles"], config.plan_pairs, config.min_plan_distance,
                                            np.random.default_rng(seeds["plans"]))
                means, _ = _plan_all(basis.project(data["ou_test"]["frames"], 2),
                                     basis.project(data["ou_fit"]["frames"], 2), data, config, endpoints)
                baselines["plans"] = {"endpoints": endpoints, PLAN_BASELINE: means}
        atomic_write_json(path, {**baselines, "settings": settings, "seconds": time.perf_counter() - clock})
    data.update(baselines=read_json(path), policy=info, seconds=time.perf_counter() - start)
    return data


def run_model(data: Mapping[str, Any], config: ReacherConfig, ou_fraction: float, streams: SeedStreams,
              run_dir: Path, device: torch.device, progress: bool = True, description: str = "train",
              control: bool = False, on_evaluation: EvaluationLog | None = None) -> dict[str, Any]:
    """Train one encoder on a mixture, probe both kinds of test data, plan; return metrics.

    ``control`` trains the λ = 0 control: SIGReg's weight 0 (alignment alone), everything else identical;
    ``on_evaluation`` receives each training-history row as it is recorded.

    Writes ``checkpoint.pt`` (the shared loop's, resumable; the run driver
    deletes it once ``metrics.json`` exists), ``plans.npz`` (executed paths,
    starts, goals) and ``samples.npz`` (a few training frames) into ``run_dir``.
    """
    # the mixture: round(ou_fraction · train_pairs) random OU pairs, the rest random trajectory pairs
    rng, ou, traj = np.random.default_rng(streams.batches), data["ou_train"], data["traj_train"]
    n_ou = int(round(ou_fraction * config.train_pairs))
    take_ou = np.sort(rng.choice(len(ou["frames"]), n_ou, replace=False))
    take_traj = np.sort(rng.choice(len(traj["frames"]), config.train_pairs - n_ou, replace=False))
    mixed = {key: np.concatenate([ou[key][take_ou], traj[key][take_traj]]) for key in ARRAY_KEYS}
    encoder = build_frame_encoder(config.embed_dim, config.image_size, streams.torch_generator("init")).to(device)
    pairs = DatasetPairs(torch.from_numpy(mixed["frames"]).to(device), torch.from_numpy(mixed["frames_pos"]).to(device),
                         order_seed=streams.batches)
    objective = build_objective("sigreg", 0.0 if control else config.sigreg_weight, num_slices=config.sigreg_slices)

    def embed(name: str) -> np.ndarray:
        return embed_frames(encoder, data[name]["frames"], device)

    def probe(kind: str, split: str) -> dict[str, float]:
        return probe_report(embed(f"{kind}_fit"), data[f"{kind}_fit"]["angles"], embed(f"{kind}_{split}"),
                            data[f"{kind}_{split}"]["angles"])

    def evaluator(model: torch.nn.Module) -> dict[str, Any]:
        """Validation probes only (recorded, never used to stop or choose)."""
        return {"probe_r2": probe("ou", "validation")["r2_total"],
                "traj_probe_r2": probe("traj", "validation")["r2_total"]}

    result = train(encoder, pairs, objective, config.train_settings(), streams.torch_generator("batches", device),
                   run_dir, evaluator, progress=progress, description=description, on_evaluation=on_evaluation)
    metrics: dict[str, Any] = {"ou_fraction": ou_fraction, "split": "test", "steps": result.steps,
                               "train_seconds": result.seconds, "resumed_from": result.resumed_from,
                               "history": [{key: row[key] for key in _HISTORY_KEYS if key in row}
                                           for row in result.history]}
    losses = [row for row in result.history if "loss_total" in row]
    if losses:
        metrics["final_loss"] = {key[5:]: value for key, value in losses[-1].items() if key.startswith("loss_")}
    for kind in _KINDS:
        # the pixel baselines, flat: ``<kind>_<probe>_<split>_r2_<quantity>`` and the probe chosen on validation
        found = data["baselines"][kind]
        metrics[f"{kind}_baseline"] = found["best"]
        metrics[f"{kind}_baseline_test_r2_total"] = found[found["best"]]["test"]["r2_total"]
        metrics[f"{kind}_pixels_penalty"] = found["pixels"]["penalty"]
        metrics.update({f"{kind}_{name}_{split}_{key}": value for name, scores in found.items() if name != "best"
                        for split in ("validation", "test") for key, value in scores[split].items()})
        # the model's probes, and its residual ratio against the chosen pixel probe
        for split in ("validation", "test"):
            metrics.update({f"{kind}_{split}_{key}": value for key, value in probe(kind, split).items()})
        metrics[f"{kind}_residual_ratio"] = residual_ratio(metrics[f"{kind}_test_r2_total"],
                                                           metrics[f"{kind}_baseline_test_r2_total"])
    metrics.update({f"{PLAN_BASELINE}_plan_{key}": value
                    for key, value in data["baselines"]["plans"][PLAN_BASELINE].items()})
    metrics.update({f"data_{key}": value
                    for key, value in pair_diagnostics(mixed["angles"], mixed["angles_pos"]).items()})
    means, arrays = _plan_all(embed("ou_test"), embed("ou_fit"), data, config, data["baselines"]["plans"]["endpoints"])
    metrics.update({f"plan_{key}": value for key, value in means.items()})
    save_npz(run_dir / "plans.npz", arrays)
    step = max(1, len(mixed["frames"]) // _SAMPLE_FRAMES)
    save_npz(run_dir / "samples.npz", {"frames": mixed["frames"][::step][:_SAMPLE_FRAMES]})
    metrics["heldout"] = {f"{kind}_{split}": int(len(data[f"{kind}_{split}"]["angles"]))
                          for kind in _KINDS for split in SPLITS}
    metrics["heldout"]["traj_episodes_per_split"] = config.heldout_episodes
    return metrics
