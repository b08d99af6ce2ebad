"""The public entry points of [P13] for the bad-input conformance test."""

import numpy as np

from icml26.papers.token_pricing import (
                                         Vocabulary,
                                         margin_preserving_char_price,
                                         misreport,
                                         price,
                                         random_tokenizations,
                                         top_p_set,
)
from support.badinput import Entry

_V = Vocabulary([b"a", b"b", b"ab", b"abab"])

ENTRY_POINTS = [
    Entry("top_p_set", top_p_set, valid={"logits": np.log([0.5, 0.3, 0.2]), "temperature": 1.0, "top_p": 0.9},
          kinds={"logits": "array", "temperature": "posreal", "top_p": "prob"},
          skip={"logits:extra_dim": "a (L, V) array of rows is valid: one top-p set per row"}),
    Entry("misreport", misreport, valid={"tokens": np.array([3, 1]), "tokenizer": _V, "depth": 2, "seed": 0},
          kinds={"tokens": "array", "depth": "int", "seed": "seed"},
          skip={"tokens:empty": "an empty report is a valid (empty) output"}),
    Entry("price", price, valid={"tokens": np.array([3, 1]), "tokenizer": _V, "scheme": "per_char", "rate": 0.5},
          kinds={"tokens": "array", "scheme": "str", "rate": "nonneg"},
          skip={"tokens:empty": "an empty output costs 0"}),
    Entry("margin_preserving_char_price", margin_preserving_char_price,
          valid={"token_counts": np.array([10.0, 20.0]), "char_counts": np.array([40.0, 70.0]), "token_price": 1.0},
          kinds={"token_counts": "array", "char_counts": "array", "token_price": "nonneg"}),
    Entry("random_tokenizations", random_tokenizations, valid={"text": "abab", "tokenizer": _V, "n": 3, "seed": 0},
          kinds={"n": "int", "seed": "seed"}),
]
