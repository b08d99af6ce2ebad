"""The shared transformer block of the [P23] recurrent model, with queries apart from keys/values.

A pre-norm block ``x + attn(norm(x + e))`` then ``+ mlp(norm(.))`` over bidirectional attention with a key-padding
mask (optionally rotary). The input injection ``e`` (the prelude's output) enters the attention's input only, not the
residual stream. Queries, keys and values are separate calls so that :mod:`._infer` can compute only the rows it
needs: queries of the tokens that run this iteration, keys/values of the tokens whose state changed. Attention is an
explicit softmax of ``q k^T / sqrt(d_h)`` where FLOPs are counted, torch's fused attention otherwise.
"""

from __future__ import annotations

import math

from torch import Tensor, nn
from torch.nn import functional as F

from icml26.common.nn import MLP, apply_rope

__all__ = ["LoopBlock"]


class LoopBlock(nn.Module):
    """One pre-norm transformer block (LayerNorm, ``n_head`` heads, GELU MLP of width ``d_ff``, no biases) ([P23]:
    the prelude and the recurrent block ``B`` are both this block)."""

    def __init__(self, d: int, n_head: int, d_ff: int, *, rope: bool) -> None:
        super().__init__()
        if d % n_head:
            raise ValueError(f"d_model ({d}) must be divisible by n_head ({n_head})")
        self.n_head, self.rope = n_head, rope
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.mlp = MLP(d, d_ff, kind="gelu", bias=False)

    def _heads(self, x: Tensor) -> Tensor:
        """(B, N, D) -> (B, h, N, D/h)."""
        B, N, D = x.shape
        return x.view(B, N, self.n_head, D // self.n_head).transpose(1, 2)

    def keys_values(self, x: Tensor, positions: Tensor) -> tuple[Tensor, Tensor]:
        """Keys and values (B, h, N, D/h) of the rows ``x`` (the block's input, injection included)."""
        z = self.norm1(x)
        k, v = self._heads(self.k(z)), self._heads(self.v(z))
        return (apply_rope(k, positions) if self.rope else k), v

    def attend(self, x: Tensor, inject: Tensor | None, positions: Tensor, k: Tensor, v: Tensor,
               key_mask: Tensor | None, *, explicit: bool = False) -> Tensor:
        """The block's output for query rows ``x`` (B, M, D) at ``positions`` (M,), reading keys/values ``k, v``
        (B, h, N, D/h) of all tokens; ``key_mask`` (B, N) marks the real (non-padding) keys. ``explicit``: the
        softmax of ``q k^T / sqrt(d_h)`` as matrix products (an operation counter sees them) rather than torch's
        fused attention (the same numbers, faster)."""
        z = self.norm1(x if inject is None else x + inject)
        q = self._heads(self.q(z))
        if self.rope:
            q = apply_rope(q, positions)
        if explicit:
            att = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
            if key_mask is not None:
                att = att.masked_fill(~key_mask[:, None, None, :], float("-inf"))
            y = att.softmax(-1) @ v
        else:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None if key_mask is None else key_mask[:, None, None, :])
        y = y.transpose(1, 2).reshape(x.shape)
        x = x + self.o(y)
        return x + self.mlp(self.norm2(x))

    def forward(self, x: Tensor, inject: Tensor | None, key_mask: Tensor | None, positions: Tensor) -> Tensor:
        """Every token's output: ``attend`` over the keys and values of all tokens."""
        k, v = self.keys_values(x if inject is None else x + inject, positions)
        return self.attend(x, inject, positions, k, v, key_mask)

