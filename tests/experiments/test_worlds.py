"""Positive-pair worlds: exact correlation, exact stationarity of MALA, the shortcut's non-stationarity."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats
from scipy.special import gammaln

from lejepa_wm.experiments.worlds import (GaussianWorld, GeneralizedNormalWorld, generalized_normal_scale,
                                          mala_move, rates_to_rho, sample_generalized_normal, world_from_dict)


def _corr(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = a - a.mean(0), b - b.mean(0)
    return (a * b).mean(0) / np.sqrt((a * a).mean(0) * (b * b).mean(0))


def test_gaussian_pair_correlation_is_exactly_rho():
    rho = rates_to_rho([1.0, 1.5, 3.0], tau=0.4)
    world = GaussianWorld(3, tuple(rho))
    z, z_pos = world.sample_pairs(200_000, torch.Generator().manual_seed(0))
    measured = _corr(z.double().numpy(), z_pos.double().numpy())
    standard_error = (1 - rho**2) / math.sqrt(200_000)
    assert np.all(np.abs(measured - rho) < 5 * standard_error)
    assert np.allclose(z_pos.double().var(0).numpy(), 1.0, atol=0.02)  # stationary marginal


def test_shortcut_pair_correlation_is_exactly_rho():
    world = GeneralizedNormalWorld(2, beta=4.0, tau=0.3, channel="shortcut")
    z, z_pos = world.sample_numpy(200_000, np.random.default_rng(1))
    rho = math.exp(-0.3)
    assert np.all(np.abs(_corr(z, z_pos) - rho) < 5 * (1 - rho**2) / math.sqrt(200_000))


@pytest.mark.parametrize("beta", [1.0, 1.5, 4.0])
def test_generalized_normal_sampler_matches_law(beta):
    sample = sample_generalized_normal((50_000,), beta, np.random.default_rng(2))
    law = stats.gennorm(beta, scale=generalized_normal_scale(beta))
    assert stats.kstest(sample, law.cdf).pvalue > 1e-3
    assert abs(law.var() - 1.0) < 1e-12


@pytest.mark.parametrize("beta", [0.8, 1.5, 4.0])
def test_mala_channel_is_stationary(beta):
    """z' after the MALA move has the marginal law p_beta: KS test and the first four moments."""
    rng = np.random.default_rng(3)
    z = sample_generalized_normal((40_000,), beta, rng)
    z_pos = mala_move(z, beta, tau=0.5, max_step=0.05, rng=rng)
    law = stats.gennorm(beta, scale=generalized_normal_scale(beta))
    assert stats.kstest(z_pos, law.cdf).pvalue > 1e-3
    kurt = math.exp(gammaln(5 / beta) + gammaln(1 / beta) - 2 * gammaln(3 / beta)) - 3
    assert abs(z_pos.mean()) < 0.03 and abs(z_pos.var() - 1) < 0.04
    # the sample kurtosis of heavy tails is noisy; z and z' share most of that noise
    assert abs(stats.kurtosis(z_pos) - stats.kurtosis(z)) < 0.1 * max(1.0, kurt)
    assert abs(stats.kurtosis(z_pos) - kurt) < 0.3 * max(1.0, kurt)
    assert 0.3 < np.corrcoef(z, z_pos)[0, 1] < 0.95  # the chain moved but stayed correlated


def test_mala_at_beta_two_follows_ou_time():
    rng = np.random.default_rng(4)
    z = rng.standard_normal(100_000)
    z_pos = mala_move(z, 2.0, tau=0.3, max_step=0.01, rng=rng)
    assert abs(np.corrcoef(z, z_pos)[0, 1] - math.exp(-0.3)) < 0.01


def test_shortcut_is_not_stationary_for_non_gaussian_laws():
    world = GeneralizedNormalWorld(1, beta=8.0, tau=0.5, channel="shortcut")
    z, z_pos = world.sample_numpy(40_000, np.random.default_rng(5))
    law = stats.gennorm(8.0, scale=generalized_normal_scale(8.0))
    assert stats.kstest(z_pos[:, 0], law.cdf).pvalue < 1e-6
    assert stats.kstest(z[:, 0], law.cdf).pvalue > 1e-3


def test_world_sampling_is_seeded():
    world = GeneralizedNormalWorld(3, beta=1.5, tau=0.2)
    first = world.sample_pairs(64, torch.Generator().manual_seed(7))
    second = world.sample_pairs(64, torch.Generator().manual_seed(7))
    assert all(torch.equal(a, b) for a, b in zip(first, second))


@pytest.mark.parametrize("make, message", [
    (lambda: GaussianWorld.isotropic(3, 1.0), "rho"),
    (lambda: GaussianWorld(2, (0.5,)), "one entry per coordinate"),
    (lambda: GeneralizedNormalWorld(2, beta=-1.0, tau=0.5), "beta"),
    (lambda: GeneralizedNormalWorld(2, beta=2.0, tau=0.5, channel="euler"), "channel"),
    (lambda: rates_to_rho([1.0, 0.0], 1.0), "kappa"),
    (lambda: rates_to_rho([1.0], -1.0), "tau"),
    (lambda: world_from_dict({"kind": []}), "unknown world kind"),
    (lambda: world_from_dict({"kind": "torus", "n": 2}), "'torus'"),
    (lambda: world_from_dict({"kind": "gaussian", "n": 2}), "gaussian world: lacks the field 'rho'"),
])
def test_bad_world_parameters_raise(make, message):
    with pytest.raises(ValueError, match=message):
        make()
