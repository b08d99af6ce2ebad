"""The token policy of [P15]'s reproduction: a TinyGPT over an agent vocabulary, with KV-cached decoding.

One turn of the agent is ``<think> z_1 … z_m </think> a``: free think tokens (anything but ``</think>``
continues the segment; the cold start thinks in actions it considers), then one action token; a non-action token
in the action slot is a malformed action. Each observation is one token. The vocabulary (:class:`AgentVocab`)
lays out ``PAD, BOS, <think>, </think>``, the environment's observations, then its actions.

:class:`KVDecoder` feeds one token per row per call with per-row positions, so rows of a batch can be at different
places in their episodes and a row can be rewound (the turn-level resampler regenerates a turn by moving its
position back). It reads the weights of a pre-norm TinyGPT with learned or no positions and reproduces its
``forward`` (``tests/papers/t2po/test_policy.py`` checks the logits against a full forward).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor

from icml26.common import validation
from icml26.common.nn import GPTConfig, TinyGPT, blocks_of

__all__ = ["AgentVocab", "KVDecoder", "make_policy", "token_logprobs"]


@dataclass(frozen=True)
class AgentVocab:
    """The token layout of a [P15] agent for an environment with ``n_observations`` and ``n_actions``."""

    n_observations: int
    n_actions: int
    PAD: int = 0
    BOS: int = 1
    THINK: int = 2
    END_THINK: int = 3

    def __post_init__(self) -> None:
        for name in ("n_observations", "n_actions"):
            validation.positive_int(getattr(self, name), name)

    @property
    def first_observation(self) -> int:
        """The id of observation 0."""
        return 4

    @property
    def first_action(self) -> int:
        """The id of action 0."""
        return self.first_observation + self.n_observations

    @property
    def size(self) -> int:
        """The vocabulary size."""
        return self.first_action + self.n_actions

    def observation(self, obs: int) -> int:
        """The token of observation ``obs``."""
        return self.first_observation + validation.int_at_least(obs, "obs", 0, hi=self.n_observations - 1)

    def action_token(self, action: int) -> int:
        """The token of action ``action``."""
        return self.first_action + validation.int_at_least(action, "action", 0, hi=self.n_actions - 1)

    def action_of(self, token: int) -> int:
        """The action a token stands for, ``-1`` when it is not an action token (a malformed action)."""
        a = int(token) - self.first_action
        return a if 0 <= a < self.n_actions else -1


def make_policy(vocab: AgentVocab, *, block_size: int, d_model: int = 32, n_layer: int = 2, n_head: int = 2,
                seed: int) -> TinyGPT:
    """A pre-norm TinyGPT with learned positions over ``vocab`` ([P15] reproduction's policy), seeded."""
    cfg = GPTConfig(vocab_size=vocab.size, block_size=validation.int_at_least(block_size, "block_size", 4),
                    n_layer=validation.positive_int(n_layer, "n_layer"), n_head=validation.positive_int(n_head, "n_head"),
                    d_model=validation.positive_int(d_model, "d_model"), pos="learned", norm_position="pre")
    return TinyGPT(cfg, seed=validation.seed(seed))


class KVDecoder:
    """Incremental decoding of a TinyGPT ([P15] rollouts) for ``batch`` rows of up to ``block_size`` tokens.

    :meth:`step` feeds ``tokens[j]`` at position ``positions[j]`` for rows ``rows[j]`` and returns their next-token
    logits; keys and values are kept per row and position, and attention reads positions ``<= positions[j]`` only,
    so moving a row's position back and feeding again overwrites what came after.
    """

    def __init__(self, model: TinyGPT, *, batch: int) -> None:
        cfg = model.cfg
        if cfg.norm_position != "pre" or cfg.parallel or cfg.pos not in ("learned", "none"):
            raise ValueError("KVDecoder supports pre-norm, sequential TinyGPTs with learned or no positions")
        self.model = model
        self.blocks = blocks_of(model)
        self.n_head, self.d = cfg.n_head, cfg.d_model
        self.hd = cfg.d_model // cfg.n_head
        self.T = cfg.block_size
        b = validation.positive_int(batch, "batch")
        p = next(model.parameters())
        shape = (b, self.n_head, self.T, self.hd)
        self.k = [torch.zeros(shape, dtype=p.dtype) for _ in self.blocks]
        self.v = [torch.zeros(shape, dtype=p.dtype) for _ in self.blocks]

    @torch.no_grad()
    def step(self, rows: Tensor, tokens: Tensor, positions: Tensor) -> Tensor:
        """Logits ``(len(rows), V)`` after feeding ``tokens`` at ``positions`` (all ``(n,)`` int64)."""
        if int(positions.max()) >= self.T or int(positions.min()) < 0:
            raise ValueError(f"positions must lie in [0, {self.T})")
        m = self.model
        x = m.wte(tokens)
        if m.wpe is not None:
            x = x + m.wpe(positions)
        n, h, hd = tokens.shape[0], self.n_head, self.hd
        visible = torch.arange(self.T)[None, :] <= positions[:, None]  # (n, T)
        for blk, kc, vc in zip(self.blocks, self.k, self.v):
            a = blk.norm1(x)
            q = blk.attn.q(a).view(n, h, hd)
            kc[rows, :, positions] = blk.attn.k(a).view(n, h, hd)
            vc[rows, :, positions] = blk.attn.v(a).view(n, h, hd)
            keys, vals = kc[rows], vc[rows]  # (n, h, T, hd)
            att = torch.einsum("nhd,nhtd->nht", q, keys) / math.sqrt(hd)
            att = att.masked_fill(~visible[:, None, :], float("-inf")).softmax(dim=-1)
            x = x + blk.attn.o(torch.einsum("nht,nhtd->nhd", att, vals).reshape(n, self.d))
            norm2 = blk.norm2
            assert norm2 is not None  # a sequential pre-norm block has both norms
            x = x + blk.mlp(norm2(x))
        if m.norm_f is not None:
            x = m.norm_f(x)
        return m.lm_head(x)


def token_logprobs(model: TinyGPT, tokens: Tensor) -> Tensor:
    """``log π(tokens[:, p] | tokens[:, :p])`` for every position ``p >= 1`` of ``tokens`` ``(B, T)``, as
    ``(B, T)`` with column 0 zero ([P15] reproduction: the PPO ratio's numerator, with gradients)."""
    logits = model(tokens[:, :-1])
    lp = torch.log_softmax(logits, dim=-1).gather(-1, tokens[:, 1:, None]).squeeze(-1)
    return torch.cat([torch.zeros_like(lp[:, :1]), lp], dim=1)
