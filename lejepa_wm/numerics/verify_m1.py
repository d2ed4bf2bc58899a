"""Checks of M1 (output dimension ``m != n``): the whitened optimum selects the top-``m`` Mehler eigenvalues.

For isotropic ``rho`` the Mehler eigenvalues are ``rho`` (multiplicity ``n``,
degree 1), ``rho^2`` (multiplicity ``n(n+1)/2``, degree 2), ... With the loss
matrix over Hermite features of degree ``1..3`` from exact quadrature, the
whitened minimizers of ``tr(C M C^T)`` with ``C C^T = I_m`` are found by
Stiefel descent from random starts (and the value by Ky Fan). Expected:

- ``m < n``: ``L = 2m(1 - rho)``, no energy above degree 1 and ``W W^T = I_m``
  for the ``m x n`` linear block ``W`` (a partial rotation);
- ``n < m <= n + n(n+1)/2``: ``L = 2n(1 - rho) + 2(m - n)(1 - rho^2)``, the degree-1
  part spans all of degree 1 (``W^T W = I_n``, so the linear probe of ``z``
  from ``h`` has ``R^2 = 1``), degree-2 energy ``m - n`` and nothing above.
The probe ``R^2`` is also measured by least squares on samples of ``z``.
"""

from __future__ import annotations

import numpy as np

from lejepa_wm.numerics.check_rows import at_least, at_most, worst
from lejepa_wm.numerics.hermite import hermite_features, multi_indices
from lejepa_wm.numerics.spectral import hermite_quadratic_forms, ky_fan_minimum, stiefel_descent
from lejepa_wm.records import CheckResult

__all__ = ["expected_minimum", "probe_r2", "m1_measurements", "run_checks"]

_CLAIM = "M1"
_SEED = 20260604
_MAX_DEGREE = 3
_RHOS = (0.3, 0.6, 0.9)
_STARTS = 4
_PROBE_SAMPLES = 5000


def expected_minimum(n: int, m: int, rho: float) -> float:
    """``2 sum`` over the ``m`` smallest values of ``1 - rho^d`` counted with multiplicity (degrees 1, 2), for
    ``m <= n + n(n+1)/2`` (beyond, degree-3 features would enter)."""
    return 2.0 * min(m, n) * (1.0 - rho) + 2.0 * max(m - n, 0) * (1.0 - rho * rho)


def probe_r2(coefficients: np.ndarray, alphas: np.ndarray, samples: int, seed: int) -> float:
    """Smallest ``R^2`` of least-squares linear probes of each ``z_i`` from ``h(z) = C Phi(z)`` on samples."""
    z = np.random.default_rng(seed).standard_normal((samples, alphas.shape[1]))
    h = hermite_features(alphas, z) @ coefficients.T
    design = np.hstack([np.ones((samples, 1)), h])
    solution, *_ = np.linalg.lstsq(design, z, rcond=None)
    residual = z - design @ solution
    return float((1.0 - residual.var(axis=0) / z.var(axis=0)).min())


def m1_measurements(seed: int = _SEED) -> dict[str, dict[str, float]]:
    """Per ``(n, m, rho)``: value errors, degree energies, orthogonality defects and probe ``R^2``."""
    out: dict[str, dict[str, float]] = {}
    for n in (2, 3):
        alphas = multi_indices(n, _MAX_DEGREE, min_degree=1)
        degrees = alphas.sum(axis=1)
        for m in [*range(1, n), n + 1, n + 2, n + n * (n + 1) // 2]:
            for rho in _RHOS:
                loss_matrix = hermite_quadratic_forms(np.full(n, rho), alphas).loss[0]
                target = expected_minimum(n, m, rho)
                descent = stiefel_descent(loss_matrix, m, _STARTS, seed + 7 * m + n)
                frames = np.swapaxes(descent.frames, 1, 2)  # (starts, m, K)
                linear = frames[:, :, :n]
                entry = {
                    "ky_fan_error": abs(ky_fan_minimum(loss_matrix, m).value - target),
                    "descent_error": float(np.abs(descent.values - target).max()),
                    "degree1_energy_error": float(np.abs(np.sum(linear**2, axis=(1, 2)) - min(m, n)).max()),
                    "degree2_energy_error": float(np.abs(
                        np.sum(frames[:, :, degrees == 2] ** 2, axis=(1, 2)) - max(m - n, 0)).max()),
                    "degree3_energy": float(np.sum(frames[:, :, degrees == 3] ** 2, axis=(1, 2)).max()),
                }
                if m < n:
                    entry["partial_rotation_defect"] = float(np.abs(
                        linear @ np.swapaxes(linear, 1, 2) - np.eye(m)).max())
                else:
                    entry["min_exact_probe_r2"] = float(np.min(np.sum(linear**2, axis=1)))
                    entry["min_sampled_probe_r2"] = probe_r2(frames[0], alphas, _PROBE_SAMPLES, seed)
                out[f"n={n},m={m},rho={rho}"] = entry
    return out


def run_checks() -> list[CheckResult]:
    """Rows of the M1 claim."""
    table = m1_measurements()
    return [
        at_most(_CLAIM, "top_m_minimum", "max |min L - top-m spectral value| (Ky Fan and descent)",
                worst(table, "ky_fan_error", "descent_error"), 1e-9, table),
        at_most(_CLAIM, "degree_content", "max error of degree-1/2/3 energies vs min(m,n), m-n, 0",
                worst(table, "degree1_energy_error", "degree2_energy_error", "degree3_energy"), 1e-9),
        at_most(_CLAIM, "m_less_than_n_partial_rotation", "max |W W^T - I_m| of the linear block, m < n",
                worst(table, "partial_rotation_defect"), 1e-9),
        at_least(_CLAIM, "m_greater_than_n_probe_exact", "min linear-probe R^2 (exact), m > n",
                 worst(table, "min_exact_probe_r2", pick=min), 1.0 - 1e-9),
        at_least(_CLAIM, "m_greater_than_n_probe_sampled", f"min linear-probe R^2 on {_PROBE_SAMPLES} samples, m > n",
                 worst(table, "min_sampled_probe_r2", pick=min), 1.0 - 1e-9),
    ]
