"""ANIRA's recurrent transformer ([P23], reconstructed): prelude -> shared block looped up to ``T`` times with a
per-token depth -> read-out, under one of the depth policies of :mod:`._control`.

``x`` (B, N, F) holds F integer fields per token (``-1``: field absent), embedded and summed; ``mask`` (B, N) marks
the real tokens (a prefix of each row). The prelude block gives ``h^0``; iteration ``t`` computes
``B(h^{t-1}; h^0)`` for every token and keeps it only for the tokens that run (``torch.where``: the others keep
their state exactly, and every state, halted or not, is a key/value of the next iteration). The read-out is a
LayerNorm and a linear head per token (no attention), so that PonderNet can read every step's state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26.common.validation import choice, int_array, int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.anira._blocks import LoopBlock
from icml26.papers.anira._control import make_controller

__all__ = ["HALTINGS", "MODES", "POSITIONS", "RecurrentConfig", "RecurrentOutput", "RecurrentTransformer"]

MODES = ("fixed", "early", "online", "mod")
HALTINGS = ("act", "ponder")
POSITIONS = ("none", "rope", "learned")


@dataclass(frozen=True)
class RecurrentConfig:
    """Hyper-parameters of :class:`RecurrentTransformer` ([P23] Sec. "ANIRA"; values are ours, see the card).

    ``field_groups`` lets fields share an embedding table (e.g. a node's parents, whose order means nothing).
    ``mode``: ``fixed`` | ``early`` (ANIRA-E) | ``online`` (ANIRA-O, ``halting`` = ``act`` | ``ponder``) | ``mod``.
    ``cost_weight`` is the compute penalty: lambda on the expected depth (early), tau on ACT's ponder cost ``N + R``,
    beta on PonderNet's KL to the geometric prior with parameter ``prior``. ``depth`` is the fixed mode's depth (0:
    ``max_depth``), ``capacity`` Mixture-of-Depths' share of tokens per iteration, ``halt_bias`` the halting unit's
    initial bias (negative: start deep), ``tau`` the Gumbel-softmax temperature, ``eps`` ACT/PonderNet's tolerance.
    """

    vocab_sizes: tuple[int, ...] = (16,)
    n_classes: int = 8
    d_model: int = 64
    n_head: int = 4
    d_ff: int = 128
    max_depth: int = 8
    mode: str = "early"
    halting: str = "act"
    depth: int = 0
    capacity: float = 0.5
    cost_weight: float = 0.01
    prior: float = 0.3
    eps: float = 0.01
    tau: float = 1.0
    halt_bias: float = -2.0
    positions: str = "none"
    max_len: int = 64
    inject: bool = True
    field_groups: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.vocab_sizes, tuple) or not self.vocab_sizes:
            raise TypeError(f"vocab_sizes must be a non-empty tuple of ints, got {self.vocab_sizes!r}")
        for v in self.vocab_sizes:
            positive_int(v, "vocab_sizes")
        for name in ("n_classes", "d_model", "n_head", "d_ff", "max_depth", "max_len"):
            positive_int(getattr(self, name), name)
        if self.d_model % self.n_head:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by n_head ({self.n_head})")
        if self.positions == "rope" and (self.d_model // self.n_head) % 2:
            raise ValueError("positions='rope' needs an even head dimension d_model / n_head")
        choice(self.mode, "mode", MODES)
        choice(self.halting, "halting", HALTINGS)
        choice(self.positions, "positions", POSITIONS)
        int_at_least(self.depth, "depth", 0, hi=self.max_depth)
        real(self.capacity, "capacity", lo=0.0, hi=1.0, lo_open=True)
        real(self.cost_weight, "cost_weight", lo=0.0)
        real(self.prior, "prior", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
        real(self.eps, "eps", lo=0.0, hi=1.0, hi_open=True)
        real(self.tau, "tau", lo=0.0, lo_open=True)
        real(self.halt_bias, "halt_bias")
        if not isinstance(self.inject, bool):
            raise TypeError(f"inject must be a bool, got {self.inject!r}")
        groups = self.field_groups
        if groups and (len(groups) != len(self.vocab_sizes) or sorted(set(groups)) != list(range(max(groups) + 1))):
            raise ValueError(f"field_groups must give each field a table 0..k (one per field), got {groups!r}")
        for f, gi in enumerate(groups):
            if self.vocab_sizes[f] != self.vocab_sizes[groups.index(gi)]:
                raise ValueError("field_groups: fields sharing a table need the same vocab size")

    @property
    def tables(self) -> tuple[int, ...]:
        """The embedding table of each field."""
        return self.field_groups or tuple(range(len(self.vocab_sizes)))


@dataclass
class RecurrentOutput:
    """What one forward pass of :class:`RecurrentTransformer` gives ([P23] per-token compute).

    ``logits`` (B, N, C) the prediction (PonderNet: log of the halting-weighted mixture); ``depth`` (B, N) the
    iterations in which each token's state was updated (0 for padding); ``run`` (B, t, N) which tokens ran at each
    executed iteration; ``cost`` (B, N) the differentiable compute term of the policy; ``halt`` (B, t, N) ACT's
    weights or PonderNet's halting distribution; ``step_logits`` (B, t, N, C) PonderNet's per-step predictions.
    """

    logits: Tensor
    depth: Tensor
    run: Tensor
    mask: Tensor
    cost: Tensor
    halt: Tensor | None = None
    step_logits: Tensor | None = None


class RecurrentTransformer(nn.Module):
    """ANIRA ([P23]): a recurrent (looped) transformer with per-token variable depth; see the module docstring.

    ``forward(x, mask, generator=...)`` runs the dense masked loop (training and evaluation); ``generator`` draws
    ANIRA-E's Gumbel noise in training mode. :func:`icml26.papers.anira.sparse_forward` runs the same model computing
    only the rows each iteration needs (the compute :func:`~icml26.papers.anira.token_flops` counts).
    """

    def __init__(self, cfg: RecurrentConfig, *, seed: int) -> None:
        super().__init__()
        if not isinstance(cfg, RecurrentConfig):
            raise TypeError(f"cfg must be a RecurrentConfig, got {type(cfg).__name__}")
        seed = check_seed(seed)
        self.cfg = cfg
        d, rope = cfg.d_model, cfg.positions == "rope"
        with torch.random.fork_rng(devices=[]):  # the initialisation draws from ``seed`` only
            torch.manual_seed(int(seed))
            sizes = {t: cfg.vocab_sizes[f] for f, t in reversed(list(enumerate(cfg.tables)))}
            self.embed = nn.ModuleList(nn.Embedding(sizes[t] + 1, d, padding_idx=0) for t in sorted(sizes))
            self.pos = nn.Embedding(cfg.max_len, d) if cfg.positions == "learned" else None
            self.prelude = LoopBlock(d, cfg.n_head, cfg.d_ff, rope=rope)
            self.block = LoopBlock(d, cfg.n_head, cfg.d_ff, rope=rope)
            self.router_norm, self.halt_norm, self.out_norm = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
            self.router = nn.Linear(d, cfg.max_depth)
            self.halt = nn.Linear(d, 1)
            self.mod_router = nn.Linear(d, 1)
            self.head = nn.Linear(d, cfg.n_classes)
            with torch.no_grad():
                self.halt.bias.fill_(cfg.halt_bias)

    def read_out(self, h: Tensor) -> Tensor:
        """Per-token class scores of states ``h`` (..., D)."""
        return self.head(self.out_norm(h))

    def embed_tokens(self, x: Tensor) -> Tensor:
        """Sum of the field embeddings (field value ``-1``: absent), plus learned positions if configured."""
        e = sum(self.embed[t](x[..., f] + 1) for f, t in enumerate(self.cfg.tables))
        assert isinstance(e, Tensor)
        if self.pos is not None:
            e = e + self.pos(torch.arange(x.shape[1]))
        return e

    def run_loop(self, x: Tensor, mask: Tensor, *, generator: torch.Generator | None,
                 step: Callable[[Tensor, Tensor, Tensor, Tensor], Tensor] | None = None,
                 prelude: Callable[[Tensor, Tensor], Tensor] | None = None) -> RecurrentOutput:
        """The loop shared by the dense forward and :func:`~icml26.papers.anira.sparse_forward` ([P23] Alg.,
        reconstructed): ``step(h, h0, run, positions)`` gives the block's output where ``run`` is set."""
        positions = torch.arange(x.shape[1])
        e = self.embed_tokens(x)
        h0 = prelude(e, positions) if prelude is not None else self.prelude(e, None, mask, positions)
        inject = h0 if self.cfg.inject else torch.zeros_like(h0)
        ctl = make_controller(self, mask, h0, generator, self.read_out)
        block = step or (lambda h, inj, run, pos: self.block(h, inj, mask, pos))
        h, runs = h0, []
        for t in range(self.cfg.max_depth):
            run = ctl.select(t, h)
            h = ctl.update(t, h, block(h, inject, run, positions), run)
            ctl.observe(t, h, run)
            runs.append(run)
            if ctl.done(t):
                break
        out = ctl.finish(h, self.read_out)
        run_t = torch.stack(runs, 1)
        return RecurrentOutput(logits=out["logits"], depth=run_t.sum(1).to(h.dtype), run=run_t, mask=mask,
                               cost=out["cost"] * mask, halt=out.get("halt"), step_logits=out.get("step_logits"))

    def forward(self, x: Tensor, mask: Tensor | None = None, *,
                generator: torch.Generator | None = None) -> RecurrentOutput:
        """The dense masked loop over a batch (see the class docstring)."""
        x, mask = check_tokens(x, mask, self.cfg)
        if self.training and self.cfg.mode == "early" and generator is None:
            raise ValueError("generator: ANIRA-E in training mode draws Gumbel noise from an explicit torch.Generator")
        return self.run_loop(x, mask, generator=generator)

    def loss(self, out: RecurrentOutput, y: Tensor) -> Tensor:
        """Task loss plus the policy's compute term, averaged over real tokens ([P23]: CE + lambda E[d]; ACT: CE +
        tau (N + R); PonderNet: sum_t p_t CE_t + beta KL(p || geometric))."""
        m = out.mask
        n = m.sum().clamp_min(1)
        if out.step_logits is not None and out.halt is not None:
            steps = out.step_logits  # (B, t, N, C)
            ce = F.cross_entropy(steps.flatten(0, 2), y[:, None, :].expand(steps.shape[:3]).clamp_min(0).flatten(),
                                 reduction="none").view(steps.shape[:3])
            task = (out.halt * ce).sum(1)
        else:
            task = F.cross_entropy(out.logits.flatten(0, 1), y.clamp_min(0).flatten(), reduction="none").view(m.shape)
        return ((task + self.cfg.cost_weight * out.cost) * m).sum() / n


def check_tokens(x: object, mask: object, cfg: RecurrentConfig) -> tuple[Tensor, Tensor]:
    """``x`` (a tensor or array) as a (B, N, F) int64 tensor with fields in ``[-1, vocab)`` and ``mask`` as a (B, N) bool prefix mask
    (every row with at least one token); a ValueError/TypeError naming the argument otherwise ([P23] inputs)."""
    if isinstance(x, Tensor):
        if x.dtype not in (torch.int64, torch.int32, torch.int16, torch.uint8):
            raise TypeError(f"x must hold integers, got a tensor of {x.dtype}")
    else:
        x = torch.from_numpy(int_array(x, "x", ndim=(2, 3)))
    n_fields = len(cfg.vocab_sizes)
    if x.ndim == 2 and n_fields == 1:
        x = x[..., None]
    if x.ndim != 3 or x.shape[-1] != n_fields or x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"x must have shape (B, N, {n_fields}) with B, N >= 1, got {tuple(x.shape)}")
    x = x.to(torch.int64)
    hi = torch.tensor(cfg.vocab_sizes)
    if bool((x < -1).any()) or bool((x >= hi).any()):
        raise ValueError(f"x: field values must lie in [-1, vocab_sizes) = {cfg.vocab_sizes}")
    if cfg.positions == "learned" and x.shape[1] > cfg.max_len:
        raise ValueError(f"x: {x.shape[1]} tokens exceed max_len = {cfg.max_len} learned positions")
    if mask is None:
        mask = torch.ones(x.shape[:2], dtype=torch.bool)
    elif isinstance(mask, np.ndarray) and mask.dtype == np.bool_:
        mask = torch.from_numpy(mask)
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool or tuple(mask.shape) != tuple(x.shape[:2]):
        raise ValueError(f"mask must be a bool tensor of shape {tuple(x.shape[:2])}")
    if not bool(mask[:, 0].all()) or bool((mask[:, 1:] & ~mask[:, :-1]).any()):
        raise ValueError("mask must mark a non-empty prefix of each row (padding at the end)")
    return x, mask
