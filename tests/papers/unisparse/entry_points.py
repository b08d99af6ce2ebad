"""The public entry points of [P30] for the bad-input conformance test."""

import torch

from icml26.papers.unisparse import (
    BlockMask,
    MQARTask,
    block_sparse_attention,
    flexprefill_mask,
    mqar_batch,
    random_block_mask,
    streaming_mask,
    structured_qkv,
    unisparse_mask,
    vertical_slash_mask,
    xattention_mask,
)
from support.badinput import Entry

_g = torch.Generator().manual_seed(0)
_Q, _K, _V = (torch.randn(2, 64, 16, generator=_g) for _ in range(3))
_QK = {"q": _Q, "k": _K}
_QK_KINDS = {"q": "array", "k": "array", "block": "int"}

ENTRY_POINTS = [
    Entry("unisparse_mask", unisparse_mask, valid={**_QK, "block": 16, "cq": 4, "ck": 4, "tau": 0.9},
          kinds={**_QK_KINDS, "cq": "int", "ck": "int", "tau": "posreal"}),
    Entry("block_sparse_attention", block_sparse_attention,
          valid={"q": _Q, "k": _K, "v": _V, "mask": BlockMask.full(2, 64, block=16), "scale": 0.25},
          kinds={"q": "array", "k": "array", "v": "array", "scale": "posreal"}),
    Entry("streaming_mask", streaming_mask, valid={**_QK, "block": 16, "window_blocks": 2},
          kinds={**_QK_KINDS, "window_blocks": "int"}),
    Entry("vertical_slash_mask", vertical_slash_mask, valid={**_QK, "block": 16, "vertical": 4, "slash": 8},
          kinds={**_QK_KINDS, "vertical": "int", "slash": "int"}),
    Entry("xattention_mask", xattention_mask, valid={**_QK, "block": 16, "stride": 4, "tau": 0.9},
          kinds={**_QK_KINDS, "stride": "int", "tau": "posreal"}),
    Entry("flexprefill_mask", flexprefill_mask, valid={**_QK, "block": 16, "gamma": 0.9, "delta": 0.1},
          kinds={**_QK_KINDS, "gamma": "posreal", "delta": "nonneg"}),
    Entry("random_block_mask", random_block_mask, valid={**_QK, "block": 16, "density": 0.3, "seed": 0},
          kinds={**_QK_KINDS, "density": "nonneg", "seed": "seed"}),
    Entry("structured_qkv", structured_qkv, valid={"heads": 2, "n": 64, "d": 16, "seed": 0, "sink": 2.0},
          kinds={"heads": "int", "n": "int", "d": "int", "seed": "seed", "sink": "nonneg"}),
    Entry("mqar_batch", mqar_batch, valid={"task": MQARTask(n=64, pairs=2, span=2), "batch": 2, "seed": 0},
          kinds={"batch": "int", "seed": "seed"}),
]
