"""The public entry points of [P19] for the bad-input conformance test."""

import numpy as np

from icml26.papers.inc_bpe import load_encoding
from support.badinput import Entry

_enc = load_encoding("cl100k_base")

ENTRY_POINTS = [
    Entry("load_encoding", load_encoding, valid={"name": "cl100k_base", "pretokenize": True}, kinds={"name": "str"}),
    Entry("Encoding.encode", _enc.encode, valid={"text": "hello <|endoftext|>", "allowed_special": "all",
                                                 "disallowed_special": "all"},
          kinds={"allowed_special": "str", "disallowed_special": "str"}),
    Entry("Encoding.encode_batch", _enc.encode_batch, valid={"texts": ["hello world", "你好"], "num_threads": 1},
          kinds={"num_threads": "int"}),
    Entry("Encoding.decode", _enc.decode, valid={"ids": [15339, 1917], "errors": "replace"}, kinds={"errors": "str"}),
    Entry("Encoding.decode_bytes", _enc.decode_bytes, valid={"ids": np.array([15339, 1917])}, kinds={"ids": "array"},
          skip={"ids:empty": "no ids decode to the empty byte string"}),
]
