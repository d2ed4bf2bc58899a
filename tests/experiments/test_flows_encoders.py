"""The frozen coupling-flow renderer and the encoders."""

from __future__ import annotations

import pytest
import torch

from lejepa_wm.experiments.encoders import InverseCouplingEncoder, build_encoder, published_inverse
from lejepa_wm.experiments.flows import CouplingFlow, make_mixing, make_renderer
from lejepa_wm.experiments.metrics import linear_probe_r2
from lejepa_wm.experiments.run_params import RendererParams


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("n", [2, 3, 1024])
def test_flow_is_invertible(n):
    flow = make_mixing(n, layers=3, hidden=16, shift_gain=1.0, log_scale_gain=0.3, seed=0)
    z = torch.randn(32, n, generator=torch.Generator().manual_seed(1))
    assert torch.allclose(flow.inverse(flow(z)), z, atol=1e-4)
    assert not any(p.requires_grad for p in flow.parameters())


def test_flow_is_seeded_and_nonlinear():
    z = torch.randn(256, 4, generator=torch.Generator().manual_seed(2))
    first = make_mixing(4, 2, 16, 1.0, 0.2, seed=3)(z)
    assert torch.equal(first, make_mixing(4, 2, 16, 1.0, 0.2, seed=3)(z))
    assert not torch.allclose(first, make_mixing(4, 2, 16, 1.0, 0.2, seed=4)(z))
    permutation_only = make_mixing(4, 2, 16, 0.0, 0.0, seed=3)  # zero gains: only the fixed permutations
    assert torch.equal(permutation_only(z).sort(dim=1).values, z.sort(dim=1).values)
    assert not torch.allclose(first.sort(dim=1).values, z.sort(dim=1).values, atol=1e-2)


def jacobian_condition(flow: CouplingFlow, z: torch.Tensor) -> torch.Tensor:
    """Condition number ``σ_max/σ_min`` of ``∂g/∂z`` at each row of ``z`` (exact autograd Jacobians)."""
    flow.double()
    singular = [torch.linalg.svdvals(torch.autograd.functional.jacobian(flow, point))
                for point in z.detach().to(torch.float64)]
    flow.float()
    return torch.stack([values.max() / values.min() for values in singular])


def test_conditioning_grows_with_the_gains():
    z = torch.randn(20, 4, generator=torch.Generator().manual_seed(5))
    mild = jacobian_condition(make_mixing(4, 3, 16, 0.2, 0.05, seed=0), z)
    strong = jacobian_condition(make_mixing(4, 3, 16, 2.0, 0.5, seed=0), z)
    assert mild.max() < strong.mean()
    assert mild.min() >= 1.0


def test_matched_encoder_contains_the_exact_inverse_of_an_additive_mixing():
    flow = make_mixing(6, 3, 8, 1.0, 0.0, seed=0)
    encoder = build_encoder("matched_additive", flow, 8, _gen())
    for mine, theirs in zip(encoder.conditioners, reversed(flow.conditioners)):
        mine.load_state_dict(theirs.state_dict())
    z = torch.randn(64, 6)
    assert torch.allclose(encoder(flow(z)), z, atol=1e-5)


def test_matched_encoder_starts_at_the_inverse_permutation_and_only_the_scaled_one_can_collapse():
    flow = make_mixing(4, 2, 8, 0.0, 0.0, seed=0)  # zero gains: a fixed permutation
    x = torch.randn(64, 4)
    additive = build_encoder("matched_additive", flow, 8, _gen())
    assert isinstance(additive, InverseCouplingEncoder)
    assert torch.allclose(additive(flow(x)), x, atol=1e-6)
    with torch.no_grad():  # the conditioners' log-scale outputs are ignored: the additive encoder keeps the scale
        for conditioner in additive.conditioners:
            conditioner.out.bias[: conditioner.n_out] = 100.0
    assert torch.allclose(additive(x).std(0).sort().values, x.std(0).sort().values, atol=1e-5)
    scaled = build_encoder("matched_scaled", flow, 8, _gen())
    with torch.no_grad():  # large negative output log-scales shrink every coordinate towards 0
        scaled.output_log_scales.fill_(-20.0)
    assert bool((scaled(x).std(0) < 1e-3).all())


def test_mlp_encoder_output_dimension_and_errors():
    flow = make_mixing(4, 2, 8, 1.0, 0.0, seed=0)
    assert build_encoder("mlp", flow, 16, _gen(), m=7)(torch.randn(5, 4)).shape == (5, 7)
    with pytest.raises(ValueError, match="encoder"):
        build_encoder("cnn", flow, 16, _gen())
    with pytest.raises(ValueError, match="m = 3"):
        build_encoder("matched_additive", flow, 16, _gen(), m=3)
    with pytest.raises(ValueError, match="n >= 2"):
        make_mixing(1, 2, 8, 1.0, 0.0, seed=0)


@pytest.mark.parametrize("n", [2, 16, 128])
def test_published_renderer_is_invertible_nonlinear_and_contained_in_the_matched_encoder(n):
    flow = make_renderer("published", n, seed=0)
    z = torch.randn(4096, n, generator=_gen(1))
    x = flow(z)
    assert torch.allclose(flow.inverse(x), z, atol=1e-4)
    z_test = torch.randn(4096, n, generator=_gen(2))
    raw_r2, _ = linear_probe_r2(x, z, flow(z_test), z_test)
    assert 0.6 < raw_r2 < 0.9  # the raw observation leaves room for an encoder (issue: <= 0.90 at every n)
    for kind in ("published", "published_scaled"):  # the published encoders' matrices can be the renderer's
        published = build_encoder(kind, flow, 8, _gen())
        assert not torch.allclose(published(x), z, atol=1e-2)
        assert torch.allclose(published_inverse(published, flow)(x), z, atol=1e-4)
    half = n // 2
    additive = build_encoder("matched_additive", flow, max(8, half), _gen())
    with torch.no_grad():  # and so can the generic one's, whose hidden width n/2 suffices
        for mine, theirs in zip(additive.conditioners, reversed(flow.conditioners)):
            mine.hidden.weight.zero_(), mine.hidden.bias.zero_(), mine.out.weight.zero_(), mine.out.bias.zero_()
            mine.hidden.weight[:half] = theirs.weight
            mine.out.weight[half:, :half] = torch.eye(half)
    assert torch.allclose(additive(x), z, atol=1e-4)


def test_published_renderer_is_seeded_and_needs_an_even_dimension():
    z = torch.randn(16, 4, generator=_gen())
    assert torch.equal(make_renderer("published", 4, 3)(z), make_renderer("published", 4, 3)(z))
    assert not torch.allclose(make_renderer("published", 4, 3)(z), make_renderer("published", 4, 4)(z))
    with pytest.raises(ValueError, match="even"):
        make_renderer("published", 5, 0)
    with pytest.raises(ValueError, match="renderer"):
        make_renderer("realnvp", 4, 0)


def test_initialization_comes_from_the_generator_alone():
    flow = make_renderer("published", 4, 0)
    first = build_encoder("mlp", flow, 16, _gen(5))
    torch.manual_seed(123)  # the global generator plays no part
    second = build_encoder("mlp", flow, 16, _gen(5))
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), second.state_dict().values()))
    third = build_encoder("mlp", flow, 16, _gen(6))
    assert not torch.equal(first.net[0].weight, third.net[0].weight)


def test_published_head_is_the_papers_encoder_with_an_m_output_head():
    from lejepa_wm.experiments.encoders import HeadEncoder, published_inverse

    renderer = make_renderer("published", 6, 3)
    for m in (2, 6, 15):
        encoder = build_encoder("published_head", renderer, 16, torch.Generator().manual_seed(0), m=m)
        assert isinstance(encoder, HeadEncoder) and encoder(torch.randn(4, 6)).shape == (4, m)
    encoder = build_encoder("published_head", renderer, 16, torch.Generator().manual_seed(0), m=6)
    encoder.body = published_inverse(encoder.body, renderer)  # the body can be the renderer's exact inverse
    z = torch.randn(32, 6)
    with torch.no_grad():
        assert torch.allclose(encoder.body(renderer(z)), z, atol=1e-5)


def test_published_head_can_be_whitened_above_n_plus_its_hidden_width():
    """The head's width grows with m: at m = 40 > n + hidden = 6 + 16 the embedding still has full rank m,
    which whitening (Cov h = I_m) needs; a fixed width of 16 would cap its rank at 22."""
    renderer = make_renderer("published", 6, 3)
    encoder = build_encoder("published_head", renderer, 16, torch.Generator().manual_seed(0), m=40)
    with torch.no_grad():
        h = encoder(renderer(torch.randn(2048, 6, generator=torch.Generator().manual_seed(1))))
    singular = torch.linalg.svdvals(h - h.mean(dim=0))
    assert int((singular / singular[0] > 1e-6).sum()) == 40


def test_the_coupling_renderer_is_the_seeded_random_flow_frozen_in_any_dimension():
    z = torch.randn(64, 5, generator=_gen(1))
    params = RendererParams(kind="coupling", layers=2, hidden=16, shift_gain=0.5, log_scale_gain=0.1)
    renderer = params.build(5, 3)  # odd n, which the published renderer refuses
    assert torch.equal(renderer(z), make_mixing(5, 2, 16, 0.5, 0.1, seed=3)(z))
    assert not any(parameter.requires_grad for parameter in renderer.parameters()) and not renderer.training
    assert torch.allclose(renderer.inverse(renderer(z)), z, atol=1e-5)
    with pytest.raises(ValueError, match="even dimension"):
        make_renderer("published", 5, 3)


def _gathered_forward(flow, z):
    """The coupling flow as its definition reads: gather the permuted coordinates, couple, concatenate."""
    for perm, conditioner in zip(flow.permutations, flow.conditioners):
        a, b = z[..., perm].split([flow.n_a, flow.n - flow.n_a], dim=-1)
        log_scale, shift = conditioner(a)
        z = torch.cat([a, b + shift if log_scale is None else b * torch.exp(log_scale) + shift], dim=-1)
    return z


@pytest.mark.parametrize("kind,n", [("published", 2), ("published", 64), ("coupling", 7), ("coupling", 16)])
def test_exchanging_halves_gives_the_gathered_flow_bit_for_bit(kind, n):
    flow = make_renderer(kind, n, seed=4)
    expected = {"published": ("identity",) + ("swap",) * 3, "coupling": ("general",) * 4}[kind]
    assert flow.permutation_kinds == expected
    z = torch.randn(32, n, generator=torch.Generator().manual_seed(0))
    assert torch.equal(flow(z), _gathered_forward(flow, z))
    x = flow(z)
    encoder = build_encoder("published" if kind == "published" else "matched_additive", flow, 8,
                            torch.Generator().manual_seed(1))
    encoder(x).square().sum().backward()
    swapped = [p.grad.clone() for p in encoder.parameters()]
    encoder.zero_grad()
    h = x
    for perm, conditioner in zip(encoder.inverse_permutations, encoder.conditioners):  # the gathered inverse
        a, b = h[..., :flow.n_a], h[..., flow.n_a:]
        b = b - conditioner(a)[1]
        h = torch.cat([a, b], dim=-1)[..., perm]
    h.square().sum().backward()
    assert all(torch.equal(p.grad, g) for p, g in zip(encoder.parameters(), swapped))
