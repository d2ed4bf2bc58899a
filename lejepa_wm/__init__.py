"""Companion package for *When Does LeJEPA Learn a World Model?* (Klindt, LeCun, Balestriero, 2026).

The building blocks are importable from here (each loaded on first use, so
``import lejepa_wm`` stays fast and imports neither torch nor matplotlib)::

    import lejepa_wm as lw

    world = lw.GaussianWorld.isotropic(n=4, rho=0.8)          # latents and the OU channel
    sigreg = lw.build_objective("sigreg", 0.3)                 # alignment + SIGReg
    result = lw.evaluate(world, sigreg, "sigreg", lw.TrainSettings(max_steps=300, batch_size=256, lr=1e-2))
    print(result.verdicts)                                     # beside the λ = 0 control and the raw baseline

Groups (``__all__`` lists every public name):

- worlds: :class:`GaussianWorld`, :class:`GeneralizedNormalWorld`, :func:`rates_to_rho`;
- renderers and encoders: :func:`make_renderer`, :func:`build_encoder`, :class:`MLPEncoder`;
- objectives: :class:`SIGReg` (a drop-in ``torch.nn.Module``), :func:`build_objective`,
  :func:`alignment_loss`, :func:`whitening_loss`, :func:`infonce_loss`;
- training: :func:`train`, :class:`TrainSettings`, :class:`WorldPairs`, :class:`DatasetPairs`;
- measuring: :class:`HeldOutSamples`, :func:`embed`, :func:`reported_metrics`, :func:`raw_observation_r2`,
  :func:`linear_probe_r2`, :func:`residual_ratio`, :func:`over_seeds`, :func:`difference`;
- the verdict rule: :class:`Bound`, :class:`HeadlineEntry`, :func:`verdict_of`;
- the evidence protocol for your own world or objective: :func:`evaluate`;
- a synthetic run's parameters, as its ``spec.json`` stores them: :class:`SyntheticRunParams` and its
  :class:`RendererParams`, :class:`EncoderParams`, :class:`ObjectiveParams`;
- experiments: :func:`run_sweep` (what ``lejepa-wm run`` does), :func:`register_experiment`,
  :func:`register_world`, :func:`get_experiment`, :func:`load_run` (a run's trained encoder);
- the theory: :data:`CLAIMS`, :func:`get_claim`; :class:`SeedStreams` for named seeds.

Sub-packages: :mod:`lejepa_wm.numerics` (the numerical checks of every axiom and
bound), :mod:`lejepa_wm.experiments` (trained encoders), :mod:`lejepa_wm.report`.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# Each module of a public name, with the names it exports (imported on first use).
_MODULES: dict[str, tuple[str, ...]] = {
    "lejepa_wm.experiments.worlds": ("GaussianWorld", "GeneralizedNormalWorld", "rates_to_rho", "register_world"),
    "lejepa_wm.experiments.flows": ("make_renderer", "RENDERERS"),
    "lejepa_wm.experiments.encoders": ("build_encoder", "MLPEncoder", "InverseCouplingEncoder", "ENCODERS"),
    "lejepa_wm.experiments.objectives": ("SIGReg", "build_objective", "alignment_loss", "whitening_loss",
                                         "infonce_loss", "Objective"),
    "lejepa_wm.experiments.training": ("train", "TrainSettings", "TrainResult", "WorldPairs", "DatasetPairs"),
    "lejepa_wm.experiments.heldout": ("HeldOutSamples", "embed", "reported_metrics", "validation_metrics",
                                      "raw_observation_r2"),
    "lejepa_wm.experiments.metrics": ("linear_probe_r2", "procrustes_error", "ProcrustesFit"),
    "lejepa_wm.experiments.evidence": ("residual_ratio", "over_seeds", "difference"),
    "lejepa_wm.records": ("Bound", "HeadlineEntry", "CheckResult", "verdict_of"),
    "lejepa_wm.experiments.protocol": ("evaluate", "Evaluation", "ObjectiveFunction", "alignment_only"),
    "lejepa_wm.experiments.run_params": ("RendererParams", "EncoderParams", "ObjectiveParams", "SyntheticRunParams"),
    "lejepa_wm.experiments": ("register_experiment", "get_experiment"),
    "lejepa_wm.experiments.encoder_file": ("load_run", "LoadedRun"),
    "lejepa_wm.sweep.driver": ("run_sweep",),
    "lejepa_wm.claims": ("CLAIMS", "get_claim"),
    "lejepa_wm.seeds": ("SeedStreams",),
}
_EXPORTS: dict[str, str] = {name: module for module, names in _MODULES.items() for name in names}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    """The public name ``name``, imported from its module on first use."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'lejepa_wm' has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
