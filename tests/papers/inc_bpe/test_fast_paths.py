"""The speed paths of inc_bpe's native encode: the ASCII pre-tokenizer fast path, the piece cache (short, long, set
conflicts, arena overflow) and the batch encoder, each against tiktoken (the specification) or the uncached core."""

import itertools
import random

import pytest

from icml26.papers.inc_bpe import load_encoding
from icml26.papers.inc_bpe._backend import NATIVE

pytestmark = pytest.mark.skipif(not NATIVE, reason="the fast paths are in the native extension (ICML26_NO_EXT unset)")

# ASCII of every class the patterns distinguish, and the non-ASCII characters that change a match next to ASCII:
# long s (matches 's' in a contraction), NBSP / em space (whitespace), a combining mark and e-acute (letters, o200k
# lower class), E-acute (upper), an Arabic-Indic digit, an em dash (punctuation), a CJK letter
SYMBOLS = list("aZ7 \t\n\r'sTlLe-/.\x01") + ["\u017f", "\u00a0", "\u2003", "\u0301", "é", "É", "\u0663", "\u2014", "你"]


def _regex_split(enc, text):
    import regex

    return [m.span() for m in regex.finditer(enc._pat_str, text)]


def test_ascii_fast_path_exhaustive(cl100k, tk_cl100k, o200k, tk_o200k):
    # every string of up to 3 symbols: the fast path decides or hands over to the general scanner at every boundary
    for k in range(1, 4):
        for combo in itertools.product(SYMBOLS, repeat=k):
            text = "".join(combo)
            assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text), text
            assert o200k.encode_ordinary(text) == tk_o200k.encode_ordinary(text), text


def test_every_ascii_byte_in_context(cl100k, tk_cl100k, o200k, tk_o200k):
    # the fast path's byte classes against tiktoken for all 128 ASCII characters, next to each class
    for c in map(chr, range(128)):
        text = f"a{c}b {c}1 {c}{c}x\n{c} 'S{c}{c}\u00a0{c}é{c}Q{c}"
        assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text), repr(c)
        assert o200k.encode_ordinary(text) == tk_o200k.encode_ordinary(text), repr(c)


def test_ascii_fast_path_spans_equal_the_regex(cl100k, o200k):
    rng = random.Random(11)
    for _ in range(3000):
        text = "".join(rng.choice(SYMBOLS) for _ in range(rng.randint(1, 12)))
        for enc in (cl100k, o200k):
            assert enc._spans(text) == _regex_split(enc, text), (enc.name, text)


def test_worked_example_at_ascii_boundaries(o200k, tk_o200k, cl100k, tk_cl100k):
    text = "don'\u017ft DON'\u017fT   \u00a0x 12\u0663 cafe\u0301 --\u2014 a\u00a0\u00a0b HTMLParser'll 'S\n\r\n"
    assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text)
    assert o200k.encode_ordinary(text) == tk_o200k.encode_ordinary(text)


def _repeated(pieces, times=3):
    return "".join(pieces) * times


def test_long_pieces_are_cached_exactly(cl100k, tk_cl100k, o200k, tk_o200k):
    rng = random.Random(5)
    spaces = [" " * k + "x" for k in range(1, 300)]  # runs of 17..255 bytes go through the long cache
    words = [" " + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(k)) for k in range(10, 260, 7)]
    many = [" frozenset", " stringescapeseq", "=ABCMeta", "_LDFLAGS", ' “"*"”']  # short, more than 3 tokens
    for pieces in (spaces, words, many):
        text = _repeated(pieces)
        assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text)
        assert o200k.encode_ordinary(text) == tk_o200k.encode_ordinary(text)


def test_cache_conflicts_and_arena_overflow(cl100k):
    # more distinct pieces than the short sets hold (evictions) and more long records than the arena holds (it is
    # emptied and refilled): every output equals the uncached per-piece core
    import regex

    rng = random.Random(9)
    letters = "abcdefghijklmnopqrstuvwxyz"
    short = [" " + "".join(rng.choice(letters) for _ in range(rng.randint(2, 7))) for _ in range(40000)]
    long = [" " + "".join(rng.choice(letters) for _ in range(200)) for _ in range(3000)]
    pure = load_encoding("cl100k_base", pretokenize=False)
    for pieces in (short, long):
        text = _repeated(pieces, 2)
        want = [t for p in regex.findall(cl100k._pat_str, text) for t in pure._core.encode(p.encode())]
        assert cl100k.encode_ordinary(text) == want


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_batch_equals_tiktoken(cl100k, tk_cl100k, o200k, tk_o200k, threads):
    rng = random.Random(threads)
    base = "The piece cache, the batch: 12345 don't  \n\n\tx 你好 héllo 😀 " * 20
    docs = [base[rng.randrange(len(base)) :][: rng.randint(0, 900)] for _ in range(300)]
    docs += ["", " " * 300, "a" * 5000, "\u00a0" * 40]
    for _ in range(2):  # the workers' caches are kept between calls; alternating vocabularies resets them
        assert cl100k.encode_ordinary_batch(docs, num_threads=threads) == tk_cl100k.encode_ordinary_batch(docs)
        assert o200k.encode_ordinary_batch(docs, num_threads=threads) == tk_o200k.encode_ordinary_batch(docs)
    assert cl100k.encode_ordinary_batch([], num_threads=threads) == []


def test_pieces_past_the_cache_limits_via_encode_bytes(cl100k, o200k):
    # lone continuation bytes are one unclassified character each, so a run of them is one piece of one token a byte: runs
    # of 15-17 bytes (short sets: more than 3 tokens), 63-65 (the long table's 64-token limit) and 254-257 bytes (its
    # 255-byte limit), each met twice (miss, then hit or recompute), against the uncached per-piece core
    from icml26.papers.inc_bpe._backend import split_spans

    rng = random.Random(3)
    runs = [bytes(rng.randrange(0x80, 0xC0) for _ in range(k)) for k in (15, 16, 17, 63, 64, 65, 254, 255, 256, 257)]
    data = b" ".join(runs * 2) + b" x" + b"\xff" * 300
    for enc in (cl100k, o200k):
        pure = load_encoding(enc.name, pretokenize=False)._core
        flat = split_spans(data, enc._pat_kind)
        assert {16, 17, 64, 65, 255, 256} <= {b - a for a, b in zip(flat[0::2], flat[1::2])}  # " " + run, one piece
        want = [t for a, b in zip(flat[0::2], flat[1::2]) for t in pure.encode(data[a:b])]
        assert enc.encode_bytes(data) == want
        assert enc.decode_bytes(want) == data


def test_concurrent_calls_on_one_encoding(cl100k, tk_cl100k, o200k, tk_o200k):
    # Python threads calling encode_ordinary_batch and encode_ordinary on the same encodings at once: the batch
    # workers' caches come from one pool, each Python thread has its own; every result equals tiktoken's
    import threading

    base = "Concurrent callers share one pool of caches: don't  \n\r\n\tx 12345 héllo 你好 " * 30
    docs = [base[k : k + 400 + 37 * k] for k in range(40)]
    want = {id(cl100k): tk_cl100k.encode_ordinary_batch(docs), id(o200k): tk_o200k.encode_ordinary_batch(docs)}
    wrong: list[tuple[int, int]] = []

    def call(k: int) -> None:
        for it in range(6):
            enc = (cl100k, o200k)[(k + it) % 2]
            if (k + it) % 3:
                got = enc.encode_ordinary_batch(docs, num_threads=2)
            else:
                got = [enc.encode_ordinary(d) for d in docs]
            if got != want[id(enc)]:
                wrong.append((k, it))

    threads = [threading.Thread(target=call, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
