"""Training objectives: alignment plus SIGReg, whitening, or InfoNCE.

Every loss works on the device and dtype of its inputs. Embeddings are
``(batch, dim)`` tensors; ``h`` is the embedding of one view ``z`` and
``h_pos`` that of its positive partner ``z'``.

Main definitions
----------------
- :func:`alignment_loss`: ``mean_i ||h_i - h'_i||^2``, the empirical ``L(h)``.
- :class:`SIGReg`: the sliced Epps–Pulley statistic (LeJEPA's regularizer)
  on fresh random directions; :func:`sigreg_statistic` evaluates it fast on
  given directions, :func:`sigreg_reference` by the plain direct formula
  (kept for tests and benchmarks).
- :func:`whitening_loss`: ``||Cov(h) - I||_F^2 + ||mean(h)||^2``.
- :func:`batch_whiten`: both views whitened with their pooled batch mean and
  covariance (the hard constraint of ``"whitened"``, as in W-MSE);
  :class:`Whitened`: an encoder trained so, followed by that whitening with
  statistics estimated on a sample (its embedding).
- :func:`supervised_objective`: ``mean_i ||h_i - z_i||^2``, regression onto the
  true latents (the capacity ceiling; not a self-supervised objective).
- :func:`infonce_loss`: symmetric InfoNCE with a Gaussian kernel.
- :func:`build_objective`: ``alignment + weight * regularizer`` by name.
- :func:`epps_pulley_gaussian_mean`: the closed-form expectation of either
  statistic (and its derivative in the scale) on ``N(0, scale^2)`` projections.
- :func:`batch_standardize`, :func:`scale_statistic`: the pieces of the
  scale-free SIGReg (``standardize=True``).

The Epps–Pulley statistic
-------------------------
For one unit direction ``a`` let ``x_i = <a, h_i>`` (``i = 1..N``) and
``phi_N(t) = (1/N) sum_i exp(i t x_i)`` the empirical characteristic
function. The statistic compares it with the standard normal one,
``exp(-t^2/2)``, weighted by ``exp(-t^2/2)``::

    EP = N * integral_R |phi_N(t) - exp(-t^2/2)|^2 exp(-t^2/2) dt.

The integrand is even in ``t`` (``phi_N(-t)`` is the conjugate of
``phi_N(t)``), so it is evaluated on ``[0, t_max]`` and doubled, with the
trapezoidal rule on the ``K`` equally spaced knots ``t_k = k t_max/(K-1)``:
the quadrature weight of knot ``k`` is ``2 dt exp(-t_k^2/2)`` with
``dt = t_max/(K-1)``, halved at both ends. The defaults (``K = 17``,
``t_max = 3``) are LeJEPA's. Against the integral over the whole real line
(measured by ``benchmarks/bench_sigreg.py``, one slice of 2048 samples) the
default rule is off by 0.2% (Gaussian sample) to 1% (uniform, Laplace);
the error is the truncation at ``t_max`` (33 knots on ``[0, 3]`` give the
same error), while ``K = 9, t_max = 4`` is within 2e-4 and
``K = 17, t_max = 5`` within 1e-6. Under the Gaussian null, for i.i.d.
projections, ``E[N |phi_N(t) - exp(-t^2/2)|^2] = 1 - exp(-t^2)`` exactly, so the
statistic's mean is ``sum_k w_k (1 - exp(-t_k^2))`` (1.06 for the defaults)
whatever ``N``; for collapsed or non-Gaussian embeddings it grows like ``N``.
SIGReg averages it over ``num_slices`` unit directions drawn afresh (uniform
on the sphere) at every call from the caller's generator.

Two statistics: ``"lejepa"`` and ``"unbiased"``
-----------------------------------------------
The statistic above (``statistic="lejepa"``, LeJEPA's and the default) is a
V-statistic: ``|phi_N(t)|^2 = (1/N^2) sum_{i,j} exp(i t (x_i - x_j))``
includes the ``N`` pairs ``i = j``, each equal to 1. For i.i.d. projections
of law ``P`` (characteristic function ``phi_P``)
``E|phi_N(t)|^2 = |phi_P(t)|^2 + (1 - |phi_P(t)|^2)/N``, so::

    E[EP_V] = N * D(P) + B(P),   D(P) = int w |phi_P - phi_0|^2,   B(P) = int w (1 - |phi_P|^2),

and ``B`` is smallest for a concentrated ``P``: a pull toward shrunk
embeddings that does not vanish at the Gaussian (``B = 1.05``, ``dB/dscale =
0.96`` there with the default knots). ``statistic="unbiased"`` drops the
``i = j`` pairs, replacing ``|phi_N|^2`` by ``(N |phi_N|^2 - 1)/(N - 1)``::

    EP_U = EP_V + N/(N-1) * sum_k w_k (|phi_N(t_k)|^2 - 1),   E[EP_U] = N * D(P),

a U-statistic whose expectation is exactly ``N`` times the quadrature
distance (0 at the Gaussian, for every ``N >= 2``); it can be negative. Both
cost the same in the fast kernel. :func:`epps_pulley_gaussian_mean` gives
both expectations on ``N(0, c^2)`` projections in closed form.
``docs/SIGREG.md`` derives the expected gradients near the Gaussian and
measures what each choice does to training.

Scale-free SIGReg (``standardize=True``)
----------------------------------------
Alignment pulls every coordinate toward 0 (force ``4 (1 - rho) n`` on the
scale at ``h = z``), and SIGReg's restoring force on a shrunk Gaussian,
``-2 sum_k w_k t_k (exp(-c^2 t_k^2/2) - exp(-t_k^2/2)) sin(t_k x)``, is not
linear in ``x``: the balance of the two is shrunk *and bent*
(``docs/SIGREG.md``). With ``standardize=True`` the statistic sees the
batch-standardized embedding ``(h - mean)/std`` (per dimension), and a
separate moment statistic :func:`scale_statistic`
(``N mean_j [(var_j - 1)^2/2 + mean_j^2]``, as stiff as SIGReg, O(1) at the
Gaussian, with a gradient linear in ``h`` in expectation) holds the scale and
the mean; alignment then shrinks the scale only linearly, to
``c^2 = 1 - 2 (1 - rho) n / (N weight)`` (0.3% at weight 1, ``N = 512``,
``n = 4``; the scale collapses unless ``N weight > 2 (1 - rho) n``).
``statistic`` applies to both parts: the plug-in moment statistic has a
diagonal term of its own that penalizes the fourth moment (a bend), so only
``statistic="unbiased"`` removes every bias. Measured at the ``distribution``
experiment's full settings (``docs/SIGREG.md``): with ``statistic="unbiased"``
and weight 0.03 SIGReg reaches whitening's held-out R² at ``beta = 2``, where
LeJEPA's form at weight 1 stays 0.003 below it.

Fast evaluation
---------------
Because the knots are equally spaced, ``exp(i t_k x) = exp(i dt x)^k``: one
cos and one sin per projection, then complex products (angle addition)
for all knots. :func:`sigreg_statistic` (used by :class:`SIGReg`) does that in
a custom autograd function that forms each slice's derivative in the same
pass, chunk by chunk in cache, and never stores the ``N x S x K``
intermediates of :func:`sigreg_reference`; the two agree to float rounding
(tested, values and gradients, for both statistics). Benchmarks:
``benchmarks/README.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from torch import Tensor

from lejepa_wm.validation import check_choice, check_number, check_positive, check_positive_int

__all__ = [
    "OBJECTIVES", "SIGREG_STATISTICS", "alignment_loss", "whitening_loss", "WHITENING_RIDGE", "batch_whiten",
    "Whitened", "infonce_loss", "epps_pulley_knots", "random_directions", "sigreg_reference",
    "epps_pulley_gaussian_mean", "sigreg_statistic", "batch_standardize", "scale_statistic", "SIGReg",
    "RegularizedLoss", "Objective", "supervised_objective", "build_objective"
]

OBJECTIVES: tuple[str, ...] = ("sigreg", "whitening", "infonce", "whitened")
SIGREG_STATISTICS: tuple[str, ...] = ("lejepa", "unbiased")
"""``"lejepa"``: LeJEPA's V-statistic (the default); ``"unbiased"``: the U-statistic without the ``i = j`` pairs."""


_NO_STATISTIC: Any = object()
"""Marks that a caller of :func:`_check_embedding` checks no statistic (``None`` is a bad statistic, not this)."""


def _check_embedding(h: Tensor, name: str = "h", min_batch: int = 1, statistic: str = _NO_STATISTIC) -> bool:
    """Raise ``ValueError`` unless ``h`` is a floating ``(batch, dim)`` tensor and ``statistic`` (if given) fits it.

    Returns whether ``statistic`` is the unbiased one (see :func:`_check_statistic`).
    """
    if not isinstance(h, Tensor):
        raise ValueError(f"{name} must be a torch.Tensor; got {type(h).__name__}")
    if h.dim() != 2:
        raise ValueError(f"{name} must have shape (batch, dim); got shape {tuple(h.shape)}")
    if not h.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor; got dtype {h.dtype}")
    if h.shape[0] < min_batch or h.shape[1] < 1:
        raise ValueError(f"{name} needs batch >= {min_batch} and dim >= 1; got shape {tuple(h.shape)}")
    return statistic is not _NO_STATISTIC and _check_statistic(statistic, h.shape[0])


def _check_pair(h: Tensor, h_pos: Tensor) -> None:
    _check_embedding(h)
    _check_embedding(h_pos, "h_pos")
    if h.shape != h_pos.shape:
        raise ValueError(f"h and h_pos must have the same shape; got {tuple(h.shape)} and {tuple(h_pos.shape)}")


def alignment_loss(h: Tensor, h_pos: Tensor) -> Tensor:
    """Empirical alignment loss ``L(h) = (1/N) sum_i ||h_i - h'_i||^2`` (sum over dims, mean over batch)."""
    _check_pair(h, h_pos)
    return (h - h_pos).square().sum(dim=1).mean()


def whitening_loss(h: Tensor) -> Tensor:
    """VICReg-style whitening penalty ``||C - I||_F^2 + ||mu||^2``.

    ``mu = (1/N) sum_i h_i`` and ``C = (1/N) sum_i (h_i - mu)(h_i - mu)^T``
    (the maximum-likelihood covariance, the same normalization as T3's
    ``eps``). It is zero exactly when the batch has mean 0 and covariance ``I``.
    """
    _check_embedding(h, min_batch=2)
    mu = h.mean(dim=0)
    centred = h - mu
    cov = centred.T @ centred / h.shape[0]
    return (cov - torch.eye(h.shape[1], device=h.device, dtype=h.dtype)).square().sum() + mu.square().sum()


WHITENING_RIDGE = 1e-4
"""Ridge of :func:`batch_whiten`, added to the batch's correlation matrix (so the map stays scale-free)."""


def _whitening_map(rows: Tensor, ridge: float = WHITENING_RIDGE) -> tuple[Tensor, Tensor, Tensor]:
    """``(mu, W, values)`` such that ``(rows - mu) @ W`` is white: ``W = S^{-1/2} (R + ridge I)^{-1/2}``.

    ``mu`` is the mean of ``rows``, ``S`` the diagonal of their (1/N) variances
    and ``R`` their correlation matrix (symmetric square root by ``eigh``), so
    ``W`` is ``C^{-1/2}`` up to the ridge; ``values`` are the eigenvalues of
    ``R + ridge I`` (ascending). The ridge is added to the correlation matrix,
    so the whitened rows do not depend on a positive rescaling of any column.
    Differentiable in ``rows``.
    """
    if rows.shape[0] <= rows.shape[1]:
        raise ValueError(f"whitening needs more rows ({rows.shape[0]}) than dimensions ({rows.shape[1]})")
    mean = rows.mean(dim=0)
    centred = rows - mean
    std = centred.square().mean(dim=0).sqrt()
    scaled = centred / std
    correlation = scaled.T @ scaled / rows.shape[0]
    eye = torch.eye(correlation.shape[0], device=rows.device, dtype=rows.dtype)
    values, vectors = torch.linalg.eigh(correlation + ridge * eye)
    return mean, ((vectors * values.rsqrt()) @ vectors.T) / std[:, None], values


def batch_whiten(h: Tensor, h_pos: Tensor, ridge: float = WHITENING_RIDGE) -> tuple[Tensor, Tensor]:
    """Both views whitened with the pooled statistics of the batch: ``(h - mu) W``, ``(h' - mu) W``.

    ``(mu, W)`` is :func:`_whitening_map` of the ``2N`` rows of both views, so
    the alignment of the whitened views is blind to every coordinate's scale (an
    encoder's learned output scales get no gradient, and a collapse lowers
    nothing). Gradients flow through ``mu`` and ``W`` (as in W-MSE). Needs
    ``2N > m`` rows; with ``2N`` near ``m`` the estimate is noisy (its
    eigenvalues spread by Marchenko–Pastur's law), so keep ``2N`` several times ``m``.
    """
    _check_pair(h, h_pos)
    mean, whitener, _ = _whitening_map(torch.cat([h, h_pos]), ridge)
    return (h - mean) @ whitener, (h_pos - mean) @ whitener


def _whitened_alignment(h: Tensor, h_pos: Tensor, deficit_weight: float) -> tuple[Tensor, dict[str, Tensor]]:
    """The ``whitened`` objective: alignment of the batch-whitened views (:func:`batch_whiten`), plus
    ``deficit_weight`` times the whitening's deficit ``Σ_i ridge / (λ_i + ridge)``.

    ``λ_i`` are the eigenvalues of the pooled batch's correlation matrix. The deficit is the variance the
    ridge takes from the whitened views (``m`` minus the trace of their covariance): ``O(ridge)`` for each
    well-conditioned direction, about 1 for each direction whose eigenvalue sank below the ridge. Such a
    direction leaves the whitening near zero and stops paying alignment loss: an exit from the hard
    constraint (``docs/TUNING.md``, "The ridge is a way out"). A direction's whitened alignment is
    ``a λ / (λ + ridge)`` with ``a ≤ 4`` (twice the squared difference of two unit-variance views); with
    its deficit share it is ``(a λ + c ridge) / (λ + ridge)``, which for ``c ≥ 4`` never decreases as ``λ``
    shrinks: with that weight the exit is closed, and elsewhere the objective moves by ``O(c · m · ridge)``.
    """
    mean, whitener, values = _whitening_map(torch.cat([h, h_pos]))
    whitened = alignment_loss((h - mean) @ whitener, (h_pos - mean) @ whitener)
    if not deficit_weight:
        return whitened, {"whitened": whitened}
    deficit = (WHITENING_RIDGE / values).sum()
    return whitened + deficit_weight * deficit, {"whitened": whitened, "deficit": deficit}


class Whitened(torch.nn.Module):
    """An encoder followed by the whitening its objective imposed, with statistics estimated once on ``x``.

    A run trained with the ``"whitened"`` objective learns ``f`` whose batches
    are whitened before the loss; its embedding is ``(f(x) - mu) W`` with
    ``(mu, W)`` the :func:`_whitening_map` of ``f`` on a sample of observations
    (the ``fit`` sample: whatever is fitted is fitted there), in place of the
    batch statistics used in training. ``encoder`` may also be a plain function (the answer's features of
    :func:`lejepa_wm.experiments.optimum.whitened_population_gap`).
    """

    def __init__(self, encoder: torch.nn.Module | Callable[[Tensor], Tensor], x: Tensor) -> None:
        super().__init__()
        self.encoder = encoder
        with torch.no_grad():
            mean, whitener, _ = _whitening_map(encoder(x))
        self.register_buffer("mean", mean)
        self.register_buffer("whitener", whitener)

    def forward(self, x: Tensor) -> Tensor:
        return (self.encoder(x) - self.mean) @ self.whitener


def _infonce_parts(h: Tensor, h_pos: Tensor, width: float) -> tuple[Tensor, Tensor]:
    """(positive term, log-normalizer term) of symmetric InfoNCE; their sum is the loss (inputs unchecked)."""
    logits = -torch.cdist(h, h_pos).square() / (2.0 * width**2)
    positive = -logits.diagonal().mean()
    normalizer = 0.5 * (torch.logsumexp(logits, dim=1).mean() + torch.logsumexp(logits, dim=0).mean())
    return positive, normalizer


def infonce_loss(h: Tensor, h_pos: Tensor, width: float) -> Tensor:
    """Symmetric InfoNCE with the Gaussian kernel ``exp(-||h_i - h'_j||^2 / (2 width^2))``.

    With logits ``l_ij = -||h_i - h'_j||^2 / (2 width^2)`` it is the mean of
    the cross-entropies of the rows (``h_i`` picks ``h'_i`` among all
    ``h'_j``) and of the columns (``h'_j`` picks ``h_j``)::

        0.5 * mean_i [-l_ii + logsumexp_j l_ij] + 0.5 * mean_j [-l_jj + logsumexp_i l_ij].
    """
    _check_pair(h, h_pos)
    positive, normalizer = _infonce_parts(h, h_pos, check_positive(width, "width"))
    return positive + normalizer


def epps_pulley_knots(num_knots: int = 17, t_max: float = 3.0) -> tuple[Tensor, Tensor]:
    """Knots ``t_k = k t_max/(K-1)`` and weights ``w_k`` of the Epps–Pulley quadrature (float64).

    ``sum_k w_k f(t_k)`` approximates ``int_R f(t) exp(-t^2/2) dt`` for even
    ``f`` (trapezoidal rule on ``[0, t_max]``, doubled for ``t < 0``).
    """
    if check_positive_int(num_knots, "num_knots") < 2:
        raise ValueError(f"num_knots must be at least 2; got {num_knots!r}")
    t_max = check_positive(t_max, "t_max")
    knots = torch.linspace(0.0, t_max, num_knots, dtype=torch.float64)
    step = t_max / (num_knots - 1)
    trapezoid = torch.full((num_knots,), 2.0 * step, dtype=torch.float64)
    trapezoid[0] = trapezoid[-1] = step
    return knots, trapezoid * torch.exp(-knots.square() / 2.0)


def random_directions(dim: int, num_slices: int, generator: torch.Generator,
                      device: torch.device | str = "cpu", dtype: torch.dtype = torch.float32) -> Tensor:
    """``(dim, num_slices)`` matrix of unit columns, uniform on the sphere, drawn from ``generator``."""
    directions = torch.randn(dim, num_slices, generator=generator, device=device, dtype=dtype)
    return directions / directions.norm(dim=0, keepdim=True)


_UNIT_TOLERANCE = 1e-4
"""How far from 1 the norm of a given SIGReg direction may be (float32 rounding of a normalized vector is ~1e-7)."""


def _check_directions(directions: Tensor, h: Tensor) -> None:
    """``ValueError`` unless ``directions`` is a finite ``(dim, slices)`` tensor of unit columns matching ``h``."""
    if not isinstance(directions, Tensor) or directions.dim() != 2 or directions.shape[0] != h.shape[1]:
        shape = tuple(directions.shape) if isinstance(directions, Tensor) else type(directions).__name__
        raise ValueError(f"directions must be a (dim, slices) tensor with dim = {h.shape[1]}; got {shape}")
    norms = directions.detach().double().norm(dim=0)
    worst = int((norms - 1.0).abs().nan_to_num(float("inf")).argmax()) if norms.numel() else 0
    if norms.numel() and not abs(float(norms[worst]) - 1.0) <= _UNIT_TOLERANCE:
        raise ValueError(f"directions must be unit vectors (SIGReg projects on the unit sphere); column {worst} "
                         f"has norm {float(norms[worst])!r}")


def _check_statistic(statistic: str, samples: int) -> bool:
    """Whether ``statistic`` is the unbiased one (``ValueError`` for unknown names or ``N < 2``)."""
    unbiased = check_choice(statistic, SIGREG_STATISTICS, "statistic") == "unbiased"
    if unbiased and samples < 2:
        raise ValueError(f"the unbiased statistic needs a batch of at least 2; got {samples}")
    return unbiased


def sigreg_reference(h: Tensor, directions: Tensor, knots: Tensor, weights: Tensor,
                     statistic: str = "lejepa") -> Tensor:
    """Plain sliced Epps–Pulley statistic by direct cos/sin evaluation at every knot.

    ``x = h @ directions`` (``(N, S)``); with ``C_k, S_k`` the means over the
    batch of ``cos(t_k x_is)``, ``sin(t_k x_is)`` the statistic of slice ``s`` is
    ``N sum_k w_k [(C_k - exp(-t_k^2/2))^2 + S_k^2]`` (``"lejepa"``) or, with
    ``|phi_N|^2 = C_k^2 + S_k^2`` replaced by ``(N |phi_N|^2 - 1)/(N - 1)``,
    ``N sum_k w_k [(N |phi_N|^2 - 1)/(N - 1) - 2 C_k exp(-t_k^2/2) + exp(-t_k^2)]``
    (``"unbiased"``); the result is its mean over slices. Memory ``O(N S K)``.
    ``directions`` must be unit columns (a ``ValueError`` names one that is not).
    """
    unbiased = _check_embedding(h, statistic=statistic)
    _check_directions(directions, h)
    samples = h.shape[0]
    knots = knots.to(device=h.device, dtype=h.dtype)
    weights = weights.to(device=h.device, dtype=h.dtype)
    x_t = (h @ directions.to(h.dtype)).unsqueeze(-1) * knots
    target = torch.exp(-knots.square() / 2.0)
    cos_mean, sin_mean = x_t.cos().mean(dim=0), x_t.sin().mean(dim=0)
    if unbiased:
        power = (samples * (cos_mean.square() + sin_mean.square()) - 1.0) / (samples - 1)
        err = power - 2.0 * cos_mean * target + target.square()
    else:
        err = (cos_mean - target).square() + sin_mean.square()
    return (err @ weights).mean() * samples


def epps_pulley_gaussian_mean(scale: float, samples: int, knots: Tensor, weights: Tensor,
                              statistic: str = "lejepa") -> tuple[float, float]:
    """``(E[EP], dE[EP]/dscale)`` for ``N = samples`` i.i.d. ``N(0, scale^2)`` projections (closed form).

    With ``g_k = exp(-scale^2 t_k^2/2)`` and ``f_k = exp(-t_k^2/2)``::

        E[EP_U] = N sum_k w_k (g_k - f_k)^2,    E[EP_V] = E[EP_U] + sum_k w_k (1 - g_k^2),

    and the derivatives ``-2 N scale sum_k w_k t_k^2 g_k (g_k - f_k)`` plus, for
    ``"lejepa"``, ``2 scale sum_k w_k t_k^2 g_k^2``. At ``scale = 1``: ``E[EP_U] = 0``,
    ``E[EP_V] = sum_k w_k (1 - exp(-t_k^2))`` and ``dE[EP_V]/dscale = 2 sum_k w_k t_k^2 exp(-t_k^2)``.
    """
    unbiased = _check_statistic(statistic, samples)
    t = knots.to(torch.float64)
    w = weights.to(torch.float64)
    g, f = torch.exp(-(scale * t) ** 2 / 2.0), torch.exp(-t.square() / 2.0)
    mean = samples * float((w * (g - f).square()).sum())
    slope = -2.0 * samples * scale * float((w * t.square() * g * (g - f)).sum())
    if not unbiased:
        mean += float((w * (1.0 - g.square())).sum())
        slope += 2.0 * scale * float((w * t.square() * g.square()).sum())
    return mean, slope


# Projections per chunk on the CPU: just under ATen's parallel grain (32768), so every elementwise
# op of the knot loop runs on the calling thread, and a chunk's working set stays in L2.
_CPU_CHUNK_ELEMENTS = 32_000


def _knot_step(knots: Tensor) -> float:
    """The spacing of ``knots`` if they are ``0, dt, 2 dt, ...``, else ``ValueError``."""
    values = knots.detach().to("cpu", torch.float64)
    if values.dim() != 1 or values.numel() < 2:
        raise ValueError(f"knots must be a 1-D tensor of at least 2 values; got shape {tuple(values.shape)}")
    step = float(values[1])
    expected = step * torch.arange(values.numel(), dtype=torch.float64)
    if not step > 0.0 or not torch.allclose(values, expected, rtol=1e-6, atol=1e-12):
        raise ValueError(f"knots must be equally spaced from 0 (t_k = k * dt); got {values.tolist()}")
    return step


class _SlicedEppsPulley(torch.autograd.Function):
    """Per-slice Epps–Pulley statistics of projections ``x`` (``(S, N)``: one row per slice).

    With ``e_i = exp(i dt x_i)`` the empirical characteristic function at
    knot ``t_k = k dt`` is ``M_k = mean_i e_i^k``: the powers come from
    repeated complex multiplication, so each projection costs one cos and one
    sin whatever the number of knots. The statistic of a slice is
    ``N sum_k w_k |M_k - exp(-t_k^2/2)|^2`` (the ``k = 0`` term is exactly 0),
    plus ``N/(N-1) sum_k w_k (|M_k|^2 - 1)`` for the unbiased statistic
    (``unbiased=True``). Its derivative is ``d/dx_i = Re(sum_k c_k e_i^k)`` with
    ``c_k = 2 i w_k t_k conj(M_k - exp(-t_k^2/2) + u M_k)`` (``u = 1/(N-1)`` for
    the unbiased statistic, else 0), a polynomial in ``e_i`` evaluated by
    Horner's rule. A slice's statistic depends on that slice
    alone, so its derivative is formed in the forward pass while the slice
    chunk is in cache (skipped when no gradient is needed) and the backward
    pass only scales it: nothing of size ``N S K`` is ever stored. On the CPU
    the slices go in chunks of about 32k projections (cache-sized, and below
    ATen's parallel grain so the knot loop never waits on a thread barrier);
    on other devices all slices go at once.
    Rounding: ``e^k`` carries a relative error of about ``k`` ulps, so values
    and gradients agree with direct evaluation to a few ulps times ``K``.
    """

    @staticmethod
    def forward(ctx, x: Tensor, step: float, weights: Tensor, target: Tensor,  # type: ignore[override]
                unbiased: bool = False) -> Tensor:
        num_slices, samples = x.shape
        num_knots = weights.shape[0]
        correction = 1.0 / (samples - 1) if unbiased else 0.0  # 0 for the V-statistic
        angle = x * step
        phasors = torch.complex(torch.cos(angle), torch.sin(angle))
        gain = (2.0 * step) * weights * torch.arange(num_knots, device=x.device, dtype=x.dtype)
        per_slice = torch.empty(num_slices, device=x.device, dtype=x.dtype)
        grad = torch.empty_like(x) if ctx.needs_input_grad[0] else None
        chunk = max(1, _CPU_CHUNK_ELEMENTS // samples) if x.device.type == "cpu" else num_slices
        for start in range(0, num_slices, chunk):  # statistics (and derivatives) of a chunk of slices
            rows = slice(start, min(start + chunk, num_slices))
            phasor = phasors[rows]
            power = phasor.clone()
            means = [phasor.mean(dim=1)]
            for _ in range(2, num_knots):
                means.append(power.mul_(phasor).mean(dim=1))
            moments = torch.stack(means, dim=1)
            diff = moments - target[1:]
            value = (diff.real.square() + diff.imag.square()) @ weights[1:]
            if correction:
                value += correction * ((moments.real.square() + moments.imag.square() - 1.0) @ weights[1:])
                diff += correction * moments  # d/dx of |M|^2 adds conj(M)/(N-1) to the derivative's coefficients
            per_slice[rows] = samples * value
            if grad is not None:
                coefficients = 1j * gain[1:] * diff.conj()
                horner = coefficients[:, -1:].expand_as(phasor).clone()
                for k in range(num_knots - 3, -1, -1):
                    horner.mul_(phasor).add_(coefficients[:, k:k + 1])
                grad[rows] = torch.view_as_real(horner.mul_(phasor))[..., 0]
        ctx.save_for_backward(grad)
        return per_slice

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_per_slice: Tensor) -> tuple[Tensor, None, None, None, None]:  # type: ignore[override]
        (grad,) = ctx.saved_tensors
        return grad * grad_per_slice[:, None], None, None, None, None


def sigreg_statistic(h: Tensor, directions: Tensor, knots: Tensor, weights: Tensor,
                     statistic: str = "lejepa") -> Tensor:
    """The statistic of :func:`sigreg_reference`, evaluated fast (knots must be ``k * dt``).

    Same value as the reference up to float rounding, for either ``statistic``
    (same cost), memory ``O(N S)`` instead of ``O(N S K)``; differentiable once
    in ``h`` (and ``directions``).
    """
    unbiased = _check_embedding(h, statistic=statistic)
    _check_directions(directions, h)
    return _sliced_statistic(h, directions, _knot_step(knots), weights, unbiased)


def _sliced_statistic(h: Tensor, directions: Tensor, step: float, weights: Tensor, unbiased: bool = False) -> Tensor:
    """Mean over slices, computed in float32 at least (half precisions have no complex kernels)."""
    dtype = torch.promote_types(h.dtype, torch.float32)
    weights = weights.to(device=h.device, dtype=dtype)
    target = torch.exp(-(step * torch.arange(weights.shape[0], device=h.device, dtype=dtype)).square() / 2.0)
    projections = directions.to(dtype).T @ h.to(dtype).T
    return _SlicedEppsPulley.apply(projections, step, weights, target, unbiased).mean().to(h.dtype)


def batch_standardize(h: Tensor, eps: float = 1e-6) -> Tensor:
    """``(h - mean) / sqrt(var + eps)`` per dimension, with the batch's mean and (1/N) variance."""
    _check_embedding(h, min_batch=2)
    centred = h - h.mean(dim=0)
    return centred / (centred.square().mean(dim=0) + eps).sqrt()


def scale_statistic(h: Tensor, statistic: str = "lejepa") -> Tensor:
    """Moment test of unit variance and zero mean per dimension, ``N`` times a squared distance.

    ``statistic="lejepa"`` (the plug-in form, like the V-statistic):
    ``N mean_j [(var_j - 1)^2 / 2 + mean_j^2]`` with the batch mean and (1/N)
    variance of dimension ``j``. Its expectation carries a diagonal term,
    ``E[(var_j - 1)^2] = (sigma_j^2 - 1)^2 + (mu4_j - sigma_j^4)/N + ...``: ``N``
    times it penalizes the fourth moment ``mu4`` by ``1/2`` per dimension, a
    force toward light-tailed (bent) marginals that is 12-18 times the
    V-statistic's at the Gaussian (``docs/SIGREG.md``).

    ``statistic="unbiased"`` drops the ``i = k`` pairs:
    ``N mean_j [U2_j / 2 + U1_j]`` with ``U1 = sum_{i != k} x_i x_k / (N (N-1))``
    and ``U2 = sum_{i != k} (x_i^2 - 1)(x_k^2 - 1) / (N (N-1))``, whose
    expectation is exactly ``N mean_j [(E x_j^2 - 1)^2 / 2 + (E x_j)^2]``: zero
    with a zero gradient for every law with unit second moment and zero mean,
    whatever its tails. Either way the statistic is O(1) for a standard normal
    batch and grows like ``N`` away from it, holding the scale more stiffly than
    SIGReg does (curvature ``4 N`` in the scale ``c`` of ``h = c z`` against
    SIGReg's ``0.96 N``; alignment with pair correlation ``rho`` shrinks ``c``
    to about ``1 - (1 - rho) n / (N weight)``), and the expectation's gradient
    in ``h`` (a functional of the law) is linear in ``h``: balanced against
    alignment it shrinks the embedding without bending it.
    """
    unbiased = _check_embedding(h, min_batch=2, statistic=statistic)
    samples = h.shape[0]
    if unbiased:
        def pairs(values: Tensor) -> Tensor:  # sum over i != k of values_i values_k, / (N (N - 1))
            return (values.sum(dim=0).square() - values.square().sum(dim=0)) / (samples * (samples - 1))

        return samples * (pairs(h.square() - 1.0) / 2.0 + pairs(h)).mean()
    mean = h.mean(dim=0)
    variance = (h - mean).square().mean(dim=0)
    return samples * ((variance - 1.0).square() / 2.0 + mean.square()).mean()


class SIGReg(torch.nn.Module):
    """LeJEPA's sliced Epps–Pulley regularizer (see the module docstring for the math).

    ``forward(h, generator)`` draws ``num_slices`` unit directions from
    ``generator`` (which must live on ``h``'s device), projects the batch on
    them and returns the mean over slices of the Epps–Pulley statistic
    (``N`` times the weighted squared distance between characteristic
    functions). Directions are redrawn at every call; the same generator
    state gives the same directions. ``statistic`` is ``"lejepa"`` (LeJEPA's
    V-statistic, the default) or ``"unbiased"`` (the U-statistic, see the
    module docstring).
    """

    def __init__(self, num_slices: int = 256, num_knots: int = 17, t_max: float = 3.0,
                 statistic: str = "lejepa") -> None:
        super().__init__()
        self.num_slices = check_positive_int(num_slices, "num_slices")
        self.statistic = check_choice(statistic, SIGREG_STATISTICS, "statistic")
        knots, weights = epps_pulley_knots(num_knots, t_max)
        self.step = _knot_step(knots)
        self.register_buffer("knots", knots, persistent=False)
        self.register_buffer("weights", weights, persistent=False)

    def draw_directions(self, h: Tensor, generator: torch.Generator) -> Tensor:
        """The ``(dim, num_slices)`` unit directions this call uses."""
        if not isinstance(generator, torch.Generator):
            raise ValueError(f"generator must be a torch.Generator; got {type(generator).__name__}")
        return random_directions(h.shape[1], self.num_slices, generator, device=h.device, dtype=h.dtype)

    def forward(self, h: Tensor, generator: torch.Generator) -> Tensor:
        unbiased = _check_embedding(h, statistic=self.statistic)
        return _sliced_statistic(h, self.draw_directions(h, generator), self.step, self.weights, unbiased)

    def extra_repr(self) -> str:
        return (f"num_slices={self.num_slices}, num_knots={len(self.knots)}, t_max={float(self.knots[-1])}, "
                f"statistic={self.statistic!r}")


RegularizedLoss = Callable[[Tensor, Tensor, Tensor, torch.Generator, float], tuple[Tensor, dict[str, Tensor]]]


@dataclass
class Objective:
    """A named training loss: ``objective(h, h_pos, generator) -> (total, parts)``.

    ``parts`` holds floats for logging: always ``alignment`` (the plain
    ``alignment_loss``) and ``total``, plus the regularizer's value when the
    weight is positive. ``weight`` is read at every call, so a caller may
    change it during training (a weight schedule).
    """

    name: str
    weight: float
    regularized: RegularizedLoss
    options: dict[str, Any] = field(default_factory=dict)
    targets: bool = False
    """Whether the second input is the true latents ``z`` (regression, :func:`supervised_objective`), not an
    embedding of the positive view."""

    def __call__(self, h: Tensor, h_pos: Tensor, generator: torch.Generator) -> tuple[Tensor, dict[str, float]]:
        alignment = alignment_loss(h, h_pos)
        total, logged = alignment, {}
        if self.weight != 0.0:
            total, logged = self.regularized(h, h_pos, alignment, generator, float(self.weight))
        parts = {"alignment": alignment, "total": total, **logged}
        return total, {key: float(value.detach()) for key, value in parts.items()}


def _view_average(**terms: Callable[[Tensor, torch.Generator], Tensor]) -> RegularizedLoss:
    """``alignment + weight * sum_name (term(h) + term(h'))/2``, each averaged term logged under its name.

    Terms are evaluated in the order given, each on ``h`` then on ``h'``.
    """

    def regularized(h: Tensor, h_pos: Tensor, alignment: Tensor, generator: torch.Generator,
                    weight: float) -> tuple[Tensor, dict[str, Tensor]]:
        logged = {name: 0.5 * (term(h, generator) + term(h_pos, generator)) for name, term in terms.items()}
        return alignment + weight * sum(logged.values()), logged

    return regularized


def supervised_objective() -> Objective:
    """Regression onto the true latents, ``mean ||f(x) - z||^2``: the capacity ceiling.

    It is :func:`alignment_loss` between the embedding and ``z`` (weight 0, so
    the total is that term alone); ``targets`` tells the training loop to pass
    ``z`` unencoded as the second input.
    """
    return Objective(name="supervised", weight=0.0, regularized=_view_average(), targets=True)


def build_objective(name: str, weight: float, **options: Any) -> Objective:
    """The objective called ``name`` with regularizer weight ``weight``.

    - ``"sigreg"``: ``L + weight * (SIGReg(h) + SIGReg(h'))/2`` — SIGReg on
      both views, each with its own fresh directions (drawn one after the
      other from the generator), averaged. Options: ``num_slices``,
      ``num_knots``, ``t_max``, ``statistic`` (``"lejepa"``, the default, or
      ``"unbiased"``; see :class:`SIGReg`) and ``standardize`` (default
      ``False``; with ``True`` the regularizer of a view is
      ``SIGReg(batch_standardize(h)) + scale_statistic(h, statistic)``, logged
      as ``sigreg`` and ``scale``; ``statistic`` selects the plug-in or the
      unbiased form of both).
    - ``"whitening"``: ``L + weight * (W(h) + W(h'))/2`` with ``W`` the
      :func:`whitening_loss`. No options.
    - ``"infonce"``: ``P + weight * Z`` where symmetric InfoNCE
      (:func:`infonce_loss`) ``= P + Z`` splits into its positive term
      ``P = L / (2 width^2)`` and its log-normalizer ``Z``; ``weight = 1`` is
      InfoNCE itself. Option: ``width`` (required, > 0).
    - ``"whitened"``: ``L(W h, W h')`` with both views whitened by their pooled
      batch statistics (:func:`batch_whiten`): T1's hypothesis imposed as a hard
      constraint, not a penalty, so the weight must be 1 (logged as
      ``whitened``). Option: ``deficit_weight`` (default 0, finite, >= 0), the
      weight of the whitening's deficit, which closes the ridge's exit from the
      constraint at 4 (:func:`_whitened_alignment`; logged as ``deficit``).

    ``weight = 0`` is the alignment-only control for every name: the total is
    exactly ``alignment_loss(h, h')``. Unknown names, unknown options or a
    negative/non-finite weight raise ``ValueError`` naming the value.
    """
    check_choice(name, OBJECTIVES, "objective")
    weight_value = check_number(weight, "weight", lambda value: value >= 0, "be >= 0")
    if name == "whitened" and weight_value not in (0.0, 1.0):
        raise ValueError(f"objective 'whitened' is a constraint: its weight is 1 (or 0, the control); got {weight!r}")
    allowed = {"sigreg": ("num_slices", "num_knots", "t_max", "statistic", "standardize"), "whitening": (),
               "infonce": ("width",), "whitened": ("deficit_weight",)}[name]
    for key in options:
        if key not in allowed:
            raise ValueError(f"unknown option {key!r} for objective {name!r}; allowed: {', '.join(allowed) or 'none'}")
    if name == "sigreg":
        standardize = options.get("standardize", False)
        if not isinstance(standardize, bool):
            raise ValueError(f"option 'standardize' must be True or False; got {standardize!r}")
        sigreg = SIGReg(**{key: value for key, value in options.items() if key != "standardize"})
        if standardize:
            regularized = _view_average(sigreg=lambda view, generator: sigreg(batch_standardize(view), generator),
                                        scale=lambda view, _: scale_statistic(view, sigreg.statistic))
        else:
            regularized = _view_average(sigreg=sigreg)
    elif name == "whitening":
        regularized = _view_average(whitening=lambda view, _: whitening_loss(view))
    elif name == "whitened":
        deficit_weight = check_number(options.get("deficit_weight", 0.0), "option 'deficit_weight'",
                                      lambda value: value >= 0, "be >= 0")

        def regularized(h: Tensor, h_pos: Tensor, alignment: Tensor, generator: torch.Generator,
                        weight: float) -> tuple[Tensor, dict[str, Tensor]]:
            return _whitened_alignment(h, h_pos, deficit_weight)
    else:
        if "width" not in options:
            raise ValueError("objective 'infonce' needs the option width=<positive float>")
        width = check_positive(options["width"], "width")

        def regularized(h: Tensor, h_pos: Tensor, alignment: Tensor, generator: torch.Generator,
                        weight: float) -> tuple[Tensor, dict[str, Tensor]]:
            positive, normalizer = _infonce_parts(h, h_pos, width)
            return positive + weight * normalizer, {"infonce": positive + normalizer}

    return Objective(name=name, weight=weight_value, regularized=regularized, options=dict(options))
