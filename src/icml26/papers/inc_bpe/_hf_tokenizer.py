"""Byte-level BPE vocabularies from a Hugging Face ``tokenizer.json`` on [P19]'s BPE core.

A HF byte-level BPE (GPT-2, SmolLM2, Llama-3, Qwen2) merges by the priority of its ``merges`` list; when every merge
is its token's canonical rule (checked by :meth:`Encoding.from_merges`) that is the rank BPE of [P19] (Sec. 2) with
rank = position in the list. The core runs on those ranks; :class:`HFEncoding` maps them to the file's ids and keeps
HF's conventions: added tokens (special or not) are the encoding's special tokens, bytes with no token of their own
are dropped (HF's BPE skips a symbol it has no id for, then merges across it), the ``NFC`` normaliser and
``add_prefix_space`` apply per text chunk between added tokens. ``encode(text, allowed_special="all")`` equals
``tokenizer.encode(text, add_special_tokens=False).ids`` of the ``tokenizers`` library on the same file.
"""

from __future__ import annotations

import json
import os
import unicodedata
from typing import Any

import numpy as np

from icml26.papers.inc_bpe._encoding import Encoding
from icml26.papers.inc_bpe._text import fix_surrogates, regex_module
from icml26.papers.inc_bpe._tiktoken_api import pooled

__all__ = ["GPT2_PAT", "HFEncoding", "from_hf_tokenizer"]

#: the pre-tokenization regex of HF's ``ByteLevel(use_regex=True)`` (GPT-2's)
GPT2_PAT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def _byte_alphabet() -> dict[str, int]:
    """GPT-2's byte-to-unicode alphabet, reversed: the character HF writes for each byte -> the byte."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    chars = dict(zip(printable, printable))
    extra = 0
    for b in range(256):
        if b not in chars:
            chars[b] = 256 + extra
            extra += 1
    return {chr(c): b for b, c in chars.items()}


def _as_bytes(token: str, alphabet: dict[str, int], what: str) -> bytes:
    try:
        return bytes(alphabet[c] for c in token)
    except KeyError:
        raise ValueError(f"path_or_json: {what} {token!r} has a character outside the byte-level alphabet") from None


def _pattern(pre: Any) -> tuple[str, bool]:
    """(pre-tokenization regex, add_prefix_space) of a ByteLevel or Split + ByteLevel pre-tokenizer."""
    if isinstance(pre, dict) and pre.get("type") == "ByteLevel" and pre.get("use_regex", True):
        return GPT2_PAT, bool(pre.get("add_prefix_space", False))
    steps = pre.get("pretokenizers") if isinstance(pre, dict) and pre.get("type") == "Sequence" else None
    if (isinstance(steps, list) and len(steps) == 2 and steps[0].get("type") == "Split"
            and steps[1].get("type") == "ByteLevel" and not steps[1].get("use_regex", True)):
        split = steps[0]
        pat = split.get("pattern", {})
        if split.get("behavior") != "Isolated" or split.get("invert") or "Regex" not in pat:
            raise ValueError("path_or_json: only a Split with a Regex pattern, behavior Isolated and no invert is "
                             f"supported, got {split}")
        p = pat["Regex"]
        # Isolated: the text between two matches is a piece of its own
        return f"(?:{p})|(?:(?!(?:{p}))[\\s\\S])+", bool(steps[1].get("add_prefix_space", False))
    raise ValueError(f"path_or_json: pre_tokenizer {json.dumps(pre)[:200]} is not supported (ByteLevel with its "
                     "regex, or Sequence[Split(Regex, Isolated), ByteLevel(use_regex=false)])")


def _read(path_or_json: str | os.PathLike[str]) -> tuple[str, dict[str, Any]]:
    if not isinstance(path_or_json, (str, os.PathLike)):
        raise TypeError(f"path_or_json must be a path or a JSON string, got {type(path_or_json).__name__}")
    text = os.fspath(path_or_json)
    if not text.lstrip().startswith("{"):
        with open(text, encoding="utf-8") as f:
            text = f.read()
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"path_or_json: not valid JSON ({exc})") from None
    model = spec.get("model") if isinstance(spec, dict) else None
    if not isinstance(model, dict) or model.get("type") != "BPE":
        raise ValueError("path_or_json: not a tokenizer.json with a BPE model")
    for key in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(key):
            raise ValueError(f"path_or_json: model.{key} is not supported by a byte-level BPE")
    if model.get("byte_fallback") or model.get("dropout"):
        raise ValueError("path_or_json: byte_fallback and dropout are not supported")
    return text, spec


class HFEncoding(Encoding):
    """A HF byte-level BPE ``tokenizer.json`` as an :class:`Encoding` ([P19]'s core on the merge ranks, the file's
    ids outside). Build it with :func:`from_hf_tokenizer`. The byte-level entry points that bypass the text pipeline
    (``encode_bytes``, ``_encode_bytes``, ``encode_with_unstable``, ``incremental``) are not available here."""

    _inner: Encoding
    _to_id: np.ndarray
    _missing: bytes
    _nfc: bool
    _prefix_space: bool
    _source: str

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_rebuild_hf, (self._source, self.name, self.pretokenize))

    def _prepare(self, text: str) -> str:
        text = fix_surrogates(text)
        if self._nfc:
            text = unicodedata.normalize("NFC", text)
        if self._prefix_space and text and not text.startswith(" "):
            text = " " + text
        return text

    def encode_ordinary(self, text: str) -> list[int]:
        """The file's ids for ``text`` with no added token recognised (HF's normaliser, pre-tokenizer and BPE)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, got {type(text).__name__}")
        text = self._prepare(text)
        inner = self._inner
        data = text.encode("utf-8")
        if self._missing and len(data.translate(None, self._missing)) != len(data):
            pieces = inner._pieces(text) if inner.pretokenize else [text]
            kept = [p.encode("utf-8").translate(None, self._missing) for p in pieces]
            ids = inner._core.encode_pieces([k for k in kept if k])
        else:
            ids = inner.encode_ordinary(text)
        return self._to_id[np.asarray(ids, dtype=np.int64)].tolist()

    def _ordinary_batch(self, texts: list[str], num_threads: int) -> list[list[int]]:
        return pooled(texts, self.encode_ordinary, num_threads)

    def _refuse(self, what: str) -> Any:
        raise NotImplementedError(f"{what} is not available on a tokenizer.json encoding ({self.name}): encode text")

    def encode_bytes(self, data: bytes) -> list[int]:
        """Not available: a HF tokenizer encodes text."""
        return self._refuse("encode_bytes")

    def _encode_bytes(self, text: bytes) -> list[int]:
        return self._refuse("_encode_bytes")

    def encode_with_unstable(self, text: str, **kwargs: Any) -> tuple[list[int], list[list[int]]]:
        """Not available on a tokenizer.json encoding."""
        return self._refuse("encode_with_unstable")

    def incremental(self) -> Any:
        """Not available on a tokenizer.json encoding."""
        return self._refuse("incremental")


def from_hf_tokenizer(path_or_json: str | os.PathLike[str], *, name: str | None = None,
                      pretokenize: bool = True) -> HFEncoding:
    """Load a HF ``tokenizer.json`` (a path, or its JSON text) of a byte-level BPE as an :class:`Encoding` on [P19]'s
    core (Sec. 2's rank BPE; see the module docstring for HF's conventions kept). Raises ``ValueError`` naming
    ``path_or_json`` for a tokenizer it cannot reproduce exactly (another model type or pre-tokenizer, a normaliser
    other than NFC, a merge list that is not a BPE merge list)."""
    source, spec = _read(path_or_json)
    norm = spec.get("normalizer")
    if norm is not None and norm.get("type") != "NFC":
        raise ValueError(f"path_or_json: normalizer {norm.get('type')!r} is not supported (none or NFC)")
    pat, prefix_space = _pattern(spec.get("pre_tokenizer"))
    alphabet = _byte_alphabet()
    model = spec["model"]
    merges = [m.split(" ") if isinstance(m, str) else m for m in model.get("merges", [])]
    pairs = [(_as_bytes(a, alphabet, "merge"), _as_bytes(b, alphabet, "merge")) for a, b in merges]
    inner = Encoding.from_merges(pairs, pat_str=pat, name=f"{name or 'hf'}-ranks", pretokenize=pretokenize)
    added = {t["content"]: int(t["id"]) for t in spec.get("added_tokens", [])}
    vocab: dict[str, int] = model["vocab"]
    ids = sorted(vocab.values())
    if ids != list(range(len(ids))):
        raise ValueError("path_or_json: the vocabulary ids are not 0..n-1")
    table: list[bytes] = [b""] * len(ids)
    by_bytes: dict[bytes, int] = {}
    for tok, i in vocab.items():
        table[i] = tok.encode("utf-8") if tok in added else _as_bytes(tok, alphabet, "token")
        if tok not in added:
            by_bytes[table[i]] = i
    to_id = np.full(len(inner._tokens), -1, dtype=np.int64)
    for r, t in enumerate(inner._tokens):
        to_id[r] = by_bytes.get(t, -1)
    if (to_id[256:] < 0).any():
        raise ValueError("path_or_json: a merge makes a token that is not in the vocabulary")
    return _assemble(inner, table, added, to_id, source=source, name=name or "tokenizer.json",
                     nfc=norm is not None, prefix_space=prefix_space)


def _assemble(inner: Encoding, table: list[bytes], added: dict[str, int], to_id: np.ndarray, *, source: str,
              name: str, nfc: bool, prefix_space: bool) -> HFEncoding:
    enc = HFEncoding.__new__(HFEncoding)
    regex = regex_module()
    enc.name, enc.pat_str, enc.pretokenize = name, inner.pat_str, inner.pretokenize
    enc._pat, enc._pat_kind, enc._core = inner._pat, inner._pat_kind, inner._core
    enc._tokens = table
    enc._special = dict(added)
    enc._special_re = (regex.compile("|".join(regex.escape(s) for s in sorted(added, key=len, reverse=True)))
                       if added else None)
    enc._decoder = {i: s.encode("utf-8") for s, i in added.items()}
    enc._inner, enc._to_id, enc._source = inner, to_id, source
    enc._missing = bytes(b for b in range(256) if to_id[b] < 0)
    enc._nfc, enc._prefix_space = nfc, prefix_space
    return enc


def _rebuild_hf(source: str, name: str, pretokenize: bool) -> HFEncoding:
    return from_hf_tokenizer(source, name=name, pretokenize=pretokenize)
