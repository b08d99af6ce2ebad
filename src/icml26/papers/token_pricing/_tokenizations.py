"""Tokenizations of a string ([P13] §2-3): every one (lazily), how many, uniform draws, the longest, and the
misreporting heuristic's splits (§4, without the model: :func:`misreport`; with the plausibility check:
:func:`~icml26.papers.token_pricing.overcharge`)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from icml26.common.validation import choice, int_array, int_at_least
from icml26.common.validation import seed as check_seed
from icml26.papers.token_pricing._vocab import Vocabulary, vocabulary

__all__ = ["STRATEGIES", "alternative_tokenizations", "as_bytes", "best_splits", "count_tokenizations",
           "longest_tokenization", "misreport", "random_tokenizations", "token_ids"]

#: how :func:`misreport` picks the token it splits next
STRATEGIES = ("highest_id", "random")


def as_bytes(text: object, name: str = "text") -> bytes:
    """``text`` (a ``str``, read as UTF-8, or ``bytes``) as bytes; anything else is a ``TypeError`` naming it."""
    if isinstance(text, str):
        return text.encode("utf-8")
    if isinstance(text, (bytes, bytearray)):
        return bytes(text)
    raise TypeError(f"{name} must be a str or bytes, got {type(text).__name__}")


def token_ids(tokens: Any, vocab: Vocabulary, name: str = "tokens", *, allow_empty: bool = False) -> list[int]:
    """A 1-D sequence of token ids of ``vocab`` that stand for text, as a list of ints."""
    a = int_array(tokens, name, ndim=1, allow_empty=allow_empty)
    bad = [int(t) for t in a if not (0 <= t < len(vocab.pieces)) or vocab.pieces[t] is None or int(t) in vocab.special]
    if bad:
        raise ValueError(f"{name} holds ids that stand for no text in {vocab.name}: {bad[:5]}")
    return [int(t) for t in a]


def token_matches(data: bytes, vocab: Vocabulary) -> list[list[tuple[int, int]]]:
    """``m[i]``: the (end, id) of every token that matches ``data`` at ``i`` and after which the rest can still be
    tokenized, longest first."""
    n = len(data)
    ok = [False] * (n + 1)
    ok[n] = True
    out: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for i in range(n - 1, -1, -1):
        for j in range(min(n, i + vocab.max_len), i, -1):
            t = vocab.index.get(data[i:j])
            if t is not None and ok[j]:
                out[i].append((j, t))
        ok[i] = bool(out[i])
    return out


def _counts(m: list[list[tuple[int, int]]]) -> list[int]:
    c = [0] * (len(m) + 1)
    c[len(m)] = 1
    for i in range(len(m) - 1, -1, -1):
        c[i] = sum(c[j] for j, _ in m[i])
    return c


def alternative_tokenizations(text: str | bytes, tokenizer: Any) -> Iterator[tuple[int, ...]]:
    """Every tokenization of ``text`` over ``tokenizer``'s vocabulary, lazily ([P13] §2: the set of token sequences
    t̃ with str(t̃) = s among which a provider may report).

    A generator of token-id tuples whose byte strings concatenate to ``text`` (UTF-8), in depth-first order with the
    longest first token first (so the first is the greedy longest-match one). Their number grows exponentially with
    the length (:func:`count_tokenizations` counts them without listing them). Special tokens never appear.

    Raises:
        TypeError: ``text`` is not ``str``/``bytes``, or ``tokenizer`` is not a supported tokenizer.
    """
    data = as_bytes(text)
    vocab = vocabulary(tokenizer)
    return _walk(token_matches(data, vocab), len(data))


def _walk(m: list[list[tuple[int, int]]], n: int) -> Iterator[tuple[int, ...]]:
    if n == 0:
        yield ()
        return
    stack: list[tuple[int, int]] = [(0, 0)]  # (position, index of the next alternative to try there)
    path: list[int] = []
    while stack:
        pos, k = stack[-1]
        if k >= len(m[pos]):
            stack.pop()
            if path:
                path.pop()
            continue
        stack[-1] = (pos, k + 1)
        end, tok = m[pos][k]
        if end == n:
            yield (*path, tok)
        else:
            path.append(tok)
            stack.append((end, 0))


def count_tokenizations(text: str | bytes, tokenizer: Any) -> int:
    """The number of tokenizations of ``text`` ([P13] §2; dynamic programming over byte positions, exact int)."""
    data = as_bytes(text)
    return _counts(token_matches(data, vocabulary(tokenizer)))[0]


def random_tokenizations(text: str | bytes, tokenizer: Any, *, n: int, seed: int) -> list[tuple[int, ...]]:
    """``n`` tokenizations of ``text`` drawn independently and uniformly from all of them ([P13] §3, the
    re-tokenizations a per-token price must be invariant to for incentive compatibility).

    Each next token is drawn with probability (#tokenizations of the rest) / (#tokenizations from here): exactly
    uniform, also when there are more tokenizations than a float can count. ``seed`` seeds a private
    :class:`random.Random`.
    """
    n = int_at_least(n, "n", 1)
    rng = random.Random(check_seed(seed))
    data = as_bytes(text)
    m = token_matches(data, vocabulary(tokenizer))
    if data and not m[0]:
        raise ValueError("text has no tokenization over this vocabulary")
    c = _counts(m)
    out = []
    for _ in range(n):
        pos, seq = 0, []
        while pos < len(data):
            r = rng.randrange(c[pos])
            for end, tok in m[pos]:
                if r < c[end]:
                    break
                r -= c[end]
            seq.append(tok)
            pos = end
        out.append(tuple(seq))
    return out


def longest_tokenization(text: str | bytes, tokenizer: Any) -> tuple[int, ...]:
    """The longest tokenization of ``text`` ([P13] §3: what a provider reports when nothing is checked; for a
    byte-level vocabulary, one token per byte)."""
    data = as_bytes(text)
    m = token_matches(data, vocabulary(tokenizer))
    if data and not m[0]:
        raise ValueError("text has no tokenization over this vocabulary")
    best = [0] * (len(data) + 1)
    pick: list[tuple[int, int]] = [(0, 0)] * len(data)
    for i in range(len(data) - 1, -1, -1):
        pick[i] = max(m[i], key=lambda e: (best[e[0]], e[0]))
        best[i] = best[pick[i][0]] + 1
    seq, pos = [], 0
    while pos < len(data):
        end, tok = pick[pos]
        seq.append(tok)
        pos = end
    return tuple(seq)


def best_splits(tokenizer: Any) -> dict[int, tuple[int, int]]:
    """Each token's best binary split ([P13] §4, the heuristic's table): token id -> (y, z) with str(y) + str(z) =
    str(token), both in the vocabulary, maximising min(y, z) (the earliest cut among ties).

    Only tokens whose string decodes to two or more characters are split (a lone multi-byte character is not cut
    into bytes), as in the authors' code. Cached on the :class:`Vocabulary` (pass one to reuse it).
    """
    return dict(_split_table(vocabulary(tokenizer)))


def _split_table(vocab: Vocabulary) -> dict[int, tuple[int, int]]:
    if "splits" not in vocab.derived:
        table: dict[int, tuple[int, int]] = {}
        for piece, tid in vocab.index.items():
            if len(piece) < 2 or len(piece.decode("utf-8", "replace")) < 2:
                continue
            best, low = None, -1
            for cut in range(1, len(piece)):
                y, z = vocab.index.get(piece[:cut]), vocab.index.get(piece[cut:])
                if y is not None and z is not None and min(y, z) > low:
                    best, low = (y, z), min(y, z)
            if best is not None:
                table[tid] = best
        vocab.derived["splits"] = table
    return vocab.derived["splits"]


def misreport(tokens: Sequence[int] | np.ndarray, tokenizer: Any, *, depth: int, strategy: str = "highest_id",
              seed: int = 0) -> tuple[int, ...]:
    """The heuristic's candidate report after ``depth`` splits ([P13] §4, Alg. 1 without the plausibility check).

    Each iteration replaces one token by its :func:`best_splits` pair: ``strategy="highest_id"`` (the paper's rule)
    splits the highest-id token that has a split (its first occurrence), ``"random"`` a uniformly drawn one (seeded
    by ``seed``). It stops early when no token can be split. The result stands for the same string as ``tokens``
    and is ``depth`` tokens longer unless it stopped. Deviation: a highest-id token without a split is skipped (the
    authors' code stalls on it).
    """
    vocab = vocabulary(tokenizer)
    seq = token_ids(tokens, vocab, allow_empty=True)
    depth = int_at_least(depth, "depth", 0)
    strategy = choice(strategy, "strategy", STRATEGIES)
    rng = np.random.default_rng(check_seed(seed))
    table = _split_table(vocab)
    for _ in range(depth):
        where = [i for i, t in enumerate(seq) if t in table]
        if not where:
            break
        if strategy == "highest_id":
            pos = max(where, key=lambda i: (seq[i], -i))
        else:
            pos = where[int(rng.integers(len(where)))]
        seq[pos:pos + 1] = table[seq[pos]]
    return tuple(seq)
