"""Checks of T1: whitened ``h : R^n -> R^n`` have ``L(h) >= 2n(1 - rho)``, with equality iff ``h = Qz``.

Encoders are ``h = C Phi`` over all Hermite features of degree ``1..4`` in
``n = 1..4`` variables. The loss matrix ``M`` and the Gram matrix ``G`` come
from exact quadrature of the OU pair (:func:`hermite_quadratic_forms`); since
``G = I`` (checked), whitening is ``C C^T = I_n``, and the minimum of
``tr(C M C^T)`` is found two independent ways:

- Ky Fan: the sum of the ``n`` smallest eigenvalues of ``M`` (``scipy.linalg.eigh``);
- Riemannian gradient descent on the Stiefel manifold from random starts.

Every minimizer must have no energy above degree 1 and an orthogonal
degree-1 block; random whitened nonlinear encoders must lose strictly more
(by at least ``2 rho (1 - rho)`` times their nonlinear energy, the T3(a) margin).
"""

from __future__ import annotations

import functools

import numpy as np

from lejepa_wm.numerics.check_rows import at_least, at_most, keep_worst
from lejepa_wm.numerics.hermite import multi_indices
from lejepa_wm.numerics.procrustes import whitening_defect
from lejepa_wm.numerics.spectral import ky_fan_minimum, random_frames, stiefel_descent, hermite_quadratic_forms
from lejepa_wm.records import CheckResult

__all__ = ["t1_measurements", "run_checks"]

_CLAIM = "T1"
_SEED = 20260531
_DIMENSIONS = (1, 2, 3, 4)
_MAX_DEGREE = 4
_RHOS = (0.1, 0.5, 0.9)
_DESCENT_STARTS = 6
_RANDOM_ENCODERS = 2000


def t1_measurements(dimensions: tuple[int, ...] = _DIMENSIONS, rhos: tuple[float, ...] = _RHOS,
                    max_degree: int = _MAX_DEGREE, starts: int = _DESCENT_STARTS,
                    random_encoders: int = _RANDOM_ENCODERS, seed: int = _SEED) -> dict[str, float]:
    """Worst-case errors over every ``(n, rho)``; see the module docstring for what each one is."""
    worst = {"gram_error": 0.0, "ky_fan_error": 0.0, "ky_fan_nonlinear": 0.0, "ky_fan_orthogonality": 0.0,
             "descent_error": 0.0, "descent_nonlinear": 0.0, "descent_orthogonality": 0.0,
             "smallest_gap": np.inf, "smallest_random_excess": np.inf, "smallest_margin_over_t3a": np.inf,
             "descent_distinct_rotations": np.inf}
    track = functools.partial(keep_worst, worst)
    rng = np.random.default_rng(seed)
    for n in dimensions:
        alphas = multi_indices(n, max_degree, min_degree=1)  # first n rows: the linear features
        for rho in rhos:
            forms = hermite_quadratic_forms(np.full(n, rho), alphas)
            loss_matrix, target = forms.loss[0], 2.0 * n * (1.0 - rho)
            track("gram_error", np.abs(forms.gram[0] - np.eye(len(alphas))).max())
            solution = ky_fan_minimum(loss_matrix, n)
            descent = stiefel_descent(loss_matrix, n, starts, seed=int(rng.integers(2**31)))
            for key, frame, values in (("ky_fan", solution.frame[None], np.array([solution.value])),
                                       ("descent", descent.frames, descent.values)):
                track(f"{key}_error", np.abs(values - target).max())
                track(f"{key}_nonlinear", np.sum(frame[:, n:, :] ** 2, axis=(1, 2)).max())
                linear = np.swapaxes(frame[:, :n, :], 1, 2)  # (starts, n outputs, n linear features)
                track(f"{key}_orthogonality", whitening_defect(linear).max())
            if n > 1:
                linear = np.swapaxes(descent.frames[:, :n, :], 1, 2)
                spread = np.linalg.norm(linear[:, None] - linear[None, :], axis=(2, 3))
                track("descent_distinct_rotations", spread[np.triu_indices(starts, 1)].min(), min)
            track("smallest_gap", solution.gap, min)
            random_coefficients = np.swapaxes(random_frames(rng, random_encoders, len(alphas), n), 1, 2)
            random_losses = np.einsum("bik,kl,bil->b", random_coefficients, loss_matrix, random_coefficients)
            nonlinear = np.sum(random_coefficients[:, :, n:] ** 2, axis=(1, 2))
            track("smallest_random_excess", (random_losses - target).min(), min)
            margin = random_losses - target - 2.0 * rho * (1.0 - rho) * nonlinear
            track("smallest_margin_over_t3a", margin.min(), min)
    return {key: float(value) for key, value in worst.items()}


def run_checks() -> list[CheckResult]:
    """Rows of the T1 claim."""
    m = t1_measurements()
    rows = [
        (at_most, "whitened_features", "max |E[Phi Phi^T] - I| (so whitened <=> C C^T = I)", m["gram_error"], 1e-12),
        (at_most, "ky_fan_minimum", "Ky Fan: max |min L - 2n(1-rho)|, n <= 4, deg <= 4", m["ky_fan_error"], 1e-9),
        (at_most, "ky_fan_minimizer_linear_orthogonal", "Ky Fan minimizer: max(E_nonlin, ||AA^T - I||_F)",
         max(m["ky_fan_nonlinear"], m["ky_fan_orthogonality"]), 1e-9),
        (at_most, "descent_minimum", "Stiefel descent: max |L - 2n(1-rho)|", m["descent_error"], 1e-9),
        (at_most, "descent_minimizers_linear_orthogonal", "descent minimizers: max(E_nonlin, ||AA^T - I||_F)",
         max(m["descent_nonlinear"], m["descent_orthogonality"]), 1e-9),
        (at_least, "random_nonlinear_strictly_worse", "random whitened h: min (L - 2n(1-rho))",
         m["smallest_random_excess"], 1e-12),
        (at_least, "random_excess_above_t3a_margin", "random whitened h: min(L - 2n(1-rho) - 2rho(1-rho)E_nl)",
         m["smallest_margin_over_t3a"], -1e-12),
        (at_least, "unique_up_to_rotation", "smallest spectral gap lambda_{n+1} - lambda_n (= 2rho(1-rho))",
         m["smallest_gap"], 0.9 * 2 * min(r * (1 - r) for r in _RHOS)),
    ]
    return [make(_CLAIM, name, what, value, limit, m) for make, name, what, value, limit in rows]
