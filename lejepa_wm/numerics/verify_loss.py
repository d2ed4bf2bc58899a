"""Check of the closed-form loss ``L(h) = E||h(z') - h(z)||^2 = 2 sum_{d>=1} (1 - rho^d) ||h_d||^2``.

Both sides are computed independently:

- *direct*: the expectation over the OU pair. In 1-D by the polar rule split
  on the lines ``z = 0`` and ``z' = 0`` (:func:`polar_pair_rule`), so the
  non-smooth test functions (sign, |z|, ReLU) are integrated to ~1e-14; in
  2-D by the tensor Gauss–Hermite rule of the pair (smooth test functions).
- *spectral*: the degree energies ``||h_d||^2`` up to ``D`` by the degree
  projection, plus the energy above ``D`` (the Parseval deficit). Since
  ``1 - rho^d`` lies in ``[1 - rho^{D+1}, 1]`` for ``d > D``, this closes the sum
  with a truncation error of at most ``2 rho^{D+1} deficit`` (reported).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from lejepa_wm.numerics.check_rows import at_most
from lejepa_wm.numerics.degree_projection import Encoder, HermiteProjection, project_onto_degrees
from lejepa_wm.numerics.gaussian_quadrature import (gauss_hermite_rule, ou_pair_rule, polar_pair_rule,
                                                    split_legendre_rule)
from lejepa_wm.numerics.spectral import closed_form_loss
from lejepa_wm.records import CheckResult

__all__ = ["spectral_loss", "direct_loss", "loss_discrepancies", "run_checks"]

_CLAIM = "LOSS"
_RHOS = (0.2, 0.5, 0.8)
_MAX_DEGREE_1D = 200
_MAX_DEGREE_2D = 100

_ONE_D: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "sign": np.sign,
    "abs": np.abs,
    "relu": lambda x: np.maximum(x, 0.0),
    "tanh": np.tanh,
    "sin_2z": lambda x: np.sin(2.0 * x),
    "vector_tanh_abs_sign": lambda x: np.stack([np.tanh(x), np.abs(x), np.sign(x)], axis=-1),
}

_TWO_D: dict[str, Encoder] = {
    "sin_z1_plus_2z2": lambda z: np.sin(z[:, 0] + 2.0 * z[:, 1]),
    "vector_z1cos_z2_gauss_bump": lambda z: np.stack(
        [z[:, 0] * np.cos(z[:, 1]), np.exp(-0.25 * (z[:, 0] ** 2 + z[:, 1] ** 2)), z[:, 0] ** 2 * z[:, 1]], axis=-1),
}


def spectral_loss(projection: HermiteProjection, rho: float) -> tuple[float, float]:
    """``2 sum_{d=1}^{D} (1 - rho^d) ||h_d||^2 + 2 deficit_D`` and its truncation error bound."""
    deficit = float(projection.parseval_deficits[-1])
    value = closed_form_loss(projection.energies, rho) + 2.0 * deficit
    return value, 2.0 * rho ** projection.energies.size * abs(deficit)  # energies has D + 1 entries


def direct_loss(function: Encoder, z: np.ndarray, z_prime: np.ndarray, weights: np.ndarray) -> float:
    """``E||h(z') - h(z)||^2`` by a rule of the OU pair with these nodes and weights: the split polar rule
    (:func:`polar_pair_rule`) for ``h`` smooth except at 0, the tensor Gauss–Hermite rule of the ``n``-dimensional
    pair (:func:`ou_pair_rule`) for smooth ``h``."""
    difference = np.asarray(function(z_prime) - function(z)).reshape(z.shape[0], -1)
    return float(weights @ np.sum(difference**2, axis=1))


def loss_discrepancies() -> dict[str, dict[str, float]]:
    """``|direct - spectral|`` for every test function and ``rho``, with the truncation bounds."""
    rule_1d, rule_2d = split_legendre_rule(_MAX_DEGREE_1D), gauss_hermite_rule(_MAX_DEGREE_2D + 1)
    cases = [(name, lambda z, f=function: f(z[:, 0]), 1, _MAX_DEGREE_1D, rule_1d,
              lambda rho, f=function: direct_loss(f, *polar_pair_rule(rho))) for name, function in _ONE_D.items()]
    cases += [(name, function, 2, _MAX_DEGREE_2D, rule_2d, lambda rho, f=function: direct_loss(
        f, *ou_pair_rule(np.full(2, rho), 30))) for name, function in _TWO_D.items()]
    out: dict[str, dict[str, float]] = {}
    for name, function, n, max_degree, rule, direct_at in cases:
        projection = project_onto_degrees(function, n, max_degree, rule)
        for rho in _RHOS:
            spectral, truncation = spectral_loss(projection, rho)
            direct = direct_at(rho)
            out[f"{name}@rho={rho}"] = {"direct": direct, "spectral": spectral, "truncation_bound": truncation,
                                        "difference": abs(direct - spectral)}
    return out


def run_checks() -> list[CheckResult]:
    """Rows of the LOSS claim."""
    table = loss_discrepancies()
    worst = max(entry["difference"] + entry["truncation_bound"] for entry in table.values())
    return [at_most(_CLAIM, "closed_form_vs_direct",
                    f"max |direct - closed form|, {len(_ONE_D) + len(_TWO_D)} functions x {len(_RHOS)} rho",
                    worst, 1e-8, table)]
