"""Pixel-based Reacher: OU-sampled joint angles versus policy trajectories, and planning in the learned latent.

Modules: :mod:`.rendering` (fast offscreen frames), :mod:`.policy` (SAC from
states), :mod:`.datasets` (cached resumable pair datasets), :mod:`.encoder`
(CNN + alignment/SIGReg), :mod:`.evaluation` (probes, diagnostics),
:mod:`.planning` (latent straight lines vs the oracle), :mod:`.pipeline`,
:mod:`.figures`, :mod:`.config` and :mod:`.experiment` (``EXPERIMENT``).
"""

from lejepa_wm.experiments.reacher.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
