"""Small trained BPE vocabularies for the tests of inc_bpe (tiny alphabets, where the heap reference is cheap)."""

from __future__ import annotations

import random

from icml26.papers.inc_bpe import bpe_reference


def train_ranks(corpus: bytes, n_merges: int) -> dict[bytes, int]:
    """Greedy BPE training: 256 byte tokens, then repeatedly add the most frequent adjacent pair (ties: smallest)."""
    ranks = {bytes([b]): b for b in range(256)}
    for _ in range(n_merges):
        ids = bpe_reference(corpus, ranks)
        inv = {v: k for k, v in ranks.items()}
        counts: dict[bytes, int] = {}
        for a, b in zip(ids, ids[1:]):
            t = inv[a] + inv[b]
            if t not in ranks:
                counts[t] = counts.get(t, 0) + 1
        if not counts:
            break
        best = min(counts, key=lambda t: (-counts[t], t))
        ranks[best] = len(ranks)
    return ranks


def random_corpus(seed: int, alphabet: bytes = b"ab ", n: int = 300) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.choice(alphabet) for _ in range(n))
