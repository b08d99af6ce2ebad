"""The public entry points of [P19] for the bad-input conformance test."""

import numpy as np

from icml26.papers.inc_bpe import load_encoding, tiktoken_compat
from support.badinput import Entry

_enc = load_encoding("cl100k_base")

ENTRY_POINTS = [
    Entry("load_encoding", load_encoding, valid={"name": "cl100k_base", "pretokenize": True}, kinds={"name": "str"}),
    Entry("Encoding.encode", _enc.encode, valid={"text": "hello <|endoftext|>", "allowed_special": "all",
                                                 "disallowed_special": "all"},
          kinds={"allowed_special": "str", "disallowed_special": "str"}),
    Entry("Encoding.encode_batch", _enc.encode_batch, valid={"text": ["hello world", "你好"], "num_threads": 1},
          kinds={"num_threads": "int"}),
    Entry("Encoding.decode", _enc.decode, valid={"tokens": [15339, 1917], "errors": "replace"}, kinds={"errors": "str"}),
    Entry("Encoding.decode_bytes", _enc.decode_bytes, valid={"tokens": np.array([15339, 1917])}, kinds={"tokens": "array"},
          skip={"tokens:empty": "no tokens decode to the empty byte string"}),
    Entry("Encoding.decode_single_token_bytes", _enc.decode_single_token_bytes, valid={"token": 15339},
          kinds={"token": "int"}),
    Entry("Encoding.decode_batch", _enc.decode_batch, valid={"batch": [[15339], [1917]], "errors": "strict",
                                                             "num_threads": 1}, kinds={"errors": "str", "num_threads": "int"}),
    Entry("Encoding.encode_ordinary_batch", _enc.encode_ordinary_batch, valid={"text": ["a b", "c"], "num_threads": 2},
          kinds={"num_threads": "int"}),
    Entry("Encoding.encode_to_numpy", _enc.encode_to_numpy, valid={"text": "<|endoftext|>", "allowed_special": "all"},
          kinds={"allowed_special": "str"}),
    Entry("tiktoken_compat.get_encoding", tiktoken_compat.get_encoding, valid={"encoding_name": "o200k_base"},
          kinds={"encoding_name": "str"}),
    Entry("tiktoken_compat.encoding_for_model", tiktoken_compat.encoding_for_model, valid={"model_name": "gpt-4o"},
          kinds={"model_name": "str"}),
]
