"""Accuracy of the [P31] toy LM under each compression method at equal attention FLOPs, and its prefill time.

A method's pre-LM selector and optional in-LM retention (:class:`._select.Method`) are planned per clip by
:func:`._lm.plan_counts` so that no method spends more attention FLOPs than keeping k = round(budget · n) tokens
through every layer; clips with the same plan run as one batch.
"""

from __future__ import annotations

import functools
import time
from collections import defaultdict
from typing import Any

import numpy as np
import torch

from icml26.common import validation
from icml26.papers.prim._data import PATCH, Clips
from icml26.papers.prim._lm import N_TEXT, TinyAVLM, attention_flops, plan_counts
from icml26.papers.prim._select import (
    AVTokens,
    Method,
    audio_guided_select,
    fastv_retention,
    fixed_share_select,
    keep_count,
    prim_retention,
    prim_select,
    random_select,
    temporal_stride_select,
    uniform_select,
)

__all__ = ["BASELINES", "evaluate", "methods", "prefill_seconds"]

BASELINES = ("uniform", "random", "temporal_stride", "fastv", "fixed_shares", "audio_guided")


def _prim(tokens: AVTokens, text: np.ndarray, budget: float) -> np.ndarray:
    return prim_select(tokens, text, budget=budget)


def methods(*, seed: int) -> dict[str, Method]:
    """PRIM and the baselines of the [P31] comparison; ``seed`` fixes the random baseline's mask."""
    seed = validation.seed(seed)
    return {
        "prim": Method("prim", _prim, retention=prim_retention),
        "uniform": Method("uniform", uniform_select),
        "random": Method("random", functools.partial(random_select, seed=seed)),
        "temporal_stride": Method("temporal_stride", temporal_stride_select),
        "fastv": Method("fastv", uniform_select, retention=fastv_retention),
        "fixed_shares": Method("fixed_shares", fixed_share_select),
        "audio_guided": Method("audio_guided", audio_guided_select),
    }


def _inputs(model: TinyAVLM, clips: Clips) -> tuple[torch.Tensor, torch.Tensor, list[AVTokens], np.ndarray]:
    with torch.no_grad():
        av, text = model.embed(torch.from_numpy(clips.video), torch.from_numpy(clips.audio),
                               torch.from_numpy(clips.question))
    keys, queries = model.first_layer_keys(av, text)
    shape = (3, PATCH, PATCH)
    toks = [AVTokens(video=clips.video[i], audio=clips.audio[i], keys=keys[i], patch_shape=shape,
                     n_heads=model.cfg.n_head) for i in range(len(clips))]
    return av, text, toks, queries


def _plans(model: TinyAVLM, method: Method | None, budget: float, toks: list[AVTokens], queries: np.ndarray
           ) -> tuple[dict[tuple[int, int], list[int]], dict[int, np.ndarray]]:
    n = model.n_av
    groups: dict[tuple[int, int], list[int]] = defaultdict(list)
    picks: dict[int, np.ndarray] = {}
    for i, tok in enumerate(toks):
        if method is None:
            groups[n, n].append(i)
            picks[i] = np.arange(n)
            continue
        k = keep_count(n, budget)
        rho = method.retention(tok, queries[i]) if method.retention is not None else None
        k1, k2 = plan_counts(n, k, rho, n_layer=model.cfg.n_layer, prune_after=method.prune_after)
        picks[i] = np.asarray(method.select(tok, queries[i], k1 / n))
        groups[k1, k2].append(i)
    return groups, picks


def evaluate(model: TinyAVLM, clips: Clips, method: Method | None, budget: float) -> dict[str, Any]:
    """Per-clip correctness of ``model`` on ``clips`` with ``method`` at ``budget`` (``None``: no compression), and
    the attention FLOPs relative to the uncompressed prefill ([P31] comparison at equal attention FLOPs)."""
    av, text, toks, queries = _inputs(model, clips)
    groups, picks = _plans(model, method, budget, toks, queries)
    pred = np.empty(len(clips), dtype=np.int64)
    flops = np.empty(len(clips))
    L = model.cfg.n_layer
    full = attention_flops([model.n_av + N_TEXT] * L)
    for (k1, k2), rows in groups.items():
        idx = torch.as_tensor(np.stack([picks[i] for i in rows]))
        sel = torch.gather(av[rows], 1, idx[..., None].expand(-1, -1, av.shape[-1]))
        pa = method.prune_after if method is not None else None
        with torch.no_grad():
            logits = model.run(sel, text[rows], tokens=idx, prune_after=pa,
                               keep=k2 if k2 < k1 else None)
        pred[rows] = logits.argmax(-1).numpy()
        layers = [k1 + N_TEXT] * (pa or L) + [k2 + N_TEXT] * (L - (pa or L))
        flops[rows] = attention_flops(layers) / full
    return {"correct": pred == clips.answer, "flops_ratio": float(flops.mean()), "kept": float(
        np.mean([len(picks[i]) for i in range(len(clips))]) / model.n_av)}


def prefill_seconds(model: TinyAVLM, clips: Clips, method: Method | None, budget: float, *, rounds: int
                    ) -> list[tuple[float, float]]:
    """Wall-clock of ``rounds`` batched prefills of ``clips``: (LM seconds, selection seconds) per round. The LM part
    runs the plan (pre-selected tokens, in-LM pruning) of :func:`evaluate`; the selection part is everything before
    it: the embedding and, for a method, the first-layer keys, the scoring and the plan (``None``: embedding only)."""
    rounds = validation.positive_int(rounds, "rounds")
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        if method is None:  # the uncompressed prefill needs neither first-layer keys nor a plan: embedding only
            with torch.no_grad():
                av, text = model.embed(torch.from_numpy(clips.video), torch.from_numpy(clips.audio),
                                       torch.from_numpy(clips.question))
            groups = {(model.n_av, model.n_av): list(range(len(clips)))}
            picks = {i: np.arange(model.n_av) for i in range(len(clips))}
        else:
            av, text, toks, queries = _inputs(model, clips)
            groups, picks = _plans(model, method, budget, toks, queries)
        t1 = time.perf_counter()
        with torch.no_grad():
            for (k1, k2), rows in groups.items():
                idx = torch.as_tensor(np.stack([picks[i] for i in rows]))
                sel = torch.gather(av[rows], 1, idx[..., None].expand(-1, -1, av.shape[-1]))
                pa = method.prune_after if method is not None else None
                model.run(sel, text[rows], tokens=idx, prune_after=pa,
                          keep=k2 if k2 < k1 else None)
        t2 = time.perf_counter()
        out.append((t2 - t1, t1 - t0))
    return out
