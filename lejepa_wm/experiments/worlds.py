"""Synthetic latent worlds: a marginal law for ``z`` and a channel producing the positive view ``z'``.

Every world draws pairs ``(z, z')`` where ``z`` is one view and ``z'`` the other
(never two noisy copies of a hidden state), so the pair correlation is exactly
the channel's correlation.

- :class:`GaussianWorld` — ``z ~ N(0, I_n)``, ``z' = ρ ⊙ z + √(1 − ρ²) ⊙ ξ`` (the OU
  channel of THEORY.md). ``ρ`` may differ per coordinate, ``ρ_i = exp(−κ_i τ)``
  (:func:`rates_to_rho`). Exact: ``z' ~ N(0, I_n)`` and ``E[z_i z'_i] = ρ_i``.
- :class:`GeneralizedNormalWorld` — independent unit-variance generalized-normal
  coordinates ``p_β(z) ∝ exp(−|z/s|^β)`` (``s² = Γ(1/β)/Γ(3/β)``). Two channels:

  * ``"mala"`` (stationary): ``z'`` is ``z`` moved by a Metropolis-adjusted
    Langevin (MALA) chain targeting ``p_β`` for Langevin time ``τ``
    (``K = ⌈τ/step⌉`` steps of size ``τ/K``). Every MALA step is reversible with
    respect to ``p_β`` whatever the step size, so ``z' ~ p_β`` *exactly* and the
    pair law is symmetric; the step size only controls how closely the chain
    follows the continuous dynamics ``dz = (log p)'(z) dt + √2 dW`` of T2.
    For ``β = 2`` this is the OU process with ``E[z z'] ≈ e^{−τ}``.
  * ``"shortcut"`` (NOT stationary): ``z' = ρ z + √(1 − ρ²) η`` with ``η ~ p_β``.
    Its pair correlation is exactly ``ρ`` but ``z'`` is not ``p_β``-distributed
    unless ``β = 2`` (a sum of generalized normals is not generalized normal);
    it is offered only to show what the common shortcut changes.

Sampling uses a ``torch.Generator`` so one seed drives a whole run; the
generalized-normal world draws a numpy seed from it (gamma variates and the MALA
chain run in float64 numpy) and returns float32 tensors on the generator's device.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import asdict, dataclass
from typing import Any, Mapping

import numpy as np
import torch
from scipy.special import gammaln

from lejepa_wm.schema import read
from lejepa_wm.validation import check_choice, check_positive, check_positive_int, check_rho

__all__ = [
    "CHANNELS", "rates_to_rho", "GaussianWorld", "generalized_normal_scale", "sample_generalized_normal",
    "mala_move", "GeneralizedNormalWorld", "World", "WORLD_KINDS", "register_world", "world_to_dict",
    "world_from_dict"
]

CHANNELS = ("mala", "shortcut")


def rates_to_rho(kappa: np.ndarray | list[float], tau: float) -> np.ndarray:
    """Per-coordinate OU correlations ``ρ_i = exp(−κ_i τ)`` (``κ_i > 0``, ``τ > 0``)."""
    rates = np.asarray(kappa, dtype=np.float64)
    if rates.ndim != 1 or rates.size == 0 or not np.all(np.isfinite(rates)) or np.any(rates <= 0):
        raise ValueError(f"rates kappa must be a non-empty list of positive numbers; got {kappa!r}")
    return np.exp(-rates * check_positive(tau, "time tau"))


@dataclass(frozen=True)
class GaussianWorld:
    """``z ~ N(0, I_n)`` with the (possibly anisotropic) OU channel; exactly stationary.

    ``rho`` may be any sequence of ``n`` correlations (a list read back from ``spec.json``); it is kept as a tuple.
    """

    n: int
    rho: tuple[float, ...]

    def __post_init__(self) -> None:
        check_positive_int(self.n, "n")
        object.__setattr__(self, "rho", tuple(self.rho))
        if len(self.rho) != self.n:
            raise ValueError(f"rho must have one entry per coordinate (n = {self.n}); got {len(self.rho)}")
        for value in self.rho:
            check_rho(value)

    @classmethod
    def isotropic(cls, n: int, rho: float) -> "GaussianWorld":
        """Same ``ρ`` on every coordinate."""
        return cls(n, (check_rho(rho),) * check_positive_int(n, "n"))

    def sample_pairs(self, num: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """``num`` pairs ``(z, z')`` as float32 tensors of shape ``(num, n)`` on the generator's device."""
        device = generator.device
        rho = torch.tensor(self.rho, dtype=torch.float32, device=device)
        z = torch.randn(num, self.n, generator=generator, device=device)
        noise = torch.randn(num, self.n, generator=generator, device=device)
        return z, rho * z + torch.sqrt(1.0 - rho**2) * noise


def generalized_normal_scale(beta: float) -> float:
    """``s`` with ``Var = s² Γ(3/β)/Γ(1/β) = 1`` for ``p_β ∝ exp(−|z/s|^β)``."""
    check_positive(beta, "shape beta")
    return math.exp(0.5 * (gammaln(1.0 / beta) - gammaln(3.0 / beta)))


def sample_generalized_normal(shape: tuple[int, ...], beta: float, rng: np.random.Generator) -> np.ndarray:
    """Exact unit-variance generalized-normal draws: ``z = s · sign · G^{1/β}``, ``G ~ Gamma(1/β, 1)``."""
    scale = generalized_normal_scale(beta)
    magnitude = rng.gamma(1.0 / beta, 1.0, size=shape) ** (1.0 / beta)
    sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    return scale * sign * magnitude


def _log_density(z: np.ndarray, beta: float, scale: float) -> np.ndarray:
    return -np.abs(z / scale) ** beta


def _score(z: np.ndarray, beta: float, scale: float) -> np.ndarray:
    """``(log p_β)'(z) = −(β/s) sign(z) |z/s|^{β−1}`` (infinite at 0 for β < 1; MALA rejects those moves)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(beta / scale) * np.sign(z) * np.abs(z / scale) ** (beta - 1.0)


def mala_move(z: np.ndarray, beta: float, tau: float, max_step: float, rng: np.random.Generator) -> np.ndarray:
    """Run coordinate-wise MALA targeting ``p_β`` for Langevin time ``tau`` starting at ``z``.

    The target factorizes over coordinates, so each coordinate runs its own MALA
    chain (accept/reject per coordinate), each reversible with respect to ``p_β``;
    if ``z ~ p_β`` then the returned array is ``p_β``-distributed exactly.
    """
    scale = generalized_normal_scale(beta)
    steps = max(1, math.ceil(check_positive(tau, "time tau") / check_positive(max_step, "MALA step") - 1e-9))
    step = tau / steps
    current = np.array(z, dtype=np.float64)
    log_p = _log_density(current, beta, scale)
    drift = _score(current, beta, scale)
    for _ in range(steps):
        proposal = current + step * drift + math.sqrt(2.0 * step) * rng.standard_normal(current.shape)
        log_p_new = _log_density(proposal, beta, scale)
        drift_new = _score(proposal, beta, scale)
        forward = -((proposal - current - step * drift) ** 2) / (4.0 * step)
        backward = -((current - proposal - step * drift_new) ** 2) / (4.0 * step)
        with np.errstate(invalid="ignore"):
            log_accept = log_p_new + backward - log_p - forward
        accept = np.log(rng.random(current.shape)) < np.nan_to_num(log_accept, nan=-np.inf)
        current = np.where(accept, proposal, current)
        log_p = np.where(accept, log_p_new, log_p)
        drift = np.where(accept, drift_new, drift)
    return current


@dataclass(frozen=True)
class GeneralizedNormalWorld:
    """Independent unit-variance generalized-normal latents with a MALA or shortcut channel.

    ``tau`` is the Langevin time of the stationary channel; the shortcut uses
    ``ρ = exp(−τ)`` (the correlation of the Gaussian case at the same time).
    """

    n: int
    beta: float
    tau: float
    channel: str = "mala"
    mala_step: float = 0.01

    def __post_init__(self) -> None:
        check_positive_int(self.n, "n")
        generalized_normal_scale(self.beta)
        check_choice(self.channel, CHANNELS, "channel")
        check_rho(math.exp(-self.tau), "exp(-tau)")
        check_positive(self.mala_step, "mala_step")

    @property
    def rho(self) -> tuple[float, ...]:
        """Nominal per-coordinate correlation ``exp(−τ)`` (exact for the shortcut)."""
        return (math.exp(-self.tau),) * self.n

    def sample_numpy(self, num: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``num`` float64 pairs ``(z, z')`` drawn with a numpy generator."""
        z = sample_generalized_normal((num, self.n), self.beta, rng)
        if self.channel == "mala":
            return z, mala_move(z, self.beta, self.tau, self.mala_step, rng)
        rho = math.exp(-self.tau)
        eta = sample_generalized_normal((num, self.n), self.beta, rng)
        return z, rho * z + math.sqrt(1.0 - rho**2) * eta

    def sample_pairs(self, num: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """``num`` pairs as float32 tensors on the generator's device."""
        seed = int(torch.randint(0, 2**62, (1,), generator=generator, device=generator.device).item())
        pairs = self.sample_numpy(num, np.random.default_rng(seed))  # a numpy seed drawn from the generator
        return tuple(torch.as_tensor(v, dtype=torch.float32, device=generator.device) for v in pairs)


World = GaussianWorld | GeneralizedNormalWorld


WORLD_KINDS = {"gaussian": GaussianWorld, "gennorm": GeneralizedNormalWorld}
_KIND = re.compile(r"^[a-z][a-z0-9_]*$")


def register_world(kind: str, world_class: type) -> None:
    """Let runs store and rebuild worlds of ``world_class`` under ``kind`` (``spec.json``'s ``{"kind": ...}``).

    ``world_class`` must be a frozen dataclass with ``n``, ``rho`` (one
    correlation per coordinate, for T3's quantities) and
    ``sample_pairs(num, generator)``; ``ValueError`` says which is missing, or
    that ``kind`` is taken by another class.
    """
    if not isinstance(kind, str) or not _KIND.match(kind):
        raise ValueError(f"world kind {kind!r} must be lower-case letters, digits and underscores")
    if not (dataclasses.is_dataclass(world_class) and world_class.__dataclass_params__.frozen):
        raise ValueError(f"world class {world_class!r} must be a frozen dataclass (its fields are stored)")
    missing = [member for member in ("n", "rho", "sample_pairs")
               if not hasattr(world_class, member) and member not in {f.name for f in dataclasses.fields(world_class)}]
    if missing:
        raise ValueError(f"world class {world_class.__name__} lacks {', '.join(missing)}")
    if WORLD_KINDS.get(kind, world_class) is not world_class:
        raise ValueError(f"world kind {kind!r} is already registered ({WORLD_KINDS[kind].__name__})")
    WORLD_KINDS[kind] = world_class


def world_to_dict(world: World) -> dict[str, Any]:
    """Plain-dict form of a world (what a run's ``spec.json`` stores); inverse of :func:`world_from_dict`."""
    kind = next(kind for kind, cls in WORLD_KINDS.items() if isinstance(world, cls))
    return {"kind": kind, **asdict(world)}


def world_from_dict(data: Mapping[str, Any]) -> World:
    """The world described by ``data`` (built by its constructor, so every value is validated)."""
    fields = dict(read(dict[str, Any], data, "world"))
    kind = fields.pop("kind", None)
    if not isinstance(kind, str) or kind not in WORLD_KINDS:
        raise ValueError(f"unknown world kind {kind!r}; expected 'gaussian' or 'gennorm'")
    return read(WORLD_KINDS[kind], fields, f"{kind} world")
