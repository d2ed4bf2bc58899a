"""A small CNN for Reacher frames; it is trained by the shared loop (:func:`lejepa_wm.experiments.training.train`).

Architecture (64×64×3 input scaled to [0, 1]): an 8×8 stride-4 convolution (16
channels) and a 4×4 stride-2 convolution (32 channels), both ReLU → 6×6×32
features → a 128-unit ReLU layer → a linear map to ``embed_dim`` (2 by
default, the number of joints). It is deliberately small (about 0.25 GFLOP per
256 frames) so that CPU training takes minutes. Its weights are drawn by
:func:`build_frame_encoder` from the run's ``init`` seed stream, never from
torch's global generator. The loss is the shared ``build_objective("sigreg",
weight)``: ``alignment(h, h') + weight · (SIGReg(h) + SIGReg(h'))/2``; how the
schedule and the angle scale were chosen is in docs/TUNING.md ("Reacher").
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from lejepa_wm.experiments.encoders import initialize
from lejepa_wm.experiments.heldout import embed

__all__ = ["FrameEncoder", "build_frame_encoder", "embed_frames"]


class FrameEncoder(nn.Module):
    """CNN from uint8 frames (N, H, W, 3) to embeddings (N, embed_dim); H = W = 64 expected."""

    def __init__(self, embed_dim: int = 2, image_size: int = 64) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 8, stride=4), nn.ReLU(),
            nn.Conv2d(16, 32, 4, stride=2), nn.ReLU(),
            nn.Flatten(),
        )
        with torch.no_grad():
            flat = self.features(torch.zeros(1, 3, image_size, image_size)).shape[1]
        self.head = nn.Sequential(nn.Linear(flat, 128), nn.ReLU(), nn.Linear(128, embed_dim))

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        """Embed a uint8 batch (N, H, W, 3) (any device)."""
        x = frames.permute(0, 3, 1, 2).float().div_(255.0)
        return self.head(self.features(x))


def build_frame_encoder(embed_dim: int, image_size: int, generator: torch.Generator) -> FrameEncoder:
    """A :class:`FrameEncoder` on the CPU with every weight drawn from ``generator`` (PyTorch's default law)."""
    return initialize(FrameEncoder(embed_dim, image_size), generator)


def embed_frames(model: nn.Module, frames: np.ndarray, device: torch.device | str = "cpu",
                 batch_size: int = 512) -> np.ndarray:
    """Embeddings of ``frames`` (uint8, (N, H, W, 3)) as float64 (N, embed_dim), ``batch_size`` frames at a time
    through the shared :func:`~lejepa_wm.experiments.heldout.embed`: in eval mode, the model's train/eval mode
    restored afterwards (the training loop's evaluator calls this in the middle of training), and non-finite
    embeddings a :class:`~lejepa_wm.experiments.training.TrainingDivergedError`.
    """
    batches = (np.ascontiguousarray(frames[start:start + batch_size]) for start in range(0, len(frames), batch_size))
    return np.concatenate([embed(model, torch.from_numpy(batch).to(device)) for batch in batches])
