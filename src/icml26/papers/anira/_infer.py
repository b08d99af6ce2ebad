"""Per-token compute of [P23]'s recurrent model: an inference path that computes only what each iteration needs, and
the FLOP count of that computation token by token.

:func:`sparse_forward` runs a trained :class:`~icml26.papers.anira.RecurrentTransformer` one sequence at a time
without padding: at each iteration only the tokens that run get queries, attention, output projection and MLP; keys
and values are recomputed only for tokens whose state changed at the previous iteration (a halted token's are kept).
It gives the same output as the dense masked loop. :func:`token_flops` counts, per token, the FLOPs (2 x
multiply-adds of every matrix product) of exactly that computation; norms, softmax and element-wise operations are
not counted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor

from icml26.common.validation import choice
from icml26.papers.anira._model import MODES, RecurrentConfig, RecurrentOutput, RecurrentTransformer, check_tokens

__all__ = ["sparse_forward", "token_flops"]


class _Gathered:
    """The recurrent block evaluated on the rows that run, with a key/value cache over the others."""

    def __init__(self, model: RecurrentTransformer) -> None:
        self.block = model.block
        self.k: Tensor | None = None
        self.v: Tensor | None = None
        self.dirty: Tensor | None = None

    def __call__(self, h: Tensor, inject: Tensor, run: Tensor, positions: Tensor) -> Tensor:
        u = h + inject
        if self.k is None or self.v is None or self.dirty is None:
            self.k, self.v = self.block.keys_values(u, positions)
        elif bool(self.dirty.any()):
            idx = self.dirty.nonzero().squeeze(1)
            k, v = self.block.keys_values(u[:, idx], positions[idx])
            self.k, self.v = self.k.index_copy(2, idx, k), self.v.index_copy(2, idx, v)
        out = h.clone()
        r = run[0]
        if bool(r.any()):
            idx = r.nonzero().squeeze(1)
            rows = self.block.attend(h[:, idx], inject[:, idx], positions[idx], self.k, self.v, None, explicit=True)
            out[:, idx] = rows
        self.dirty = r.clone()  # these states change now: their keys/values are stale at the next iteration
        return out


def _prelude(model: RecurrentTransformer) -> Any:
    def run(e: Tensor, positions: Tensor) -> Tensor:
        k, v = model.prelude.keys_values(e, positions)
        return model.prelude.attend(e, None, positions, k, v, None, explicit=True)
    return run


def _pad(outs: list[RecurrentOutput], N: int) -> RecurrentOutput:
    B, T = len(outs), max(o.run.shape[1] for o in outs)
    C = outs[0].logits.shape[-1]
    logits, depth = torch.zeros(B, N, C), torch.zeros(B, N)
    run, mask, cost = torch.zeros(B, T, N, dtype=torch.bool), torch.zeros(B, N, dtype=torch.bool), torch.zeros(B, N)
    for b, o in enumerate(outs):
        n, t = o.mask.shape[1], o.run.shape[1]
        logits[b, :n], depth[b, :n], run[b, :t, :n], mask[b, :n], cost[b, :n] = (
            o.logits[0], o.depth[0], o.run[0], True, o.cost[0])
    return RecurrentOutput(logits=logits, depth=depth, run=run, mask=mask, cost=cost)


def sparse_forward(model: RecurrentTransformer, x: Tensor, mask: Tensor | None = None) -> RecurrentOutput:
    """Evaluation-mode inference of ``model`` computing only the rows each iteration needs ([P23]: a halted token
    costs nothing more, yet its frozen state is still read as a key/value). Returns the dense loop's output fields
    ``logits``, ``depth``, ``run``, ``mask``, ``cost`` (no ``halt``/``step_logits``); gradients are off."""
    if not isinstance(model, RecurrentTransformer):
        raise TypeError(f"model must be a RecurrentTransformer, got {type(model).__name__}")
    x, mask = check_tokens(x, mask, model.cfg)
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            outs = []
            for b in range(x.shape[0]):
                n = int(mask[b].sum())
                xb, mb = x[b:b + 1, :n], torch.ones(1, n, dtype=torch.bool)
                outs.append(model.run_loop(xb, mb, generator=None, step=_Gathered(model), prelude=_prelude(model)))
    finally:
        model.train(was)
    return _pad(outs, x.shape[1])


def _bool_array(a: Any, name: str, ndim: int) -> np.ndarray:
    if isinstance(a, Tensor):
        a = a.detach().cpu().numpy()
    arr = np.asarray(a)
    if arr.dtype != np.bool_:
        raise TypeError(f"{name} must be a bool array, got dtype {arr.dtype}")
    if arr.ndim != ndim or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty {ndim}-D bool array, got shape {arr.shape}")
    return arr


def token_flops(cfg: RecurrentConfig, run: Any, mask: Any, *, heads: bool = True) -> np.ndarray:
    """FLOPs spent on each token by :func:`sparse_forward` ([P23] compute accounting), (B, N) float64, 0 on padding.

    ``run`` (B, t, N) and ``mask`` (B, N) as in :class:`~icml26.papers.anira.RecurrentOutput`. With ``d`` the width,
    ``f`` the MLP width, ``n`` the sequence's tokens, ``d_i`` the token's iterations and ``k_i`` the iterations at
    which its key/value had to be recomputed (the first, and each one after it ran): prelude ``8d^2 + 4nd + 4df``;
    loop ``d_i (4d^2 + 4nd + 4df) + 4 d^2 k_i``; read-out ``2dC`` (PonderNet: at each of its iterations); ANIRA-E's
    router ``2dT`` once; a halting unit ``2d`` per iteration (ANIRA-O); Mixture-of-Depths' router ``2d`` per
    iteration of the sequence. ``heads=False`` leaves the read-out and the policy's heads out (the blocks only).
    """
    if not isinstance(cfg, RecurrentConfig):
        raise TypeError(f"cfg must be a RecurrentConfig, got {type(cfg).__name__}")
    choice(cfg.mode, "cfg.mode", MODES)
    r, m = _bool_array(run, "run", 3), _bool_array(mask, "mask", 2)
    if r.shape[0] != m.shape[0] or r.shape[2] != m.shape[1]:
        raise ValueError(f"run (B, t, N) and mask (B, N) disagree: {r.shape} vs {m.shape}")
    if (r & ~m[:, None, :]).any():
        raise ValueError("run marks padding tokens (mask False) as running")
    d, f, C, T = cfg.d_model, cfg.d_ff, cfg.n_classes, cfg.max_depth
    n = m.sum(1, keepdims=True).astype(np.float64)  # (B, 1) keys per query
    steps = r.sum(1).astype(np.float64)  # (B, N)
    executed = np.array([int(np.flatnonzero(r[b].any(1)).max()) + 1 if r[b].any() else 0 for b in range(len(r))])
    prev = np.concatenate([np.ones_like(r[:, :1]), r[:, :-1]], 1)  # the first iteration, or ran at the one before
    live = np.arange(r.shape[1])[None, :] < executed[:, None]  # (B, t)
    kv = (prev & live[:, :, None]).sum(1).astype(np.float64)
    total = 8 * d * d + 4 * n * d + 4 * d * f + steps * (4 * d * d + 4 * n * d + 4 * d * f) + 4 * d * d * kv
    if heads:
        if cfg.mode == "online":
            total = total + 2 * d * steps + 2 * d * C * (steps if cfg.halting == "ponder" else 1)
        else:
            total = total + 2 * d * C + (2 * d * T if cfg.mode == "early" else 0)
            if cfg.mode == "mod":
                total = total + 2 * d * executed[:, None].astype(np.float64)
    return np.where(m, total, 0.0)
