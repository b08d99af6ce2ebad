"""The public entry points of [P27] for the bad-input conformance test.

The model-level functions get a tiny random Llama (transformers' class, byte-level tokenizer) per call, so that an
edit made by one valid call does not change what the next call receives.
"""

from typing import Any

import numpy as np

from icml26.common.models import tiny_causal_lm
from icml26.papers.zerounlearn import (
    Fact,
    alphaedit_delta,
    closed_form_edit,
    compute_z,
    make_prompts,
    memit_delta,
    null_space_projector,
    retain_moments,
    sensitive_projector,
    zero_unlearn,
)
from support.badinput import Entry

_g = np.random.default_rng(0)
_W = _g.normal(size=(4, 6))
_K = _g.normal(size=(20, 6))
_V = _K @ _W.T
_Z = _g.normal(size=(2, 4))
_FACTS = [Fact("Xy", "The capital of {} is", " Qz"), Fact("Ab", "The capital of {} is", " Cd")]


def _model() -> Any:
    return tiny_causal_lm(seed=0, hidden_size=16, num_layers=3, num_heads=2, num_kv_heads=1, intermediate_size=32)


def z_fresh(**kw: Any) -> Any:
    model, tok = _model()
    return compute_z(model, make_prompts(tok, _FACTS), " A", **kw)


def unlearn_fresh(**kw: Any) -> Any:
    model, tok = _model()
    stats = retain_moments(model, [list(tok("some retain text")["input_ids"])], layers=(0, 1), pad_id=0)
    return zero_unlearn(model, make_prompts(tok, _FACTS), layers=(0, 1), retain_stats=stats, **kw)


ENTRY_POINTS = [
    Entry("sensitive_projector", sensitive_projector, valid={"Z_true": _Z, "eps": 0.01},
          kinds={"Z_true": "array", "eps": "nonneg"}),
    Entry("closed_form_edit", closed_form_edit,
          valid={"W": _W, "P": np.eye(4), "S_VK": _V.T @ _K, "S_KK": _K.T @ _K, "lam": 1.0},
          kinds={"W": "array", "P": "array", "S_VK": "array", "S_KK": "array", "lam": "nonneg"}),
    Entry("null_space_projector", null_space_projector, valid={"S_KK": _K.T @ _K, "threshold": 0.5},
          kinds={"S_KK": "array", "threshold": "nonneg"}),
    Entry("memit_delta", memit_delta, valid={"R": _g.normal(size=(3, 4)), "K": _K[:3], "C": _K.T @ _K, "weight": 2.0},
          kinds={"R": "array", "K": "array", "C": "array", "weight": "nonneg"}),
    Entry("alphaedit_delta", alphaedit_delta,
          valid={"R": _g.normal(size=(3, 4)), "K": _K[:3], "Pn": np.eye(6), "l2": 1.0},
          kinds={"R": "array", "K": "array", "Pn": "array", "l2": "posreal"}),
    Entry("compute_z", z_fresh,
          valid={"layer": 1, "site": "block", "steps": 2, "lr": 0.1, "clamp": 0.75, "kl": 0.0625,
                 "weight_decay": 0.5, "stop_loss": 0.05},
          kinds={"layer": "int", "site": "str", "steps": "int", "lr": "posreal", "clamp": "posreal", "kl": "nonneg",
                 "weight_decay": "nonneg", "stop_loss": "nonneg"}),
    Entry("zero_unlearn", unlearn_fresh,
          valid={"steps": 2, "lr": 0.1, "retain_weight": 100.0, "forget_weight": 5.0, "lam": 1.0, "eps": 0.01},
          kinds={"steps": "int", "lr": "posreal", "retain_weight": "nonneg", "forget_weight": "nonneg",
                 "lam": "nonneg", "eps": "nonneg"}),
]
