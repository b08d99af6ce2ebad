"""Laws of a whole TinyGPT ([P04] Sec. 4 block by block): invariance, gradient-flow rates, SGD drift closed form."""

from __future__ import annotations

import copy

import pytest
import torch

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.papers.conservation import (
    flow_rates,
    markov_batches,
    model_controls,
    model_laws,
    random_symmetry_,
    relative_drift,
    sgd_drift,
    use_sigmoid_gating_,
)


def _model(**kw: object) -> TinyGPT:
    base = dict(vocab_size=16, block_size=8, n_layer=1, n_head=2, d_model=8, d_ff=12, norm="rmsnorm")
    m = TinyGPT(GPTConfig(**{**base, **kw}), seed=0).double()
    with torch.no_grad():
        for p in m.parameters():
            if p.ndim == 2:
                p.mul_(5.0)
    return m


BATCH = markov_batches(vocab_size=16, seq_len=8, batch_size=4, n_batches=2, seed=0)

CONFIGS = [
    dict(pos="rope", mlp="swiglu"),
    dict(pos="sinusoidal", mlp="geglu", n_experts=3, top_k=2),
    dict(pos="learned", mlp="relu", parallel=True, bias=True),
    dict(pos="none", mlp="swiglu", n_layer=2, bias=True),
]


@pytest.mark.parametrize("kw", CONFIGS, ids=lambda k: f"{k['pos']}-{k['mlp']}")
def test_random_symmetry_keeps_logits(kw: dict) -> None:
    m = _model(**kw)
    m2 = copy.deepcopy(m)
    random_symmetry_(m2, seed=3)
    x = BATCH[0][0]
    with torch.no_grad():
        a, b = m(x), m2(x)
    assert (a - b).abs().max() / a.abs().max() < 1e-12
    assert any((p - q).abs().max() > 1e-2 for p, q in zip(m.parameters(), m2.parameters()))


@pytest.mark.parametrize("kw", CONFIGS, ids=lambda k: f"{k['pos']}-{k['mlp']}")
def test_flow_rates_laws_zero_controls_not(kw: dict) -> None:
    m = _model(**kw)
    laws = model_laws(m)
    assert laws and all(torch.isfinite(v).all() for v in laws.values())
    rates = flow_rates(m, *BATCH[0], model_laws, n_probes=2)
    assert max(rates.values()) < 1e-12
    ctrl = model_controls(m)
    if ctrl:
        assert min(flow_rates(m, *BATCH[0], model_controls, n_probes=2).values()) > 1e-4


def test_law_keys() -> None:
    m = _model(pos="rope", mlp="swiglu", n_experts=2, top_k=1)
    assert set(model_laws(m)) == {"blocks.0." + k for k in ("attn.qk_rope", "attn.vo", "mlp.router", "mlp.experts", "norm1", "norm2")}
    use_sigmoid_gating_(m)
    assert "blocks.0.mlp.router" not in model_laws(m)
    assert "blocks.0.mlp.router_sigmoid" in model_controls(m)


def test_one_sgd_step_closed_form() -> None:
    """Oracle: one SGD step moves the SwiGLU law by exactly τ²(‖∂L/∂A_i‖² − ‖∂L/∂C_i‖²) (h is quadratic)."""
    m = _model(pos="none", mlp="swiglu")
    x, y = BATCH[0]
    m.zero_grad()
    m.loss(x, y).backward()
    mlp = m.blocks[0].mlp
    tau = 0.05
    predicted = tau**2 * (mlp.w_in.weight.grad.pow(2).sum(1) - mlp.w_out.weight.grad.pow(2).sum(0))
    h0 = model_laws(m)["blocks.0.mlp.hidden"].detach().clone()
    drift = sgd_drift(m, BATCH[:1], lambda mm: {"h": model_laws(mm)["blocks.0.mlp.hidden"]}, lr=tau, steps=1)
    h1 = model_laws(m)["blocks.0.mlp.hidden"].detach()
    torch.testing.assert_close(h1 - h0, predicted, atol=1e-14, rtol=1e-9)
    assert drift["h"][0] == pytest.approx(relative_drift(h0, h1))


def test_sigmoid_gating_changes_function_not_weights() -> None:
    m = _model(pos="none", mlp="swiglu", n_experts=3, top_k=3)
    m2 = copy.deepcopy(m)
    use_sigmoid_gating_(m2)
    torch.testing.assert_close(m.blocks[0].mlp.router.weight, m2.blocks[0].mlp.router.weight)
    with torch.no_grad():
        assert (m(BATCH[0][0]) - m2(BATCH[0][0])).abs().max() > 1e-6


def test_bad_input() -> None:
    m = _model(pos="rope", mlp="swiglu")
    with pytest.raises(TypeError, match="model must be a TinyGPT"):
        model_laws(torch.nn.Linear(2, 2))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"lr must be in \(0, inf\)"):
        sgd_drift(m, BATCH, model_laws, lr=0.0, steps=1)
    with pytest.raises(ValueError, match="steps must be an int >= 1"):
        sgd_drift(m, BATCH, model_laws, lr=0.1, steps=0)
    with pytest.raises(ValueError, match="record_at must lie in"):
        sgd_drift(m, BATCH, model_laws, lr=0.1, steps=2, record_at=(3,))
    with pytest.raises(ValueError, match="batches must be a non-empty"):
        sgd_drift(m, [], model_laws, lr=0.1, steps=1)
    with pytest.raises(ValueError, match="vocab_size must be an int >= 1"):
        markov_batches(vocab_size=0, seq_len=4, batch_size=2, n_batches=1, seed=0)
    for bad in (float("nan"), 0.0, -0.5, float("inf")):
        with pytest.raises(ValueError, match="concentration must be"):
            markov_batches(vocab_size=4, seq_len=4, batch_size=2, n_batches=1, seed=0, concentration=bad)
    with pytest.raises(ValueError, match="h0 is zero"):
        relative_drift(torch.zeros(3), torch.ones(3))
    with pytest.raises(ValueError, match="x and y must have the same shape"):
        flow_rates(m, BATCH[0][0], BATCH[0][1][:, :2], model_laws)
    with torch.no_grad():
        m.blocks[0].attn.q.weight[0, 0] = float("inf")
    with pytest.raises(ValueError, match="model has non-finite values in parameter 'blocks.0.attn.q.weight'"):
        model_laws(m)


def test_batches_must_hold_integer_token_ids() -> None:
    """Token batches of the wrong dtype, range or length are refused with the batch and the argument named."""
    m = _model(pos="rope", mlp="swiglu")
    x, y = BATCH[0]
    with pytest.raises(TypeError, match=r"batches\[0\] inputs must hold integer token ids.*float64"):
        sgd_drift(m, [(x.double(), y)], model_laws, lr=1e-2, steps=1)
    with pytest.raises(TypeError, match=r"batches\[1\] targets must hold integer token ids.*int32"):
        sgd_drift(m, [(x, y), (x, y.int())], model_laws, lr=1e-2, steps=1)
    with pytest.raises(ValueError, match=r"batches\[0\] inputs token ids must lie in \[0, 16\)"):
        sgd_drift(m, [(x + 16, y)], model_laws, lr=1e-2, steps=1)
    with pytest.raises(ValueError, match=r"batches\[0\] inputs has seq_len 9 > the model's block_size=8"):
        sgd_drift(m, [(torch.zeros(2, 9, dtype=torch.long), torch.zeros(2, 9, dtype=torch.long))], model_laws,
                  lr=1e-2, steps=1)
    with pytest.raises(TypeError, match=r"batches\[0\] inputs must be a torch.Tensor"):
        sgd_drift(m, [(x.tolist(), y)], model_laws, lr=1e-2, steps=1)
    with pytest.raises(TypeError, match="x must hold integer token ids"):
        flow_rates(m, x.float(), y, model_laws)
    with pytest.raises(TypeError, match="steps must be an int, got bool"):
        sgd_drift(m, BATCH, model_laws, lr=0.1, steps=True)
    with pytest.raises(TypeError, match="lr must be a real number, got bool"):
        sgd_drift(m, BATCH, model_laws, lr=True, steps=1)
    assert set(sgd_drift(m, [(x.int(), y)], model_laws, lr=1e-3, steps=1)) == set(model_laws(m))  # int32 ids work
