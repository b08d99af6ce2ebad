"""Streaming (eager) encoding of [P19]: feed text in chunks, get tokens as soon as they are final.

Without pre-tokenization the native core runs the eager output algorithm of [P19] (Sec. 5): the per-position last
tokens form a tree of backward chains; positions that can no longer end the last complete token of any continuation
are pruned, and a token is emitted once every surviving chain goes through it.

With pre-tokenization a regex piece is final once no continuation can change the split before it. The patterns of
cl100k/o200k look at most 3 characters past a piece (contractions) or to the end of a whitespace run, so a piece is
committed when it is not one of the last two pieces, ends at least 4 characters before the end of the buffer, and
any whitespace run it starts with ends before the last character. The split is the encoding's (native for cl100k and
o200k). That rule is only sound for patterns with such a bounded look-ahead, and it is vetted only for the cl100k and
o200k patterns; for any other ``pat_str`` (e.g. ``a+b|a``, whose first piece depends on a ``b`` arbitrarily far
ahead) nothing is committed before ``finish``: the output stays exact, ``tokens()`` too, but the delay is the whole
input.

A str feed that ends in a high surrogate keeps it back until the next feed: a str feed that starts with the matching
low surrogate completes the pair (as in the joined string); otherwise it is a lone surrogate, i.e. U+FFFD, as
``encode_ordinary`` reads it.

Cost: a re-split reads the whole pending text. While the pending text is short (< 512 bytes, always the case for
prose and code) it is re-split on every feed, so pieces come out as soon as they are final. When one pre-token keeps
growing (a megabyte of letters, a long run of '='), re-splitting on every feed would cost O(pending) per feed and
O(n^2) in all. Instead, a long pending text is re-split only when (a) the fed bytes themselves contain piece
boundaries (a split of just the new bytes and a few before them has three or more pieces: the long piece has likely
ended), or (b) the pending text has doubled since the last re-split. A re-split of kind (a) that does not halve the
pending text has failed; usually the new pieces still sat inside the look-ahead margin, so (a) is held back for 16
bytes, and after a second failure in a row for a quarter of the pending text. Every re-split then either halves the
pending text, follows a doubling, follows a quarter of new bytes, or is a first failure followed by one of those, so
the total work stays O(n). The output stays exact: the full split decides what is committed whenever a re-split
runs; only the delay depends on when it runs.
"""

from __future__ import annotations

import codecs
import threading
from typing import TYPE_CHECKING

from icml26.papers.inc_bpe._backend import make_stream
from icml26.papers.inc_bpe._text import fix_surrogates, regex_module
from icml26.papers.inc_bpe._vocab import CL100K_PAT, O200K_PAT

if TYPE_CHECKING:
    from icml26.papers.inc_bpe._encoding import Encoding

__all__ = ["IncrementalEncoder"]

_MARGIN = 4  # characters of look-ahead a committed piece must leave behind it
_LONG = 512  # bytes of pending text from which re-splits are rationed (see the module docstring)
_LOOKBACK = 16  # bytes before the fed data that the boundary test splits along with it
# patterns whose look-ahead the commit rule above was checked against; any other pattern commits nothing before finish
_VETTED_PATTERNS = frozenset({CL100K_PAT, O200K_PAT})
_LONE = "\ufffd".encode()  # a lone surrogate, as fix_surrogates reads it


def _incomplete_tail(buf: bytes) -> int:
    """Number of trailing bytes that are a valid but incomplete UTF-8 sequence (0..3)."""
    for k in range(1, min(3, len(buf)) + 1):
        b = buf[-k]
        if b & 0xC0 != 0x80:  # lead byte (or ASCII)
            if b < 0xC0:
                return 0
            dec = codecs.getincrementaldecoder("utf-8")()
            try:
                return k if dec.decode(buf[-k:], final=False) == "" else 0
            except UnicodeDecodeError:
                return 0
    return 0


class IncrementalEncoder:
    """Streaming encoder: ``feed`` chunks, collect the tokens that became final, ``finish`` for the rest.

    Implements the incremental + eager-output algorithms of [P19]: for any chunking, ``feed(c1) + ... + feed(ck) +
    finish()`` equals ``enc.encode_ordinary`` (or ``encode_bytes``) of the whole input, and ``tokens()`` is the
    exact BPE tokenization of everything fed so far. Chunks may split UTF-8 characters, surrogate pairs (str feeds)
    and pre-tokens. Output is eager without pre-tokenization and with the cl100k/o200k patterns; with any other
    ``pat_str`` tokens come out only at ``finish`` (see the module docstring).

    One encoder is one stream: ``feed``, ``tokens`` and ``finish`` hold a lock, so calls from several threads are
    serialised (each feed is appended whole, in the order the calls take the lock); for independent streams, make one
    encoder per stream.

    Args:
        encoding: the :class:`Encoding` to stream with.
    """

    def __init__(self, encoding: Encoding) -> None:
        self._lock = threading.Lock()
        self._enc = encoding
        self._emitted: list[int] = []
        self._finished = False
        self._high = ""  # a trailing high surrogate of the last str feed, held until the next feed
        self._eager = encoding.pat_str in _VETTED_PATTERNS
        if encoding.pretokenize:
            re = regex_module()
            self._ws = re.compile(r"\s+")
            self._chunks: list[bytes] = []  # the pending bytes (joined only when re-split: appending stays O(1))
            self._pending = 0
            self._resplit_at = 0  # pending bytes at which the next re-split happens
            self._watch_at = 0  # pending bytes from which fed data with piece boundaries triggers an early re-split
            self._fails = 0  # early re-splits in a row that did not halve the pending text
            self._recent = b""  # the last bytes fed (for the boundary test)
            self._stream = None
        else:
            self._stream = make_stream(encoding._core)

    def _as_bytes(self, data: bytes | str) -> bytes:
        """The bytes ``data`` adds, after the held high surrogate (if any) is prepended or flushed as U+FFFD."""
        if isinstance(data, str):
            data = self._high + data
            self._high = ""
            if data and "\ud800" <= data[-1] <= "\udbff":  # may pair with the first character of the next feed
                data, self._high = data[:-1], data[-1]
            return fix_surrogates(data).encode("utf-8")
        if isinstance(data, (bytes, bytearray, memoryview)):
            held, self._high = (_LONE if self._high else b""), ""
            return held + bytes(data)
        raise TypeError(f"data must be bytes or str, got {type(data).__name__}")

    def feed(self, data: bytes | str) -> list[int]:
        """Append ``data``; return the tokens that became final (possibly none)."""
        if not isinstance(data, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"data must be bytes or str, got {type(data).__name__}")
        with self._lock:
            return self._feed(data)

    def _feed(self, data: bytes | str) -> list[int]:
        if self._finished:
            raise RuntimeError("feed: this encoder is finished")
        raw = self._as_bytes(data)
        if self._stream is not None:
            out = list(self._stream.feed(raw))
        else:
            out = self._feed_pretokenized(raw)
        self._emitted.extend(out)
        return out

    def _take_buffer(self) -> bytes:
        buf = b"".join(self._chunks)
        self._chunks = [buf] if buf else []
        return buf

    def _keep(self, buf: bytes) -> None:
        self._chunks = [buf] if buf else []
        self._pending = len(buf)
        self._resplit_at = 2 * len(buf) if len(buf) >= _LONG else 0
        self._watch_at = 0
        self._fails = 0

    def _boundary_in(self, raw: bytes) -> bool:
        """Do the fed bytes (with a few before them) split into three or more pieces? Only decides *when* to re-split."""
        text = self._recent[-(len(raw) + _LOOKBACK) :].decode("utf-8", "ignore")
        return len(self._enc._spans(text)) >= 3

    def _feed_pretokenized(self, raw: bytes) -> list[int]:
        if raw:
            self._chunks.append(raw)
            self._pending += len(raw)
        if not self._eager:  # an unvetted pattern: any look-ahead is possible, so nothing is final before finish
            return []
        if raw:
            self._recent = (self._recent[-_LOOKBACK:] + raw) if len(raw) < 4096 else raw
        if self._pending >= self._resplit_at:
            return self._resplit()
        if self._pending < self._watch_at or not (raw and self._boundary_in(raw)):
            return []
        before, fails = self._pending, self._fails
        out = self._resplit()
        if self._pending > before // 2:  # the early re-split did not pay for itself: hold (a) back
            self._fails = fails + 1
            self._watch_at = before + (_LOOKBACK if fails == 0 else max(_LONG, before // 4))
        return out

    def _resplit(self) -> list[int]:
        """Split the pending text; emit the pieces that no continuation can change (see the module docstring)."""
        buf = self._take_buffer()
        hold = _incomplete_tail(buf)
        head, tail = (buf[:-hold], buf[-hold:]) if hold else (buf, b"")
        text = head.decode("utf-8", "surrogateescape")
        spans = self._enc._spans(text)
        n = len(text)
        commit = 0
        for i, (s, e) in enumerate(spans[:-2]):
            if e + _MARGIN > n:
                break
            ws = self._ws.match(text, s)
            if ws is not None and ws.end() >= n - 1:
                break
            commit = i + 1
        if commit == 0:
            self._keep(buf)
            return []
        cut = spans[commit - 1][1]
        pieces = [text[s:e].encode("utf-8", "surrogateescape") for s, e in spans[:commit]]
        self._keep(text[cut:].encode("utf-8", "surrogateescape") + tail)
        return list(self._enc._core.encode_pieces(pieces))

    def _rest(self) -> list[int]:
        held = _LONE if self._high else b""
        if self._stream is not None:
            rest = list(self._stream.tokens())
            if not held:
                return rest
            # the emitted tokens end at a boundary every continuation keeps, so the rest is the BPE of its own bytes
            return self._enc.encode_bytes(self._enc.decode_bytes(rest) + held)
        return self._enc.encode_bytes(self._take_buffer() + held)

    def tokens(self) -> list[int]:
        """The exact BPE tokenization of everything fed so far (emitted tokens + the provisional rest; after
        ``finish``, every token)."""
        with self._lock:
            return list(self._emitted) if self._finished else self._emitted + self._rest()

    def finish(self) -> list[int]:
        """Close the stream and return the tokens not emitted yet."""
        with self._lock:
            return self._finish()

    def _finish(self) -> list[int]:
        if self._finished:
            raise RuntimeError("finish: this encoder is already finished")
        early = self._feed(b"") if self._high else []  # no low surrogate followed: flush the lone one as U+FFFD
        out = list(self._stream.finish()) if self._stream is not None else self._enc.encode_bytes(self._take_buffer())
        self._finished = True
        if self._stream is None:
            self._keep(b"")
        self._emitted.extend(out)
        return early + out

    @property
    def pending_bytes(self) -> int:
        """Bytes fed but not yet covered by an emitted token (the delay of the eager output)."""
        held = len(_LONE) if self._high else 0
        if self._stream is not None:
            return int(self._stream.pending) + held
        return self._pending + held
