"""T3's bound, in one place: ``D = δ / (2ρ(1−ρ))`` and ``min_Q E‖h − Qz‖² ≤ D + (ε + D)²``.

THEORY.md, T3: for ``m = n``, ``E h = 0`` and one correlation ``ρ ∈ (0, 1)`` on
every coordinate, with alignment gap ``δ = L(h) − 2(1−ρ) E‖h‖²`` and whitening
error ``ε = ‖Cov h − I‖_F``, the nonlinear energy ``Σ_{d≥2} ‖h_d‖²`` is at most
``D = δ / (2ρ(1−ρ))`` (``ρ − ρ²`` is the spectral gap between Hermite degrees 1
and 2) and the distance to the nearest rotation is at most ``D + (ε + D)²``.

The theorem is stated for an isotropic channel; :func:`isotropic_rho` returns
the common ``ρ`` of a per-coordinate vector and refuses an anisotropic one
instead of inventing a mean ``ρ`` the theorem does not define. Everything here
is elementwise NumPy arithmetic (exact to rounding); both the numerical checks
(:mod:`lejepa_wm.numerics.verify_t3`) and the experiments
(:mod:`lejepa_wm.experiments.metrics`) call it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lejepa_wm.validation import check_rho

__all__ = ["isotropic_rho", "nonlinear_energy_bound", "error_bound"]


def isotropic_rho(rho: ArrayLike) -> float:
    """The common value of a per-coordinate ``ρ`` vector; ``ValueError`` if its entries differ."""
    values = np.atleast_1d(np.asarray(rho, dtype=float))
    if values.size == 0:
        raise ValueError("rho must have at least one entry")
    for value in values:
        check_rho(value)
    if np.any(values != values[0]):
        raise ValueError(f"T3 is stated for one correlation on every coordinate; got per-coordinate rho "
                         f"{values.tolist()}")
    return float(values[0])


def nonlinear_energy_bound(delta: ArrayLike, rho: ArrayLike) -> NDArray[np.float64]:
    """``D = δ / (2ρ(1−ρ))`` (elementwise)."""
    rho = np.asarray(rho, dtype=float)
    return np.asarray(delta, dtype=float) / (2.0 * rho * (1.0 - rho))


def error_bound(delta: ArrayLike, eps: ArrayLike, rho: ArrayLike) -> NDArray[np.float64]:
    """T3 (b): ``D + (ε + D)²`` with ``D`` from :func:`nonlinear_energy_bound` (elementwise)."""
    d_value = nonlinear_energy_bound(delta, rho)
    return d_value + (np.asarray(eps, dtype=float) + d_value) ** 2
