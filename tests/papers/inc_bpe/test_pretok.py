"""The native cl100k / o200k pre-tokenizer of inc_bpe: against tiktoken (the specification) and the regex module."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icml26.papers.inc_bpe import CL100K_PAT, O200K_PAT, Encoding, load_encoding
from icml26.papers.inc_bpe._backend import NATIVE, split_spans

pytestmark = pytest.mark.skipif(not NATIVE, reason="the native scanner needs the extension (ICML26_NO_EXT unset)")

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# every class the patterns distinguish: letters of each case class (Lu Ll Lt Lm Lo), marks, digits of each kind,
# whitespace incl. \v \f \x85 NBSP U+2028 U+3000, apostrophes and contraction letters incl. long s, CR/LF, slash
TRICKY = list(" \t\n\r\x0b\x0c\x1c\x85\u00a0\u2028\u3000'sStTmMdDlLvVrReE\u017f/-.,!0129") + [
    "\u01c5", "\u02b0", "\u0301", "\u0903", "あ", "你", "Ⅻ", "½", "٣", "😀", "\r\n", "'ll", "'S", "'Ve", "ÉCOLE", "été",
]
TEXT = st.lists(st.sampled_from(TRICKY), max_size=40).map("".join) | st.text(max_size=40)


def _same_unicode(text: str) -> bool:
    """No character whose classes differ between tiktoken's Unicode (the native tables) and the regex module's."""
    import regex

    from icml26.papers.inc_bpe import _backend

    for ch in set(text):
        if ord(ch) < 0x80 or 0xD800 <= ord(ch) < 0xE000:
            continue
        f = _backend._native.unicode_flags(ord(ch))
        if bool(regex.match(r"\p{L}", ch)) != bool(f & 1) or bool(regex.match(r"\p{N}", ch)) != bool(f & 2):
            return False
    return True


def _regex_twin(enc: Encoding) -> Encoding:
    """The same encoding, forced onto the regex-module split (the oracle path)."""
    twin = Encoding.__new__(Encoding)
    twin.__dict__.update(enc.__dict__)
    twin._pat_kind = 0
    return twin


def test_patterns_are_detected(cl100k, o200k):
    assert (cl100k._pat_kind, o200k._pat_kind) == (1, 2)
    own = Encoding(name="own", tokens=cl100k._tokens, pat_str=r"\S+|\s+")
    assert own._pat_kind == 0  # a user's own pattern goes through the regex module


def test_worked_example_splits():
    text = "Hello, WORLD's 12345 don't\n\n  x  \tCamelCase"
    def pieces(kind):
        data = text.encode()
        f = split_spans(data, kind)
        return [data[a:b].decode() for a, b in zip(f[0::2], f[1::2])]
    assert pieces(1) == ["Hello", ",", " WORLD", "'s", " ", "123", "45", " don", "'t", "\n\n", " ", " x", "  ",
                         "\tCamelCase"]
    assert pieces(2) == ["Hello", ",", " WORLD's", " ", "123", "45", " don't", "\n\n", " ", " x", "  ", "\tCamel",
                         "Case"]


@given(TEXT)
@SETTINGS
def test_equals_tiktoken(cl100k, tk_cl100k, o200k, tk_o200k, text):
    assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text)
    assert o200k.encode_ordinary(text) == tk_o200k.encode_ordinary(text)


def test_every_code_point_in_context(cl100k, tk_cl100k, o200k, tk_o200k):
    pool = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    for step, ctx in [(13, "a{}b {}1"), (17, "A{}a'{}s"), (19, "\n{} {}\n"), (23, "{}{}x")]:
        text = "".join(ctx.format(c, c) for c in pool[::step])
        assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text)
        assert o200k.encode_ordinary(text) == tk_o200k.encode_ordinary(text)


def test_fuzz_random_code_points(cl100k, tk_cl100k, o200k, tk_o200k):
    rng = random.Random(7)
    for _ in range(2000):
        text = "".join(chr(rng.choice([rng.randrange(0x30000), rng.randrange(0x80)]))
                       if rng.random() < 0.4 else rng.choice(TRICKY) for _ in range(rng.randint(0, 20)))
        text = text.encode("utf-8", "replace").decode("utf-8")
        assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text)
        assert o200k.encode_ordinary(text) == tk_o200k.encode_ordinary(text)


@given(st.binary(max_size=40) | TEXT.map(lambda t: t.encode("utf-8", "replace")))
@SETTINGS
def test_bytes_and_spans_equal_the_regex_path(cl100k, o200k, data):
    # invalid UTF-8 bytes are one unclassified character each, as under surrogateescape in the regex path
    if not _same_unicode(data.decode("utf-8", "surrogateescape")):
        return  # a code point assigned after Unicode 16: the regex module splits it differently (tested below)
    for enc in (cl100k, o200k):
        twin = _regex_twin(enc)
        assert enc.encode_bytes(data) == twin.encode_bytes(data)
        text = data.decode("utf-8", "surrogateescape")
        assert enc._spans(text) == twin._spans(text)


def test_unicode_tables_are_tiktokens():
    tiktoken = pytest.importorskip("tiktoken")
    from icml26.papers.inc_bpe import _backend

    ranks = {bytes([b]): b for b in range(256)}
    cps = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    text = "".join(map(chr, cps))
    flags = [_backend._native.unicode_flags(c) for c in cps]
    classes = {1: r"\p{L}", 2: r"\p{N}", 4: r"\s", 8: r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", 16: r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"}
    for bit, cls in classes.items():
        probe = tiktoken.Encoding("probe", pat_str=f"(?:{cls})+", mergeable_ranks=ranks, special_tokens={})
        want = probe.decode_bytes(probe.encode_ordinary(text)).decode("utf-8")
        got = "".join(ch for ch, f in zip(text, flags) if f & bit)
        assert got == want, cls


def test_regex_module_is_a_newer_unicode(cl100k, tk_cl100k):
    # U+31350 (Unicode 15 CJK ext. H) is a letter for everyone; the regex module also knows letters that tiktoken's
    # Unicode tables (16.0) do not, e.g. U+16EA0 (Unicode 17): the native scanner follows tiktoken
    regex = pytest.importorskip("regex")
    new = "\U00016ea0"
    if not regex.match(r"\p{L}", new):
        pytest.skip("this regex module predates Unicode 17")
    text = f"x{new}y 1{new}"
    assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text)
    assert cl100k._spans(text) == [(0, 1), (1, 3), (3, 4), (4, 5), (5, 6)]  # tiktoken: U+16EA0 is not a letter
    assert _regex_twin(cl100k)._spans(text) == [(0, 3), (3, 4), (4, 5), (5, 6)]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_streaming_uses_the_same_split(name):
    enc = load_encoding(name)
    text = "Ünï 'S  \u3000 \r\n\r\n x1234 你好\U00016ea0😀 DON'T//\n"
    data = text.encode()
    inc = enc.incremental()
    out = []
    for i in range(len(data)):
        out += inc.feed(data[i : i + 1])
    assert out + inc.finish() == enc.encode(text)


def test_bad_input():
    with pytest.raises(ValueError, match="pattern"):
        split_spans(b"abc", 3)
    with pytest.raises(TypeError, match="text"):
        split_spans(123, 1)  # type: ignore[arg-type]
    assert CL100K_PAT != O200K_PAT
