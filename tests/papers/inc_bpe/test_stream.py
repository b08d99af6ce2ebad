"""Streaming of inc_bpe: chunking invariance, prefix property, eager (bounded-delay) output."""

import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icml26.papers.inc_bpe import load_encoding
from icml26.papers.inc_bpe._backend import NATIVE

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ADVERSARIAL = st.text(alphabet=st.sampled_from(list("ab 'sllvedtXY\n\r\t.-/0123你é\u00a0 ")), max_size=60)


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    pts = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(pts, pts[1:])]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("pretokenize", [True, False])
@given(text=ADVERSARIAL | st.text(max_size=30), cuts=st.lists(st.integers(0, 400), max_size=12))
@SETTINGS
def test_chunking_invariance_and_prefix_property(name, pretokenize, text, cuts):
    enc = load_encoding(name, pretokenize=pretokenize)
    data = text.encode("utf-8", "replace")
    inc = enc.incremental()
    out, fed = [], b""
    for chunk in _chunks(data, cuts):  # chunks split UTF-8 characters and pre-tokens
        out += inc.feed(chunk)
        fed += chunk
        assert inc.tokens() == enc.encode_bytes(fed)  # tokens() is BPE of the prefix
        assert out == inc.tokens()[: len(out)]  # emitted tokens are a prefix of it
    out += inc.finish()
    assert out == enc.encode_bytes(data) == enc.encode_ordinary(data.decode("utf-8"))


@given(data=st.binary(max_size=50), cuts=st.lists(st.integers(0, 100), max_size=8))
@SETTINGS
def test_arbitrary_bytes_stream(data, cuts):
    for pre in (True, False):
        enc = load_encoding("cl100k_base", pretokenize=pre)
        inc = enc.incremental()
        out = []
        for chunk in _chunks(data, cuts):
            out += inc.feed(chunk)
        out += inc.finish()
        assert out == enc.encode_bytes(data)


@pytest.mark.skipif(not NATIVE, reason="the Python fallback's stream is documented as not eager")
def test_eager_output_has_bounded_delay(cl100k):
    enc = load_encoding("cl100k_base", pretokenize=False)
    text = ("The quick brown fox jumps over the lazy dog. " * 40).encode()
    inc = enc.incremental()
    out, worst = [], 0
    for i in range(0, len(text), 7):
        out += inc.feed(text[i : i + 7])
        worst = max(worst, inc.pending_bytes)
    assert worst <= 64  # far below the input length: tokens come out while feeding
    assert len(out) > 0.9 * len(enc.encode_bytes(text))
    out += inc.finish()
    assert out == enc.encode_bytes(text)


def test_str_and_bytes_feeds_mix(cl100k):
    inc = cl100k.incremental()
    out = inc.feed("héllo ") + inc.feed("wörld".encode()[:2]) + inc.feed("wörld".encode()[2:]) + inc.finish()
    assert out == cl100k.encode("héllo wörld")


def test_misuse(cl100k):
    inc = cl100k.incremental()
    inc.feed("x")
    inc.finish()
    with pytest.raises(RuntimeError, match="finish"):
        inc.finish()
    with pytest.raises(RuntimeError, match="feed"):
        inc.feed("y")
    with pytest.raises(TypeError, match="data"):
        cl100k.incremental().feed(3)  # type: ignore[arg-type]


LONG_RUNS = {
    "letters": "a" * 3000,
    "equals": "=" * 2500,
    "spaces": " " * 2000 + "x",
    "cjk": "你好" * 900,
    "case_runs": "ABCdef" * 500,  # o200k splits at lower->upper changes inside a letter run
    "digits": "0123456789" * 300,
}


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("run", sorted(LONG_RUNS))
def test_long_pre_tokens_stream_exactly(name, run):
    enc = load_encoding(name)
    text = "Before it: " + LONG_RUNS[run] + " and after it, prose goes on. " * 30
    data = text.encode()
    inc = enc.incremental()
    out, fed, step = [], 0, 1
    while fed < len(data):  # chunk sizes 1, 2, ..., 13, cycling: splits characters and pieces
        chunk = data[fed : fed + step]
        out += inc.feed(chunk)
        fed += len(chunk)
        step = step % 13 + 1
        if fed % 397 < 13:
            assert out == enc.encode_bytes(data[:fed])[: len(out)]
    assert inc.pending_bytes <= len(data) - sum(len(enc.decode_bytes([t])) for t in out)
    out += inc.finish()
    assert out == enc.encode_bytes(data)
    assert inc.pending_bytes == 0


def test_long_pre_token_costs_linear_work(cl100k, monkeypatch):
    # the pending text is re-split on every feed only while it is short; a long piece is re-split after doubling
    scanned = []
    spans = cl100k._spans
    monkeypatch.setattr(cl100k, "_spans", lambda text: scanned.append(len(text)) or spans(text))
    n = 200_000
    inc = cl100k.incremental()
    out = []
    for i in range(0, n, 10):
        out += inc.feed("a" * 10)
    out += inc.feed(" done. " * 100)
    assert sum(scanned) <= 8 * n  # O(n): 10-byte feeds with a re-split each would scan ~n^2/20 = 2e9
    assert out == cl100k.encode("a" * n + " done. " * 100)[: len(out)] and len(out) > 0
    out += inc.finish()
    assert out == cl100k.encode("a" * n + " done. " * 100)


def test_long_piece_is_committed_soon_after_it_ends(cl100k):
    inc = cl100k.incremental()
    out = inc.feed("a" * 100_000)
    assert out == [] and inc.pending_bytes == 100_000
    tail = "1b" + " and then some prose." * 40  # fed byte by byte: the first early re-split falls inside the margin
    for ch in tail:
        out += inc.feed(ch)
    assert inc.pending_bytes < 100  # the long piece went out without waiting for the pending text to double
    out += inc.finish()
    assert out == cl100k.encode("a" * 100_000 + tail)


_LOOKAHEAD_PAT = r"a+b|a|b|\s+|."  # the first piece depends on a 'b' arbitrarily far ahead (past the 4-char margin)


@functools.cache
def _lookahead_encoding():
    from icml26.papers.inc_bpe import Encoding

    return Encoding(name="lookahead", tokens=load_encoding("cl100k_base")._tokens, pat_str=_LOOKAHEAD_PAT)


@pytest.mark.parametrize("tail", ["b", "c"])
def test_unvetted_pattern_with_long_look_ahead_streams_exactly(tail):
    enc = _lookahead_encoding()
    assert enc.encode_ordinary("a" * 10 + "b") == [70540, 89707]
    inc = enc.incremental()
    out = []
    for i in range(10):  # one byte at a time, then the deciding character
        out += inc.feed(b"a")
        assert inc.tokens() == enc.encode_ordinary("a" * (i + 1))
    assert out == [] and inc.pending_bytes == 10  # nothing is final before finish for an unvetted pattern
    out += inc.feed(tail)
    assert inc.tokens() == enc.encode_ordinary("a" * 10 + tail)
    out += inc.finish()
    assert out == enc.encode_ordinary("a" * 10 + tail)


@given(text=st.text(alphabet="ab c\u00e9", max_size=40), cuts=st.lists(st.integers(0, 60), max_size=8))
@SETTINGS
def test_unvetted_pattern_any_chunking(text, cuts):
    enc = _lookahead_encoding()
    data = text.encode()
    inc = enc.incremental()
    out, fed = [], b""
    for chunk in _chunks(data, cuts):
        out += inc.feed(chunk)
        fed += chunk
        assert inc.tokens() == enc.encode_bytes(fed)
    out += inc.finish()
    assert out == enc.encode_ordinary(text)


def _joined_bytes(feeds):
    """What the feeds add up to: consecutive str feeds joined (a surrogate pair across them completes), then UTF-8."""
    from icml26.papers.inc_bpe._text import fix_surrogates

    out, text = b"", ""
    for f in feeds:
        if isinstance(f, str):
            text += f
        else:
            out, text = out + fix_surrogates(text).encode() + f, ""
    return out + fix_surrogates(text).encode()


@pytest.mark.parametrize("pretokenize", [True, False])
def test_surrogate_pair_split_across_str_feeds(pretokenize):
    enc = load_encoding("cl100k_base", pretokenize=pretokenize)
    inc = enc.incremental()
    out = inc.feed("hi \ud83d")
    assert inc.tokens() == enc.encode_ordinary("hi \ud83d")  # held back; tokens() reads it as alone (U+FFFD)
    out += inc.feed("\ude00 there") + inc.finish()
    assert out == enc.encode_ordinary("hi \ud83d\ude00 there")
    if pretokenize:
        assert out == [6151, 91416, 1070]


@pytest.mark.parametrize("pretokenize", [True, False])
@pytest.mark.parametrize(
    "feeds",
    [
        ["hi \ud83d", b" there"],  # next feed is bytes: the high surrogate is alone
        ["hi \ud83d"],  # finish: alone
        ["hi \ud83d", "x"],  # the next str does not start with a low surrogate
        ["\ud83d", "\ud83d", "\ude00!"],  # a second high surrogate: the first is alone, the second pairs
        ["a\ud83d", "", "\ude00"],  # an empty str feed keeps it held
        ["\ude00", "b"],  # a lone low surrogate
        ["ok ", "\ud83d", b"\xf0\x9f", b"\x98\x80", "\ud83d", "\ude00"],
    ],
)
def test_held_high_surrogate_is_read_as_the_joined_text(pretokenize, feeds):
    enc = load_encoding("cl100k_base", pretokenize=pretokenize)
    inc = enc.incremental()
    out = []
    for f in feeds:
        out += inc.feed(f)
    assert out + inc.finish() == enc.encode_bytes(_joined_bytes(feeds))
