"""Laws, controls and symmetries of a whole :class:`~icml26.common.nn.TinyGPT` ([P04] Sec. 4 applied block by block).

``model_laws`` names every conserved quantity of a model (by block and kind); ``model_controls`` names look-alike
quantities that the paper says are *not* conserved (the negative controls of the drift experiment);
``random_symmetry_`` applies one random element of the whole symmetry group in place.

The RMSNorm-scale law (``norm1``/``norm2``) is the research notes' extension of the paper's argument, not one of its
theorems; the claim checks report it apart from the paper's laws.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch
from torch import Tensor, nn

from icml26.common import validation
from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.nn.blocks import GATED, Block, MoE, RMSNorm
from icml26.papers.conservation import _groups as groups
from icml26.papers.conservation import _laws as laws

__all__ = ["NormalizedSigmoidMoE", "model_laws", "model_controls", "random_symmetry_", "use_sigmoid_gating_"]

#: the keys of the RMSNorm-scale law and its control (the notes' extension, not a theorem of the paper)
NORM_KINDS = ("norm1", "norm2", "norm1_no_v")


class NormalizedSigmoidMoE(MoE):
    """MoE with normalised-sigmoid gating ``g_e = σ(z_e) / Σ_{e'∈top-k} σ(z_{e'})`` ([P04] Thm 4.7's gating)."""

    def gates(self, x: Tensor) -> Tensor:
        logits = self.router(x)
        _, idx = logits.topk(self.top_k, dim=-1)
        s = torch.zeros_like(logits).scatter(-1, idx, torch.sigmoid(logits).gather(-1, idx))
        return s / s.sum(-1, keepdim=True)


def _check_model(model: object) -> TinyGPT:
    if not isinstance(model, TinyGPT):
        raise TypeError(f"model must be a TinyGPT, got {type(model).__name__}")
    for name, p in model.named_parameters():
        if not torch.isfinite(p).all():
            raise ValueError(f"model has non-finite values in parameter {name!r}")
    return model


def _blocks(model: object) -> Iterator[tuple[str, Block]]:
    """``("blocks.<i>.", block)`` for every block of a checked TinyGPT."""
    for i, blk in enumerate(_check_model(model).blocks):
        if not isinstance(blk, Block):
            raise TypeError(f"model.blocks[{i}] must be a Block, got {type(blk).__name__}")
        yield f"blocks.{i}.", blk


def use_sigmoid_gating_(model: TinyGPT) -> None:
    """Swap every softmax MoE of ``model`` for a :class:`NormalizedSigmoidMoE` with the same weights (in place), to
    test [P04] Thm 4.7 (normalised-sigmoid gating)."""
    for _, blk in _blocks(model):
        old = blk.mlp
        if isinstance(old, MoE) and not isinstance(old, NormalizedSigmoidMoE):
            first = laws.experts_of(old)[0]
            with torch.random.fork_rng(devices=[]):  # nn.Linear's init draws from the global RNG: keep it untouched
                new = NormalizedSigmoidMoE(old.router.weight.shape[1], first.w_in.weight.shape[0], kind=first.kind,
                                           bias=first.w_in.bias is not None, n_experts=len(old.experts),
                                           top_k=old.top_k)
            new.load_state_dict(old.state_dict())
            blk.mlp = new.to(old.router.weight)


def _mlp_inputs(mlp: nn.Module) -> list[nn.Linear]:
    """Every linear map that reads the MLP's input (an MoE's router and each expert's input matrices)."""
    out = [mlp.router] if isinstance(mlp, MoE) else []
    for e in laws.experts_of(mlp):
        out += [e.w_in] if e.w_gate is None else [e.w_in, e.w_gate]
    return out


def _norm_consumers(blk: Block) -> list[tuple[str, RMSNorm, list[nn.Linear]]]:
    """(name, norm, consumers) for every RMSNorm of a pre-norm block whose output feeds only linear maps."""
    cfg: GPTConfig = blk.cfg
    if cfg.norm_position != "pre" or not isinstance(blk.norm1, RMSNorm):
        return []
    qkv = [blk.attn.q, blk.attn.k, blk.attn.v]
    if cfg.parallel:
        return [("norm1", blk.norm1, qkv + _mlp_inputs(blk.mlp))]
    if not isinstance(blk.norm2, RMSNorm):
        return [("norm1", blk.norm1, qkv)]
    return [("norm1", blk.norm1, qkv), ("norm2", blk.norm2, _mlp_inputs(blk.mlp))]


def model_laws(model: TinyGPT) -> dict[str, Tensor]:
    """Every conserved quantity of ``model``, keyed ``"blocks.<i>.<kind>"`` ([P04] Thms 4.2-4.6 + RMSNorm scale).

    Kinds: ``attn.qk`` (no rotary positions, Thm 4.3) or ``attn.qk_rope`` (Thm 4.4), ``attn.vo`` (Thm 4.3),
    ``mlp.hidden`` (gated MLP, Thm 4.2; ReLU MLP: the classical law), ``mlp.router`` (softmax MoE, Thms 4.5-4.6),
    ``mlp.experts`` (gated experts), ``norm1`` / ``norm2`` (RMSNorm scale, pre-norm blocks: the notes' extension).
    """
    out: dict[str, Tensor] = {}
    for p, blk in _blocks(model):
        qk = laws.rope_qk_laws if blk.cfg.pos == "rope" else laws.attention_qk_laws
        out[p + ("attn.qk_rope" if blk.cfg.pos == "rope" else "attn.qk")] = qk(blk.attn)
        out[p + "attn.vo"] = laws.attention_vo_laws(blk.attn)
        mlp = blk.mlp
        kind = laws.experts_of(mlp)[0].kind
        if isinstance(mlp, MoE):
            if not isinstance(mlp, NormalizedSigmoidMoE):
                out[p + "mlp.router"] = laws.moe_router_law(mlp)
            if kind in GATED:
                out[p + "mlp.experts"] = laws.moe_expert_laws(mlp)
        elif kind in GATED:
            out[p + "mlp.hidden"] = laws.swiglu_laws(laws.experts_of(mlp)[0])
        elif kind == "relu":
            out[p + "mlp.hidden"] = laws.relu_mlp_laws(laws.experts_of(mlp)[0])
        for name, norm, cons in _norm_consumers(blk):
            out[p + name] = laws.rmsnorm_laws(norm, cons)
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
    out: dict[str, Tensor] = {}
    for p, blk in _blocks(model):
        if blk.cfg.pos == "rope":
            out[p + "attn.qk_full_rope"] = laws.attention_qk_laws(blk.attn)
        experts = laws.experts_of(blk.mlp)
        gates = [e.w_gate for e in experts if e.w_gate is not None]
        if experts[0].kind in ("swiglu", "geglu") and len(gates) == len(experts):
            out[p + "mlp.gate"] = torch.stack(
                [g.weight.pow(2).sum(1) - e.w_out.weight.pow(2).sum(0) for g, e in zip(gates, experts)])
        elif experts[0].kind in ("gelu", "silu"):
            out[p + "mlp.hidden_smooth"] = torch.stack([laws.relu_mlp_laws(e) for e in experts])
        if isinstance(blk.mlp, NormalizedSigmoidMoE):
            out[p + "mlp.router_sigmoid"] = blk.mlp.router.weight.sum(0)
        for name, norm, cons in _norm_consumers(blk):
            if name == "norm1":
                out[p + "norm1_no_v"] = laws.rmsnorm_laws(norm, cons[:2] + cons[3:])
    return out


def random_symmetry_(model: TinyGPT, *, seed: int, spread: float = 0.5, norms: bool = True) -> None:
    """Apply one random element of every symmetry group of ``model`` in place ([P04] Thms 4.2-4.6).

    Per block: a random ``E`` on Q/K (any ``GL(d_h)`` element, or a RoPE-commuting one), a random ``F`` on V/O,
    random positive hidden-unit scalings of gated (or ReLU) MLPs and experts, a random common router shift, and
    (``norms``) random RMSNorm channel scalings (the notes' extension). ``spread``: log-scale of the random factors
    (``exp(spread·N(0,1))``), >= 0; ``seed``: an int >= 0.
    """
    _check_model(model)
    g = torch.Generator().manual_seed(validation.seed(seed))
    spread = validation.real(spread, "spread", lo=0.0)
    if not isinstance(norms, bool):
        raise TypeError(f"norms must be a bool, got {type(norms).__name__}")
    dh, h = model.cfg.d_model // model.cfg.n_head, model.cfg.n_head

    def logn(*shape: int) -> Tensor:
        return torch.exp(spread * torch.randn(*shape, generator=g, dtype=torch.float64))

    def gl() -> Tensor:  # well-conditioned random invertible matrices, one per head
        return torch.eye(dh, dtype=torch.float64) + spread * torch.randn(h, dh, dh, generator=g,
                                                                         dtype=torch.float64) / dh**0.5

    for _, blk in _blocks(model):
        if blk.cfg.pos == "rope":
            a = logn(h, dh // 2)
            b = spread * torch.randn(h, dh // 2, generator=g, dtype=torch.float64)
            groups.transform_qk_(blk.attn, groups.rope_commuting(a, b))
        else:
            groups.transform_qk_(blk.attn, gl())
        groups.transform_vo_(blk.attn, gl())
        for e in laws.experts_of(blk.mlp):
            if e.kind in GATED or e.kind == "relu":
                groups.scale_hidden_units_(e, logn(e.w_in.weight.shape[0]))
        if isinstance(blk.mlp, MoE) and not isinstance(blk.mlp, NormalizedSigmoidMoE):
            shift = spread * torch.randn(blk.mlp.router.weight.shape[1], generator=g, dtype=torch.float64)
            groups.shift_router_(blk.mlp, shift)
        for _, norm, cons in _norm_consumers(blk) if norms else []:
            groups.scale_rmsnorm_(norm, cons, logn(norm.weight.shape[0]))

