"""Shared fixtures: one torch thread, and a renderer when offscreen rendering works here (else a skip saying what is missing)."""

from __future__ import annotations

import pytest
import torch

from lejepa_wm.experiments.reacher.rendering import ReacherRenderer, RenderingUnavailable


@pytest.fixture(scope="session", autouse=True)
def one_torch_thread():
    """The Reacher tests train tiny CNNs: one thread is fastest on a shared machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def renderer():
    """One fast 64×64 renderer for the whole test run (skips with the install hint if rendering is unavailable)."""
    try:
        instance = ReacherRenderer()
    except RenderingUnavailable as exc:
        pytest.skip(f"Reacher rendering unavailable: {exc}")
    yield instance
    instance.close()
