"""The centroid candidate search of inc_bpe against the longest-first scan and the heap reference; from_merges."""

import random

import pytest
from _vocabs import random_corpus, train_ranks

from icml26.papers.inc_bpe import Encoding, bpe_reference, load_encoding
from icml26.papers.inc_bpe._backend import NATIVE

PURE = r"[\s\S]+"
native = pytest.mark.skipif(not NATIVE, reason="the centroid search lives in the extension")


@native
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_centroid_equals_linear_scan_on_runs(name):
    core = load_encoding(name, pretokenize=False)._core
    assert core.n_centroid_nodes > core.size  # one decomposition per candidate tree S(T)
    for unit in [b"a", b"-", b" ", "你".encode(), b"\n", b"0", b"=", b"*", b" -", b"\t", b"ab", b"/*", b"..."]:
        s = unit * 3000
        assert core.encode(s) == core.encode(s, True), unit


@native
def test_centroid_equals_linear_and_reference_on_random_bytes(cl100k):
    core = load_encoding("cl100k_base", pretokenize=False)._core
    ranks = {t: i for i, t in enumerate(cl100k._tokens)}
    rng = random.Random(3)
    for _ in range(1500):
        s = bytes(rng.choice(b"ab -=\n\t0x _*") for _ in range(rng.randint(1, 120)))
        assert core.encode(s) == core.encode(s, True)
    for _ in range(150):
        s = bytes(rng.choice(b" -=*\n") for _ in range(rng.randint(1, 150)))
        assert core.encode(s) == bpe_reference(s, ranks)


@native
@pytest.mark.parametrize("seed", range(6))
def test_centroid_on_trained_vocabs(seed):
    # deep candidate trees: runs of one or two letters trained into long tokens
    alphabet = [b"a", b"ab", b"a ", b"-", b"ab-", b"a-"][seed]
    ranks = train_ranks(random_corpus(seed, alphabet, 200), 40)
    core = Encoding.from_ranks(ranks, pat_str=PURE, pretokenize=False)._core
    rng = random.Random(seed)
    for _ in range(200):
        s = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        assert core.encode(s) == core.encode(s, True) == bpe_reference(s, ranks)


def _merges_of(ranks):
    enc = Encoding.from_ranks(ranks, pat_str=PURE, pretokenize=False)
    toks = enc._tokens
    return [(toks[enc._core.rule(i)[0]], toks[enc._core.rule(i)[1]]) if NATIVE else None for i in range(256, len(toks))]


@native
def test_from_merges_equals_hf_tokenizers():
    pytest.importorskip("tokenizers")
    from icml26.papers.inc_bpe._baselines import hf_tokenizer
    from icml26.papers.inc_bpe._merges import bytes_to_unicode

    ranks = train_ranks(random_corpus(5, b"abc -", 400), 30)
    merges = _merges_of(ranks)
    enc = Encoding.from_merges(merges, pat_str=PURE, pretokenize=False)
    u = bytes_to_unicode()
    as_text = [" ".join("".join(u[b] for b in side) for side in m) for m in merges]  # merges.txt lines
    assert Encoding.from_merges(as_text, pat_str=PURE, pretokenize=False)._tokens == enc._tokens
    hf = hf_tokenizer(enc, pretokenize=False)
    rng = random.Random(5)
    for _ in range(200):
        s = "".join(rng.choice("abc -") for _ in range(rng.randint(0, 60)))
        assert enc.encode(s) == hf.encode(s).ids == bpe_reference(s.encode(), {t: i for i, t in enumerate(enc._tokens)})


def test_from_merges_worked_example_and_errors():
    enc = Encoding.from_merges([(b"a", b"b"), ("b", "c"), "ab c", ("Ġ", "a")], pat_str=PURE, pretokenize=False)
    assert enc.encode("abc  ab") == [258, 32, 32, 256]  # ab (rank 256) merges before " a" (259)
    assert enc.encode(" ac") == [259, 99]
    assert enc.decode([259, 258]) == " aabc"
    with pytest.raises(ValueError, match=r"merges: entry 2 lists b'a' \+ b'bc'"):
        Encoding.from_merges([(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")], pat_str=PURE)
    with pytest.raises(ValueError, match="merges: entry 0 uses b'xy'"):
        Encoding.from_merges([(b"a", b"xy")], pat_str=PURE)
    with pytest.raises(ValueError, match="merges: entry 1 produces"):
        Encoding.from_merges(["a b", "a b"], pat_str=PURE)
    with pytest.raises(ValueError, match="merges: entry 0"):
        Encoding.from_merges(["ab"], pat_str=PURE)
    with pytest.raises(ValueError, match="merges: entry 0 .* outside the byte-level alphabet"):
        Encoding.from_merges([("a", "\u4f60")], pat_str=PURE)
    with pytest.raises(TypeError, match="merges"):
        Encoding.from_merges("a b", pat_str=PURE)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="merges: entry 0"):
        Encoding.from_merges([(1, 2)], pat_str=PURE)  # type: ignore[list-item]
