"""Tests of the quadrature rules against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lejepa_wm.numerics.gaussian_quadrature import (gauss_hermite_rule, polar_pair_rule, split_legendre_rule,
                                                    tensor_rule)

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)


def double_factorial_moment(k: int) -> float:
    """``E z^k`` for ``z ~ N(0, 1)``."""
    return 0.0 if k % 2 else float(math.prod(range(k - 1, 0, -2)))


@SETTINGS
@given(points=st.integers(1, 40), data=st.data())
def test_gauss_hermite_exact_to_degree_2n_minus_1(points: int, data: st.DataObject) -> None:
    rule = gauss_hermite_rule(points)
    k = data.draw(st.integers(0, 2 * points - 1))
    scale = max(1.0, double_factorial_moment(k + (k % 2)))
    assert abs(rule.weights @ rule.nodes**k - double_factorial_moment(k)) <= 1e-12 * scale


def test_split_rule_integrates_kinks_exactly() -> None:
    rule = split_legendre_rule(40)
    assert abs(rule.weights @ np.abs(rule.nodes) - math.sqrt(2 / math.pi)) <= 1e-15
    assert abs(rule.weights @ np.maximum(rule.nodes, 0.0) ** 3 - math.sqrt(2 / math.pi)) <= 1e-14
    assert abs(rule.weights @ np.sign(rule.nodes)) <= 1e-15


@pytest.mark.parametrize("rho", [0.01, 0.3, 0.7, 0.99])
def test_polar_pair_rule_reproduces_arcsine_laws(rho: float) -> None:
    """``E[sign z sign z'] = (2/pi) asin rho`` and ``E|z||z'| = (2/pi)(sqrt(1-rho^2) + rho asin rho)``."""
    z, z_prime, weights = polar_pair_rule(rho)
    assert abs(weights.sum() - 1.0) <= 1e-14
    assert abs(weights @ (np.sign(z) * np.sign(z_prime)) - 2 / math.pi * math.asin(rho)) <= 1e-14
    expected = 2 / math.pi * (math.sqrt(1 - rho**2) + rho * math.asin(rho))
    assert abs(weights @ (np.abs(z) * np.abs(z_prime)) - expected) <= 1e-13
    assert abs(weights @ (z * z_prime) - rho) <= 1e-14


def test_tensor_rule_orders_axes_like_meshgrid() -> None:
    rule = gauss_hermite_rule(3)
    nodes, weights = tensor_rule(rule, 2)
    assert nodes.shape == (9, 2) and np.allclose(nodes[:3, 0], rule.nodes[0]) and np.allclose(nodes[:3, 1], rule.nodes)
    assert abs(weights.sum() - 1.0) <= 1e-15
