"""Swap the prefill attention of a transformers model for [P30]'s block-sparse attention (a training-free plug-in).

:func:`sparse_prefill` registers one attention function with transformers' ``AttentionInterface`` (and the SDPA mask
builder for it) and points the model's config at it for the duration of a ``with`` block. In each attention layer, a
prefill call (as many queries as keys, no padding mask) computes the layer's block mask with ``method`` from its
post-RoPE queries and keys and runs :func:`block_sparse_attention`; every other call (decoding with a cache, a padded
batch) is passed to transformers' SDPA attention unchanged. Works for the Llama family (``LlamaForCausalLM`` and the
models built like it: grouped-query heads are read through ``num_key_value_groups``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from icml26.common.validation import choice
from icml26.papers.unisparse._attention import BACKENDS, block_sparse_attention
from icml26.papers.unisparse._mask import BlockMask

__all__ = ["ATTN_NAME", "PrefillLog", "sparse_prefill"]

log = logging.getLogger(__name__)

#: the name under which the block-sparse attention is registered with transformers
ATTN_NAME = "icml26_block_sparse"
_STATE = "_icml26_sparse_prefill"


@dataclass
class PrefillLog:
    """What :func:`sparse_prefill` saw ([P30] plug-in): per sparse prefill call, its layer and block density; with
    ``capture=True`` also the layer's post-RoPE queries and keys (CPU tensors, ``(hq, n, d)`` and ``(hkv, n, d)``)."""

    densities: list[tuple[int, float]] = field(default_factory=list)
    captured: list[tuple[int, Tensor, Tensor]] = field(default_factory=list)
    dense_calls: int = 0

    @property
    def density(self) -> float:
        """Mean block density over the sparse calls (NaN when there were none)."""
        return float(sum(d for _, d in self.densities) / len(self.densities)) if self.densities else float("nan")


@dataclass
class _State:
    method: Callable[[Tensor, Tensor], BlockMask] | None
    backend: str
    capture: bool
    log: PrefillLog


def _sdpa(*args: Any, **kwargs: Any) -> tuple[Tensor, Any]:
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    return sdpa_attention_forward(*args, **kwargs)


def _attention(module: Any, query: Tensor, key: Tensor, value: Tensor, attention_mask: Tensor | None,
               scaling: float | None = None, dropout: float = 0.0, **kwargs: Any) -> tuple[Tensor, None]:
    """The attention function registered as :data:`ATTN_NAME` (transformers' calling convention: query
    ``(b, hq, n, d)``, key/value ``(b, hkv, n, d)``; returns ``(b, n, hq, d)``)."""
    state: _State | None = getattr(module, _STATE, None)
    prefill = query.shape[2] == key.shape[2] and query.shape[2] > 1 and attention_mask is None and dropout == 0.0
    if state is None or not prefill:
        if state is not None:
            state.log.dense_calls += 1
        return _sdpa(module, query, key, value, attention_mask, scaling=scaling, dropout=dropout, **kwargs)
    layer = int(getattr(module, "layer_idx", -1))
    if state.capture:
        for b in range(query.shape[0]):
            state.log.captured.append((layer, query[b].detach().cpu(), key[b].detach().cpu()))
    if state.method is None:
        return _sdpa(module, query, key, value, attention_mask, scaling=scaling, dropout=dropout, **kwargs)
    outs = []
    with torch.no_grad():
        for b in range(query.shape[0]):
            mask = state.method(query[b], key[b])
            if not isinstance(mask, BlockMask):
                raise TypeError(f"method must return a BlockMask, got {type(mask).__name__}")
            state.log.densities.append((layer, mask.density))
            outs.append(block_sparse_attention(query[b], key[b], value[b], mask, scale=scaling, backend=state.backend))
    return torch.stack(outs).transpose(1, 2).contiguous(), None


def _register() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(ATTN_NAME, _attention)
    AttentionMaskInterface.register(ATTN_NAME, sdpa_mask)


def _attention_modules(model: Any) -> list[Any]:
    mods = [m for m in model.modules() if hasattr(m, "num_key_value_groups") and hasattr(m, "layer_idx")]
    if not mods:
        raise TypeError(f"model must be a transformers decoder with Llama-style attention layers (num_key_value_groups, "
                        f"layer_idx), got {type(model).__name__}")
    return mods


@contextlib.contextmanager
def sparse_prefill(model: Any, method: Callable[[Tensor, Tensor], BlockMask] | None, *, backend: str = "auto",
                   capture: bool = False) -> Iterator[PrefillLog]:
    """Within the ``with`` block, ``model``'s prefill attention is [P30]'s block-sparse attention under ``method``.

    Args:
        model: a transformers causal LM of the Llama family (e.g. ``LlamaForCausalLM``), in eval mode.
        method: ``method(q, k) -> BlockMask`` for one sequence's post-RoPE ``q`` ``(hq, n, d)`` and ``k``
            ``(hkv, n, d)``, e.g. ``functools.partial(unisparse_mask, block=64, tau=0.9)``; ``None`` keeps dense SDPA
            (with ``capture``: to record queries and keys).
        backend: the :func:`block_sparse_attention` backend.
        capture: record every prefill layer's queries and keys in the log.

    Yields:
        A :class:`PrefillLog` filled as the model runs. The model's attention implementation is restored on exit.
    """
    backend = choice(backend, "backend", BACKENDS)
    if method is not None and not callable(method):
        raise TypeError(f"method must be a callable (q, k) -> BlockMask or None, got {type(method).__name__}")
    if not isinstance(capture, bool):
        raise TypeError(f"capture must be a bool, got {type(capture).__name__}")
    config = getattr(model, "config", None)
    if config is None or not hasattr(config, "_attn_implementation"):
        raise TypeError(f"model must be a transformers PreTrainedModel, got {type(model).__name__}")
    mods = _attention_modules(model)
    _register()
    record = PrefillLog()
    state = _State(method, backend, capture, record)
    before = config._attn_implementation
    config._attn_implementation = ATTN_NAME
    for m in mods:
        setattr(m, _STATE, state)
    try:
        yield record
    finally:
        config._attn_implementation = before
        for m in mods:
            if hasattr(m, _STATE):
                delattr(m, _STATE)
