"""Pure-Python reference BPE for [P19]: the standard heap merge, used as the oracle in tests and as the fallback.

Standard byte-level BPE (the procedure [P19] reproduces exactly): start from single bytes and repeatedly merge the
adjacent pair whose concatenation has the lowest rank, leftmost first among equal ranks, until no adjacent pair
concatenates to a token. O(m log m) per piece with a heap and lazy invalidation.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping

__all__ = ["bpe_reference"]


def bpe_reference(piece: bytes, ranks: Mapping[bytes, int]) -> list[int]:
    """BPE of ``piece`` under merge ranks ``ranks`` (token bytes -> rank = id), by the heap merge.

    Implements the standard BPE merge procedure that [P19] (Sec. 2) takes as its definition.

    Args:
        piece: the byte string to tokenize (one pre-token, or a whole text when there is no pre-tokenization).
        ranks: mapping from token bytes to rank; must contain every single byte occurring in ``piece``.
    """
    if not isinstance(piece, (bytes, bytearray)):
        raise TypeError(f"piece must be bytes, got {type(piece).__name__}")
    m = len(piece)
    if m == 0:
        return []
    piece = bytes(piece)
    # parts as a doubly linked list of start offsets; end[i] is the end of the part starting at i
    end = list(range(1, m + 1))
    prev = list(range(-1, m - 1))
    alive = [True] * m
    heap: list[tuple[int, int, int]] = []  # (rank, left start, right end) ; leftmost first on ties

    def push(i: int) -> None:
        j = end[i]
        if j < m:
            r = ranks.get(piece[i : end[j]])
            if r is not None:
                heapq.heappush(heap, (r, i, end[j]))

    for i in range(m - 1):
        push(i)
    while heap:
        r, i, e = heapq.heappop(heap)
        if not alive[i] or end[i] >= m or end[end[i]] != e:
            continue  # stale entry
        j = end[i]
        alive[j] = False
        end[i] = e
        if e < m:
            prev[e] = i
        if prev[i] >= 0:
            push(prev[i])
        push(i)
    out = []
    i = 0
    while i < m:
        tok = piece[i : end[i]]
        if tok not in ranks:
            raise ValueError(f"ranks: byte {piece[i:i+1]!r} of piece is not a token")
        out.append(ranks[tok])
        i = end[i]
    return out
