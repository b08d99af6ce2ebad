"""Shared pieces of the claim checks of [P04]: the model variants and their quantities."""

from __future__ import annotations

import torch

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.papers.conservation._model import (
    model_controls,
    model_laws,
    use_sigmoid_gating_,
)

# The three model variants cover every law and control of model_laws / model_controls:
#   rope_swiglu: rotary attention + dense SwiGLU; sin_moe: sinusoidal + softmax top-2 MoE of SwiGLU experts;
#   nope_sigmoid_gelu: no positions + normalised-sigmoid MoE of GELU experts (controls for Thms 4.1 and 4.7).
VARIANTS = {
    "rope_swiglu": dict(pos="rope", mlp="swiglu"),
    "sin_moe": dict(pos="sinusoidal", mlp="swiglu", n_experts=4, top_k=2),
    "nope_sigmoid_gelu": dict(pos="none", mlp="gelu", n_experts=4, top_k=2),
}



def build_variant(name: str, *, d_model: int, n_layer: int, seed: int, init_std: float, vocab: int = 32,
                  block: int = 16, bias: bool = False) -> TinyGPT:
    """A float64 RMSNorm pre-norm TinyGPT of the named variant, matrices re-scaled to standard deviation
    ``init_std`` (GPT-2's 0.02 leaves some law drifts near round-off at this scale)."""
    cfg = GPTConfig(vocab_size=vocab, block_size=block, n_layer=n_layer, n_head=2, d_model=d_model,
                    d_ff=3 * d_model // 2, norm="rmsnorm", bias=bias, **VARIANTS[name])
    model = TinyGPT(cfg, seed=seed).double()
    g = torch.Generator().manual_seed(seed + 7919)
    with torch.no_grad():
        for p in model.parameters():
            if p.ndim == 2:
                p.mul_(init_std / 0.02)
            elif bias:  # norm scales and biases away from 1 / 0 so that they matter
                p.add_(0.3 * torch.randn(p.shape, generator=g, dtype=p.dtype))
    if name == "nope_sigmoid_gelu":
        use_sigmoid_gating_(model)
    return model


def quantities(model: TinyGPT) -> dict[str, torch.Tensor]:
    """Every law (``law:<name>``) and control (``control:<name>``) of ``model``."""
    return {**{"law:" + k: v for k, v in model_laws(model).items()},
            **{"control:" + k: v for k, v in model_controls(model).items()}}


def kind_of(key: str) -> str:
    """``law:blocks.1.attn.vo`` -> ``law:attn.vo`` (pooled over blocks)."""
    head, rest = key.split(":", 1)
    return head + ":" + rest.split(".", 2)[2]
