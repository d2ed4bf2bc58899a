"""A small CNN trained on pairs of Reacher frames with alignment + SIGReg.

Architecture (64×64×3 input scaled to [0, 1]): an 8×8 stride-4 convolution (16
channels) and a 4×4 stride-2 convolution (32 channels), both ReLU → 6×6×32
features → a 128-unit ReLU layer → a linear map to ``embed_dim`` (2 by
default, the number of joints). It is deliberately small (about 0.25 GFLOP per
256 frames) so that CPU training takes minutes. The loss is
the shared ``build_objective("sigreg", weight)`` of the synthetic experiments:
``alignment(h, h') + weight · (SIGReg(h) + SIGReg(h'))/2``.

Training is Adam over ``epochs`` passes through the pairs in an order drawn
from one seeded ``torch.Generator`` (which also draws the SIGReg slices), so a
run is a deterministic function of its seed on a given device. The learning
rate follows ``lr_schedule``: ``"constant"``, or ``"cosine"`` — a linear
warmup over the first ``WARMUP_FRACTION`` (5 %) of the steps, then a cosine
decay to 0 (:func:`learning_rate`). The learning rate is a function of the
global step, so a resumed run follows the same schedule.

Why the schedule: on OU pairs the encoder first finds a local optimum that
embeds only the shoulder, as (sin, cos) of its angle, and escapes it (the wrist
appears in the embedding) only after roughly 1,000-2,500 steps, a moment that
varies with the seed. With 20k pairs
(σ = 0.7, batch 128, SIGReg weight 0.1, seed 0) the held-out wrist R² was 0.35
after 2,000 steps at a constant 1e-3, and 0.92 after a 2,000-step cosine
schedule peaking at 3e-3 (validation split; all measurements are listed in
reacher.toml).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from lejepa_wm.atomic import atomic_torch_save
from lejepa_wm.experiments.objectives import build_objective
from lejepa_wm.validation import check_choice, check_positive_int

LR_SCHEDULES = ("constant", "cosine")
WARMUP_FRACTION = 0.05


def learning_rate(step: int, total_steps: int, peak: float, schedule: str) -> float:
    """Learning rate of step ``step`` (0-based) of ``total_steps``.

    ``"constant"``: ``peak``. ``"cosine"``: ``peak · (step + 1)/W`` for the
    first ``W = max(1, round(WARMUP_FRACTION · total_steps))`` steps, then
    ``peak · (1 + cos(π (step − W)/(total_steps − W)))/2``.
    """
    check_choice(schedule, LR_SCHEDULES, "lr_schedule")
    if schedule == "constant":
        return peak
    warmup = max(1, round(WARMUP_FRACTION * total_steps))
    if step < warmup:
        return peak * (step + 1) / warmup
    return peak * 0.5 * (1.0 + math.cos(math.pi * (step - warmup) / max(1, total_steps - warmup)))


class FrameEncoder(nn.Module):
    """CNN from uint8 frames (N, H, W, 3) to embeddings (N, embed_dim); H = W = 64 expected."""

    def __init__(self, embed_dim: int = 2, image_size: int = 64) -> None:
        super().__init__()
        check_positive_int(embed_dim, "embed_dim")
        self.embed_dim = embed_dim
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


def embed_frames(model: nn.Module, frames: np.ndarray, device: torch.device | str = "cpu",
                 batch_size: int = 512) -> np.ndarray:
    """Embeddings of ``frames`` (uint8, (N, H, W, 3)) as float64 (N, embed_dim), in eval mode."""
    model.eval()
    out = []
    with torch.no_grad():
        for start in range(0, len(frames), batch_size):
            batch = torch.from_numpy(np.ascontiguousarray(frames[start:start + batch_size])).to(device)
            out.append(model(batch).double().cpu().numpy())
    return np.concatenate(out)


def train_encoder(frames: np.ndarray, frames_pos: np.ndarray, *, embed_dim: int, epochs: int,
                  batch_size: int, lr: float, sigreg_weight: float, seed: int, sigreg_slices: int = 256,
                  lr_schedule: str = "constant", device: torch.device | str = "cpu",
                  checkpoint: Path | None = None, progress: bool = True) -> tuple[FrameEncoder, list[dict[str, float]]]:
    """Train a :class:`FrameEncoder` on pairs ``(frames[i], frames_pos[i])``; return it and per-epoch losses.

    Each history entry is the epoch's mean of the objective's logged parts
    (``alignment``, ``total``, ``sigreg``). A non-finite loss raises ``RuntimeError``.
    """
    if frames.shape != frames_pos.shape or frames.ndim != 4 or frames.dtype != np.uint8:
        raise ValueError(f"frames must be two uint8 arrays of equal shape (N, H, W, 3); got "
                         f"{frames.shape} {frames.dtype} and {frames_pos.shape} {frames_pos.dtype}")
    check_positive_int(epochs, "epochs")
    check_positive_int(batch_size, "batch_size")
    if not lr > 0:
        raise ValueError(f"lr must be positive; got {lr!r}")
    check_choice(lr_schedule, LR_SCHEDULES, "lr_schedule")
    device = torch.device(device)
    torch.manual_seed(seed)
    model = FrameEncoder(embed_dim, frames.shape[1]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    objective = build_objective("sigreg", sigreg_weight, num_slices=sigreg_slices)
    generator = torch.Generator(device=device).manual_seed(seed)
    history: list[dict[str, float]] = []
    if checkpoint is not None and Path(checkpoint).exists():
        state = torch.load(checkpoint, map_location=device, weights_only=False)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        generator.set_state(state["generator"])
        history = state["history"]
    data = torch.from_numpy(frames).to(device)
    data_pos = torch.from_numpy(frames_pos).to(device)
    n = len(frames)
    batches = max(1, n // batch_size)
    for epoch in tqdm(range(len(history), epochs), desc="train encoder", unit="epoch", disable=not progress):
        model.train()
        order = torch.randperm(n, generator=generator, device=device)
        sums: dict[str, float] = {}
        for b in range(batches):
            index = order[b * batch_size:(b + 1) * batch_size]
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(epoch * batches + b, epochs * batches, lr, lr_schedule)
            loss, parts = objective(model(data[index]), model(data_pos[index]), generator)
            if not math.isfinite(parts["total"]):
                raise RuntimeError(f"encoder training diverged at epoch {epoch}: loss {parts['total']!r} (lr {lr})")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            for key, value in parts.items():
                sums[key] = sums.get(key, 0.0) + value / batches
        history.append(sums)
        if checkpoint is not None:
            atomic_torch_save(checkpoint, {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                                           "generator": generator.get_state(), "history": history})
    model.eval()
    return model, history
