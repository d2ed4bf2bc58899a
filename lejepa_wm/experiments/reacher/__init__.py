"""Pixel-based Reacher: OU-sampled joint angles versus policy trajectories, and planning in the learned latent.

Modules: :mod:`.rendering` (fast offscreen frames), :mod:`.policy` (SAC from
states), :mod:`.datasets` (cached resumable pair datasets, split by episode),
:mod:`.encoder` (the CNN; trained by the shared loop of
:mod:`lejepa_wm.experiments.training`), :mod:`.evaluation` (probes, pixel
baselines, diagnostics, latent straight lines vs the oracle), :mod:`.pipeline`
(shared data, one model), :mod:`.figures`, :mod:`.config` and
:mod:`.experiment` (``EXPERIMENT``).
"""

from lejepa_wm.experiments.reacher.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
