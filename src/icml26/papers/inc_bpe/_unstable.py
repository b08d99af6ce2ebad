"""tiktoken's two rules for the end of a text, over [P19]'s BPE core: ``_encode_bytes`` (bytes that are not valid
UTF-8) and ``encode_with_unstable`` (the tokens that more text could still change, with their possible completions).

Both follow tiktoken's definitions (its ``CoreBPE``), not the paper: the paper's streaming encoder
(:class:`~icml26.papers.inc_bpe.IncrementalEncoder`) decides what is final by its own, exact rule. Here the last
regex piece of the text is *unstable*, widened backwards over tokens made only of spaces, tabs and newlines (a split
before whitespace can move when text is appended). Everything else is the encoding's own BPE.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from icml26.papers.inc_bpe._encoding import Encoding

__all__ = ["encode_bytes_tiktoken", "encode_with_unstable"]

_SPACE = frozenset(b" \n\t")
# Unicode's White_Space property (what tiktoken tests on a completion's last character); str.isspace() differs
_WHITE_SPACE = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000") | frozenset(
    chr(c) for c in range(0x2000, 0x200B))


def _token_bytes(enc: Encoding, token: int) -> bytes | None:
    return enc._tokens[token] if 0 <= token < len(enc._tokens) else None  # specials: None, as in tiktoken's decoder


def _all_space(enc: Encoding, token: int) -> bool:
    b = _token_bytes(enc, token)
    return b is not None and all(c in _SPACE for c in b)


def _with_last_piece(enc: Encoding, text: str, allowed: set[str]) -> tuple[list[int], int]:
    """``encode(text)`` with ``allowed`` specials, and how many of its tokens the last regex piece made (0 when the
    text is empty or ends with a special token)."""
    tokens: list[int] = []
    tail = ""
    for chunk, special in enc._segments(text, allowed):
        tokens.extend(enc.encode_ordinary(chunk))
        tail = chunk
        if special is not None:
            tokens.append(special)
            tail = ""
    if not tail:
        return tokens, 0
    if not enc.pretokenize:
        return tokens, len(enc.encode_ordinary(tail))
    spans = enc._spans(tail)
    if not spans:
        return tokens, 0
    s, e = spans[-1]
    return tokens, len(enc._core.encode_pieces([tail[s:e]]))


def _widen(enc: Encoding, tokens: list[int], k: int) -> int:
    """An unstable last piece: tiktoken widens an unstable last piece that starts with a whitespace-only token over the whitespace-only
    tokens before it."""
    if k > 0 and _all_space(enc, tokens[-k]):
        while k < len(tokens) and _all_space(enc, tokens[-k - 1]):
            k += 1
    return k


def encode_bytes_tiktoken(enc: Encoding, data: bytes) -> list[int]:
    """The rule of tiktoken's ``_encode_bytes``: valid UTF-8 is encoded as text; otherwise the longest valid prefix is encoded,
    its unstable last piece is joined to the invalid rest, and that byte string is one token when it is one, else its
    BPE (no pre-tokenization). Without pre-tokenization the whole byte string is one BPE run."""
    if not enc.pretokenize:
        return enc._core.encode(data)
    try:
        return enc.encode_ordinary(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        cut = exc.start
    tokens, k = _with_last_piece(enc, data[:cut].decode("utf-8"), set())
    k = _widen(enc, tokens, k)
    rest = data[cut:]
    if tokens and k > 0:
        rest = enc.decode_bytes(tokens[-k:]) + rest
        del tokens[-k:]
    if rest:
        rank = enc._ranks.get(rest)
        tokens.extend([rank] if rank is not None else enc._core.encode(rest))
    return tokens


def _starting_with(enc: Encoding, prefix: bytes) -> Iterator[bytes]:
    tokens = enc._sorted_tokens
    i = bisect.bisect_left(tokens, prefix)
    while i < len(tokens) and tokens[i].startswith(prefix):
        yield tokens[i]
        i += 1


def _last_char(data: bytes) -> tuple[str | None, int]:
    for size in range(1, min(4, len(data)) + 1):
        try:
            ch = data[-size:].decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(ch) == 1:
            return ch, size
    return None, 1


def encode_with_unstable(enc: Encoding, text: str, allowed: set[str]) -> tuple[list[int], list[list[int]]]:
    """The rule of tiktoken's ``encode_with_unstable``: the stable tokens of ``text`` and every token sequence that could start
    the rest once more text follows (each covering at least the unstable bytes). Order of the completions is
    unspecified (tiktoken's comes from a hash set)."""
    tokens, k = _with_last_piece(enc, text, allowed)
    if k == 0:
        return tokens, []
    k = _widen(enc, tokens, k)
    unstable = enc.decode_bytes(tokens[-k:])
    del tokens[-k:]
    done: set[tuple[int, ...]] = {(enc._ranks[t],) for t in _starting_with(enc, unstable)}
    # the token straddling the end may start anywhere inside the unstable bytes
    for i in range(1, len(unstable)):
        prefix = unstable[:i]
        for t in _starting_with(enc, unstable[i:]):
            joined = prefix + t
            try:
                ids = enc.encode_ordinary(joined.decode("utf-8"))
            except UnicodeDecodeError:
                ids = enc._core.encode(joined)
            seq: list[int] = []
            covered = 0
            for tid in ids:
                seq.append(tid)
                covered += len(enc._tokens[tid])
                if covered >= len(unstable):
                    break
            done.add(tuple(seq))
    # appended text may split off a trailing whitespace character
    if len(unstable) > 1:
        ch, size = _last_char(unstable)
        if ch is not None and ch in _WHITE_SPACE and len(unstable) > size:
            done.add(tuple(enc._core.encode(unstable[:-size]) + enc._core.encode(unstable[-size:])))
    return tokens, [list(s) for s in done]
