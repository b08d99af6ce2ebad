"""Exhaustive search for the longest plausible tokenization of a short string ([P13] §4: the problem the paper
shows NP-hard, solved exactly here by enumeration on strings of a few characters)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.common.validation import int_array, int_at_least
from icml26.papers.token_pricing._plausible import check_sampling, forward, model_device, top_p_mask
from icml26.papers.token_pricing._tokenizations import as_bytes, token_matches
from icml26.papers.token_pricing._vocab import vocabulary

__all__ = ["BruteForce", "longest_plausible_tokenization"]


@dataclass(frozen=True)
class BruteForce:
    """The outcome of :func:`longest_plausible_tokenization` ([P13] §4).

    Attributes:
        longest: a longest plausible tokenization (``None`` if none is plausible).
        plausible: how many tokenizations are plausible.
        nodes: plausible prefixes expanded (each costs one token of a batched forward pass).
        complete: False when the search stopped at ``max_width`` (then ``longest`` is a lower bound).
    """

    longest: tuple[int, ...] | None
    plausible: int
    nodes: int
    complete: bool


def longest_plausible_tokenization(text: str | bytes, model: Any, tokenizer: Any, *, prompt: Sequence[int] | np.ndarray,
                                   temperature: float, top_p: float, max_width: int = 256) -> BruteForce:
    """The longest tokenization of ``text`` whose every token lies in its top-p set ([P13] §4, exact by search).

    The tokenizations are enumerated as a tree of prefixes, breadth first; a prefix whose last token is outside
    its top-p set is cut (no extension of it can be plausible), so only plausible prefixes are expanded. Each level
    is one batched forward pass over the frontier, with the KV cache of each prefix's parent.

    Args:
        text: the output string (``str``, as UTF-8, or bytes); a few characters (the search is exponential).
        model: the causal LM (a transformers ``*ForCausalLM``).
        tokenizer: its tokenizer, or a :class:`~icml26.papers.token_pricing.Vocabulary`.
        prompt: (P,) the token ids before the output (P >= 1).
        temperature: the sampling temperature T.
        top_p: the nucleus mass p in (0, 1].
        max_width: the most prefixes one level may hold; beyond it the search stops (``complete=False``).
    """
    import torch

    data = as_bytes(text)
    vocab = vocabulary(tokenizer)
    t, p = check_sampling(temperature, top_p)
    pr = [int(x) for x in int_array(prompt, "prompt", ndim=1)]
    width = int_at_least(max_width, "max_width", 1)
    if not data:
        raise ValueError("text must not be empty")
    m = token_matches(data, vocab)
    dev = model_device(model)
    logits, cache = forward(model, torch.tensor([pr], device=dev), keep_cache=True)
    rows = logits[:, -1]
    frontier: list[tuple[int, tuple[int, ...]]] = [(0, ())]  # (byte position, tokens)
    best: tuple[int, ...] | None = None
    n_ok, nodes = 0, 0
    while frontier:
        keep = top_p_mask(rows, temperature=t, top_p=p).cpu().numpy()
        nxt: list[tuple[int, tuple[int, ...]]] = []
        parents: list[int] = []
        for i, (pos, toks) in enumerate(frontier):
            for end, tok in m[pos]:
                if not keep[i, tok]:
                    continue
                if end == len(data):
                    n_ok += 1
                    if best is None or len(toks) + 1 > len(best):
                        best = (*toks, tok)
                else:
                    nxt.append((end, (*toks, tok)))
                    parents.append(i)
        if len(nxt) > width:
            return BruteForce(best, n_ok, nodes, complete=False)
        if not nxt:
            break
        nodes += len(nxt)
        cache.batch_select_indices(torch.tensor(parents, device=dev))
        ids = torch.tensor([[toks[-1]] for _, toks in nxt], device=dev)
        logits, cache = forward(model, ids, cache)
        rows, frontier = logits[:, -1], nxt
    return BruteForce(best, n_ok, nodes, complete=True)
