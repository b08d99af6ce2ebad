"""The core behind :class:`Encoding` [P19]: the native extension, or the pure-Python reference when it is absent.

``ICML26_NO_EXT=1`` (or a build without the extension) selects the fallback: exact (it is the oracle's heap merge) but
slow, and its streaming encoder is not eager (it emits everything at ``finish``).
"""

from __future__ import annotations

import logging
import os
from typing import Any

from icml26.papers.inc_bpe._reference import bpe_reference

__all__ = ["NATIVE", "ext_disabled", "make_core", "make_stream", "split_spans"]


_log = logging.getLogger(__name__)


def ext_disabled() -> bool:
    """True when ``ICML26_NO_EXT`` asks for the pure-Python fallback (any value but empty or ``0``)."""
    return os.environ.get("ICML26_NO_EXT", "") not in ("", "0")


def _load_native() -> Any:
    if ext_disabled():
        return None
    try:
        from icml26.papers.inc_bpe import _inc_bpe_native  # type: ignore[attr-defined]
    except ImportError as exc:  # not built, or built for another interpreter: say so, then fall back
        _log.warning("inc_bpe: native extension unavailable (%s); using the slow pure-Python fallback", exc)
        return None
    return _inc_bpe_native


_native = _load_native()
NATIVE: bool = _native is not None


_PY_CHECK_MAX = 20_000  # vocabularies up to this size are checked to be BPE vocabularies by the Python fallback


class _PyCore:
    """Same interface as the native ``Vocab`` on top of :func:`bpe_reference`."""

    def __init__(self, tokens: list[bytes]) -> None:
        self.tokens = tokens
        self.ranks = {t: i for i, t in enumerate(tokens)}
        if len(self.ranks) != len(tokens):
            raise ValueError("tokens: duplicate token bytes")
        missing = [b for b in range(256) if bytes([b]) not in self.ranks]
        if missing:
            raise ValueError(f"tokens: single byte {missing[0]} is not a token")
        self.size = len(tokens)
        self.max_len = max(len(t) for t in tokens)
        if self.size <= _PY_CHECK_MAX:  # the native core checks every vocabulary; in Python that costs ~20 us a token
            from icml26.papers.inc_bpe._merges import python_rule

            for tid in range(self.size):
                if len(tokens[tid]) > 1:
                    python_rule(tokens, self.ranks, tid)

    def rule(self, tid: int) -> tuple[int, int]:
        """Canonical rule (pre, suc) of a merged token (as the native ``Vocab.rule``)."""
        from icml26.papers.inc_bpe._merges import python_rule

        if not 256 <= tid < self.size or len(self.tokens[tid]) < 2:
            raise IndexError("id out of range")
        return python_rule(self.tokens, self.ranks, tid)

    def encode(self, data: bytes) -> list[int]:
        r = self.ranks.get(data)
        return [r] if r is not None else bpe_reference(data, self.ranks)

    def encode_pieces(self, pieces: list[str | bytes]) -> list[int]:
        out: list[int] = []
        for p in pieces:
            out.extend(self.encode(p.encode("utf-8") if isinstance(p, str) else p))
        return out


class _PyStream:
    """Non-eager stream: keeps the bytes and encodes them at the end."""

    def __init__(self, core: _PyCore) -> None:
        self.core = core
        self.buf = bytearray()
        self.finished = False

    def feed(self, data: bytes) -> list[int]:
        if self.finished:
            raise RuntimeError("feed: the stream is finished")
        self.buf += data
        return []

    def tokens(self) -> list[int]:
        return self.core.encode(bytes(self.buf)) if self.buf else []

    def finish(self) -> list[int]:
        if self.finished:
            raise RuntimeError("finish: the stream is already finished")
        self.finished = True
        return self.tokens()

    @property
    def pending(self) -> int:
        return len(self.buf)

    @property
    def n_bytes(self) -> int:
        return len(self.buf)


_CACHE_MIN_TOKENS = 4096  # smaller vocabularies build in milliseconds: not worth a cache file


def _build(tokens: list[bytes], payload: bytes | None = None) -> Any:
    assert _native is not None
    try:
        return _native.Vocab(tokens, payload)
    except ValueError as exc:  # the compiled messages say "ranks:"; the argument here (and of Encoding) is ``tokens``
        msg = str(exc)
        raise ValueError("tokens: " + msg.removeprefix("ranks: ") if msg.startswith("ranks:") else msg) from None
    except TypeError:
        raise
    except RuntimeError:
        if payload is not None:
            raise
        raise ValueError("tokens: not a BPE vocabulary") from None
    except Exception as exc:  # noqa: BLE001 - nanobind maps std::invalid_argument to ValueError; the rest: bad vocab
        raise ValueError(f"tokens: {exc}") from None


def make_core(tokens: list[bytes], *, cache: bool | str | os.PathLike[str] = True) -> Any:
    """Preprocess a vocabulary (token bytes by rank) into the native core, or the Python fallback.

    With the extension, the costly part of the preprocessing is read from / written to the on-disk cache of
    :mod:`._cache` (``cache``: True = the user cache folder, False = off, or a folder); a cache file that does not fit
    the tokens is rebuilt.
    """
    if _native is None:
        return _PyCore(tokens)
    from icml26.papers.inc_bpe._cache import cache_dir, read_cache, vocab_key, write_cache

    folder = cache_dir(cache) if len(tokens) >= _CACHE_MIN_TOKENS else None
    if folder is None:
        return _build(tokens)
    key = vocab_key(tokens)
    payload = read_cache(folder, key, len(tokens))
    if payload is not None:
        try:
            return _build(tokens, payload)
        except RuntimeError:  # intact file, inconsistent content: rebuild and overwrite
            pass
    core = _build(tokens)
    write_cache(folder, key, len(tokens), core.preprocessed())
    return core


def split_spans(data: bytes, pattern: int, *, chars: bool = False) -> list[int]:
    """Native pre-token boundaries (pattern 1 = cl100k, 2 = o200k), flat ``[s0, e0, s1, e1, ...]``."""
    if _native is None:
        raise RuntimeError("split_spans needs the native extension")
    return list(_native.split_spans(data, pattern, chars))


def make_stream(core: Any) -> Any:
    """A fresh byte-level streaming state over ``core``."""
    if isinstance(core, _PyCore):
        return _PyStream(core)
    assert _native is not None
    return _native.Stream(core)
