"""The fixed-target Reacher environment and the SAC policy plumbing (a very short training run)."""

from __future__ import annotations

import numpy as np
import pytest


def _sb3_available() -> bool:
    try:
        import gymnasium  # noqa: F401
        import stable_baselines3  # noqa: F401
    except ImportError:
        return False
    return True


pytestmark = pytest.mark.skipif(not _sb3_available(), reason="stable-baselines3/gymnasium not installed "
                                "(pip install 'stable-baselines3>=2.3')")


def test_environment_keeps_the_target_fixed_and_episodes_have_fixed_length(renderer):
    from lejepa_wm.experiments.reacher.policy import make_env

    env = make_env((0.1, -0.05), episode_steps=7, reward="dense")
    observation, _ = env.reset(seed=1)
    assert observation.shape == (8,) and observation.dtype == np.float32
    target = env.physics.named.data.geom_xpos["target", :2].copy()
    np.testing.assert_allclose(target, [0.1, -0.05])
    steps, done = 0, False
    while not done:
        observation, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        assert reward <= 1.0 and not terminated
        steps, done = steps + 1, truncated
    assert steps == 7
    np.testing.assert_allclose(env.physics.named.data.geom_xpos["target", :2], target)


def test_short_sac_run_saves_loads_and_rolls_out_deterministically(renderer, tmp_path):
    from lejepa_wm.experiments.reacher.policy import (load_policy, make_env, rollout_angles, save_policy,
                                                      success_rate, train_sac)

    env = make_env(episode_steps=10)
    model = train_sac(env, 60, seed=0)
    path = save_policy(model, tmp_path / "policy.zip")
    loaded = load_policy(path, env)
    first = rollout_angles(loaded, env, episode_seed=5)
    assert first.shape == (11, 2)
    np.testing.assert_array_equal(first, rollout_angles(model, env, episode_seed=5))
    assert not np.array_equal(first, rollout_angles(model, env, episode_seed=6))
    assert 0.0 <= success_rate(model, env, 2, seed=0) <= 1.0
    (tmp_path / "broken.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="unreadable"):
        load_policy(tmp_path / "broken.zip", env)

