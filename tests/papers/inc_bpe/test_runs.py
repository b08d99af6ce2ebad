"""The run-length shortcut of inc_bpe (long runs of one byte) against tiktoken, the per-byte core and the heap
reference, on cl100k/o200k and on random small vocabularies; and the short-piece cache against the uncached core."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.inc_bpe import Encoding, bpe_reference

PURE = r"[\s\S]+"
RUN_BYTES = [b" ", b"\n", b"-", b"a", b"0", b"=", b"\t", b"*", b"_", b"#", b".", b"\xe4"]
LENGTHS = list(range(1, 400)) + list(range(400, 5001, 53)) + [4096, 4999, 5000]


@pytest.fixture(scope="module")
def tk_pure():
    pytest.importorskip("tiktoken")
    from icml26.papers.inc_bpe._baselines import tiktoken_reference

    return {name: tiktoken_reference(name, pretokenize=False) for name in ("cl100k_base", "o200k_base")}


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_runs_equal_per_byte_core(name, cl100k, o200k):
    core = {"cl100k_base": cl100k, "o200k_base": o200k}[name]._core
    taken = 0
    for c in RUN_BYTES:
        for n in LENGTHS:
            s = c * n
            short = core.encode_runs(s)
            if short is not None:
                taken += 1
                assert short[0] == core.encode(s, runs=False), (name, c, n)
            assert core.encode(s) == core.encode(s, runs=False), (name, c, n)
    assert taken == len(RUN_BYTES) * len(LENGTHS)  # the shortcut itself answered every run, none fell back


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_runs_equal_tiktoken(name, cl100k, o200k, tk_pure):
    enc = {"cl100k_base": cl100k, "o200k_base": o200k}[name]
    tk = tk_pure[name]
    for c in [" ", "\n", "-", "a", "="]:
        for n in list(range(1, 300, 7)) + [777, 2048, 5000]:
            s = c * n
            assert enc._core.encode(s.encode()) == tk.encode_ordinary(s), (name, c, n)
    for n in (100_000, 1_000_000):  # whole-text runs, one piece under either pattern
        s = " " * n
        assert enc.encode_ordinary(s) == tk.encode_ordinary(s), (name, n)


def test_runs_in_pretokenized_text_equal_tiktoken(cl100k, tk_cl100k):
    rng = random.Random(5)
    for _ in range(20):
        text = "".join(rng.choice([" ", "\n", "-", "a", "x = 1", "你"]) * rng.randint(1, 300) for _ in range(6))
        assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text)
    text = "x" + " " * 100_000 + "y" + "\n" * 50_000 + "-" * 70_000
    assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text)


def test_forced_single_merges_and_fallback(cl100k):
    # every merge done singly (the path taken when an all-at-once merge is refused) gives the same tokens
    for c in [b" ", b"\n", b"-", b"a"]:
        for n in [1, 2, 3, 4, 5, 6, 7, 16, 31, 64, 65]:
            single = cl100k._core.encode_runs(c * n, all_at_once=False)
            assert single is not None and single[0] == cl100k._core.encode(c * n, runs=False), (c, n)
    # a long run merged singly runs out of its work budget: the shortcut declines
    assert cl100k._core.encode_runs(b" " * 100_000, all_at_once=False) is None
    # many runs: the shortcut declines and the per-byte core answers
    s = b"ab" * 100
    assert cl100k._core.encode_runs(s) is None
    assert cl100k._core.encode(s) == cl100k._core.encode(s, runs=False)
    assert cl100k._core.encode_runs(b"") == ([], 0)


def _random_vocab(rng: random.Random, alphabet: bytes, n_merges: int) -> dict[bytes, int]:
    """A random byte-level BPE vocabulary over ``alphabet``: each new token joins two existing ones and is kept only
    when BPE of its bytes under the earlier ranks ends in exactly two parts (so the ranks form a valid vocabulary)."""
    ranks = {bytes([b]): b for b in range(256)}
    pool = [bytes([c]) for c in alphabet]
    for _ in range(20 * n_merges):
        if len(ranks) >= 256 + n_merges:
            break
        t = rng.choice(pool) + rng.choice(pool)
        if t in ranks or len(t) > 24 or len(bpe_reference(t, ranks)) != 2:
            continue
        ranks[t] = len(ranks)
        pool.append(t)
    return ranks


@given(seed=st.integers(0, 10**9), alphabet=st.sampled_from([b"a", b"ab", b"a b", b"a-\n"]),
       n_merges=st.integers(1, 60), shape=st.lists(st.tuples(st.integers(0, 2), st.integers(1, 300)), min_size=1,
                                                   max_size=4))
@settings(max_examples=120, deadline=None)
def test_runs_on_random_vocabularies(seed, alphabet, n_merges, shape):
    ranks = _random_vocab(random.Random(seed), alphabet, n_merges)
    enc = Encoding.from_ranks(ranks, pat_str=PURE, pretokenize=False, cache=False)
    s = b"".join(bytes([alphabet[i % len(alphabet)]]) * k for i, k in shape)
    ref = bpe_reference(s, ranks)
    short = enc._core.encode_runs(s)
    if len(shape) == 1:
        assert short is not None  # one run: the shortcut always answers
    if short is not None:
        assert short[0] == ref
    single = enc._core.encode_runs(s, all_at_once=False)
    if single is not None:
        assert single[0] == ref
    assert enc.encode_bytes(s) == ref


def test_runs_on_random_vocabularies_against_tiktoken():
    tiktoken = pytest.importorskip("tiktoken")
    rng = random.Random(11)
    for k in range(40):
        alphabet = [b"a", b"ab", b"a b"][k % 3]
        ranks = _random_vocab(rng, alphabet, rng.randint(5, 60))
        enc = Encoding.from_ranks(ranks, pat_str=PURE, pretokenize=False, cache=False)
        tk = tiktoken.Encoding(f"rand{k}", pat_str=PURE, mergeable_ranks=ranks, special_tokens={})
        for _ in range(10):
            s = b"".join(bytes([rng.choice(alphabet)]) * rng.randint(1, 400) for _ in range(rng.randint(1, 3)))
            assert enc.encode_bytes(s) == tk.encode_ordinary(s.decode()), (k, s)


def test_piece_cache_across_vocabularies(cl100k, o200k, tk_cl100k, tk_o200k):
    # alternating encodings on one thread: every call is exact (each cache belongs to one vocabulary)
    text = "the cache keeps short pieces: the the the, of of of; 你好 你好 " * 50
    for _ in range(3):
        assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text)
        assert o200k.encode_ordinary(text) == tk_o200k.encode_ordinary(text)
    ranks = _random_vocab(random.Random(3), b"the ", 40)
    small = Encoding.from_ranks(ranks, pat_str=PURE, cache=False)
    pieces = ["the ", "t", "he", "the the", "ee", "  "] * 30
    assert small._core.encode_pieces(pieces) == [t for p in pieces for t in bpe_reference(p.encode(), ranks)]
    assert cl100k._core.encode_pieces(pieces) == [t for p in pieces for t in cl100k._core.encode(p.encode())]
