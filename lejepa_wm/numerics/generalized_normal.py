"""Unit-variance generalized normal densities ``p_beta(z) ∝ exp(-|z/s|^beta)``.

For shape ``beta > 0`` the density is

    p_beta(z) = beta / (2 s Gamma(1/beta)) * exp(-|z/s|^beta),

with absolute moments ``E|z|^k = s^k Gamma((k+1)/beta) / Gamma(1/beta)``, so the
scale that gives unit variance is ``s(beta) = sqrt(Gamma(1/beta) / Gamma(3/beta))``.
``beta = 2`` is the standard Gaussian (``s = sqrt(2)``), ``beta = 1`` the Laplace
density (``s = 1/sqrt(2)``), and ``beta -> infinity`` the uniform density on
``[-sqrt(3), sqrt(3)]``.

The score (derivative of the log-density) is
``(log p)'(z) = -beta sign(z) |z|^(beta-1) / s^beta``; it drives the Langevin
dynamics ``dz = (log p)'(z) dt + sqrt(2) dW`` of THEORY.md, T2.

The essential spectrum of the Langevin generator ``f'' + (log p)' f'`` on
``L2(p)`` is read off the Schrödinger potential ``W = (V')^2/4 + V''/2``
(``V = log p``) at infinity: empty for ``beta > 1`` (``W -> infinity``), starting
at ``1/(4 s^2)`` for ``beta = 1`` (``W -> 1/(4 s^2)``) and at 0 for
``beta < 1`` (``W -> 0``). See :func:`essential_spectrum_threshold`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import gammaln

__all__ = ["UNIFORM_HALF_WIDTH", "unit_variance_scale", "log_density", "score", "score_derivative",
           "essential_spectrum_threshold"]

UNIFORM_HALF_WIDTH = math.sqrt(3.0)
"""Half-width ``a`` of the unit-variance uniform density on ``[-a, a]`` (the ``beta -> inf`` limit)."""


def unit_variance_scale(beta: float) -> float:
    """Scale ``s(beta) = sqrt(Gamma(1/beta) / Gamma(3/beta))`` of unit variance (via log-gamma, rel. error ~1e-15)."""
    return math.exp(0.5 * (gammaln(1.0 / beta) - gammaln(3.0 / beta)))


def log_density(z: ArrayLike, beta: float) -> NDArray[np.float64]:
    """``log p_beta(z) = log(beta / (2 s Gamma(1/beta))) - |z/s|^beta`` of the unit-variance density."""
    s = unit_variance_scale(beta)
    return math.log(beta / (2.0 * s)) - float(gammaln(1.0 / beta)) - np.abs(np.asarray(z, dtype=float) / s) ** beta


def score(z: ArrayLike, beta: float) -> NDArray[np.float64]:
    """``(log p_beta)'(z) = -beta sign(z) |z|^(beta-1) / s^beta`` (0 at ``z = 0`` when ``beta > 1``)."""
    s = unit_variance_scale(beta)
    x = np.asarray(z, dtype=float) / s
    return -beta * np.sign(x) * np.abs(x) ** (beta - 1.0) / s


def score_derivative(z: ArrayLike, beta: float) -> NDArray[np.float64]:
    """``(log p_beta)''(z) = -beta (beta-1) |z/s|^(beta-2) / s^2`` for ``z != 0`` (singular at 0 when ``beta < 2``)."""
    s = unit_variance_scale(beta)
    x = np.abs(np.asarray(z, dtype=float) / s)
    if beta == 1.0:
        return np.zeros_like(x)
    with np.errstate(divide="ignore"):
        return -beta * (beta - 1.0) * x ** (beta - 2.0) / s**2


def essential_spectrum_threshold(beta: float) -> float:
    """Bottom of the essential spectrum of ``-(f'' + (log p_beta)' f')`` on ``L2(p_beta)``.

    ``inf`` for ``beta > 1`` (purely discrete spectrum), ``1/(4 s^2)`` for the
    Laplace density ``beta = 1`` (0.5 at unit variance) and ``0`` for ``beta < 1``.
    """
    if beta > 1.0:
        return math.inf
    if beta == 1.0:
        return 1.0 / (4.0 * unit_variance_scale(beta) ** 2)
    return 0.0
