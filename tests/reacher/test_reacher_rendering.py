"""Rendering: frame shape and type, dependence on the angles, determinism, periodicity, clear errors."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest


def test_frames_have_shape_and_dtype(renderer):
    frames = renderer.render(np.zeros((3, 2)))
    assert frames.shape == (3, 64, 64, 3)
    assert frames.dtype == np.uint8


def test_different_angles_give_different_frames(renderer):
    poses = np.array([[0.0, 0.0], [0.5, 0.0], [0.0, 0.5], [-1.0, 1.5]])
    frames = renderer.render(poses).astype(int)
    for i in range(len(poses)):
        for j in range(i + 1, len(poses)):
            assert np.abs(frames[i] - frames[j]).sum() > 0, (poses[i], poses[j])


def test_rendering_is_deterministic(renderer):
    poses = np.random.default_rng(0).uniform(-3, 3, (5, 2))
    first = renderer.render(poses)
    renderer.render(np.zeros((2, 2)))  # other state in between must not matter
    np.testing.assert_array_equal(first, renderer.render(poses))


def test_shoulder_angle_is_seen_modulo_two_pi(renderer):
    poses = np.array([[0.7, -0.4], [0.7 + 2 * np.pi, -0.4]])
    frames = renderer.render(poses).astype(int)
    # the two rotations differ only by float rounding: at most a few pixels may flip
    assert (np.abs(frames[0] - frames[1]).max(axis=-1) > 40).sum() <= 3


def test_fast_path_keeps_arm_visible(renderer):
    background = renderer.render(np.array([[0.0, 0.0]]))[0].astype(int)
    moved = renderer.render(np.array([[np.pi, 0.0]]))[0].astype(int)
    assert (np.abs(background - moved).max(axis=-1) > 40).sum() >= 20  # the arm covers at least 20 pixels


@pytest.mark.slow
def test_missing_gl_backend_names_the_install_command():
    code = ("from lejepa_wm.experiments.reacher.rendering import ReacherRenderer, RenderingUnavailable\n"
            "try:\n    ReacherRenderer()\nexcept RenderingUnavailable as exc:\n    print(exc)\n")
    env = {**os.environ, "MUJOCO_GL": "not-a-backend"}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert "libegl-mesa0" in result.stdout or "pip install" in result.stdout, result.stderr
