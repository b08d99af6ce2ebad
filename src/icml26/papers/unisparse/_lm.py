"""The language model and the long text of [P30]'s real-LM claims: SmolLM2-135M (or, for smoke runs, a tiny random
Llama of the same class) prefilling long English prose that ships with Python (the reference-manual topics of
``pydoc_data``), and the next-token loss of a prefill with or without block-sparse attention."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import Tensor

from icml26.papers.unisparse._mask import BlockMask
from icml26.papers.unisparse._patch import PrefillLog, sparse_prefill

__all__ = ["load_lm", "long_text_ids", "prefill_nll"]


def load_lm(name: str, *, n: int) -> tuple[Any, Any]:
    """``(model, tokenizer)``: ``"tiny"`` (a random ``LlamaForCausalLM`` with byte tokens, seed 0) or a name of
    :data:`icml26.common.models.CAUSAL_LMS`; raises ``MissingExtraError`` when the ``[models]`` extra is missing."""
    from icml26.common.models import load_causal_lm, tiny_causal_lm

    if name == "tiny":
        return tiny_causal_lm(seed=0, max_positions=max(256, n))
    return load_causal_lm(name)


def long_text_ids(tokenizer: Any, *, n: int, seed: int) -> Tensor:
    """``(1, n)`` token ids: a window of ``n`` tokens, at an offset drawn from ``seed``, of the Python reference
    manual's topics (``pydoc_data.topics``, about 465k characters of English prose) joined in sorted order."""
    import pydoc_data.topics as topics

    text = "\n\n".join(topics.topics[k] for k in sorted(topics.topics))
    ids = torch.tensor(tokenizer(text)["input_ids"], dtype=torch.long)
    if ids.numel() < n + 1:
        raise ValueError(f"n = {n} exceeds the {ids.numel()} tokens of the text")
    start = int(np.random.default_rng(seed).integers(0, ids.numel() - n))
    return ids[start:start + n][None]


def prefill_nll(model: Any, ids: Tensor, method: Callable[[Tensor, Tensor], BlockMask] | None, *,
                capture: bool = False) -> tuple[float, PrefillLog]:
    """Mean next-token negative log-likelihood (nats) of one prefill of ``ids`` under ``method``'s block-sparse
    attention ([P30]; ``None``: full attention), and the prefill's log."""
    with torch.no_grad(), sparse_prefill(model, method, capture=capture) as log:
        logits = model(input_ids=ids).logits[0, :-1].float()
    nll = float(torch.nn.functional.cross_entropy(logits, ids[0, 1:]))
    if not math.isfinite(nll):
        raise FloatingPointError("the prefill's loss is not finite")
    return nll, log
