"""A user's own merges list (HF / GPT-2 style) as a rank vocabulary for [P19].

Byte-level BPE in the rank form that [P19] (and tiktoken) use: token id = merge priority, the 256 single bytes first
(ids 0..255 in byte order), then one token per merge, in list order. A merge list is *consistent* with that form when
every merged token's canonical rule (the last merge when BPE runs on the token's own bytes with the merges ranked
below it) is the listed pair; only then does rank BPE reproduce pair-merge BPE, so anything else is rejected.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from icml26.papers.inc_bpe._reference import bpe_reference

__all__ = ["bytes_to_unicode", "check_rules", "tokens_from_merges"]


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character map (the alphabet of HF byte-level ``merges.txt``)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    mapping, extra = {}, 0
    for b in range(256):
        if b in keep:
            mapping[b] = chr(b)
        else:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


def _as_pair(entry: object, i: int, dec: dict[str, int]) -> tuple[bytes, bytes]:
    """One merges entry -> (left bytes, right bytes); ``bytes`` pairs, ``(str, str)`` pairs or ``"a b"`` strings."""
    if isinstance(entry, str):
        parts = entry.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise ValueError(f"merges: entry {i} ({entry!r}) is not two space-separated tokens")
        entry = (parts[0], parts[1])
    if not isinstance(entry, (tuple, list)) or len(entry) != 2:
        raise TypeError(f"merges: entry {i} must be a pair or an 'a b' string, got {entry!r}")
    out = []
    for side in entry:
        if isinstance(side, (bytes, bytearray)):
            out.append(bytes(side))
        elif isinstance(side, str):
            try:
                out.append(bytes(dec[ch] for ch in side))
            except KeyError as exc:
                raise ValueError(
                    f"merges: entry {i} ({entry!r}) has a character {exc.args[0]!r} outside the byte-level alphabet"
                ) from None
        else:
            raise TypeError(f"merges: entry {i} must hold bytes or str, got {type(side).__name__}")
        if not out[-1]:
            raise ValueError(f"merges: entry {i} ({entry!r}) has an empty side")
    return out[0], out[1]


def tokens_from_merges(merges: Sequence[object]) -> tuple[list[bytes], list[tuple[int, int]]]:
    """Token bytes by id (256 bytes, then one per merge) and the listed pair (left id, right id) of every merge.

    Raises ``ValueError`` naming the entry when a side is not a token yet (merges must be listed in order) or when a
    merge produces a token that already exists.
    """
    dec = {c: b for b, c in bytes_to_unicode().items()}
    tokens = [bytes([b]) for b in range(256)]
    ids = {t: i for i, t in enumerate(tokens)}
    pairs: list[tuple[int, int]] = []
    for i, entry in enumerate(merges):
        a, b = _as_pair(entry, i, dec)
        for side in (a, b):
            if side not in ids:
                raise ValueError(f"merges: entry {i} uses {side!r}, which no earlier merge produces")
        t = a + b
        if t in ids:
            raise ValueError(f"merges: entry {i} produces {t!r}, which is already token {ids[t]}")
        ids[t] = len(tokens)
        tokens.append(t)
        pairs.append((ids[a], ids[b]))
    return tokens, pairs


class _RanksBelow(Mapping[bytes, int]):
    """``ranks`` restricted to ranks below ``limit`` (a view, for the canonical rule of one token)."""

    def __init__(self, ranks: Mapping[bytes, int], limit: int) -> None:
        self.ranks, self.limit = ranks, limit

    def __getitem__(self, key: bytes) -> int:
        r = self.ranks[key]
        if r >= self.limit:
            raise KeyError(key)
        return r

    def __iter__(self) -> Iterator[bytes]:
        return (k for k, r in self.ranks.items() if r < self.limit)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def python_rule(tokens: Sequence[bytes], ranks: Mapping[bytes, int], tid: int) -> tuple[int, int]:
    """Canonical rule (pre, suc) of token ``tid`` by the reference BPE (the slow path, without the extension)."""
    parts = bpe_reference(tokens[tid], _RanksBelow(ranks, tid))
    if len(parts) != 2:
        raise ValueError(f"tokens: token {tid} is not produced by merging two lower-ranked tokens")
    return parts[0], parts[1]


def check_rules(tokens: Sequence[bytes], pairs: Sequence[tuple[int, int]], rule: object) -> None:
    """``ValueError`` naming the first merge whose listed pair is not its token's canonical rule.

    ``rule(id) -> (pre, suc)`` is the core's canonical rule (native) or :func:`python_rule`.
    """
    for k, (a, b) in enumerate(pairs):
        tid = 256 + k
        pre, suc = rule(tid)  # type: ignore[operator]
        if (pre, suc) != (a, b):
            raise ValueError(
                f"merges: entry {k} lists {tokens[a]!r} + {tokens[b]!r}, but BPE with the earlier merges builds "
                f"{tokens[tid]!r} as {tokens[pre]!r} + {tokens[suc]!r}; rank-ordered BPE cannot reproduce this list"
            )
