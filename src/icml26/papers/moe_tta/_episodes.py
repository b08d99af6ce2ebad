"""Online evaluation episodes of the [P34] reproduction: demonstrations are given, queries are answered greedily by
the model and its own answers stay in the context (notes §4: prefill with the in-context examples, adapt, decode the
answers, re-adapt every ``refit_every`` context tokens).

An episode is a token sequence ``[BOS, x1, y1, ...]`` and a mask of which pairs are queries. The context grows pair
by pair: a given pair is appended as is; for a query the model sees x, predicts y (argmax of the next-token logits),
and its prediction, right or wrong, is appended. Fits: ``none`` (never), ``prefill`` (once, on the prompt: every pair
before the first query) and ``continuous`` (on the prompt, then on the whole context whenever ``refit_every``
tokens have been appended since the last fit, checked before each pair).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from icml26.papers.moe_tta._adapt import adapt, context_ce, logits_of, select_layers
from icml26.papers.moe_tta._baselines import full_ttt, restored
from icml26.papers.moe_tta._routers import RouterBias, moe_layers

__all__ = ["EpisodeResult", "Fit", "play", "play_full_ttt", "play_rerouting"]

MODES = ("none", "prefill", "continuous")


@dataclass(frozen=True)
class Fit:
    """The fit of an episode: Adam steps, learning rate, λ (router only) and the re-fit period in tokens."""

    steps: int
    lr: float
    l2: float
    refit_every: int


@dataclass
class EpisodeResult:
    """Per episode: which queries were answered right (B, n_pairs; NaN where a pair is given), the prompt's context
    CE after the prefill fit, the number of fits, and the layers that carried δ (router fits)."""

    correct: np.ndarray
    prompt_ce: np.ndarray
    fits: int
    layers: list[list[int]]


def play(model: nn.Module, tokens: Tensor, query: np.ndarray, *, mode: str, fit: Callable[[Tensor], None],
         refit_every: int) -> EpisodeResult:
    """Run a batch of episodes with identical structure; ``fit(context)`` adapts the model to the context."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    q = np.asarray(query, dtype=bool)
    first = int(np.argmax(q)) if q.any() else len(q)
    ctx = tokens[:, : 1 + 2 * first]
    fits = 0
    if mode != "none":
        fit(ctx)
        fits += 1
    with torch.no_grad():
        prompt_ce = context_ce(model, ctx).double().numpy()
    correct = np.full((tokens.shape[0], len(q)), np.nan)
    since = 0
    for j in range(first, len(q)):
        if mode == "continuous" and since >= refit_every:
            fit(ctx)
            fits += 1
            since = 0
        x = tokens[:, 1 + 2 * j : 2 + 2 * j]
        ctx = torch.cat([ctx, x], dim=1)
        y = tokens[:, 2 + 2 * j : 3 + 2 * j]
        if q[j]:
            with torch.no_grad():
                pred = logits_of(model, ctx)[:, -1].argmax(-1, keepdim=True)
            correct[:, j] = (pred == y).squeeze(1).double().numpy()
            y = pred
        ctx = torch.cat([ctx, y], dim=1)
        since += 2
    return EpisodeResult(correct, prompt_ce, fits, [])


def play_rerouting(model: nn.Module, tokens: Tensor, query: np.ndarray, *, mode: str, fit: Fit, k: int | None,
                   by: str) -> EpisodeResult:
    """[P34] episodes with one δ per episode on its ``k`` most confident layers (chosen on its prompt; ``None``:
    every MoE layer), fitted by :func:`adapt` and warm-started at each re-fit."""
    n = len(moe_layers(model))
    q = np.asarray(query, dtype=bool)
    first = int(np.argmax(q)) if q.any() else len(q)
    if k is None or k >= n:
        layers = [[layer.index for layer in moe_layers(model)]] * tokens.shape[0]
    else:
        sel = select_layers(model, tokens[:, : 1 + 2 * first], k=k, by=by, per_sample=True)
        layers = [list(s) for s in sel]  # type: ignore[arg-type]
    union = sorted({i for s in layers for i in s})
    mask = torch.tensor([[float(i in s) for i in union] for s in layers])
    bias = RouterBias(model, layers=union, batch=tokens.shape[0], mask=mask)

    def do_fit(ctx: Tensor) -> None:
        adapt(model, ctx, bias=bias, steps=fit.steps, lr=fit.lr, l2=fit.l2)

    try:
        res = play(model, tokens, query, mode=mode, fit=do_fit, refit_every=fit.refit_every)
    finally:
        bias.remove()
    res.layers = layers
    return res


def play_full_ttt(model: nn.Module, tokens: Tensor, query: np.ndarray, *, mode: str, fit: Fit) -> EpisodeResult:
    """[P34] baseline episodes: every weight adapted by :func:`full_ttt` with the same schedule, one episode at a
    time (the weights are shared, so episodes cannot be batched), restored after each episode."""
    def do_fit(ctx: Tensor) -> None:
        full_ttt(model, ctx, steps=fit.steps, lr=fit.lr)

    parts = []
    for b in range(tokens.shape[0]):
        with restored(model):
            parts.append(play(model, tokens[b : b + 1], query, mode=mode, fit=do_fit, refit_every=fit.refit_every))
    return EpisodeResult(np.concatenate([p.correct for p in parts]), np.concatenate([p.prompt_ce for p in parts]),
                         parts[0].fits if parts else 0, [])


def query_accuracy(res: EpisodeResult, query: np.ndarray) -> np.ndarray:
    """Per episode: the fraction of its queries answered right."""
    c = res.correct[:, np.asarray(query, dtype=bool)]
    return c.mean(axis=1) if c.size else np.full(res.correct.shape[0], math.nan)
