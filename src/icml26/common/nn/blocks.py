"""Transformer blocks: norms, causal attention (optionally rotary), dense/gated MLPs, a softmax-gated MoE."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch
from torch import Tensor, nn
from torch.nn import functional as F

if TYPE_CHECKING:  # pragma: no cover
    from icml26.common.nn.gpt import GPTConfig

__all__ = ["RMSNorm", "Attention", "MLP", "MoE", "Block", "apply_rope", "sinusoidal_positions", "make_norm"]

_ACT = {"gelu": F.gelu, "relu": F.relu, "silu": F.silu}
#: gated MLP name -> the activation applied to its gate branch
GATED = {"swiglu": "silu", "geglu": "gelu", "reglu": "relu"}


class RMSNorm(nn.Module):
    """``x / rms(x) * weight`` (Zhang & Sennrich 2019); ``weight`` starts at ones."""

    def __init__(self, d: int, *, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x: Tensor) -> Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def make_norm(kind: str, d: int, *, bias: bool) -> nn.Module:
    """``"layernorm"`` or ``"rmsnorm"`` over the last dimension ``d``."""
    if kind == "layernorm":
        return nn.LayerNorm(d, bias=bias)
    if kind == "rmsnorm":
        return RMSNorm(d)
    raise ValueError(f"norm must be 'layernorm' or 'rmsnorm', got {kind!r}")


def sinusoidal_positions(n: int, d: int, *, dtype: torch.dtype = torch.float32) -> Tensor:
    """The (n, d) sinusoidal position table of Vaswani et al. (2017): sin on even, cos on odd channels."""
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    freq = torch.exp(-math.log(10000.0) * torch.arange(0, d, 2, dtype=torch.float64) / d)
    table = torch.zeros(n, d, dtype=torch.float64)
    table[:, 0::2] = torch.sin(pos * freq)
    table[:, 1::2] = torch.cos(pos * freq[: d // 2])
    return table.to(dtype)


def apply_rope(x: Tensor, positions: Tensor, *, base: float = 10000.0) -> Tensor:
    """Rotate channel pairs (2i, 2i+1) of ``x`` (..., T, hd) by angle ``pos * base^(-2i/hd)`` (Su et al. 2021)."""
    hd = x.shape[-1]
    if hd % 2:
        raise ValueError(f"rotary embeddings need an even head dimension, got {hd}")
    inv = base ** (-torch.arange(0, hd, 2, dtype=torch.float64) / hd)
    ang = (positions.to(torch.float64)[:, None] * inv[None, :]).to(x.dtype)  # (T, hd/2)
    cos, sin = torch.cos(ang), torch.sin(ang)
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = x1 * cos - x2 * sin
    out[..., 1::2] = x1 * sin + x2 * cos
    return out


class Attention(nn.Module):
    """Causal multi-head self-attention with separate q, k, v, o projections (explicit softmax, float64-safe)."""

    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        d = cfg.d_model
        self.n_head, self.rope = cfg.n_head, cfg.pos == "rope"
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=cfg.bias) for _ in range(4))

    def forward(self, x: Tensor, positions: Tensor) -> Tensor:
        B, T, D = x.shape
        h = self.n_head
        q, k, v = (m(x).view(B, T, h, D // h).transpose(1, 2) for m in (self.q, self.k, self.v))
        if self.rope:
            q, k = apply_rope(q, positions), apply_rope(k, positions)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(D // h)
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        return self.o((att @ v).transpose(1, 2).reshape(B, T, D))


class MLP(nn.Module):
    """Dense ``w_out(act(w_in x))`` or gated ``w_out(act(w_gate x) * w_in x)`` (Shazeer 2020)."""

    def __init__(self, d: int, d_ff: int, *, kind: str, bias: bool) -> None:
        super().__init__()
        if kind not in _ACT and kind not in GATED:
            raise ValueError(f"mlp must be one of {sorted(_ACT) + sorted(GATED)}, got {kind!r}")
        self.kind = kind
        self.gated = kind in GATED
        self.act = _ACT[GATED.get(kind, kind)]
        self.w_in = nn.Linear(d, d_ff, bias=bias)
        self.w_gate = nn.Linear(d, d_ff, bias=bias) if self.gated else None
        self.w_out = nn.Linear(d_ff, d, bias=bias)

    def forward(self, x: Tensor) -> Tensor:
        if self.w_gate is not None:
            return self.w_out(self.act(self.w_gate(x)) * self.w_in(x))
        return self.w_out(self.act(self.w_in(x)))


class MoE(nn.Module):
    """Top-k softmax-gated mixture of MLP experts (Shazeer et al. 2017); every expert is evaluated (small models)."""

    def __init__(self, d: int, d_ff: int, *, kind: str, bias: bool, n_experts: int, top_k: int) -> None:
        super().__init__()
        if not 1 <= top_k <= n_experts:
            raise ValueError(f"top_k must be in [1, n_experts={n_experts}], got {top_k}")
        self.top_k = top_k
        self.router = nn.Linear(d, n_experts, bias=False)
        self.experts = nn.ModuleList(MLP(d, d_ff, kind=kind, bias=bias) for _ in range(n_experts))

    def gates(self, x: Tensor) -> Tensor:
        """(…, E) weights: softmax over the top-k router logits, zero elsewhere; rows sum to 1."""
        logits = self.router(x)
        top, idx = logits.topk(self.top_k, dim=-1)
        return torch.zeros_like(logits).scatter(-1, idx, top.softmax(dim=-1))

    def forward(self, x: Tensor) -> Tensor:
        g = self.gates(x)
        outs = torch.stack([e(x) for e in self.experts], dim=-1)  # (…, d, E)
        return (outs * g.unsqueeze(-2)).sum(-1)


class Block(nn.Module):
    """One transformer block; ``cfg.norm_position`` is ``pre``, ``post`` or ``sandwich`` (Gemma: norms before and
    after each sub-layer); ``cfg.parallel`` adds attention and MLP of the same normalised input (GPT-J)."""

    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        d, bias = cfg.d_model, cfg.bias
        self.cfg = cfg
        self.norm1 = make_norm(cfg.norm, d, bias=bias)
        self.norm2 = None if cfg.parallel else make_norm(cfg.norm, d, bias=bias)
        sandwich = cfg.norm_position == "sandwich"
        self.post_norm1 = make_norm(cfg.norm, d, bias=bias) if sandwich else None
        self.post_norm2 = make_norm(cfg.norm, d, bias=bias) if sandwich and not cfg.parallel else None
        self.attn = Attention(cfg)
        if cfg.n_experts:
            self.mlp: nn.Module = MoE(d, cfg.ff_dim, kind=cfg.mlp, bias=bias, n_experts=cfg.n_experts, top_k=cfg.top_k)
        else:
            self.mlp = MLP(d, cfg.ff_dim, kind=cfg.mlp, bias=bias)

    def forward(self, x: Tensor, positions: Tensor) -> Tensor:
        if self.cfg.parallel:
            h = self.norm1(x)
            y = self.attn(h, positions) + self.mlp(h)
            return x + (self.post_norm1(y) if self.post_norm1 is not None else y)
        norm2 = self.norm2
        assert norm2 is not None  # only a parallel block has no second norm
        if self.cfg.norm_position == "post":
            x = self.norm1(x + self.attn(x, positions))
            return norm2(x + self.mlp(x))
        a = self.attn(self.norm1(x), positions)
        x = x + (self.post_norm1(a) if self.post_norm1 is not None else a)
        m = self.mlp(norm2(x))
        return x + (self.post_norm2(m) if self.post_norm2 is not None else m)


def experts_of(mlp: nn.Module) -> list[MLP]:
    """The MLPs of a block's feed-forward part, typed: every expert of an :class:`MoE`, or the :class:`MLP` itself."""
    out: list[MLP] = []
    for i, m in enumerate(list(mlp.experts) if isinstance(mlp, MoE) else [mlp]):
        if not isinstance(m, MLP):
            raise TypeError(f"mlp: expert {i} must be an MLP, got {type(m).__name__}")
        out.append(m)
    return out
