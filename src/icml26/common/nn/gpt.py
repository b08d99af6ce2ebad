"""TinyGPT: a small decoder-only transformer configured by :class:`GPTConfig` (nanoGPT-style)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26.common.nn.blocks import GATED, Block, make_norm, sinusoidal_positions

__all__ = ["GPTConfig", "TinyGPT"]

_POS = ("learned", "sinusoidal", "rope", "none")
_NORM_POS = ("pre", "post", "sandwich")


@dataclass(frozen=True)
class GPTConfig:
    """Hyper-parameters of :class:`TinyGPT` (all keyword, all validated)."""

    vocab_size: int = 64
    block_size: int = 32
    n_layer: int = 2
    n_head: int = 2
    d_model: int = 32
    d_ff: int | None = None  # default 4·d_model (dense) or 8/3·d_model rounded (gated: same parameter count)
    norm: str = "layernorm"  # layernorm | rmsnorm
    norm_position: str = "pre"  # pre | post | sandwich (Gemma)
    mlp: str = "gelu"  # gelu | relu | silu | swiglu | geglu | reglu
    pos: str = "learned"  # learned | sinusoidal | rope | none
    parallel: bool = False
    n_experts: int = 0  # > 0: every MLP is a mixture of this many experts
    top_k: int = 2
    bias: bool = False
    tie_weights: bool = True

    def __post_init__(self) -> None:
        for name in ("vocab_size", "block_size", "n_layer", "n_head", "d_model"):
            v = getattr(self, name)
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be a positive int, got {v!r}")
        if self.d_model % self.n_head:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by n_head ({self.n_head})")
        if self.pos not in _POS:
            raise ValueError(f"pos must be one of {_POS}, got {self.pos!r}")
        if self.norm_position not in _NORM_POS:
            raise ValueError(f"norm_position must be one of {_NORM_POS}, got {self.norm_position!r}")
        if self.parallel and self.norm_position == "post":
            raise ValueError("a parallel block takes norm_position 'pre' or 'sandwich'")
        if self.n_experts < 0 or (self.n_experts and not 1 <= self.top_k <= self.n_experts):
            raise ValueError(f"need n_experts >= 0 and 1 <= top_k <= n_experts, got {self.n_experts}, {self.top_k}")
        if self.d_ff is not None and self.d_ff < 1:
            raise ValueError(f"d_ff must be positive, got {self.d_ff}")

    @property
    def ff_dim(self) -> int:
        """The MLP hidden width."""
        if self.d_ff is not None:
            return self.d_ff
        return max(1, round(8 * self.d_model / 3)) if self.mlp in GATED else 4 * self.d_model


class TinyGPT(nn.Module):
    """A decoder-only transformer. ``TinyGPT(cfg, seed=0)`` initialises every weight from ``seed`` (N(0, 0.02),
    output projections scaled by 1/sqrt(2·n_layer) as in GPT-2; norms at one, biases at zero); the global RNG is not
    touched. Cast with ``.double()`` for float64."""

    def __init__(self, cfg: GPTConfig, *, seed: int = 0) -> None:
        super().__init__()
        self.cfg = cfg
        with torch.random.fork_rng(devices=[]):  # torch's default inits draw from the global RNG: keep it untouched
            self._build(cfg)
        self.reset_parameters(seed=seed)

    def _build(self, cfg: GPTConfig) -> None:
        self.wte = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.wpe = nn.Embedding(cfg.block_size, cfg.d_model) if cfg.pos == "learned" else None
        if cfg.pos == "sinusoidal":
            self.register_buffer("sin_table", sinusoidal_positions(cfg.block_size, cfg.d_model), persistent=False)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.norm_f = make_norm(cfg.norm, cfg.d_model, bias=cfg.bias) if cfg.norm_position != "post" else None
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        if cfg.tie_weights:
            self.lm_head.weight = self.wte.weight

    def reset_parameters(self, *, seed: int) -> None:
        """Re-initialise every parameter deterministically from ``seed``."""
        g = torch.Generator().manual_seed(int(seed))
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.endswith("bias"):
                    p.zero_()
                elif p.ndim == 1:  # norm scales
                    p.fill_(1.0)
                else:
                    std = 0.02 / (2 * self.cfg.n_layer) ** 0.5 if name.endswith(("o.weight", "w_out.weight")) else 0.02
                    p.copy_(torch.randn(p.shape, generator=g, dtype=torch.float64).to(p.dtype) * std)

    def n_params(self, *, non_embedding: bool = False) -> int:
        """Number of parameters (tied weights counted once); ``non_embedding`` leaves out token/position tables."""
        n = sum(p.numel() for p in self.parameters())
        if non_embedding:
            n -= self.wte.weight.numel() + (self.wpe.weight.numel() if self.wpe is not None else 0)
        return n

    def hidden(self, idx: Tensor) -> Tensor:
        """The final hidden states (B, T, d) before the LM head."""
        if idx.ndim != 2:
            raise ValueError(f"idx must be (batch, time), got shape {tuple(idx.shape)}")
        T = idx.shape[1]
        if T > self.cfg.block_size:
            raise ValueError(f"sequence length {T} exceeds block_size {self.cfg.block_size}")
        if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= self.cfg.vocab_size):
            raise ValueError(f"token ids must lie in [0, {self.cfg.vocab_size})")
        pos = torch.arange(T, device=idx.device)
        x = self.wte(idx)
        if self.wpe is not None:
            x = x + self.wpe(pos)
        elif self.cfg.pos == "sinusoidal":
            table: Tensor = self.get_buffer("sin_table")
            x = x + table[:T].to(x.dtype)
        for blk in self.blocks:
            x = blk(x, pos)
        return self.norm_f(x) if self.norm_f is not None else x

    def forward(self, idx: Tensor) -> Tensor:
        """Logits (B, T, vocab_size)."""
        return self.lm_head(self.hidden(idx))

    def loss(self, idx: Tensor, targets: Tensor, *, reduction: str = "mean") -> Tensor:
        """Next-token cross-entropy of ``targets`` (B, T) given ``idx`` (B, T), in nats."""
        logits = self(idx)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction=reduction)

    @torch.no_grad()
    def generate(self, idx: Tensor, *, max_new_tokens: int) -> Tensor:
        """Greedy decoding of ``max_new_tokens`` tokens (the context is cropped to ``block_size``)."""
        if max_new_tokens < 0:
            raise ValueError(f"max_new_tokens must be >= 0, got {max_new_tokens}")
        for _ in range(max_new_tokens):
            nxt = self(idx[:, -self.cfg.block_size :])[:, -1].argmax(-1, keepdim=True)
            idx = torch.cat([idx, nxt], dim=1)
        return idx


def blocks_of(model: nn.Module) -> list[Block]:
    """The blocks of a :class:`TinyGPT`, typed (its ``blocks`` is an ``nn.ModuleList``)."""
    blocks = getattr(model, "blocks", None)
    if not isinstance(blocks, nn.ModuleList):
        raise TypeError(f"model must be a TinyGPT with .blocks, got {type(model).__name__}")
    out: list[Block] = []
    for i, b in enumerate(blocks):
        if not isinstance(b, Block):
            raise TypeError(f"model.blocks[{i}] must be a Block, got {type(b).__name__}")
        out.append(b)
    return out
