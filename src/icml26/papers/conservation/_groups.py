"""The symmetry group actions behind each law ([P04] Sec. 4). Each acts **in place** (torch's trailing-underscore
convention) on a module's parameters; the module's function is unchanged (up to round-off) when the group element is
admissible. Deep-copy a model first (``copy.deepcopy``) to compare before and after. Group elements (``s``, ``E``,
``F``, ``c``, ``a``, ``b``) may be tensors or array-likes of finite reals; they are used in float64."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from icml26.common.nn.blocks import MLP, Attention, MoE, RMSNorm
from icml26.common.validation import real_array
from icml26.papers.conservation._laws import _check_module

__all__ = [
    "scale_hidden_units_",
    "transform_qk_",
    "transform_vo_",
    "rope_commuting",
    "shift_router_",
    "scale_rmsnorm_",
]


def _real_tensor(x: object, name: str, *, shape: tuple[int | None, ...] | None = None, ndim: int | None = None
                 ) -> Tensor:
    """``x`` (a tensor or an array-like of reals) as a finite float64 tensor of ``shape`` (or ``ndim``); a
    ``TypeError``/``ValueError`` naming ``name`` otherwise."""
    if isinstance(x, Tensor):
        x = x.detach().cpu().numpy()
    return torch.from_numpy(real_array(x, name, shape=shape, ndim=ndim).copy())


def scale_hidden_units_(mlp: MLP, s: Tensor) -> None:
    """``A[:, i] ↦ s_i A[:, i]``, ``C[i, :] ↦ C[i, :] / s_i`` (the group of [P04] Thm 4.2, ``s_i = e^{t_i} > 0``).

    For a dense ReLU MLP the same map (on ``w_in`` / ``w_out``) is the classical positive rescaling; for GELU/SiLU it
    changes the function (no such symmetry, Thm 4.1). ``s``: shape ``(d_ff,)``, positive.
    """
    _check_module(mlp, MLP, "mlp")
    m = mlp.w_in.weight.shape[0]
    s = _real_tensor(s, "s", shape=(m,))
    if not (s > 0).all():
        raise ValueError("s must be positive")
    out = mlp
    with torch.no_grad():
        out.w_in.weight.mul_(s[:, None].to(out.w_in.weight))
        if out.w_in.bias is not None:
            out.w_in.bias.mul_(s.to(out.w_in.bias))
        out.w_out.weight.div_(s[None, :].to(out.w_out.weight))


def _per_head(attn: Attention, m: Tensor, name: str) -> Tensor:
    dh = attn.q.weight.shape[0] // attn.n_head
    m = _real_tensor(m, name, shape=(attn.n_head, dh, dh))
    if (torch.linalg.det(m.to(torch.float64)).abs() < 1e-300).any():
        raise ValueError(f"{name} must be invertible for every head")
    return m


def transform_qk_(attn: Attention, E: Tensor) -> None:
    """``W_Q ↦ W_Q E``, ``W_K ↦ W_K E^{-T}`` per head (the group of [P04] Thm 4.3); ``E``: ``(n_head, d_h, d_h)``.

    Scores are unchanged for any invertible ``E`` without rotary positions; with RoPE only ``E`` commuting with the
    rotations (:func:`rope_commuting`) keeps them (Thm 4.4).
    """
    _check_module(attn, Attention, "attn")
    E = _per_head(attn, E, "E")
    out = attn
    h = attn.n_head
    with torch.no_grad():
        for lin, M in ((out.q, E), (out.k, torch.linalg.inv(E).transpose(1, 2))):
            # torch rows of head h are W^T: (W M)^T = M^T W^T
            w = lin.weight.view(h, -1, lin.weight.shape[1])
            w.copy_(M.transpose(1, 2).to(w) @ w)
            if lin.bias is not None:
                b = lin.bias.view(h, -1, 1)
                b.copy_(M.transpose(1, 2).to(b) @ b)


def transform_vo_(attn: Attention, F: Tensor) -> None:
    """``W_V ↦ W_V F``, ``W_O ↦ F^{-1} W_O`` per head (the group of [P04] Thm 4.3); ``F``: ``(n_head, d_h, d_h)``."""
    _check_module(attn, Attention, "attn")
    F = _per_head(attn, F, "F")
    out = attn
    h = attn.n_head
    with torch.no_grad():
        w = out.v.weight.view(h, -1, out.v.weight.shape[1])
        w.copy_(F.transpose(1, 2).to(w) @ w)
        if out.v.bias is not None:
            b = out.v.bias.view(h, -1, 1)
            b.copy_(F.transpose(1, 2).to(b) @ b)
        # o.weight[:, head] = W_O^T  ->  (F^{-1} W_O)^T = W_O^T F^{-T}
        d = out.o.weight.shape[0]
        wo = out.o.weight.view(d, h, -1).permute(1, 0, 2)  # (h, d, d_h)
        wo.copy_(wo @ torch.linalg.inv(F).transpose(1, 2).to(wo))


def rope_commuting(a: Tensor, b: Tensor) -> Tensor:
    """Block-diagonal ``E`` with ``[[a_j, -b_j], [b_j, a_j]]`` on channel pair ``(2j, 2j+1)`` of every head.

    These scaled rotations are exactly the matrices commuting with every RoPE rotation ([P04] Thm 4.4).
    ``a``, ``b``: shape ``(n_head, d_h/2)``; ``a_j² + b_j² > 0``. Returns ``(n_head, d_h, d_h)`` float64.
    """
    a, b = _real_tensor(a, "a", ndim=2), _real_tensor(b, "b", ndim=2)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same shape, got {tuple(a.shape)} and {tuple(b.shape)}")
    if not ((a**2 + b**2) > 0).all():
        raise ValueError("a and b: every channel pair needs a_j^2 + b_j^2 > 0 (invertible)")
    h, p = a.shape
    E = torch.zeros(h, 2 * p, 2 * p, dtype=torch.float64)
    i = torch.arange(p)
    E[:, 2 * i, 2 * i] = a.double()
    E[:, 2 * i + 1, 2 * i + 1] = a.double()
    E[:, 2 * i, 2 * i + 1] = -b.double()
    E[:, 2 * i + 1, 2 * i] = b.double()
    return E


def shift_router_(moe: MoE, c: Tensor) -> None:
    """``W_gate[e, :] ↦ W_gate[e, :] + c`` for every expert ``e`` (the group of [P04] Thms 4.5-4.6); ``c``: ``(d,)``."""
    _check_module(moe, MoE, "moe")
    c = _real_tensor(c, "c", shape=(moe.router.weight.shape[1],))
    out = moe
    with torch.no_grad():
        out.router.weight.add_(c[None, :].to(out.router.weight))


def scale_rmsnorm_(norm: RMSNorm, consumers: Sequence[nn.Linear], s: Tensor) -> None:
    """``γ_i ↦ s_i γ_i`` and input channel ``i`` of every consumer ``↦ / s_i`` (the RMSNorm scale symmetry, the note's
    extension of [P04] Sec. 4; the law is :func:`rmsnorm_laws`). ``consumers``: every ``nn.Linear`` reading the
    norm's output; ``s``: ``(d,)``, nonzero."""
    _check_module(norm, RMSNorm, "norm")
    d = norm.weight.shape[0]
    s = _real_tensor(s, "s", shape=(d,))
    if (s == 0).any():
        raise ValueError("s must be nonzero")
    for i, lin in enumerate(consumers):
        _check_module(lin, nn.Linear, f"consumers[{i}]")
        if lin.weight.shape[1] != d:
            raise ValueError(f"consumers[{i}] takes {lin.weight.shape[1]} inputs, the norm has {d} channels")
    with torch.no_grad():
        norm.weight.mul_(s.to(norm.weight))
        for lin in consumers:
            lin.weight.div_(s[None, :].to(lin.weight))
