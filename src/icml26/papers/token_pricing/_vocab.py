"""A tokenizer's vocabulary as byte strings: the common ground of HF tokenizers, ``tokenizers`` and tiktoken.

[P13] reasons about the strings tokens stand for: a reported sequence is a tokenization of the output string when the
concatenation of its tokens' strings is that string. With byte-level vocabularies (GPT-2/Llama-3/SmolLM2 BPE,
tiktoken) a token stands for a byte string that may cut a UTF-8 character, so everything here works on bytes and a
text is its UTF-8 encoding. :func:`vocabulary` reads

- a ``tiktoken.Encoding`` (every id's bytes from ``decode_single_token_bytes``; special tokens left out),
- a transformers tokenizer or a ``tokenizers.Tokenizer`` whose decoder is byte-level (tokens written in the GPT-2
  byte alphabet, mapped back to bytes) or SentencePiece-style (``▁`` for a space, ``<0xNN>`` byte fallback),
- a :class:`Vocabulary` (returned as it is: build one once and pass it wherever a tokenizer is asked for).

Special and control tokens (BOS/EOS, chat markers) stand for no text: they are never part of a tokenization.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["Vocabulary", "vocabulary"]

_BYTE_FALLBACK = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")


def _gpt2_alphabet() -> dict[str, int]:
    """GPT-2's printable stand-in for each byte (character -> byte): printable bytes stand for themselves, the
    others for the code points 256, 257, ... in byte order."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    extra = iter(range(256, 512))
    return {(chr(b) if b in keep else chr(next(extra))): b for b in range(256)}


def _char_count(piece: bytes) -> int:
    """Characters a byte string contributes to a text: its bytes that start a UTF-8 character (not 10xxxxxx).

    Summed over any tokenization of a text this is exactly the text's number of characters, also when tokens cut
    characters (a piece made of continuation bytes counts 0)."""
    return sum(1 for b in piece if b & 0xC0 != 0x80)


class Vocabulary:
    """A vocabulary as byte strings, for the tokenization algorithms of [P13] (§2: tokens are strings over an
    alphabet; here the alphabet is bytes).

    Attributes:
        pieces: ``pieces[i]`` is the byte string token id ``i`` stands for, ``None`` for special/unused ids.
        index: byte string -> token id (the lowest id where several stand for the same string).
        special: the ids that stand for no text.
        chars: ``chars[i]``: characters token ``i`` contributes to a text (bytes that start a UTF-8 character).
        name: where the vocabulary came from.
        derived: tables computed from it once (the split table of :func:`best_splits`).
    """

    __slots__ = ("pieces", "index", "special", "chars", "name", "max_len", "derived")

    def __init__(self, pieces: Sequence[bytes | None], *, name: str = "vocabulary",
                 special: Iterable[int] = ()) -> None:
        self.pieces: tuple[bytes | None, ...] = tuple(pieces)
        self.special: frozenset[int] = frozenset(int(i) for i in special)
        self.index: dict[bytes, int] = {}
        for i, p in enumerate(self.pieces):
            if p is not None and p and i not in self.special and p not in self.index:
                self.index[p] = i
        if not self.index:
            raise ValueError("tokenizer has no token that stands for text")
        self.chars = np.array([_char_count(p) if p else 0 for p in self.pieces], dtype=np.int64)
        self.name = name
        self.max_len = max(len(p) for p in self.index)
        self.derived: dict[str, Any] = {}

    def __len__(self) -> int:
        return len(self.pieces)

    def __repr__(self) -> str:
        return f"Vocabulary({self.name!r}, {len(self.index)} text tokens of {len(self.pieces)} ids)"

    def text_of(self, tokens: Sequence[int]) -> bytes:
        """The byte string a token sequence stands for (special tokens refused)."""
        out = bytearray()
        for t in tokens:
            p = self.pieces[t] if 0 <= t < len(self.pieces) else None
            if p is None or t in self.special:
                raise ValueError(f"tokens: id {t} stands for no text in {self.name}")
            out += p
        return bytes(out)


def _decoder_kinds(node: Any) -> set[str]:
    """Every decoder type named in a tokenizers JSON decoder tree."""
    if isinstance(node, dict):
        kinds = {str(node["type"])} if "type" in node else set()
        for v in node.values():
            kinds |= _decoder_kinds(v)
        return kinds
    if isinstance(node, list):
        return set().union(*map(_decoder_kinds, node)) if node else set()
    return set()


def _from_tiktoken(enc: Any) -> Vocabulary:
    special = {enc.encode_single_token(s) for s in enc.special_tokens_set}
    pieces: list[bytes | None] = []
    for i in range(enc.n_vocab):
        try:
            pieces.append(None if i in special else enc.decode_single_token_bytes(i))
        except KeyError:  # an unused id between the ranks and the special tokens
            pieces.append(None)
    return Vocabulary(pieces, name=f"tiktoken:{enc.name}", special=special)


def _piece(token: str, kinds: set[str], alphabet: dict[str, int]) -> bytes:
    if "ByteLevel" in kinds:
        if all(c in alphabet for c in token):
            return bytes(alphabet[c] for c in token)
        return token.encode("utf-8")
    m = _BYTE_FALLBACK.match(token)
    if m and "ByteFallback" in kinds:
        return bytes([int(m.group(1), 16)])
    return token.replace("\u2581", " ").encode("utf-8")


def _from_tokenizers(core: Any, *, special: set[int], added: dict[int, str], name: str) -> Vocabulary:
    """A ``tokenizers.Tokenizer`` (the backend of every fast transformers tokenizer)."""
    kinds = _decoder_kinds(json.loads(core.to_str()).get("decoder"))
    if not kinds & {"ByteLevel", "Metaspace", "Replace", "ByteFallback"}:
        raise TypeError(f"tokenizer: its decoder ({sorted(kinds) or 'none'}) is neither byte-level nor "
                        "SentencePiece-style; pass a byte-level BPE, a SentencePiece tokenizer or a tiktoken Encoding")
    vocab = core.get_vocab(with_added_tokens=True)
    size = max(vocab.values()) + 1
    pieces: list[bytes | None] = [None] * size
    alphabet = _gpt2_alphabet()
    for tok, i in vocab.items():
        if i in special:
            continue
        pieces[i] = added[i].encode("utf-8") if i in added else _piece(tok, kinds, alphabet)
    return Vocabulary(pieces, name=name, special=special)


def _from_transformers(tok: Any) -> Vocabulary:
    core = getattr(tok, "backend_tokenizer", None)
    if core is None:
        raise TypeError("tokenizer: a slow (Python) transformers tokenizer has no tokenizers backend; load it with "
                        "use_fast=True")
    special = set(getattr(tok, "all_special_ids", []))
    added: dict[int, str] = {}
    for i, t in getattr(tok, "added_tokens_decoder", {}).items():
        if getattr(t, "special", False):
            special.add(int(i))
        else:
            added[int(i)] = str(t.content)
    return _from_tokenizers(core, special=special, added=added,
                            name=f"transformers:{getattr(tok, 'name_or_path', '') or type(tok).__name__}")


def vocabulary(tokenizer: Any) -> Vocabulary:
    """The :class:`Vocabulary` of ``tokenizer`` ([P13] §2: the token set V and the string each token stands for).

    Args:
        tokenizer: a transformers tokenizer (fast), a ``tokenizers.Tokenizer``, a ``tiktoken.Encoding``, or a
            :class:`Vocabulary` (returned unchanged).

    Raises:
        TypeError: naming ``tokenizer`` for anything else (a slow tokenizer, a WordPiece decoder, a string).
    """
    if isinstance(tokenizer, Vocabulary):
        return tokenizer
    if hasattr(tokenizer, "decode_single_token_bytes") and hasattr(tokenizer, "n_vocab"):
        return _from_tiktoken(tokenizer)
    if hasattr(tokenizer, "get_vocab") and hasattr(tokenizer, "backend_tokenizer"):
        return _from_transformers(tokenizer)
    if hasattr(tokenizer, "get_vocab") and hasattr(tokenizer, "to_str") and hasattr(tokenizer, "get_added_tokens_decoder"):
        dec = tokenizer.get_added_tokens_decoder()
        special = {int(i) for i, t in dec.items() if getattr(t, "special", False)}
        added = {int(i): str(t.content) for i, t in dec.items() if not getattr(t, "special", False)}
        return _from_tokenizers(tokenizer, special=special, added=added, name="tokenizers.Tokenizer")
    raise TypeError(f"tokenizer must be a transformers tokenizer, a tokenizers.Tokenizer, a tiktoken.Encoding or a "
                    f"Vocabulary, got {type(tokenizer).__name__}")
