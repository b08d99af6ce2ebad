"""The public entry points of [P06] for the bad-input conformance test."""

import numpy as np
import torch

from icml26.papers.implicit_patch import (
    NormPatch,
    RankOnePatch,
    context_patches,
    layer_patches,
    patched_generate,
    patched_logits,
    solved_patches,
    with_context_logits,
)
from icml26.papers.implicit_patch._construct import _embed
from icml26.papers.implicit_patch._zoo import make_config, random_model
from support.badinput import Entry

_cfg = make_config("gemma", n_layer=1, d_model=16, n_head=2, vocab_size=20, block_size=16)
_model = random_model(_cfg, seed=0)
_c, _q = np.array([3, 1, 4, 1, 5]), np.array([9, 2])
_ids = {"model": _model, "context_ids": _c, "query_ids": _q}
_ids_kinds = {"context_ids": "array", "query_ids": "array"}
_empty_context = {"context_ids:empty": "an empty context is valid (no patch is needed)"}
with torch.no_grad():
    _x_ctx = _embed(_model, torch.as_tensor(np.concatenate([_c, _q])))
    _x_q = _embed(_model, torch.as_tensor(_q))

ENTRY_POINTS = [
    Entry("context_patches", context_patches, valid=_ids, kinds=_ids_kinds, skip=_empty_context),
    Entry("patched_logits", patched_logits, valid=_ids, kinds=_ids_kinds, skip=_empty_context),
    Entry("with_context_logits", with_context_logits, valid=_ids, kinds=_ids_kinds, skip=_empty_context),
    Entry("solved_patches", solved_patches, valid=_ids, kinds=_ids_kinds, skip=_empty_context),
    Entry("patched_generate", patched_generate, valid={**_ids, "max_new_tokens": 2},
          kinds={**_ids_kinds, "max_new_tokens": "int"}, skip=_empty_context),
    Entry("layer_patches", layer_patches,
          valid={"block": _model.blocks[0], "x_context": _x_ctx, "x_query": _x_q, "n_context": 5},
          kinds={"x_context": "array", "x_query": "array", "n_context": "int"}),
    Entry("RankOnePatch", RankOnePatch, valid={"u": np.ones((2, 3)), "v": np.ones((2, 4))},
          kinds={"u": "array", "v": "array"}),
    Entry("NormPatch", NormPatch, valid={"scale": np.ones(2), "shift": np.zeros((2, 4))},
          kinds={"scale": "array", "shift": "array"}),
]

from icml26.common.models import tiny_causal_lm  # noqa: E402
from icml26.papers.implicit_patch import (  # noqa: E402
    hf_context_patches,
    hf_patched_generate,
    hf_patched_logits,
    hf_with_context_logits,
)

_llama = tiny_causal_lm(seed=0, num_layers=1, hidden_size=16, num_heads=2, num_kv_heads=1, intermediate_size=32)[0]
_llama_ids = {"model": _llama.double(), "context_ids": _c, "query_ids": _q}
ENTRY_POINTS += [
    Entry("hf_context_patches", hf_context_patches, valid=_llama_ids, kinds=_ids_kinds, skip=_empty_context),
    Entry("hf_patched_logits", hf_patched_logits, valid=_llama_ids, kinds=_ids_kinds, skip=_empty_context),
    Entry("hf_with_context_logits", hf_with_context_logits, valid=_llama_ids, kinds=_ids_kinds, skip=_empty_context),
    Entry("hf_patched_generate", hf_patched_generate, valid={**_llama_ids, "max_new_tokens": 2},
          kinds={**_ids_kinds, "max_new_tokens": "int"}, skip=_empty_context),
]
