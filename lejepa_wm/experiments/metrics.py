"""Held-out evaluation of learned embeddings against the true latents.

All functions take ``(samples, dim)`` arrays (numpy or torch; converted to
float64 numpy) and return float64 numpy values. They measure what THEORY.md
predicts: linear decodability of ``z`` from ``h`` (probe R²), closeness of
``h`` to an orthogonal image ``Q z`` (Procrustes error), and T3's alignment
gap ``delta``, whitening error ``eps``, nonlinear-energy bound ``D`` and the
error bound ``D + (eps + D)^2``.

Every quantity is a sample estimate: fit a probe on one sample and score it
on another so that R² is not inflated by overfitting; the T3 quantities
have sampling error of order ``sqrt(n / N)`` (``delta`` may come out slightly
negative for an exactly linear encoder).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg

from lejepa_wm.numerics.procrustes import polar_factor, whitening_defect
from lejepa_wm.numerics.t3 import error_bound, isotropic_rho, nonlinear_energy_bound

__all__ = [
    "linear_probe_r2", "procrustes_error", "ProcrustesFit", "orthogonality_error", "alignment_terms",
    "t3_from_samples"
]


def _as_float64(array: Any, name: str) -> np.ndarray:
    """``array`` (numpy or torch) as a finite float64 ``(samples, dim)`` numpy array, else ``ValueError``."""
    if hasattr(array, "detach"):
        array = array.detach().cpu().numpy()
    values = np.asarray(array, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] < 1 or values.shape[1] < 1:
        raise ValueError(f"{name} must have shape (samples, dim); got shape {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return values


def _paired(a: Any, b: Any, a_name: str, b_name: str) -> tuple[np.ndarray, np.ndarray]:
    """Both arrays through :func:`_as_float64`; ``ValueError`` unless they have the same number of samples."""
    a, b = _as_float64(a, a_name), _as_float64(b, b_name)
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"{a_name} and {b_name} must have the same number of samples; got {a.shape[0]} and "
                         f"{b.shape[0]}")
    return a, b


_NORMAL_EQUATIONS_MAX_CONDITION = 1e6
"""Largest ratio of Cholesky diagonal entries (about √cond(DᵀD) = cond(D)) for the normal equations."""


def _least_squares(design: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``argmin_W ||design W − target||²``, by the normal equations when they are well conditioned.

    The normal equations ``(DᵀD) W = Dᵀ target`` with a Cholesky solve cost one
    ``D``-sized product (5× faster than ``lstsq``'s orthogonal factorization at
    8192 × 1025); they square the condition number, so when the Cholesky
    diagonal spans more than :data:`_NORMAL_EQUATIONS_MAX_CONDITION` (``cond(D) >
    1e6``, a relative error up to ``1e-4``) or the factorization fails, the
    least-norm solution of ``scipy.linalg.lstsq`` is used instead.
    """
    gram = design.T @ design
    try:
        factor, lower = scipy.linalg.cho_factor(gram, check_finite=False)
        diagonal = np.abs(np.diag(factor))
        if diagonal.min() > 0 and diagonal.max() / diagonal.min() <= _NORMAL_EQUATIONS_MAX_CONDITION:
            return scipy.linalg.cho_solve((factor, lower), design.T @ target, check_finite=False)
    except scipy.linalg.LinAlgError:
        pass
    coef, *_ = scipy.linalg.lstsq(design, target)
    return coef


def linear_probe_r2(h_fit: Any, z_fit: Any, h_eval: Any, z_eval: Any) -> tuple[float, np.ndarray]:
    """Held-out R² of the affine least-squares probe ``z ≈ W h + b``.

    ``W, b`` minimize the squared error on the fit sample; on the eval sample
    ``R²_j = 1 - SSE_j / SST_j`` per latent coordinate ``j`` (``SST_j`` about
    the eval sample's own mean) and the total ``1 - sum_j SSE_j / sum_j SST_j``.
    Returns ``(total, per_coordinate)``. R² can be negative for a probe worse
    than the constant. The fit sample must hold more rows than the probe has
    coefficients (dimension of ``h`` plus one), else ``ValueError``: an
    underdetermined probe interpolates the fit sample and its R² means nothing.
    """
    h_fit, z_fit = _paired(h_fit, z_fit, "h_fit", "z_fit")
    h_eval, z_eval = _paired(h_eval, z_eval, "h_eval", "z_eval")
    if h_fit.shape[1] != h_eval.shape[1] or z_fit.shape[1] != z_eval.shape[1]:
        raise ValueError(f"fit and eval dims differ: h {h_fit.shape[1]} vs {h_eval.shape[1]}, "
                         f"z {z_fit.shape[1]} vs {z_eval.shape[1]}")
    if z_eval.shape[0] < 2:
        raise ValueError(f"the eval sample needs at least 2 rows; got {z_eval.shape[0]}")
    if h_fit.shape[0] <= h_fit.shape[1] + 1:
        raise ValueError(f"the fit sample needs more rows than the probe's {h_fit.shape[1] + 1} coefficients "
                         f"(embedding dimension {h_fit.shape[1]} plus the intercept), or the probe is not "
                         f"determined by it; got {h_fit.shape[0]} rows")
    design = np.hstack([h_fit, np.ones((h_fit.shape[0], 1))])
    coef = _least_squares(design, z_fit)
    prediction = np.hstack([h_eval, np.ones((h_eval.shape[0], 1))]) @ coef
    sse = np.sum((z_eval - prediction) ** 2, axis=0)
    sst = np.sum((z_eval - z_eval.mean(axis=0)) ** 2, axis=0)
    if np.any(sst == 0.0):
        raise ValueError("z_eval has a constant coordinate; R² is undefined")
    return float(1.0 - sse.sum() / sst.sum()), 1.0 - sse / sst


def procrustes_error(h: Any, z: Any) -> tuple[float, np.ndarray]:
    """In-sample ``min_{Q in O(n)} mean_i ||h_i - mean(h) - Q (z_i - mean(z))||^2`` and the minimizing ``Q``.

    Both are centred with their own sample means. The minimizer is the polar factor of ``sum_i h_i z_i^T``
    (orthogonal Procrustes: :func:`lejepa_wm.numerics.procrustes.polar_factor`).
    Needs ``h`` and ``z`` of equal dimension. Held-out scores use :class:`ProcrustesFit`.
    """
    fit = ProcrustesFit.fit(h, z)
    return fit.error(h, z), fit.rotation


@dataclass(frozen=True)
class ProcrustesFit:
    """A rotation (and a best scalar) from latents to embeddings, fitted on one sample, scored on another.

    Both ``h`` and ``z`` are centred with their own sample means, on the fitting
    and on the scored sample alike (the theory's ``E h = 0`` and ``E z = 0``;
    leaving a sample mean in would add about ``n/N`` to every error). Fitted on
    ``(h, z)``: ``Q`` the polar factor of ``(h − mean h)ᵀ (z − mean z)`` (it minimizes
    ``Σ‖h_i − mean − Q z_i‖²``, and also ``Σ‖h_i − mean − c Q z_i‖²`` for every ``c > 0``), and ``scale = c`` the
    least-squares scalar ``Σσ_k / ‖z‖²_F`` for that ``Q``. Scores on another
    sample: :meth:`error`, the squared distance to the rotation (scale fixed at
    1: a shrunk embedding counts as far), and :meth:`scale_free_error`, the
    squared distance to ``c·Q z`` divided by the embedding's own second moment
    (0 for an exact scaled rotation, about 1 for an embedding unrelated to ``z``):
    collapse shows in ``scale`` and ``error``, distortion in ``scale_free_error``.
    """

    rotation: np.ndarray
    scale: float

    @classmethod
    def fit(cls, h: Any, z: Any) -> "ProcrustesFit":
        h, z = _paired(h, z, "h", "z")
        if h.shape[1] != z.shape[1]:
            raise ValueError(f"a Procrustes fit needs dim(h) == dim(z); got {h.shape[1]} and {z.shape[1]}")
        z = z - z.mean(axis=0)
        cross = (h - h.mean(axis=0)).T @ z
        rotation = polar_factor(cross)
        scale = float(np.sum(np.linalg.svd(cross, compute_uv=False)) / np.sum(z**2))
        return cls(rotation, scale)

    def _squares(self, h: Any, z: Any, scale: float) -> tuple[np.ndarray, np.ndarray]:
        """Per sample: ``||h_i − mean(h)||²`` and ``||h_i − mean(h) − scale · Q (z_i − mean(z))||²``."""
        h, z = _paired(h, z, "h", "z")
        centred = h - h.mean(axis=0)
        residual = centred - scale * (z - z.mean(axis=0)) @ self.rotation.T
        return np.sum(centred**2, axis=1), np.sum(residual**2, axis=1)

    def error(self, h: Any, z: Any) -> float:
        """``mean_i ||h_i − mean(h) − Q (z_i − mean(z))||²`` on the scored sample."""
        return float(np.mean(self._squares(h, z, 1.0)[1]))

    def error_standard_error(self, h: Any, z: Any) -> float:
        """Standard error of :meth:`error` as a sample mean: ``std_i ||residual_i||² / √N``.

        The centring means are treated as fixed (their own sampling error is of
        order ``n/N``, below this one's ``√(Var) /√N``).
        """
        terms = self._squares(h, z, 1.0)[1]
        return float(np.std(terms, ddof=1) / np.sqrt(len(terms))) if len(terms) > 1 else float("inf")

    def scale_free_error(self, h: Any, z: Any) -> float:
        """``mean_i ||h_i − mean(h) − c Q (z_i − mean(z))||² / mean_i ||h_i − mean(h)||²`` on the scored sample."""
        energies, terms = self._squares(h, z, self.scale)
        energy = float(np.mean(energies))
        return 1.0 if energy == 0.0 else float(np.mean(terms) / energy)


def orthogonality_error(a: Any) -> float:
    """``||A^T A - I||_F`` for a ``(m, n)`` matrix ``A`` (zero iff the columns are orthonormal)."""
    return float(whitening_defect(_as_float64(a, "A").T))


def alignment_terms(h: Any, h_pos: Any, rho: Any) -> tuple[float, float, float]:
    """``(s, loss, delta)`` of T3 on a sample of positive pairs (see :func:`t3_from_samples`); no rotation is fitted.

    ``s = mean ||h − mean(h)||²``, ``loss = mean ||h' − h||²`` and the alignment
    gap ``delta = loss − 2 (1 − rho) s``; ``rho`` as in :func:`t3_from_samples`.
    """
    rho = isotropic_rho(rho)
    h, h_pos = _as_float64(h, "h"), _as_float64(h_pos, "h_pos")
    if h.shape != h_pos.shape:
        raise ValueError(f"h and h_pos must have the same shape; got {h.shape} and {h_pos.shape}")
    mean = h.mean(axis=0)
    centred, centred_pos = h - mean, h_pos - mean
    s = float(np.mean(np.sum(centred**2, axis=1)))
    loss = float(np.mean(np.sum((centred_pos - centred) ** 2, axis=1)))
    return s, loss, loss - 2.0 * (1.0 - rho) * s


def t3_from_samples(h: Any, h_pos: Any, z: Any, rho: Any, rotation: ProcrustesFit | None = None) -> dict[str, float]:
    """THEORY.md T3's quantities measured on a sample of positive pairs.

    ``h`` embeds ``z`` and ``h_pos`` embeds its partner ``z'``; ``rho`` is the
    channel's correlation, one number or a per-coordinate vector whose entries
    must all be equal (T3 is stated for an isotropic channel:
    :func:`lejepa_wm.numerics.t3.isotropic_rho`). Both views are centred with the
    mean of ``h`` (centring the encoder). With ``N`` samples:

    - ``s = mean ||h||^2``; ``loss = mean ||h' - h||^2`` (the alignment loss);
    - ``delta = loss - 2 (1 - rho) s`` (the alignment gap);
    - ``eps = ||C - I||_F`` with ``C = h^T h / N``;
    - ``D`` and ``bound = D + (eps + D)^2`` from :mod:`lejepa_wm.numerics.t3`;
    - ``error``: the Procrustes error of ``h`` against ``z``, with the rotation
      ``rotation`` fitted on another sample when given (held-out), else fitted
      here (in-sample). T3 guarantees ``error <= bound`` for population quantities.
    """
    rho = isotropic_rho(rho)
    s, loss, delta = alignment_terms(h, h_pos, rho)
    h, z = _paired(h, z, "h", "z")
    centred = h - h.mean(axis=0)
    cov = centred.T @ centred / h.shape[0]
    eps = float(np.linalg.norm(cov - np.eye(h.shape[1]), ord="fro"))
    fit = rotation if rotation is not None else ProcrustesFit.fit(h, z)
    return {"s": s, "loss": loss, "delta": delta, "eps": eps, "D": float(nonlinear_energy_bound(delta, rho)),
            "bound": float(error_bound(delta, eps, rho)), "error": fit.error(h, z)}
