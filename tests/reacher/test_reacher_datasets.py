"""Datasets: the OU channel, trajectory pairing, episode splits, independent held-out draws, caching and resume."""

from __future__ import annotations

import numpy as np
import pytest

from lejepa_wm.experiments.reacher.datasets import (
    build_ou_dataset,
    build_trajectory_dataset,
    load_chunks,
    ou_pair_angles,
    split_by_episode,
    trajectory_pair_angles,
)
from lejepa_wm.experiments.heldout import SPLITS
from lejepa_wm.experiments.reacher.pipeline import data_seeds


def test_ou_pairs_have_the_channel_correlation():
    angles, angles_pos = ou_pair_angles(200_000, 0.8, 1.5, np.random.default_rng(0))
    z, z_pos = angles / 1.5, angles_pos / 1.5
    for j in range(2):
        assert abs(np.corrcoef(z[:, j], z_pos[:, j])[0, 1] - 0.8) < 0.01
        assert abs(z_pos[:, j].std() - 1.0) < 0.01


def test_trajectory_pairs_are_delta_apart():
    episode = np.arange(20.0).reshape(10, 2)
    angles, angles_pos = trajectory_pair_angles([episode, episode[:5]], 3)
    assert len(angles) == 7 + 2  # every t with t + 3 inside its episode: 7 of 10 steps, 2 of 5
    np.testing.assert_array_equal(angles_pos - angles, 6.0)
    np.testing.assert_array_equal(angles[:, 0], [*range(0, 14, 2), 0, 2])


class _InterruptingRenderer:
    """Delegates to a real renderer but fails on render call number ``fail_at`` (a simulated crash)."""

    def __init__(self, renderer, fail_at: int) -> None:
        self._renderer, self._calls, self._fail_at = renderer, 0, fail_at
        self.description = renderer.description

    def render(self, angles):
        self._calls += 1
        if self._calls == self._fail_at:
            raise KeyboardInterrupt("simulated interruption")
        return self._renderer.render(angles)


def test_generation_resumes_after_interruption_with_identical_arrays(renderer, tmp_path):
    settings = dict(n_pairs=25, chunk_pairs=10, rho=0.7, angle_scale=1.0, seed=3, progress=False)
    reference, _ = build_ou_dataset(tmp_path / "a", "ou", renderer, **settings)
    with pytest.raises(KeyboardInterrupt):
        build_ou_dataset(tmp_path / "b", "ou", _InterruptingRenderer(renderer, fail_at=3), **settings)
    (folder,) = (tmp_path / "b").iterdir()
    chunks = sorted(p.name for p in folder.glob("chunk_*.npz"))
    assert chunks == ["chunk_00000.npz"]  # chunk 0 (2 render calls) done, chunk 1 interrupted, nothing partial
    first_chunk_time = (folder / chunks[0]).stat().st_mtime_ns
    resumed, _ = build_ou_dataset(tmp_path / "b", "ou", renderer, **settings)
    assert (folder / chunks[0]).stat().st_mtime_ns == first_chunk_time  # not regenerated
    assert set(resumed) == {"frames", "frames_pos", "angles", "angles_pos"}
    for key in reference:
        np.testing.assert_array_equal(reference[key], resumed[key])
    assert resumed["frames"].shape == (25, 64, 64, 3)
    np.testing.assert_array_equal(load_chunks(folder, 3)["angles"], reference["angles"])


def test_cached_dataset_is_loaded_without_rendering(renderer, tmp_path):
    settings = dict(n_pairs=6, chunk_pairs=4, rho=0.5, angle_scale=1.0, seed=0, progress=False)
    first, folder = build_ou_dataset(tmp_path, "ou", renderer, **settings)
    again, folder_again = build_ou_dataset(tmp_path, "ou", _InterruptingRenderer(renderer, fail_at=1), **settings)
    assert folder == folder_again
    np.testing.assert_array_equal(first["frames"], again["frames"])
    other, other_folder = build_ou_dataset(tmp_path, "ou", renderer, **{**settings, "seed": 1})
    assert other_folder != folder and not np.array_equal(other["angles"], first["angles"])


def test_split_by_episode_puts_every_episode_in_exactly_one_sample():
    episodes = np.repeat(np.arange(10), 7)
    parts = split_by_episode(episodes, 3, np.random.default_rng(0))
    assert sorted(np.concatenate(parts).tolist()) == list(range(len(episodes)))  # every row once
    groups = [set(episodes[rows].tolist()) for rows in parts]
    assert all(not (a & b) for i, a in enumerate(groups) for b in groups[i + 1:])  # no episode on two sides
    assert sorted(len(g) for g in groups) == [3, 3, 4]


def _fake_rollout(seed: int) -> np.ndarray:
    """A deterministic 'episode' of 8 poses that depends on its seed only."""
    rng = np.random.default_rng(seed)
    return np.cumsum(rng.normal(0.0, 0.1, (8, 2)), axis=0)


def test_trajectory_held_out_split_shares_no_episode(renderer, tmp_path):
    data, _ = build_trajectory_dataset(tmp_path, "traj", renderer, _fake_rollout, "fake-policy", n_episodes=6,
                                       episodes_per_chunk=4, delta=2, seed=5, progress=False)
    assert data["episode"].tolist() == np.repeat(np.arange(6), 6).tolist()  # 8 frames, Δ = 2: 6 pairs each
    np.testing.assert_array_equal(data["frames"], renderer.render(data["angles"]))  # each pose rendered once
    np.testing.assert_array_equal(data["frames_pos"], renderer.render(data["angles_pos"]))
    parts = split_by_episode(data["episode"], len(SPLITS), np.random.default_rng(1))
    fit, test = (set(data["episode"][rows].tolist()) for rows in (parts[0], parts[2]))
    assert fit and test and not fit & test
    for rows in parts:  # a sample's pairs are exactly the pairs of its episodes
        for episode in set(data["episode"][rows].tolist()):
            assert np.array_equal(np.flatnonzero(data["episode"] == episode),
                                  rows[data["episode"][rows] == episode])


def test_ou_fit_validation_and_test_are_independent_draws(renderer, tmp_path):
    seeds = data_seeds(0)
    assert len({seeds[f"ou_{split}"] for split in SPLITS} | {seeds["ou_train"]}) == 4
    samples = {split: build_ou_dataset(tmp_path, f"ou-{split}", renderer, 20, 20, 0.8, 0.7,
                                       seeds[f"ou_{split}"], progress=False)[0] for split in SPLITS}
    for i, a in enumerate(SPLITS):
        for b in SPLITS[i + 1:]:
            shared = {tuple(row) for row in samples[a]["angles"]} & {tuple(row) for row in samples[b]["angles"]}
            assert not shared, (a, b)
    assert data_seeds(0) == seeds and data_seeds(1)["ou_test"] != seeds["ou_test"]

