"""A frozen, seeded, invertible RealNVP-style coupling flow: the unknown renderer ``x = g(z)``.

Layer ``l`` first permutes the coordinates with a fixed random permutation
``P_l``, splits them into a conditioning half ``a`` (first ``⌊n/2⌋``) and a
transformed half ``b``, and maps

    b ← b ⊙ exp(s_l(a)) + t_l(a),   [s_l, t_l](a) = W2 tanh(W1 a + c1) + c2.

Its inverse is ``b ← (b − t_l(a)) ⊙ exp(−s_l(a))`` followed by ``P_lᵀ``, so ``g`` is a
bijection of ℝⁿ for every parameter value. The conditioning is controlled by two
gains: ``shift_gain`` scales the shear (``t``) weights and ``log_scale_gain`` the
log-scale (``s``) weights; with ``log_scale_gain = 0`` the flow is additive
(unit Jacobian determinant, the published setting). Each layer's Jacobian is
triangular-plus-shear with diagonal ``exp(s_l(a))``, so
``|log det| ≤ L · ⌈n/2⌉ · max|s|`` (``tests/experiments/test_flows_encoders.py`` measures
the condition number of ``∂g/∂z`` directly: it grows with the gains). Dimension 1 is rejected (nothing to
couple); ``n = 2 … 1024`` is the supported range, any ``n ≥ 2`` works.

Two renderers are built from it (:func:`make_renderer`):

- ``published`` (the default of every experiment): the paper's mixing, four
  additive coupling layers ``z₂ ← z₂ + tanh(z₁ · 2Q_l)`` that alternate which
  half conditions the other, each ``Q_l`` a seeded random orthogonal
  ``(n/2) × (n/2)`` matrix (Haar, :func:`scipy.stats.ortho_group`); ``n`` must be
  even. It is a :class:`CouplingFlow` whose permutations swap the halves and
  whose conditioners are :class:`TanhShift` s with ``W = 2Q_lᵀ`` (additive, no
  ``exp``), so the matched encoders contain its exact inverse. A linear probe from ``x`` to ``z`` reaches
  held-out R² ≈ 0.7 (measured per run and reported as the raw baseline).
- ``coupling``: the random conditioners of :func:`make_mixing`, with gains
  controlling how nonlinear it is (``shift_gain = 0.5`` on 2 layers of 16 units
  is nearly linear: raw R² ≈ 0.99); kept as a named option.
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np
import torch
from torch import nn

from lejepa_wm.validation import check_choice, check_positive_int

__all__ = [
    "RENDERERS", "Conditioner", "TanhShift", "CouplingFlow", "permutation_kinds", "permuted_halves", "uncouple",
    "make_mixing", "make_renderer"
]

RENDERERS = ("published", "coupling")
_PUBLISHED_LAYERS = 4


def _check_dim(n: int) -> int:
    if check_positive_int(n, "n") < 2:
        raise ValueError(f"a coupling flow needs dimension n >= 2; got {n!r}")
    return n


class Conditioner(nn.Module):
    """One-hidden-layer tanh network ``a ↦ (s(a), t(a))``."""

    def __init__(self, n_in: int, n_out: int, hidden: int) -> None:
        super().__init__()
        self.n_out = n_out
        self.hidden = nn.Linear(n_in, hidden)
        self.out = nn.Linear(hidden, 2 * n_out)

    def forward(self, a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.out(torch.tanh(self.hidden(a))).split(self.n_out, dim=-1)


class TanhShift(nn.Module):
    """A shift-only conditioner ``a ↦ (none, tanh(W a))`` with one matrix ``W`` (``n_out × n_in``).

    The published renderer's layers are ``b ← b + tanh(2 Q_l a)``: this
    conditioner with ``W = 2 Q_l`` (frozen). The published encoder learns one
    ``W`` per layer, starting at ``N(0, 1/n_in)`` entries drawn from the given
    generator.
    """

    def __init__(self, n_in: int, n_out: int, generator: torch.Generator) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in, generator=generator) / math.sqrt(n_in))

    def forward(self, a: torch.Tensor) -> tuple[None, torch.Tensor]:
        return None, torch.tanh(a @ self.weight.T)


class CouplingFlow(nn.Module):
    """Stack of coupling layers with fixed permutations; ``forward`` is ``g``, ``inverse`` is ``g⁻¹``.

    Each layer's conditioner returns ``(log_scale, shift)``; a ``None`` log-scale
    is an additive layer (no scaling, no ``exp``). By default the conditioners
    are :class:`Conditioner` s of width ``hidden``; ``conditioners`` replaces them.
    """

    def __init__(self, n: int, permutations: torch.Tensor, hidden: int,
                 conditioners: nn.ModuleList | None = None) -> None:
        super().__init__()
        self.n = _check_dim(n)
        self.n_a = n // 2
        self.register_buffer("permutations", permutations.clone())
        self.register_buffer("inverse_permutations", torch.argsort(permutations, dim=1))
        self.conditioners = conditioners if conditioners is not None else nn.ModuleList(
            Conditioner(self.n_a, n - self.n_a, hidden) for _ in range(permutations.shape[0]))
        self.permutation_kinds = permutation_kinds(self.permutations)
        self.inverse_permutation_kinds = permutation_kinds(self.inverse_permutations)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        a, b = z[..., :self.n_a], z[..., self.n_a:]
        for perm, kind, conditioner in zip(self.permutations, self.permutation_kinds, self.conditioners):
            a, b = permuted_halves(a, b, perm, kind)
            log_scale, shift = conditioner(a)
            b = b + shift if log_scale is None else b * torch.exp(log_scale) + shift
        return torch.cat([a, b], dim=-1)

    def inverse(self, x: torch.Tensor) -> torch.Tensor:
        return uncouple(x, reversed(self.inverse_permutations), reversed(self.inverse_permutation_kinds),
                        reversed(self.conditioners), self.n_a, True)


def permutation_kinds(permutations: torch.Tensor) -> tuple[str, ...]:
    """Each row of ``permutations`` named ``"identity"``, ``"swap"`` (of two equal halves) or ``"general"``.

    The published renderer's layers only swap halves; :func:`permuted_halves` then
    exchanges the two half tensors instead of gathering the coordinates: the same
    values and gradients bit for bit, with 15–20% less CPU per rendering and 1.2–1.7×
    less per encoder pass at n = 1,024 (``benchmarks/README.md``, "Exchanging halves
    instead of gathering coordinates").
    """
    n = permutations.shape[1]
    identity = torch.arange(n)
    swap = identity.roll(n // 2)
    return tuple("identity" if torch.equal(perm, identity) else
                 "swap" if n % 2 == 0 and torch.equal(perm, swap) else "general" for perm in permutations)


def permuted_halves(a: torch.Tensor, b: torch.Tensor, perm: torch.Tensor,
                    kind: str) -> tuple[torch.Tensor, torch.Tensor]:
    """The halves of ``cat(a, b)[..., perm]`` (``kind`` from :func:`permutation_kinds`), split as ``a`` and
    ``b`` were."""
    if kind == "identity":
        return a, b
    if kind == "swap":
        return b, a
    n_a = a.shape[-1]
    z = torch.cat([a, b], dim=-1)[..., perm]
    return z[..., :n_a], z[..., n_a:]


def uncouple(x: torch.Tensor, inverse_permutations: Iterable[torch.Tensor], kinds: Iterable[str],
             conditioners: Iterable[nn.Module], n_a: int, scaled: bool) -> torch.Tensor:
    """Inverse coupling layers in the given order: ``b ← (b − t(a)) ⊙ exp(−s(a))``, then unpermute.

    ``kinds`` names each inverse permutation (:func:`permutation_kinds`).
    ``scaled`` inverts the flow's layers exactly; without it the log-scales are
    ignored (additive: the matched encoders), as they are for a conditioner returning ``None`` for them.
    """
    a, b = x[..., :n_a], x[..., n_a:]
    for inv_perm, kind, conditioner in zip(inverse_permutations, kinds, conditioners):
        log_scale, shift = conditioner(a)
        b = b - shift
        if scaled and log_scale is not None:
            b = b * torch.exp(-log_scale)
        a, b = permuted_halves(a, b, inv_perm, kind)
    return torch.cat([a, b], dim=-1)


def make_mixing(n: int, layers: int, hidden: int, shift_gain: float, log_scale_gain: float,
                seed: int) -> CouplingFlow:
    """The frozen renderer: a seeded coupling flow with controlled conditioning.

    Weights: ``W1 ~ N(0, 1/⌊n/2⌋)`` and ``c1 ~ N(0, 1)`` (pre-activations of order 1),
    ``W2 ~ N(0, gain²/hidden)`` with ``gain = shift_gain`` on the shift rows and
    ``log_scale_gain`` on the log-scale rows, ``c2 = 0``. Parameters are frozen
    (``requires_grad = False``). The gains are non-negative (:class:`~lejepa_wm.experiments.run_params.RendererParams`
    checks them where a run's settings are read).
    """
    rng = np.random.default_rng(seed)
    permutations = torch.as_tensor(np.stack([rng.permutation(n) for _ in range(layers)]), dtype=torch.long)
    flow = CouplingFlow(n, permutations, hidden)
    generator = torch.Generator().manual_seed(seed)
    n_b = n - n // 2
    with torch.no_grad():
        for conditioner in flow.conditioners:
            conditioner.hidden.weight.normal_(generator=generator).div_(math.sqrt(flow.n_a))
            conditioner.hidden.bias.normal_(generator=generator)
            out = conditioner.out.weight.normal_(generator=generator).div_(math.sqrt(hidden))
            out[:n_b] *= log_scale_gain
            out[n_b:] *= shift_gain
            conditioner.out.bias.zero_()
    return flow.requires_grad_(False).eval()


def make_renderer(kind: str, n: int, seed: int, layers: int = _PUBLISHED_LAYERS, hidden: int = 16,
                  shift_gain: float = 0.5, log_scale_gain: float = 0.0) -> CouplingFlow:
    """Renderer ``kind`` (``published`` or ``coupling``) of dimension ``n`` from ``seed``, frozen.

    ``coupling`` is :func:`make_mixing` (``hidden`` and the gains apply to it only).
    ``published`` is the paper's renderer: ``layers`` couplings ``b ← b + tanh(2 a Q_l)``,
    halves alternating, ``Q_l`` independent Haar-random orthogonal matrices drawn
    from ``seed``; it needs an even ``n >= 2``.
    """
    check_choice(kind, RENDERERS, "renderer")
    if kind == "coupling":
        return make_mixing(n, layers, hidden, shift_gain, log_scale_gain, seed)
    _check_dim(n)
    if n % 2:
        raise ValueError(f"the published renderer needs an even dimension n; got {n!r}")
    from scipy.stats import ortho_group

    half = n // 2
    rng = np.random.default_rng(seed)
    shifts = nn.ModuleList(TanhShift(half, half, torch.Generator()) for _ in range(layers))
    with torch.no_grad():
        for shift in shifts:
            q = ortho_group.rvs(half, random_state=rng) if half > 1 else np.array([[rng.choice([-1.0, 1.0])]])
            shift.weight.copy_(torch.as_tensor(2.0 * q.T, dtype=torch.float32))  # a @ W.T = a @ 2Q
    swap = torch.arange(n).roll(half)  # the identity first, then a swap of the halves each layer
    flow = CouplingFlow(n, torch.stack([torch.arange(n)] + [swap] * (layers - 1)), half, shifts)
    return flow.requires_grad_(False).eval()
