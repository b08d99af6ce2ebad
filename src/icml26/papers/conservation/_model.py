"""Laws, controls and symmetries of a whole :class:`~icml26.common.nn.TinyGPT` ([P04] Sec. 4 applied block by block).

``model_laws`` names every conserved quantity of a model (by block and kind); ``model_controls`` names look-alike
quantities that the paper says are *not* conserved (the negative controls of the drift experiment);
``random_symmetry_`` applies one random element of the whole symmetry group in place.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.nn.blocks import GATED, MLP, Block, MoE, RMSNorm
from icml26.papers.conservation._groups import (
    rope_commuting,
    scale_hidden_units_,
    scale_rmsnorm_,
    shift_router_,
    transform_qk_,
    transform_vo_,
)
from icml26.papers.conservation._laws import (
    attention_qk_laws,
    attention_vo_laws,
    moe_expert_laws,
    moe_router_law,
    relu_mlp_laws,
    rmsnorm_laws,
    rope_qk_laws,
    swiglu_laws,
)

__all__ = ["NormalizedSigmoidMoE", "model_laws", "model_controls", "random_symmetry_", "use_sigmoid_gating_"]


class NormalizedSigmoidMoE(MoE):
    """MoE with normalised-sigmoid gating ``g_e = σ(z_e) / Σ_{e'∈top-k} σ(z_{e'})`` ([P04] Thm 4.7's gating)."""

    def gates(self, x: Tensor) -> Tensor:
        logits = self.router(x)
        _, idx = logits.topk(self.top_k, dim=-1)
        s = torch.zeros_like(logits).scatter(-1, idx, torch.sigmoid(logits).gather(-1, idx))
        return s / s.sum(-1, keepdim=True)


def use_sigmoid_gating_(model: TinyGPT) -> None:
    """Swap every softmax MoE of ``model`` for a :class:`NormalizedSigmoidMoE` with the same weights (in place), to
    test [P04] Thm 4.7 (normalised-sigmoid gating)."""
    if not isinstance(model, TinyGPT):
        raise TypeError(f"model must be a TinyGPT, got {type(model).__name__}")
    for blk in model.blocks:
        if isinstance(blk.mlp, MoE) and not isinstance(blk.mlp, NormalizedSigmoidMoE):
            old = blk.mlp
            with torch.random.fork_rng(devices=[]):  # nn.Linear's init draws from the global RNG: keep it untouched
                new = NormalizedSigmoidMoE(
                    old.router.weight.shape[1], old.experts[0].w_in.weight.shape[0], kind=old.experts[0].kind,
                    bias=old.experts[0].w_in.bias is not None, n_experts=len(old.experts), top_k=old.top_k,
                )
            new.load_state_dict(old.state_dict())
            blk.mlp = new.to(old.router.weight)


def _mlp_inputs(mlp: nn.Module) -> list[nn.Linear]:
    if isinstance(mlp, MoE):
        return [mlp.router] + [lin for e in mlp.experts for lin in _mlp_inputs(e)]
    return [mlp.w_in] + ([mlp.w_gate] if mlp.w_gate is not None else [])


def _norm_consumers(blk: Block) -> list[tuple[str, RMSNorm, list[nn.Linear]]]:
    """(name, norm, consumers) for every RMSNorm of a pre-norm block whose output feeds only linear maps."""
    cfg: GPTConfig = blk.cfg
    if cfg.norm != "rmsnorm" or cfg.norm_position != "pre":
        return []
    qkv = [blk.attn.q, blk.attn.k, blk.attn.v]
    if cfg.parallel:
        return [("norm1", blk.norm1, qkv + _mlp_inputs(blk.mlp))]
    return [("norm1", blk.norm1, qkv), ("norm2", blk.norm2, _mlp_inputs(blk.mlp))]


def _check_model(model: object) -> TinyGPT:
    if not isinstance(model, TinyGPT):
        raise TypeError(f"model must be a TinyGPT, got {type(model).__name__}")
    for name, p in model.named_parameters():
        if not torch.isfinite(p).all():
            raise ValueError(f"model has non-finite values in parameter {name!r}")
    return model


def model_laws(model: TinyGPT) -> dict[str, Tensor]:
    """Every conserved quantity of ``model``, keyed ``"blocks.<i>.<kind>"`` ([P04] Thms 4.2-4.6 + RMSNorm scale).

    Kinds: ``attn.qk`` (no rotary positions, Thm 4.3) or ``attn.qk_rope`` (Thm 4.4), ``attn.vo`` (Thm 4.3),
    ``mlp.hidden`` (gated MLP, Thm 4.2; ReLU MLP: the classical law), ``mlp.router`` (softmax MoE, Thms 4.5-4.6),
    ``mlp.experts`` (gated experts), ``norm1`` / ``norm2`` (RMSNorm scale, pre-norm blocks).
    """
    _check_model(model)
    out: dict[str, Tensor] = {}
    for i, blk in enumerate(model.blocks):
        p = f"blocks.{i}."
        if model.cfg.pos == "rope":
            out[p + "attn.qk_rope"] = rope_qk_laws(blk.attn)
        else:
            out[p + "attn.qk"] = attention_qk_laws(blk.attn)
        out[p + "attn.vo"] = attention_vo_laws(blk.attn)
        mlp = blk.mlp
        if isinstance(mlp, MoE):
            if not isinstance(mlp, NormalizedSigmoidMoE):
                out[p + "mlp.router"] = moe_router_law(mlp)
            if mlp.experts[0].kind in GATED:
                out[p + "mlp.experts"] = moe_expert_laws(mlp)
        elif isinstance(mlp, MLP) and mlp.kind in GATED:
            out[p + "mlp.hidden"] = swiglu_laws(mlp)
        elif isinstance(mlp, MLP) and mlp.kind == "relu":
            out[p + "mlp.hidden"] = relu_mlp_laws(mlp)
        for name, norm, cons in _norm_consumers(blk):
            out[p + name] = rmsnorm_laws(norm, cons)
    return out


def model_controls(model: TinyGPT) -> dict[str, Tensor]:
    """Look-alike quantities that are *not* conserved (negative controls for the laws of [P04]), keyed like
    :func:`model_laws`.

    ``attn.qk_full_rope``: the full ``W_Q^T W_Q − W_K^T W_K`` under RoPE (Thm 4.4 keeps only its 2×2 block traces);
    ``mlp.gate``: ``‖B[:, i]‖² − ‖C[i, :]‖²`` of a SwiGLU/GeGLU MLP (the gate carries no law, Thm 4.2);
    ``mlp.hidden_smooth``: ``‖w_i‖² − u_i²`` of a GELU/SiLU MLP (no law, Thm 4.1);
    ``mlp.router_sigmoid``: the router row sum under normalised-sigmoid gating (Thm 4.7, refuted);
    ``norm1_no_v``: the RMSNorm law with the V projection left out.
    """
    _check_model(model)
    out: dict[str, Tensor] = {}
    for i, blk in enumerate(model.blocks):
        p = f"blocks.{i}."
        if model.cfg.pos == "rope":
            out[p + "attn.qk_full_rope"] = attention_qk_laws(blk.attn)
        mlp = blk.mlp
        experts = list(mlp.experts) if isinstance(mlp, MoE) else [mlp]
        if experts[0].kind in ("swiglu", "geglu"):
            out[p + "mlp.gate"] = torch.stack(
                [e.w_gate.weight.pow(2).sum(1) - e.w_out.weight.pow(2).sum(0) for e in experts]
            )
        elif experts[0].kind in ("gelu", "silu"):
            out[p + "mlp.hidden_smooth"] = torch.stack([relu_mlp_laws(e) for e in experts])
        if isinstance(mlp, NormalizedSigmoidMoE):
            out[p + "mlp.router_sigmoid"] = mlp.router.weight.sum(0)
        for name, norm, cons in _norm_consumers(blk):
            if name == "norm1":
                out[p + "norm1_no_v"] = rmsnorm_laws(norm, cons[:2] + cons[3:])
    return out


def random_symmetry_(model: TinyGPT, *, seed: int, spread: float = 0.5) -> None:
    """Apply one random element of every symmetry group of ``model`` in place ([P04] Thms 4.2-4.6).

    Per block: a random ``E`` on Q/K (any ``GL(d_h)`` element, or a RoPE-commuting one), a random ``F`` on V/O,
    random positive hidden-unit scalings of gated (or ReLU) MLPs and experts, a random common router shift, random
    RMSNorm channel scalings. ``spread``: log-scale of the random factors (``exp(spread·N(0,1))``).
    """
    _check_model(model)
    g = torch.Generator().manual_seed(int(seed))
    dh = model.cfg.d_model // model.cfg.n_head
    h = model.cfg.n_head

    def logn(*shape: int) -> Tensor:
        return torch.exp(spread * torch.randn(*shape, generator=g, dtype=torch.float64))

    def gl() -> Tensor:  # well-conditioned random invertible matrices, one per head
        return torch.eye(dh, dtype=torch.float64) + spread * torch.randn(h, dh, dh, generator=g, dtype=torch.float64) / dh**0.5

    for blk in model.blocks:
        if model.cfg.pos == "rope":
            a = logn(h, dh // 2)
            b = spread * torch.randn(h, dh // 2, generator=g, dtype=torch.float64)
            transform_qk_(blk.attn, rope_commuting(a, b))
        else:
            transform_qk_(blk.attn, gl())
        transform_vo_(blk.attn, gl())
        mlp = blk.mlp
        for e in (list(mlp.experts) if isinstance(mlp, MoE) else [mlp]):
            if e.kind in GATED or e.kind == "relu":
                scale_hidden_units_(e, logn(e.w_in.weight.shape[0]))
        if isinstance(mlp, MoE) and not isinstance(mlp, NormalizedSigmoidMoE):
            shift_router_(mlp, spread * torch.randn(mlp.router.weight.shape[1], generator=g, dtype=torch.float64))
        for _, norm, cons in _norm_consumers(blk):
            scale_rmsnorm_(norm, cons, logn(norm.weight.shape[0]))
