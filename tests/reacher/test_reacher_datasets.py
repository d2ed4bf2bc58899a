"""Datasets: the OU channel, trajectory pairing, and caching with resume after an interruption."""

from __future__ import annotations

import numpy as np
import pytest

from lejepa_wm.experiments.reacher.datasets import (
    build_ou_dataset,
    load_chunks,
    ou_pair_angles,
    trajectory_pair_angles,
    trajectory_pair_indices,
)


def test_ou_pairs_have_the_channel_correlation():
    angles, angles_pos = ou_pair_angles(200_000, 0.8, 1.5, np.random.default_rng(0))
    z, z_pos = angles / 1.5, angles_pos / 1.5
    for j in range(2):
        assert abs(np.corrcoef(z[:, j], z_pos[:, j])[0, 1] - 0.8) < 0.01
        assert abs(z_pos[:, j].std() - 1.0) < 0.01


@pytest.mark.parametrize("rho", [0.0, 1.0, -0.2])
def test_ou_pairs_reject_bad_rho(rho):
    with pytest.raises(ValueError, match="ou_rho"):
        ou_pair_angles(10, rho, 1.0, np.random.default_rng(0))


def test_trajectory_pairs_are_delta_apart():
    episode = np.arange(20.0).reshape(10, 2)
    first, second = trajectory_pair_indices(10, 3)
    np.testing.assert_array_equal(second - first, 3)
    assert len(first) == 7
    angles, angles_pos = trajectory_pair_angles([episode, episode[:5]], 3)
    assert len(angles) == 7 + 2
    np.testing.assert_array_equal(angles_pos - angles, 6.0)
    with pytest.raises(ValueError, match="no pair"):
        trajectory_pair_indices(3, 3)


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
