"""Checks of the Hermite basis: orthonormality, agreement with NumPy, Parseval (completeness).

- Orthonormality of ``H_0..H_30`` under ``gamma_1`` by the 31-point
  Gauss–Hermite rule (exact for degree 61 >= 60).
- ``H_k`` agrees with ``numpy.polynomial.hermite_e.hermeval / sqrt(k!)``.
- Parseval for random polynomials ``h : R^n -> R^2`` (``n = 1, 2, 3``, degree
  4): the degree energies sum to ``E||h||^2`` computed independently from the
  Gaussian moments ``E z^k = (k - 1)!!``.
- Completeness for non-polynomial ``h`` (tanh, |z|, sign, sin): the Parseval
  deficit above degree ``D`` is never negative (Bessel), never increases, and
  goes to 0 at the rate of the known coefficient decay (``D^{-1/2}`` for the
  jump of sign, ``D^{-3/2}`` for the kink of ``|z|``, faster than any power for
  tanh and sin); ``E||h||^2`` matches its closed form.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial.hermite_e import hermeval

from lejepa_wm.numerics.check_rows import at_most
from lejepa_wm.numerics.degree_projection import project_onto_degrees
from lejepa_wm.numerics.gaussian_quadrature import gauss_hermite_rule, split_legendre_rule
from lejepa_wm.numerics.hermite import hermite_values, multi_indices
from lejepa_wm.records import CheckResult

__all__ = ["orthonormality_error", "polynomial_parseval_error", "nonpolynomial_convergence", "run_checks"]

_CLAIM = "HERMITE"
_SEED = 20260529


def orthonormality_error(max_degree: int) -> float:
    """``max |E[H_a H_b] - delta_ab|`` over ``a, b <= max_degree`` (Gauss–Hermite, exact rule)."""
    rule = gauss_hermite_rule(max_degree + 1)
    values = hermite_values(max_degree, rule.nodes)
    return float(np.abs((values * rule.weights) @ values.T - np.eye(max_degree + 1)).max())


def _numpy_agreement_error(max_degree: int, points: np.ndarray) -> float:
    """Largest ``|H_k(x) - He_k(x)/sqrt(k!)| / max(1, |H_k(x)|)`` against NumPy's Clenshaw evaluation."""
    ours = hermite_values(max_degree, points)
    reference = np.array([hermeval(points, np.eye(max_degree + 1)[k]) / math.sqrt(math.factorial(k))
                          for k in range(max_degree + 1)])
    return float(np.max(np.abs(ours - reference) / np.maximum(1.0, np.abs(reference))))


def polynomial_parseval_error(n: int, degree: int, outputs: int, rng: np.random.Generator) -> float:
    """``|sum_d ||h_d||^2 - E||h||^2|`` for a random polynomial in the monomial basis.

    ``E||h||^2`` comes from exact Gaussian monomial moments, the energies from
    the degree projection on the Gauss–Hermite grid (exact for this degree).
    """
    exponents = multi_indices(n, degree)
    coeffs = rng.standard_normal((exponents.shape[0], outputs)) / math.sqrt(exponents.shape[0])

    def h(z: np.ndarray) -> np.ndarray:
        monomials = np.prod(z[:, None, :] ** exponents[None, :, :], axis=2)
        return monomials @ coeffs

    power = exponents[:, None, :] + exponents[None, :, :]
    # E z^k for z ~ N(0, 1), k = 0..max power: (k - 1)!! for even k, else 0
    moment = np.array([0 if k % 2 else math.prod(range(k - 1, 0, -2)) for k in range(power.max() + 1)], dtype=float)
    pair_moments = np.prod(moment[power], axis=2)
    exact = float(np.trace(coeffs.T @ pair_moments @ coeffs))
    projection = project_onto_degrees(h, n, 2 * degree, gauss_hermite_rule(2 * degree + 1))
    above = float(projection.energies[degree + 1:].sum())
    return max(abs(float(projection.energies.sum()) - exact), above)


_NONPOLYNOMIAL = {
    # name: (function, closed-form E h^2, expected deficit decay exponent or None for super-algebraic)
    "sign": (np.sign, 1.0, 0.5),
    "abs": (np.abs, 1.0, 1.5),
    "tanh": (np.tanh, None, None),
    "sin": (np.sin, (1.0 - math.exp(-2.0)) / 2.0, None),
}


def nonpolynomial_convergence(max_degree: int = 200) -> dict[str, dict[str, float]]:
    """Parseval deficits of the 1-D test functions on a rule split at the kink 0."""
    rule = split_legendre_rule(max_degree)
    quarter = max_degree // 4
    report: dict[str, dict[str, float]] = {}
    for name, (function, exact_second_moment, _) in _NONPOLYNOMIAL.items():
        projection = project_onto_degrees(lambda z, f=function: f(z[:, 0]), 1, max_degree, rule)
        deficits = projection.parseval_deficits
        report[name] = {
            "second_moment_error": (abs(projection.second_moment - exact_second_moment)
                                    if exact_second_moment is not None else 0.0),
            "most_negative_deficit": float(min(deficits.min(), 0.0)),
            "largest_increase": float(max(np.diff(deficits).max(), 0.0)),
            "deficit_at_max_degree": float(deficits[-1]),
            "decay_exponent": float(-math.log(max(deficits[-1], 1e-300) / max(deficits[quarter], 1e-300))
                                    / math.log((max_degree + 1) / (quarter + 1))),
        }
    return report


def _multivariate_convergence() -> dict[str, dict[str, float]]:
    """Parseval deficits of non-polynomial functions of 2 and 3 variables (tensor rules).

    2-D: ``(sign(z1) tanh(z2), |z1 z2|)`` on the rule split at 0 up to degree 24;
    3-D: ``(tanh(z1 + z2 - z3), sin(z1) z2 z3)`` on Gauss–Hermite up to degree 20.
    """
    cases = {
        "2d_sign_tanh_abs": (lambda z: np.stack([np.sign(z[:, 0]) * np.tanh(z[:, 1]), np.abs(z[:, 0] * z[:, 1])],
                                                axis=1), 2, 24,
                             split_legendre_rule(24, points_per_panel=16, panel_width=2.0)),
        "3d_tanh_sin": (lambda z: np.stack([np.tanh(z[:, 0] + z[:, 1] - z[:, 2]), np.sin(z[:, 0]) * z[:, 1] * z[:, 2]],
                                           axis=1), 3, 20, gauss_hermite_rule(40)),
    }
    report: dict[str, dict[str, float]] = {}
    for name, (function, n, max_degree, rule) in cases.items():
        deficits = project_onto_degrees(function, n, max_degree, rule).parseval_deficits
        report[name] = {"most_negative_deficit": float(min(deficits.min(), 0.0)),
                        "largest_increase": float(max(np.diff(deficits).max(), 0.0)),
                        "deficit_at_degree_1": float(deficits[1]), "deficit_at_max_degree": float(deficits[-1])}
    return report


def run_checks() -> list[CheckResult]:
    """Rows of the HERMITE claim."""
    rng = np.random.default_rng(_SEED)
    rows = [at_most(_CLAIM, "orthonormal_deg30", "max |E[H_a H_b] - delta_ab|, a,b <= 30",
                    orthonormality_error(30), 1e-12),
            at_most(_CLAIM, "matches_numpy_hermite_e", "max rel. diff vs hermeval/sqrt(k!), k <= 30",
                    _numpy_agreement_error(30, rng.uniform(-8.0, 8.0, 200)), 1e-10)]
    parseval = {f"n={n}": polynomial_parseval_error(n, 4, 2, rng) for n in (1, 2, 3)}
    rows.append(at_most(_CLAIM, "parseval_polynomials", "max |sum_d ||h_d||^2 - E||h||^2|, deg-4 polys, n<=3",
                        max(parseval.values()), 1e-10, parseval))
    report = nonpolynomial_convergence()
    rate_ok = all(abs(report[name]["decay_exponent"] - exponent) <= 0.1
                  for name, (_, _, exponent) in _NONPOLYNOMIAL.items() if exponent is not None)
    fast_ok = report["sin"]["deficit_at_max_degree"] <= 1e-13 and report["tanh"]["deficit_at_max_degree"] <= 1e-12
    moments_ok = max(r["second_moment_error"] for r in report.values()) <= 1e-12
    bessel_ok = all(r["most_negative_deficit"] >= -1e-13 and r["largest_increase"] <= 1e-13 for r in report.values())
    rows.append(CheckResult.logical(
        _CLAIM, "parseval_nonpolynomial",
        f"deficit@200 sign {report['sign']['deficit_at_max_degree']:.1e} (rate {report['sign']['decay_exponent']:.2f}),"
        f" abs {report['abs']['deficit_at_max_degree']:.1e} ({report['abs']['decay_exponent']:.2f})",
        bessel_ok and rate_ok and fast_ok and moments_ok,
        "Bessel (deficit never negative, never increasing), decay rates 0.5 / 1.5 within 0.1, tanh and sin "
        "deficits -> 0, second moments exact", details=report))
    multi = _multivariate_convergence()
    shrink = max(r["deficit_at_max_degree"] / r["deficit_at_degree_1"] for r in multi.values())
    multi_ok = all(r["most_negative_deficit"] >= -1e-12 and r["largest_increase"] <= 1e-12 for r in multi.values())
    rows.append(CheckResult.logical(
        _CLAIM, "parseval_multivariate", f"n=2,3 non-polynomial: deficit(D)/deficit(1) <= {shrink:.2g}",
        multi_ok and shrink <= 0.2, "Bessel (deficit never negative, never increasing) and max deficit(D)/deficit(1) "
        "<= 0.2", shrink, multi, "max deficit(D)/deficit(1)"))
    return rows
