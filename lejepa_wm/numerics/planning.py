"""Planning in true and in learned latent coordinates (THEORY.md, T4).

A learned encoder that recovers the latents up to an invertible linear map
``M`` (``y = M z``) yields the conjugated world model
``F_M(y, a) = M F(M^{-1} y, a)``. A planner that only sees the learned
coordinates evaluates its cost with the *same formula* there (``||y - y_g||^2``
with the goal encoded too, or the isotropic LQR cost ``q ||y||^2``). For an
orthogonal ``M = Q`` this formula equals the true cost, ``||Q z - Q z_g|| =
||z - z_g||``, so plans, values and costs coincide; for a non-orthogonal ``M`` it
is ``||M (z - z_g)||^2``, a different cost, and the plans differ.

This module provides the pieces to check that numerically: random orthogonal
and non-orthogonal coordinate changes, discrete-time LQR through
``scipy.linalg.solve_discrete_are`` (with exact infinite-horizon closed-loop
costs through ``scipy.linalg.solve_discrete_lyapunov``) and noisy rollouts, a
nonlinear latent model with its conjugate, and a seeded cross-entropy-method
(CEM) planner for goal reaching.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import NDArray
from scipy.stats import ortho_group

__all__ = [
    "Array", "Step", "random_orthogonal", "random_nonorthogonal", "LinearQuadratic", "random_linear_quadratic",
    "solve_lqr", "closed_loop_value", "Rollout", "lqr_rollout", "NonlinearLatentModel", "random_nonlinear_model",
    "conjugate_step", "goal_costs", "CEMSettings", "cem_plan"
]

Array = NDArray[np.float64]
Step = Callable[[Array, Array], Array]


def random_orthogonal(n: int, seed: int) -> Array:
    """Haar-random orthogonal ``n x n`` matrix from ``seed`` (``Q = [[±1]]`` for ``n = 1``)."""
    if n == 1:
        return np.array([[1.0 if np.random.default_rng(seed).random() < 0.5 else -1.0]])
    return ortho_group.rvs(n, random_state=np.random.default_rng(seed))


def random_nonorthogonal(n: int, seed: int, condition_number: float = 10.0) -> Array:
    """Invertible ``U diag(s) V^T`` with singular values geometric in ``[c^-1/2, c^1/2]`` (``c`` = condition number).

    For ``n = 1`` (where every invertible map is a scaling) the single singular
    value is ``c^1/2``. ``condition_number`` exceeds 1, so the map is not a
    multiple of an orthogonal matrix.
    """
    singular = (np.array([condition_number**0.5]) if n == 1
                else np.geomspace(condition_number**-0.5, condition_number**0.5, n))
    return random_orthogonal(n, seed) @ np.diag(singular) @ random_orthogonal(n, seed + 1).T


@dataclass(frozen=True)
class LinearQuadratic:
    """``z_{t+1} = A z_t + B u_t + w_t`` with stage cost ``z^T S z + u^T R u`` (``S`` state, ``R`` action cost)."""

    A: Array
    B: Array
    S: Array
    R: Array

    def in_coordinates(self, M: Array, conjugate_cost: bool = False) -> LinearQuadratic:
        """The model seen in coordinates ``y = M z``: ``(M A M^-1, M B)``.

        The state cost is kept as the same formula (``S`` itself) unless
        ``conjugate_cost``, which uses the true cost expressed in ``y``,
        ``M^-T S M^-1``.
        """
        M_inv = np.linalg.inv(M)
        S = M_inv.T @ self.S @ M_inv if conjugate_cost else self.S
        return LinearQuadratic(M @ self.A @ M_inv, M @ self.B, S, self.R)


def random_linear_quadratic(n: int, m: int, seed: int) -> LinearQuadratic:
    """Seeded open-loop unstable ``A = 1.2 G / sqrt(n)``, ``B`` Gaussian, isotropic ``S = I``, ``R = 0.1 I``."""
    rng = np.random.default_rng(seed)
    A = 1.2 * rng.standard_normal((n, n)) / np.sqrt(n)
    B = rng.standard_normal((n, m))
    return LinearQuadratic(A, B, np.eye(n), 0.1 * np.eye(m))


def solve_lqr(model: LinearQuadratic) -> tuple[Array, Array]:
    """Riccati solution ``P`` (value ``V(z) = z^T P z``) and optimal gain ``K`` (``u = -K z``)."""
    P = scipy.linalg.solve_discrete_are(model.A, model.B, model.S, model.R)
    K = np.linalg.solve(model.R + model.B.T @ P @ model.B, model.B.T @ P @ model.A)
    return P, K


def closed_loop_value(model: LinearQuadratic, K: Array) -> Array:
    """``P_K`` with ``z^T P_K z = sum_t (z_t^T S z_t + u_t^T R u_t)`` for ``u = -K z`` (noise-free, infinite horizon).

    Solves the Lyapunov equation ``P_K = S + K^T R K + (A - BK)^T P_K (A - BK)``;
    raises ``ValueError`` if ``A - BK`` is not stable.
    """
    closed = model.A - model.B @ K
    radius = float(np.max(np.abs(np.linalg.eigvals(closed))))
    if radius >= 1.0:
        raise ValueError(f"closed loop A - BK is unstable (spectral radius {radius:.4g})")
    return scipy.linalg.solve_discrete_lyapunov(closed.T, model.S + K.T @ model.R @ K)


@dataclass(frozen=True)
class Rollout:
    """States ``z_0..z_T``, actions ``u_0..u_{T-1}`` and stage costs of one closed-loop rollout."""

    states: Array
    actions: Array
    stage_costs: Array


def lqr_rollout(model: LinearQuadratic, K: Array, z0: Array, noise: Array) -> Rollout:
    """Closed-loop rollout ``u_t = -K z_t``, ``z_{t+1} = A z_t + B u_t + noise[t]``.

    Stage costs are ``z_t^T S z_t + u_t^T R u_t`` for ``t < T``.
    """
    horizon = noise.shape[0]
    states = np.empty((horizon + 1, z0.size))
    actions = np.empty((horizon, K.shape[0]))
    states[0] = z0
    for t in range(horizon):
        actions[t] = -K @ states[t]
        states[t + 1] = model.A @ states[t] + model.B @ actions[t] + noise[t]
    stage = (np.einsum("ti,ij,tj->t", states[:-1], model.S, states[:-1])
             + np.einsum("ti,ij,tj->t", actions, model.R, actions))
    return Rollout(states, actions, stage)


@dataclass(frozen=True)
class NonlinearLatentModel:
    """``F(z, a) = z + dt (tanh(W z) + B a)``: a seeded nonlinear latent world model (batched over rows)."""

    W: Array
    B: Array
    dt: float = 0.1

    def step(self, z: Array, a: Array) -> Array:
        """One transition for a batch ``z`` of shape ``(k, n)`` and actions ``a`` of shape ``(k, m)``."""
        return z + self.dt * (np.tanh(z @ self.W.T) + a @ self.B.T)


def random_nonlinear_model(n: int, m: int, seed: int) -> NonlinearLatentModel:
    """Seeded :class:`NonlinearLatentModel` with ``W = 2 G / sqrt(n)`` and ``B = I`` padded/cut to ``n x m``."""
    rng = np.random.default_rng(seed)
    return NonlinearLatentModel(W=2.0 * rng.standard_normal((n, n)) / np.sqrt(n), B=np.eye(n, m))


def conjugate_step(step: Step, M: Array) -> Step:
    """The model in coordinates ``y = M z``: ``F_M(y, a) = M F(M^-1 y, a)`` (row batches)."""
    M_inv = np.linalg.inv(M)
    return lambda y, a: step(y @ M_inv.T, a) @ M.T


def goal_costs(step: Step, start: Array, goal: Array, plans: Array, action_weight: float) -> Array:
    """``sum_t ||x_{t+1} - goal||^2 + r ||a_t||^2`` for each plan of a batch ``(k, horizon, m)`` from ``start``.

    The same formula is used in whatever coordinates ``step``, ``start`` and
    ``goal`` are expressed.
    """
    states = np.broadcast_to(start, (plans.shape[0], start.size))
    total = np.zeros(plans.shape[0])
    for t in range(plans.shape[1]):
        states = step(states, plans[:, t])
        total += np.sum((states - goal) ** 2, axis=1) + action_weight * np.sum(plans[:, t] ** 2, axis=1)
    return total


@dataclass(frozen=True)
class CEMSettings:
    """Cross-entropy method: ``samples`` plans per iteration, ``elites`` kept, ``iterations`` refits."""

    horizon: int = 12
    samples: int = 256
    elites: int = 24
    iterations: int = 8
    initial_std: float = 1.0
    action_weight: float = 0.01


def cem_plan(step: Step, start: Array, goal: Array, action_dim: int, seed: int,
             settings: CEMSettings = CEMSettings()) -> tuple[Array, float]:
    """Seeded CEM minimizing :func:`goal_costs`; returns the final mean plan ``(horizon, m)`` and its cost.

    All randomness is the standard-normal draws of ``numpy.random.default_rng(seed)``,
    which do not depend on the coordinates, so two coordinate systems whose
    costs agree sample identical plans.
    """
    rng = np.random.default_rng(seed)
    mean = np.zeros((settings.horizon, action_dim))
    std = np.full_like(mean, settings.initial_std)
    for _ in range(settings.iterations):
        plans = mean + std * rng.standard_normal((settings.samples, *mean.shape))
        costs = goal_costs(step, start, goal, plans, settings.action_weight)
        elite = plans[np.argsort(costs, kind="stable")[: settings.elites]]
        mean, std = elite.mean(axis=0), elite.std(axis=0)
    return mean, float(goal_costs(step, start, goal, mean[None], settings.action_weight)[0])
