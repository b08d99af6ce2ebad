"""Shared pieces of the [P04] claim checks: the model variants, their quantities, and the paper/extension split."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch

from icml26.claims import Context
from icml26.common.nn import GPTConfig, TinyGPT
from icml26.papers.conservation._model import NORM_KINDS, model_controls, model_laws, use_sigmoid_gating_
from icml26.verdicts import Judgement

# The three model variants cover every law and control of model_laws / model_controls:
#   rope_swiglu: rotary attention + dense SwiGLU; sin_moe: sinusoidal + softmax top-2 MoE of SwiGLU experts;
#   nope_sigmoid_gelu: no positions + normalised-sigmoid MoE of GELU experts (controls for Thms 4.1 and 4.7).
VARIANTS: dict[str, dict[str, Any]] = {
    "rope_swiglu": {"pos": "rope", "mlp": "swiglu"},
    "sin_moe": {"pos": "sinusoidal", "mlp": "swiglu", "n_experts": 4, "top_k": 2},
    "nope_sigmoid_gelu": {"pos": "none", "mlp": "gelu", "n_experts": 4, "top_k": 2},
}
VOCAB, SEQ_LEN = 32, 16
#: how the findings name the RMSNorm-scale law, which the research notes add to the paper's laws
EXTENSION = "RMSNorm-scale law (the notes' extension, not a theorem of the paper; not judged)"


def build_variant(name: str, *, d_model: int, n_layer: int, seed: int, init_std: float, bias: bool = False
                  ) -> TinyGPT:
    """A float64 RMSNorm pre-norm TinyGPT of the named variant, matrices re-scaled to standard deviation
    ``init_std`` (GPT-2's 0.02 leaves some law drifts near round-off at this scale)."""
    cfg = GPTConfig(vocab_size=VOCAB, block_size=SEQ_LEN, n_layer=n_layer, n_head=2, d_model=d_model,
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


def is_extension(key: str) -> bool:
    """Whether a quantity key (``law:blocks.0.norm1``) belongs to the notes' RMSNorm-scale extension."""
    return key.rsplit(".", 1)[-1] in NORM_KINDS


def split_rows(rows: Sequence[Mapping[str, Any]]) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """(the paper's rows, the extension's rows), by each row's ``extension`` flag."""
    return [r for r in rows if not r["extension"]], [r for r in rows if r["extension"]]


def finding(j: Judgement) -> dict[str, str]:
    """The extension's result, judged with the claim's bars but reported apart from the verdict."""
    return {EXTENSION: f"{j.verdict.value} against the same bars: {j.reason}"}


def bar_value(ctx: Context, name: str) -> float:
    """The threshold of the one-sided bar ``name`` (for drawing it)."""
    v = ctx.bar(name).value
    if isinstance(v, tuple):
        raise ValueError(f"bar {name!r} is a band {v}, not a one-sided threshold")
    return v
