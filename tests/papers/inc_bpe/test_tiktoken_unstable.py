"""tiktoken's end-of-text rules (``_encode_bytes`` on invalid UTF-8, ``encode_with_unstable``) and its ``Encoding``
constructor, differential against tiktoken itself (the oracle) on the same inputs."""

import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icml26.papers.inc_bpe import CL100K_PAT, Encoding

tiktoken = pytest.importorskip("tiktoken")

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ATOMS = [b" ", b"  ", b"a", b"hello", b"\n", b"\t", b"\r\n", b"123", b"!", b"'s", b"\xa9", b"\xff", b"\xc3",
         b"\xe4\xb8", b"\xe4\xb8\xad", b"\xf0\x9f", b"\xf0\x9f\x98\x80", "é".encode()]
BYTES = st.lists(st.sampled_from(ATOMS), max_size=8).map(b"".join) | st.binary(max_size=12)


@pytest.fixture(scope="module", params=["cl100k", "o200k"])
def pair(request, cl100k, tk_cl100k, o200k, tk_o200k):
    return (cl100k, tk_cl100k) if request.param == "cl100k" else (o200k, tk_o200k)


@pytest.mark.parametrize("data", [b"  \xa9", b"hello \xff", b"\xe4\xb8", b"a\n\n\xc3", b"", b"ok", b" \t \xf0\x9f"])
def test_encode_bytes_examples(pair, data):
    ours, tk = pair
    assert ours._encode_bytes(data) == tk._encode_bytes(data)


@SETTINGS
@given(data=BYTES)
def test_encode_bytes_like_tiktoken(pair, data):
    ours, tk = pair
    got = ours._encode_bytes(data)
    assert got == tk._encode_bytes(data)
    assert ours.decode_bytes(got) == data


def test_encode_bytes_refuses_text(cl100k):
    with pytest.raises(TypeError, match="text must be bytes"):
        cl100k._encode_bytes("abc")


def _same_unstable(ours, tk, text, **kw):
    stable, completions = ours.encode_with_unstable(text, **kw)
    tk_stable, tk_completions = tk.encode_with_unstable(text, **kw)
    assert stable == tk_stable
    assert sorted(map(tuple, completions)) == sorted(map(tuple, tk_completions))
    assert len(set(map(tuple, completions))) == len(completions)  # a set, as tiktoken's


@pytest.mark.parametrize("text", ["hello world", "hello wor", "abc  ", "x\n\n", "你好", "12345", "a!", "it's", "",
                                  "x <|endoftext|>  y", "héllo <|endoftext|>", "  !", "tab\t"])
def test_encode_with_unstable_examples(pair, text):
    ours, tk = pair
    _same_unstable(ours, tk, text, allowed_special="all")


def test_encode_with_unstable_whitespace_end(cl100k, tk_cl100k):
    """A text ending in a space: the unstable piece is a single space, and every token starting with one completes it
    (tens of thousands of completions)."""
    _same_unstable(cl100k, tk_cl100k, "hello ", allowed_special="all")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(st.sampled_from(["hello", " world", "你好", "é", "\n", "'ll", "123", "!", "<|endoftext|>", "x"]),
                     min_size=1, max_size=6).map("".join))
def test_encode_with_unstable_like_tiktoken(cl100k, tk_cl100k, text):
    _same_unstable(cl100k, tk_cl100k, text, allowed_special="all")


def test_encode_with_unstable_special_rules(cl100k, tk_cl100k):
    text = "a <|endoftext|> b"
    for ours, tk in ((cl100k, tk_cl100k),):
        with pytest.raises(ValueError):
            tk.encode_with_unstable(text)
        with pytest.raises(ValueError, match="disallowed_special"):
            ours.encode_with_unstable(text)
        _same_unstable(ours, tk, text, disallowed_special=())


SPECIALS = {"<|end|>": 259, "<|pad|>": 260}
BYTE_RANKS = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257, b" a": 258}


def test_tiktoken_constructor():
    ours = Encoding("toy", pat_str=CL100K_PAT, mergeable_ranks=BYTE_RANKS, special_tokens=SPECIALS)
    tk = tiktoken.Encoding("toy", pat_str=CL100K_PAT, mergeable_ranks=BYTE_RANKS, special_tokens=SPECIALS)
    text = "abc ab a<|end|>abcabc"
    assert ours.encode(text, allowed_special="all") == tk.encode(text, allowed_special="all")
    assert ours.n_vocab == tk.n_vocab and ours.max_token_value == tk.max_token_value
    assert ours._mergeable_ranks == tk._mergeable_ranks and ours.name == tk.name == "toy"
    again = pickle.loads(pickle.dumps(ours))
    assert again.encode(text, allowed_special="all") == ours.encode(text, allowed_special="all")


def test_tiktoken_constructor_explicit_n_vocab():
    kw = {"pat_str": CL100K_PAT, "mergeable_ranks": BYTE_RANKS, "special_tokens": SPECIALS}
    Encoding("toy", explicit_n_vocab=261, **kw)
    tiktoken.Encoding("toy", explicit_n_vocab=261, **kw)
    for wrong in (260, 262):
        with pytest.raises(AssertionError):
            tiktoken.Encoding("toy", explicit_n_vocab=wrong, **kw)
        with pytest.raises(AssertionError, match="explicit_n_vocab"):
            Encoding("toy", explicit_n_vocab=wrong, **kw)
    with pytest.raises(ValueError, match="explicit_n_vocab"):  # a ValueError as well
        Encoding("toy", explicit_n_vocab=1, **kw)


def test_constructor_refuses_both_or_neither_table():
    with pytest.raises(TypeError, match="exactly one of mergeable_ranks"):
        Encoding("toy", pat_str=CL100K_PAT, special_tokens={})
    with pytest.raises(TypeError, match="exactly one of mergeable_ranks"):
        Encoding("toy", pat_str=CL100K_PAT, mergeable_ranks=BYTE_RANKS, tokens=list(BYTE_RANKS), special_tokens={})
    with pytest.raises(ValueError, match="mergeable_ranks: values must be exactly"):
        Encoding("toy", pat_str=CL100K_PAT, mergeable_ranks={b"a": 1}, special_tokens={})


BATCH = ["hello world", "", "你好 <|endoftext|> x", "a\ud800b", "x" * 3000, "  \n\t 123", "é" * 50] * 7


@pytest.mark.parametrize("num_threads", [1, 2, 3, 8])
def test_batches_on_native_threads_like_tiktoken(pair, num_threads):
    """The batch methods (native threads without the GIL for cl100k/o200k) give tiktoken's outputs for any thread
    count, lone surrogates included."""
    ours, tk = pair
    assert ours.encode_ordinary_batch(BATCH, num_threads=num_threads) == tk.encode_ordinary_batch(BATCH)
    assert ours.encode_batch(BATCH, num_threads=num_threads, allowed_special="all") == tk.encode_batch(
        BATCH, allowed_special="all")
    assert ours.encode_batch(BATCH, num_threads=num_threads, disallowed_special=()) == tk.encode_batch(
        BATCH, disallowed_special=())
    with pytest.raises(ValueError):
        tk.encode_batch(BATCH)
    with pytest.raises(ValueError, match="disallowed_special"):
        ours.encode_batch(BATCH, num_threads=num_threads)
    assert ours.encode_batch(text=["hi"]) == tk.encode_batch(text=["hi"])  # tiktoken's parameter name


def test_batch_without_native_scanner_matches(cl100k):
    """A pattern the native scanner does not know runs on the thread pool: same outputs."""
    own = Encoding("own", pat_str=r"\S+|\s+", tokens=list(cl100k._tokens), special_tokens={})
    texts = ["hello world  x", "你好", ""] * 5
    assert own.encode_ordinary_batch(texts, num_threads=2) == [own.encode_ordinary(t) for t in texts]
