"""Shared fixtures: a renderer when offscreen rendering works here, else a skip that says what is missing."""

from __future__ import annotations

import pytest

from lejepa_wm.experiments.reacher.rendering import ReacherRenderer, RenderingUnavailable


@pytest.fixture(scope="session")
def renderer():
    """One fast 64×64 renderer for the whole test run (skips with the install hint if rendering is unavailable)."""
    try:
        instance = ReacherRenderer()
    except RenderingUnavailable as exc:
        pytest.skip(f"Reacher rendering unavailable: {exc}")
    yield instance
    instance.close()

