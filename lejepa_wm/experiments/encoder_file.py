"""The trained encoder of a synthetic run, kept as ``encoder.pt`` beside its ``metrics.json``, and its loader.

``encoder.pt`` holds the encoder's weights (``state_dict``) and the run's
parameters (what ``spec.json`` holds). Everything else is rebuilt from the
parameters, deterministically: the renderer ``g`` from its seed stream, the
encoder's architecture, the world. So :func:`load_run` gives back the encoder
exactly as the run left it, with the world and the renderer it was trained on,
and ``encoder(renderer(z))`` is the map ``h = f ∘ g`` the theory is about.

The file is a few kilobytes for small n and about 4 MB for the paper's encoder
at n = 1024 (one 512 × 512 matrix per layer).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from lejepa_wm.atomic import atomic_torch_save, read_json
from lejepa_wm.experiments.base import SPEC_FILE
from lejepa_wm.experiments.heldout import Sample
from lejepa_wm.experiments.objectives import Whitened
from lejepa_wm.experiments.run_params import SyntheticRunParams
from lejepa_wm.experiments.worlds import World

__all__ = ["ENCODER_FILE", "LoadedRun", "save_encoder", "load_run"]

ENCODER_FILE = "encoder.pt"
_FORMAT = 1


@dataclass
class LoadedRun:
    """A finished run's trained encoder (eval mode, on the CPU), its renderer, world and parameters.

    ``embedding`` is what the run's metrics were measured on: the encoder itself, or for the ``whitened``
    objective the encoder followed by the whitening it imposed, with statistics from the run's ``fit``
    sample (as :func:`lejepa_wm.experiments.synthetic.embedding_of` builds it).
    """

    encoder: nn.Module
    embedding: nn.Module
    renderer: nn.Module
    world: World
    params: SyntheticRunParams

    def embed(self, z: torch.Tensor) -> torch.Tensor:
        """``h(z)`` for latents ``z`` of shape ``(N, n)``: the embedding of their rendering ``g(z)``."""
        with torch.no_grad():
            return self.embedding(self.renderer(z))


def save_encoder(run_dir: Path, encoder: nn.Module, params: SyntheticRunParams) -> Path:
    """Write ``encoder.pt`` in ``run_dir`` atomically: the weights (on the CPU) and the run's parameters."""
    state = {key: value.detach().cpu() for key, value in encoder.state_dict().items()}
    return atomic_torch_save(Path(run_dir) / ENCODER_FILE, {"format": _FORMAT, "params": params.to_dict(),
                                                            "state_dict": state})


def load_run(run_dir: Path) -> LoadedRun:
    """The trained encoder of the synthetic run in ``run_dir`` (its ``encoder.pt``), rebuilt on the CPU.

    ``ValueError`` names a folder without ``encoder.pt`` (runs finished before
    encoders were kept: rerun them, or train one with the same parameters), a
    damaged file, and one whose parameters differ from the run's ``spec.json``.
    """
    path = Path(run_dir) / ENCODER_FILE
    if not path.is_file():
        raise ValueError(f"{path} does not exist: this run kept no encoder (runs keep one since encoders were "
                         "saved with every run; rerun it to have one)")
    try:
        stored: Any = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many kinds for a damaged file
        raise ValueError(f"{path} is not a readable encoder file ({type(exc).__name__}: {exc})") from None
    if not isinstance(stored, dict) or stored.get("format") != _FORMAT or "state_dict" not in stored:
        raise ValueError(f"{path} is not an encoder file of format {_FORMAT}")
    spec_path = Path(run_dir) / SPEC_FILE
    if spec_path.is_file() and read_json(spec_path).get("params") != json.loads(json.dumps(stored["params"])):
        raise ValueError(f"{path} was saved by a run with other parameters than {spec_path}")
    params = SyntheticRunParams.from_dict(stored["params"])
    renderer = params.renderer.build(params.world.n, params.seeds.renderer)
    encoder = params.encoder.build(renderer, params.seeds.torch_generator("init"))
    encoder.load_state_dict(stored["state_dict"])
    encoder.eval()
    embedding = encoder
    if params.objective.name == "whitened":
        fit = Sample.draw(params.world, renderer, params.eval_size, params.seeds.torch_generator("fit"))
        embedding = Whitened(encoder, fit.x).eval()
    return LoadedRun(encoder, embedding, renderer, params.world, params)
