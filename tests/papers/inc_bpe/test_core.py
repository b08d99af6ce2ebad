"""The BPE core of inc_bpe against the heap reference: worked example, trained tiny vocabularies, bad vocabularies."""

import random

import pytest
from _vocabs import random_corpus, train_ranks
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.inc_bpe import Encoding, bpe_reference

PURE = r"[\s\S]+"


def _tiny_ranks():
    ranks = {bytes([b]): b for b in range(256)}
    for t in [b"ab", b"bc", b"abc", b"aa", b"aaa"]:
        ranks[t] = len(ranks)
    return ranks


def test_worked_example():
    # merges: ab (256) < bc (257) < abc = ab.c (258) < aa (259) < aaa = aa.a (260)
    ranks = _tiny_ranks()
    enc = Encoding.from_ranks(ranks, pat_str=PURE, pretokenize=False)
    # "abc": ab merges first (rank 256 < bc 257), then ab.c -> abc
    assert enc.encode_bytes(b"abc") == [258]
    # "aaaa": aa (leftmost), aa -> [aa, aa]; "aaa" is aa.a
    assert enc.encode_bytes(b"aaaa") == [259, 259]
    assert enc.encode_bytes(b"aaa") == [260]
    assert enc.encode_bytes(b"xabca") == [ord("x"), 258, ord("a")]
    for s in [b"abc", b"aaaa", b"aaa", b"xabca", b"bcabc"]:
        assert enc.encode_bytes(s) == bpe_reference(s, ranks)


def test_reference_leftmost_tie():
    ranks = _tiny_ranks()
    # a a a a a -> aa a a a (leftmost aa) -> aa aa a (aa=259 beats aa.a=260) -> aa aaa
    assert bpe_reference(b"aaaaa", ranks) == [259, 260]
    assert bpe_reference(b"aaaaa", ranks) == _brute(b"aaaaa", ranks)


def _brute(s: bytes, ranks: dict) -> list[int]:
    """Literal BPE: scan for the lowest-rank adjacent pair (leftmost), merge, repeat."""
    parts = [bytes([b]) for b in s]
    while True:
        best = None
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and (best is None or r < best[0]):
                best = (r, i)
        if best is None:
            return [ranks[p] for p in parts]
        i = best[1]
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


@given(st.binary(max_size=40).map(lambda b: bytes(x % 4 + 97 for x in b)))
@settings(max_examples=200, deadline=None)
def test_reference_equals_brute_force(s):
    ranks = train_ranks(random_corpus(3, b"abcd", 200), 25)
    assert bpe_reference(s, ranks) == _brute(s, ranks)


@pytest.mark.parametrize("seed", range(12))
def test_core_equals_reference_on_trained_vocabs(seed):
    alphabet = [b"ab", b"ab ", b"abc", b"a-"][seed % 4]
    ranks = train_ranks(random_corpus(seed, alphabet, 160), 15 + seed)
    enc = Encoding.from_ranks(ranks, pat_str=PURE, pretokenize=False)
    rng = random.Random(seed)
    for _ in range(150):
        s = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 50)))
        assert enc.encode_bytes(s) == bpe_reference(s, ranks) == _brute(s, ranks)
        assert enc.decode_bytes(enc.encode_bytes(s)) == s


def test_cl100k_every_token_and_neighbours(cl100k):
    ranks = {t: i for i, t in enumerate(cl100k._tokens)}
    rng = random.Random(0)
    ids = rng.sample(range(len(ranks)), 400)
    for i in ids:  # prefix a byte so that the whole-token shortcut is not taken
        s = b"x" + cl100k._tokens[i] + b"y"
        assert cl100k._core.encode(s) == bpe_reference(s, ranks)


def test_pathological_runs_equal_reference(cl100k):
    ranks = {t: i for i, t in enumerate(cl100k._tokens)}
    for ch in [b"a", b"-", b" ", "你".encode(), b"\n", b"0"]:
        s = ch * 700
        assert cl100k._core.encode(s) == bpe_reference(s, ranks)


def test_bad_vocabularies():
    with pytest.raises(ValueError, match="^tokens: .*single byte"):
        Encoding(name="x", tokens=[bytes([b]) for b in range(255)], pat_str=PURE)  # byte 255 missing
    toks = [bytes([b]) for b in range(256)] + [b"ab", b"ab"]
    with pytest.raises(ValueError, match="tokens"):
        Encoding(name="x", tokens=toks, pat_str=PURE)
    # "abc" ranked before "ab"/"bc": not reachable by merges of lower-ranked tokens
    toks = [bytes([b]) for b in range(256)] + [b"abc", b"ab"]
    with pytest.raises(ValueError, match="tokens"):
        Encoding(name="x", tokens=toks, pat_str=PURE)
    with pytest.raises(ValueError, match="^ranks:"):
        Encoding.from_ranks({b"a": 0, b"b": 5}, pat_str=PURE)
    with pytest.raises(ValueError, match="^ranks: .*single byte"):  # the vocabulary check names the caller's argument
        Encoding.from_ranks({bytes([b]): b for b in range(255)}, pat_str=PURE)
    with pytest.raises(TypeError, match="tokens"):
        Encoding(name="x", tokens=["a"] * 256, pat_str=PURE)
    with pytest.raises(ValueError, match="pat_str"):
        Encoding(name="x", tokens=[bytes([b]) for b in range(256)], pat_str="(")
    with pytest.raises(TypeError, match="piece"):
        bpe_reference("abc", {})  # type: ignore[arg-type]
