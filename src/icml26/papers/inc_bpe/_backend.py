"""The core behind :class:`Encoding` [P19]: the native extension, or the pure-Python reference when it is absent.

``ICML26_NO_EXT=1`` (or a build without the extension) selects the fallback: exact (it is the oracle's heap merge) but
slow, and its streaming encoder is not eager (it emits everything at ``finish``).
"""

from __future__ import annotations

import os
from typing import Any

from ._reference import bpe_reference

__all__ = ["NATIVE", "make_core", "make_stream"]


def _load_native() -> Any:
    if os.environ.get("ICML26_NO_EXT", "") not in ("", "0"):
        return None
    try:
        from . import _inc_bpe_native  # type: ignore[attr-defined]
    except ImportError:
        return None
    return _inc_bpe_native


_native = _load_native()
NATIVE: bool = _native is not None


class _PyCore:
    """Same interface as the native ``Vocab`` on top of :func:`bpe_reference`."""

    def __init__(self, tokens: list[bytes]) -> None:
        self.ranks = {t: i for i, t in enumerate(tokens)}
        if len(self.ranks) != len(tokens):
            raise ValueError("ranks: duplicate token bytes")
        missing = [b for b in range(256) if bytes([b]) not in self.ranks]
        if missing:
            raise ValueError(f"ranks: single byte {missing[0]} is not a token")
        self.size = len(tokens)
        self.max_len = max(len(t) for t in tokens)

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


def make_core(tokens: list[bytes]) -> Any:
    """Preprocess a vocabulary (token bytes by rank) into the native core, or the Python fallback."""
    if _native is None:
        return _PyCore(tokens)
    try:
        return _native.Vocab(tokens)
    except (ValueError, TypeError):
        raise
    except Exception as exc:  # nanobind maps std::invalid_argument to ValueError; anything else is a bad vocabulary too
        raise ValueError(f"ranks: {exc}") from None


def make_stream(core: Any) -> Any:
    """A fresh byte-level streaming state over ``core``."""
    if isinstance(core, _PyCore):
        return _PyStream(core)
    assert _native is not None
    return _native.Stream(core)
