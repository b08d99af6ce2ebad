"""Conserved quantities of gradient flow, per block, as functions of a module's parameters ([P04] Sec. 4).

Orientation. The paper writes a linear map as ``x ↦ x W`` with ``W ∈ R^{d×n}``; ``torch.nn.Linear`` stores
``weight = W^T`` (shape ``(n, d)``). Every function below maps the paper's matrices to the torch tensors explicitly:

* gated MLP ``f(x) = C^T[(A^T x) ⊙ σ(B^T x)]`` (Thm 4.2): ``A = w_in.weight^T``, ``B = w_gate.weight^T``,
  ``C = w_out.weight^T``; hidden unit ``i`` is row ``i`` of ``w_in.weight`` and column ``i`` of ``w_out.weight``;
* attention head ``h`` (Thms 4.3-4.4): ``W_Q^{(h)} = q.weight[h·d_h:(h+1)·d_h, :]^T`` (``d × d_h``), same for K, V;
  ``W_O^{(h)} = o.weight[:, h·d_h:(h+1)·d_h]^T`` (``d_h × d``);
* MoE router (Thms 4.5-4.6): ``W_gate[e, :] = router.weight[e, :]``.

A bias travels with its weight under the symmetry (``b_Q ↦ b_Q E``), so biases enter the laws as one more row of the
paper's matrix; the output bias of ``w_out``/``o`` is untouched by the symmetries and does not enter.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from icml26.common.nn.blocks import GATED, MLP, Attention, MoE, RMSNorm, experts_of

__all__ = [
    "experts_of",
    "swiglu_laws",
    "attention_qk_laws",
    "rope_qk_laws",
    "attention_vo_laws",
    "moe_router_law",
    "moe_expert_laws",
    "rmsnorm_laws",
    "relu_mlp_laws",
    "head_matrices",
]


def _check_module(module: object, cls: type[nn.Module], name: str) -> None:
    if not isinstance(module, cls):
        raise TypeError(f"{name} must be a {cls.__name__}, got {type(module).__name__}")
    for pname, p in module.named_parameters():
        if not torch.isfinite(p).all():
            raise ValueError(f"{name} has non-finite values in parameter {pname!r}")


def _rows_with_bias(lin: nn.Linear) -> Tensor:
    """``[weight | bias]`` (n, d[+1]): row ``j`` is everything that scales with output unit ``j``."""
    if lin.bias is None:
        return lin.weight
    return torch.cat([lin.weight, lin.bias[:, None]], dim=1)


def swiglu_laws(mlp: MLP) -> Tensor:
    """Per-hidden-unit laws ``h_i = ‖A[:, i]‖² − ‖C[i, :]‖²`` of a gated MLP (shape ``(m,)``).

    Implements Thm 4.2 of [P04]: ``f(x) = C^T[(A^T x) ⊙ SiLU(B^T x)]`` is invariant under ``A[:, i] ↦ e^t A[:, i]``,
    ``C[i, :] ↦ e^{-t} C[i, :]``, so ``h_i`` is conserved; the gate ``B`` carries no law. Symbols: ``A`` is
    ``mlp.w_in`` (the linear branch), ``B`` is ``mlp.w_gate``, ``C`` is ``mlp.w_out``; ``m`` = ``d_ff``. The same law
    holds for any gate activation (GeGLU, ReGLU), which only acts on ``B``.
    """
    _check_module(mlp, MLP, "mlp")
    if mlp.kind not in GATED:
        raise ValueError(f"mlp must be gated (one of {sorted(GATED)}), got kind {mlp.kind!r}")
    a = _rows_with_bias(mlp.w_in)  # (m, d[+1]) row i = A[:, i]
    return a.pow(2).sum(1) - mlp.w_out.weight.pow(2).sum(0)


def relu_mlp_laws(mlp: MLP) -> Tensor:
    """Per-neuron laws ``‖w_i‖² − ‖u_i‖²`` of a dense MLP ``u^T act(W x)`` (shape ``(m,)``).

    The classical law of ReLU (positively homogeneous) networks that [P04] Thm 4.1 contrasts with: conserved for
    ``kind="relu"``; for GELU/SiLU the same expression is *not* conserved (used as a control).
    """
    _check_module(mlp, MLP, "mlp")
    if mlp.kind in GATED:
        raise ValueError(f"mlp must be dense (relu, gelu or silu), got kind {mlp.kind!r}")
    return _rows_with_bias(mlp.w_in).pow(2).sum(1) - mlp.w_out.weight.pow(2).sum(0)


def head_matrices(attn: Attention, which: str) -> Tensor:
    """Per-head matrices of [P04] Thms 4.3-4.4 ``(n_head, d[+1], d_h)``: ``W_Q``, ``W_K`` or ``W_V`` (bias as an
    extra row), or ``(n_head, d_h, d)`` for ``W_O`` (``which`` in ``"q"``, ``"k"``, ``"v"``, ``"o"``)."""
    _check_module(attn, Attention, "attn")
    h = attn.n_head
    if which in ("q", "k", "v"):
        rows = _rows_with_bias(getattr(attn, which))  # (h·d_h, d[+1])
        dh = rows.shape[0] // h
        return rows.reshape(h, dh, -1).transpose(1, 2)
    if which == "o":
        w = attn.o.weight  # (d, h·d_h)
        dh = w.shape[1] // h
        return w.reshape(w.shape[0], h, dh).permute(1, 2, 0)
    raise ValueError(f"which must be 'q', 'k', 'v' or 'o', got {which!r}")


def attention_qk_laws(attn: Attention) -> Tensor:
    """Per-head ``W_Q^T W_Q − W_K^T W_K`` (shape ``(n_head, d_h, d_h)``).

    Implements Thm 4.3 of [P04]: without positions inside attention (no encoding, learned or sinusoidal additive
    encodings), scores ``x W_Q W_K^T y^T`` are invariant under ``W_Q ↦ W_Q E``, ``W_K ↦ W_K E^{-T}``, ``E ∈ GL(d_h)``.
    With RoPE only the block-diagonal part survives (see :func:`rope_qk_laws`); this full matrix is then a control.
    """
    q, k = head_matrices(attn, "q"), head_matrices(attn, "k")
    return q.transpose(1, 2) @ q - k.transpose(1, 2) @ k


def rope_qk_laws(attn: Attention) -> Tensor:
    """Per-head, per-frequency ``‖W_Q^{(j)}‖_F² − ‖W_K^{(j)}‖_F²`` (shape ``(n_head, d_h/2)``).

    Implements Thm 4.4 of [P04]: with rotary positions the Q/K symmetry must commute with every rotation, i.e.
    ``E`` is block-diagonal with scaled rotations ``a I + b J`` on each channel pair ``(2j, 2j+1)`` (the pairing of
    :func:`icml26.common.nn.apply_rope`). The scalings give one law per pair ``j``; the rotations give none.
    """
    d = attention_qk_laws(attn).diagonal(dim1=1, dim2=2)  # (h, d_h): ‖W_Q[:, c]‖² − ‖W_K[:, c]‖²
    if d.shape[1] % 2:
        raise ValueError(f"rotary attention needs an even head dimension, got {d.shape[1]}")
    return d[:, 0::2] + d[:, 1::2]


def attention_vo_laws(attn: Attention) -> Tensor:
    """Per-head ``W_V^T W_V − W_O W_O^T`` (shape ``(n_head, d_h, d_h)``).

    Implements Thm 4.3 of [P04] (value/output part, unchanged by any positional encoding): the head output
    ``A(x) x W_V W_O`` is invariant under ``W_V ↦ W_V F``, ``W_O ↦ F^{-1} W_O``, ``F ∈ GL(d_h)``.
    """
    v, o = head_matrices(attn, "v"), head_matrices(attn, "o")
    return v.transpose(1, 2) @ v - o @ o.transpose(1, 2)


def moe_router_law(moe: MoE) -> Tensor:
    """``Σ_e W_gate[e, :]`` (shape ``(d,)``) of a softmax-gated MoE.

    Implements Thms 4.5-4.6 of [P04]: softmax (dense, or over the top-k logits) is invariant under a common shift of
    all router rows, ``W_gate[e, :] ↦ W_gate[e, :] + t c``, so the row sum is conserved. It is linear in the
    parameters, hence conserved exactly by discrete (S)GD too. Thm 4.7 claims the same for normalised-sigmoid gating;
    see :func:`icml26.papers.conservation.gating_rate_exact` for the counterexample.
    """
    _check_module(moe, MoE, "moe")
    return moe.router.weight.sum(0)


def moe_expert_laws(moe: MoE) -> Tensor:
    """The gated-MLP laws of every expert (shape ``(n_experts, m)``): [P04] Thm 4.5 (experts keep their laws)."""
    _check_module(moe, MoE, "moe")
    return torch.stack([swiglu_laws(e) for e in experts_of(moe)])


def rmsnorm_laws(norm: RMSNorm, consumers: Sequence[nn.Linear]) -> Tensor:
    """Per-channel ``γ_i² − Σ_c ‖W_c[i, :]‖²`` (shape ``(d,)``) for an RMSNorm whose output feeds only ``consumers``.

    The scale symmetry ``γ_i ↦ e^t γ_i``, ``W_c[i, :] ↦ e^{-t} W_c[i, :]`` (every consumer's input row ``i`` in the
    paper's orientation, i.e. column ``i`` of ``weight``) leaves the function unchanged, so this is conserved
    (the note's RMSNorm extension of [P04] Sec. 4; in a pre-norm block ``norm1`` feeds q, k, v). Leaving a consumer
    out breaks the law (a control).
    """
    _check_module(norm, RMSNorm, "norm")
    if not consumers:
        raise ValueError("consumers must name at least one nn.Linear fed by the norm")
    d = norm.weight.shape[0]
    out = norm.weight.pow(2)
    for i, lin in enumerate(consumers):
        _check_module(lin, nn.Linear, f"consumers[{i}]")
        if lin.weight.shape[1] != d:
            raise ValueError(f"consumers[{i}] takes {lin.weight.shape[1]} inputs, the norm has {d} channels")
        out = out - lin.weight.pow(2).sum(0)
    return out
