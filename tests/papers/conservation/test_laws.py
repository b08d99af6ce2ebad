"""Block-level laws and group actions of [P04]: worked examples, closed forms, invariance, bad input."""

from __future__ import annotations

import copy

import pytest
import torch

from icml26.common.nn import GPTConfig
from icml26.common.nn.blocks import MLP, Attention, MoE, RMSNorm
from icml26.papers.conservation import (
    attention_qk_laws,
    attention_vo_laws,
    moe_router_law,
    relu_mlp_laws,
    rmsnorm_laws,
    rope_commuting,
    rope_qk_laws,
    scale_hidden_units_,
    scale_rmsnorm_,
    shift_router_,
    swiglu_laws,
    transform_qk_,
    transform_vo_,
)

D = torch.float64


def _seeded(module: torch.nn.Module, seed: int) -> torch.nn.Module:
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=g, dtype=D))
    return module


def _mlp(kind: str, seed: int = 0, bias: bool = False) -> MLP:
    with torch.random.fork_rng(devices=[]):
        return _seeded(MLP(4, 6, kind=kind, bias=bias).double(), seed)


def _attn(pos: str, seed: int = 0, bias: bool = False) -> Attention:
    cfg = GPTConfig(d_model=8, n_head=2, pos=pos, bias=bias)
    with torch.random.fork_rng(devices=[]):
        return _seeded(Attention(cfg).double(), seed)


def _x(seed: int = 1, shape: tuple[int, ...] = (2, 5, 8)) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=D)


def test_swiglu_worked_example() -> None:
    mlp = _mlp("swiglu")
    with torch.no_grad():
        mlp.w_in.weight.zero_()
        mlp.w_out.weight.zero_()
        mlp.w_in.weight[0] = torch.tensor([1.0, 2.0, 0.0, 0.0])  # ‖A[:, 0]‖² = 5
        mlp.w_out.weight[:, 0] = torch.tensor([0.0, 1.0, 1.0, 1.0])  # ‖C[0, :]‖² = 3
        mlp.w_gate.weight.fill_(7.0)  # the gate carries no law
    h = swiglu_laws(mlp)
    assert h.shape == (6,)
    assert h[0].item() == 2.0 and torch.all(h[1:] == 0)


def _grads(module: torch.nn.Module, x: torch.Tensor, seed: int = 2) -> None:
    y = torch.randn(module(x).shape, generator=torch.Generator().manual_seed(seed), dtype=D)
    module.zero_grad()
    (0.5 * (module(x) - y).pow(2).sum()).backward()


@pytest.mark.parametrize("kind", ["swiglu", "geglu", "reglu"])
def test_gated_law_closed_form_orthogonality(kind: str) -> None:
    """Oracle: ⟨∇h_i, ∇L⟩ = 2⟨A_i, ∂L/∂A_i⟩ − 2⟨C_i, ∂L/∂C_i⟩ = 0 (Thm 4.2), from autograd gradients only."""
    mlp = _mlp(kind)
    _grads(mlp, _x(shape=(16, 4)))
    a, ga = mlp.w_in.weight, mlp.w_in.weight.grad
    c, gc = mlp.w_out.weight, mlp.w_out.weight.grad
    rate = 2 * (a * ga).sum(1) - 2 * (c * gc).sum(0)
    scale = 2 * (a * ga).sum(1).abs() + 1e-300
    assert torch.all(rate.abs() <= 1e-12 * scale.max())
    gate_rate = 2 * (mlp.w_gate.weight * mlp.w_gate.weight.grad).sum(1) - 2 * (c * gc).sum(0)
    if kind != "reglu":  # the SwiGLU/GeGLU gate carries nothing
        assert gate_rate.abs().max() > 1e-6


def test_relu_law_vs_gelu_control() -> None:
    for kind, conserved in (("relu", True), ("gelu", False), ("silu", False)):
        mlp = _mlp(kind)
        _grads(mlp, _x(shape=(16, 4)))
        rate = 2 * (mlp.w_in.weight * mlp.w_in.weight.grad).sum(1) - 2 * (mlp.w_out.weight * mlp.w_out.weight.grad).sum(0)
        assert (rate.abs().max() < 1e-12) == conserved, kind
        assert relu_mlp_laws(mlp).shape == (6,)


def test_law_gradient_is_the_group_generator() -> None:
    """∇h_i = 2·(d/dt of the group path at t = 0): the symmetry-law correspondence of [P04] Sec. 3."""
    mlp = _mlp("swiglu")
    h = swiglu_laws(mlp)
    ga, gc = torch.autograd.grad(h[2], (mlp.w_in.weight, mlp.w_out.weight))
    t = 1e-6
    moved = copy.deepcopy(mlp)
    s = torch.ones(6, dtype=D)
    s[2] = torch.exp(torch.tensor(t, dtype=D))
    scale_hidden_units_(moved, s)
    va = (moved.w_in.weight - mlp.w_in.weight).detach() / t
    vc = (moved.w_out.weight - mlp.w_out.weight).detach() / t
    torch.testing.assert_close(ga, 2 * va, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(gc, 2 * vc, atol=1e-5, rtol=1e-5)  # C moves by −C·t and ∂h/∂C = −2C


@pytest.mark.parametrize("bias", [False, True])
def test_mlp_scaling_invariance(bias: bool) -> None:
    mlp = _mlp("swiglu", bias=bias)
    x = _x(shape=(5, 4))
    m2 = copy.deepcopy(mlp)
    scale_hidden_units_(m2, torch.exp(torch.randn(6, generator=torch.Generator().manual_seed(3), dtype=D)))
    with torch.no_grad():
        assert (mlp(x) - m2(x)).abs().max() < 1e-12
    gelu = _mlp("gelu")
    g2 = copy.deepcopy(gelu)
    scale_hidden_units_(g2, torch.full((6,), 2.0, dtype=D))
    with torch.no_grad():
        assert (gelu(x) - g2(x)).abs().max() > 1e-3  # Thm 4.1: no such symmetry


@pytest.mark.parametrize("pos", ["none", "sinusoidal", "learned"])
@pytest.mark.parametrize("bias", [False, True])
def test_attention_qk_vo_invariance(pos: str, bias: bool) -> None:
    attn = _attn(pos, bias=bias)
    x, positions = _x(), torch.arange(5)
    g = torch.Generator().manual_seed(4)
    E = torch.eye(4, dtype=D) + 0.5 * torch.randn(2, 4, 4, generator=g, dtype=D)
    F = torch.eye(4, dtype=D) + 0.5 * torch.randn(2, 4, 4, generator=g, dtype=D)
    a2 = copy.deepcopy(attn)
    transform_qk_(a2, E)
    transform_vo_(a2, F)
    with torch.no_grad():
        assert (attn(x, positions) - a2(x, positions)).abs().max() < 1e-12
    assert attention_qk_laws(attn).shape == (2, 4, 4) and attention_vo_laws(attn).shape == (2, 4, 4)


def test_rope_commuting_vs_generic() -> None:
    attn = _attn("rope")
    x, positions = _x(), torch.arange(5)
    g = torch.Generator().manual_seed(5)
    E = rope_commuting(torch.exp(torch.randn(2, 2, generator=g, dtype=D)), torch.randn(2, 2, generator=g, dtype=D))
    a2, a3 = copy.deepcopy(attn), copy.deepcopy(attn)
    transform_qk_(a2, E)
    transform_qk_(a3, torch.eye(4, dtype=D) + 0.5 * torch.randn(2, 4, 4, generator=g, dtype=D))
    with torch.no_grad():
        assert (attn(x, positions) - a2(x, positions)).abs().max() < 1e-12
        assert (attn(x, positions) - a3(x, positions)).abs().max() > 1e-4
    # Thm 4.4: the RoPE laws are the traces of the 2×2 diagonal blocks of the full Q/K matrix
    full = attention_qk_laws(attn)
    blocks = torch.stack([full[:, 2 * j : 2 * j + 2, 2 * j : 2 * j + 2].diagonal(dim1=1, dim2=2).sum(-1) for j in range(2)], 1)
    torch.testing.assert_close(rope_qk_laws(attn), blocks)


def test_router_shift_and_rmsnorm_scaling() -> None:
    with torch.random.fork_rng(devices=[]):
        moe = _seeded(MoE(4, 6, kind="swiglu", bias=False, n_experts=3, top_k=2).double(), 0)
    x = _x(shape=(7, 4))
    m2 = copy.deepcopy(moe)
    shift_router_(m2, torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=D))
    with torch.no_grad():
        assert (moe(x) - m2(x)).abs().max() < 1e-12
    torch.testing.assert_close(moe_router_law(m2), moe_router_law(moe) + 3 * torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=D))
    norm = RMSNorm(4).double()
    lins = [_seeded(torch.nn.Linear(4, 3, bias=False).double(), i) for i in range(2)]
    n2, l2 = copy.deepcopy(norm), copy.deepcopy(lins)
    scale_rmsnorm_(n2, l2, torch.tensor([2.0, 0.5, 3.0, -1.5], dtype=D))
    with torch.no_grad():
        for a, b in zip(lins, l2):
            assert (a(norm(x)) - b(n2(x))).abs().max() < 1e-12
    assert rmsnorm_laws(norm, lins).shape == (4,)


def test_bad_input() -> None:
    mlp = _mlp("swiglu")
    with torch.no_grad():
        mlp.w_in.weight[0, 0] = float("nan")
    with pytest.raises(ValueError, match="mlp has non-finite"):
        swiglu_laws(mlp)
    with pytest.raises(ValueError, match="mlp must be gated"):
        swiglu_laws(_mlp("gelu"))
    with pytest.raises(TypeError, match="mlp must be a MLP"):
        swiglu_laws(torch.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="s must have shape"):
        scale_hidden_units_(_mlp("swiglu"), torch.ones(5, dtype=D))
    with pytest.raises(ValueError, match="s must be positive"):
        scale_hidden_units_(_mlp("swiglu"), -torch.ones(6, dtype=D))
    with pytest.raises(ValueError, match="E must have shape"):
        transform_qk_(_attn("none"), torch.eye(3, dtype=D).expand(2, 3, 3))
    with pytest.raises(ValueError, match="E must be invertible"):
        transform_qk_(_attn("none"), torch.zeros(2, 4, 4, dtype=D))
    with pytest.raises(ValueError, match="F must be finite"):
        transform_vo_(_attn("none"), torch.full((2, 4, 4), float("inf"), dtype=D))
    with pytest.raises(ValueError, match="a and b must have the same shape"):
        rope_commuting(torch.ones(2, 2), torch.ones(2, 3))
    with pytest.raises(ValueError, match=r"consumers\[0\] takes 3 inputs"):
        rmsnorm_laws(RMSNorm(4).double(), [torch.nn.Linear(3, 2)])
    with pytest.raises(ValueError, match="consumers must name"):
        rmsnorm_laws(RMSNorm(4).double(), [])
