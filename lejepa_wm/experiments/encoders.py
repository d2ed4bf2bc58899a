"""Trainable encoders ``f`` applied to rendered observations ``x = g(z)``.

- :class:`InverseCouplingEncoder` — the *matched* architecture: the mixing's
  layers in reverse order with the same fixed permutations and conditioner
  widths, each computing ``b ← b − t(a)``: additive (unit Jacobian, cannot
  collapse), the published setting, so the exact inverse ``g⁻¹`` of an additive
  mixing (the published renderer) is one of its parameter values (expressivity
  is not a confounder). ``matched_additive`` is this encoder; its conditioners
  start at zero output, so the initial encoder only undoes the mixing's
  permutations (the exact inverse of a mixing with zero gains). Learned
  conditioner log-scales (an encoder that can shrink and bend) were tried and
  did not learn the published renderer's inverse (docs/TUNING.md): they are not
  offered. ``matched_scaled`` is the additive encoder followed by a learned scale per
  output coordinate, ``h_i ← exp(c_i) h_i`` (``c = 0`` at the start): it still
  contains ``g⁻¹`` and cannot bend more than the additive one, but it can
  collapse, so its λ = 0 control shows what the regularizer prevents.
- ``published``: the paper's own matched encoder, the same reverse-order layers
  with the conditioner reduced to ``t(a) = tanh(W_l a)`` (:class:`TanhShift`,
  one learned matrix per layer, random start, unit Jacobian): exactly the
  functional form of the published renderer, so ``g⁻¹`` is one of its parameter
  values at every n (``hidden`` is not used). ``published_scaled`` adds the
  learned output scales, so it can collapse.
- :class:`MLPEncoder` — a plain multilayer perceptron ``ℝⁿ → ℝᵐ`` (SiLU), any
  output dimension ``m``; it can collapse, distort and compute nonlinear
  features such as Hermite harmonics.
- ``published_head`` (:class:`HeadEncoder`): the paper's encoder (which contains
  ``g⁻¹``) followed by a head ``ℝⁿ → ℝᵐ``, a linear map plus a one-hidden-layer
  SiLU network of width ``max(hidden, m)``: any output dimension, able to compute a
  partial rotation ``Wz`` (m < n), ``z`` itself (m = n) and degree-2 harmonics of
  ``z`` beside it (m > n), everything M1 describes. The width grows with ``m``
  because the embedding lies in the span of the linear map's ``n`` outputs and the
  hidden layer's units: with width ``w`` its covariance has rank at most ``n + w``,
  and whitening it (M1's constraint, ``Cov h = I_m``) needs rank ``m``.
"""

from __future__ import annotations

import copy
import math

import torch
from torch import nn

from lejepa_wm.experiments.flows import Conditioner, CouplingFlow, TanhShift, uncouple
from lejepa_wm.validation import check_choice, check_positive_int

__all__ = [
    "ENCODERS", "InverseCouplingEncoder", "MLPEncoder", "HeadEncoder", "initialize", "build_encoder",
    "published_inverse"
]

ENCODERS = ("published", "published_scaled", "published_head", "matched_additive", "matched_scaled", "mlp")


class InverseCouplingEncoder(nn.Module):
    """Reverse-order additive coupling layers matching ``mixing``'s permutations and widths (trainable).

    A conditioner's log-scales, if it returns any, are ignored.
    """

    def __init__(self, mixing: CouplingFlow, hidden: int, generator: torch.Generator, output_scales: bool = False,
                 tanh_shifts: bool = False) -> None:
        super().__init__()
        self.n_a = n_a = mixing.n_a
        self.register_buffer("inverse_permutations", mixing.inverse_permutations.flip(0).clone())
        self.inverse_permutation_kinds = tuple(reversed(mixing.inverse_permutation_kinds))
        if tanh_shifts:
            self.conditioners = nn.ModuleList(TanhShift(n_a, mixing.n - n_a, generator) for _ in mixing.conditioners)
        else:
            self.conditioners = nn.ModuleList(Conditioner(n_a, mixing.n - n_a, hidden) for _ in mixing.conditioners)
            initialize(self, generator)
            for conditioner in self.conditioners:
                nn.init.zeros_(conditioner.out.weight)
                nn.init.zeros_(conditioner.out.bias)
        self.output_log_scales = nn.Parameter(torch.zeros(mixing.n)) if output_scales else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = uncouple(x, self.inverse_permutations, self.inverse_permutation_kinds, self.conditioners, self.n_a, False)
        return h if self.output_log_scales is None else h * torch.exp(self.output_log_scales)


class MLPEncoder(nn.Module):
    """``depth`` hidden SiLU layers of width ``width``, then a linear map to ``m`` outputs."""

    def __init__(self, n: int, m: int, width: int, depth: int) -> None:
        super().__init__()
        sizes = [n] + [width] * depth
        hidden = [layer for a, b in zip(sizes, sizes[1:]) for layer in (nn.Linear(a, b), nn.SiLU())]
        self.net = nn.Sequential(*hidden, nn.Linear(width, m))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class HeadEncoder(nn.Module):
    """``f(x) = A y + B silu(C y + c)`` with ``y = body(x)``: a body (the paper's encoder) and an ``m``-output head."""

    def __init__(self, body: nn.Module, n: int, m: int, hidden: int) -> None:
        super().__init__()
        self.body = body
        self.linear = nn.Linear(n, m, bias=False)
        self.nonlinear = nn.Sequential(nn.Linear(n, hidden), nn.SiLU(), nn.Linear(hidden, m))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.body(x)
        return self.linear(y) + self.nonlinear(y)


def initialize(module: nn.Module, generator: torch.Generator) -> nn.Module:
    """Re-draw every ``Linear``/``Conv`` weight and bias from ``generator``; return ``module``.

    The law is PyTorch's default for these layers, ``U(−1/√fan_in, 1/√fan_in)``
    (Kaiming-uniform with ``a = √5``), drawn in module order from the given
    generator instead of the global one, so initialization is a function of the
    run's ``init`` seed stream alone. Call it before any weight is set by hand.
    """
    with torch.no_grad():
        for layer in module.modules():
            if isinstance(layer, (nn.Linear, nn.Conv1d, nn.Conv2d)):
                bound = 1.0 / math.sqrt(layer.weight[0].numel())  # 1/sqrt(fan_in)
                layer.weight.uniform_(-bound, bound, generator=generator)
                if layer.bias is not None:
                    layer.bias.uniform_(-bound, bound, generator=generator)
    return module


def build_encoder(kind: str, mixing: CouplingFlow, hidden: int, generator: torch.Generator,
                  m: int | None = None, depth: int = 2) -> nn.Module:
    """Encoder ``kind`` (one of :data:`ENCODERS`) for observations of ``mixing``, initialized from ``generator``.

    ``m`` (output dimension) is free for the MLP and ``published_head``; the others output ``n`` (the
    matched kinds reject another ``m``, the published ones ignore it).
    """
    check_choice(kind, ENCODERS, "encoder")
    if kind == "mlp":
        return initialize(MLPEncoder(mixing.n, mixing.n if m is None else m, hidden, depth), generator)
    if kind == "published_head":
        body = InverseCouplingEncoder(mixing, hidden, generator, tanh_shifts=True)
        m = mixing.n if m is None else check_positive_int(m, "m")
        return initialize(HeadEncoder(body, mixing.n, m, max(hidden, m)), generator)  # the body has no Linear
    published = kind in ("published", "published_scaled")
    if m is not None and m != mixing.n and not published:
        raise ValueError(f"the matched encoder outputs n = {mixing.n} dimensions; got m = {m!r}")
    return InverseCouplingEncoder(mixing, hidden, generator, tanh_shifts=published,
                                  output_scales=kind.endswith("_scaled"))


def published_inverse(encoder: InverseCouplingEncoder, renderer: CouplingFlow) -> InverseCouplingEncoder:
    """A copy of a ``published`` (or ``published_scaled``) encoder set to the exact inverse of ``renderer``.

    Its layers take the renderer's matrices in reverse order (output scales 1),
    so it maps ``renderer(z)`` back to ``z`` up to float rounding.
    """
    if not all(isinstance(c, TanhShift) for c in (*encoder.conditioners, *renderer.conditioners)):
        raise ValueError("published_inverse needs a 'published' encoder and the published renderer "
                         "(tanh-shift layers on both)")
    inverse = copy.deepcopy(encoder)
    with torch.no_grad():
        for mine, theirs in zip(inverse.conditioners, reversed(renderer.conditioners)):
            mine.weight.copy_(theirs.weight)
        if inverse.output_log_scales is not None:
            inverse.output_log_scales.zero_()
    return inverse
