"""The on-disk preprocessing cache of inc_bpe: written once, reused, and rebuilt when missing, corrupt or wrong."""

import hashlib
import os
import struct

import pytest

from icml26.papers.inc_bpe import Encoding, _backend
from icml26.papers.inc_bpe._cache import (
    _HEADER,
    _path,
    cache_dir,
    read_cache,
    vocab_key,
)

pytestmark = pytest.mark.skipif(not _backend.NATIVE, reason="the cache stores the native core's preprocessing")
PAT = r"\S+|\s+"
TEXT = "The cache keeps the canonical rules --- and the byte order    of the tokens. 123"


@pytest.fixture(scope="module")
def tokens(cl100k):
    return cl100k._tokens[:6000]  # a prefix of a rank list is a BPE vocabulary; above the caching threshold


def _file(folder, tokens):
    return _path(os.path.join(folder, "inc_bpe"), vocab_key(tokens))


def _count_builds(monkeypatch):
    calls = {"cold": 0, "cached": 0}
    real = _backend._build

    def spy(tokens, payload=None):
        calls["cold" if payload is None else "cached"] += 1
        return real(tokens, payload)

    monkeypatch.setattr(_backend, "_build", spy)
    return calls


def test_written_then_reused(tmp_path, tokens, monkeypatch):
    calls = _count_builds(monkeypatch)
    a = Encoding(name="a", tokens=tokens, pat_str=PAT, cache=tmp_path)
    path = _file(tmp_path, tokens)
    assert os.path.getsize(path) == _HEADER.size + 12 * len(tokens) + 32
    b = Encoding(name="b", tokens=tokens, pat_str=PAT, cache=tmp_path)
    assert calls == {"cold": 1, "cached": 1}
    assert a.encode(TEXT) == b.encode(TEXT) == Encoding(name="c", tokens=tokens, pat_str=PAT, cache=False).encode(TEXT)


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "wrong_key", "consistent_checksum_bad_rule"])
def test_damaged_file_is_rebuilt(tmp_path, tokens, monkeypatch, damage):
    Encoding(name="a", tokens=tokens, pat_str=PAT, cache=tmp_path)
    path = _file(tmp_path, tokens)
    with open(path, "rb") as f:
        raw = bytearray(f.read())
    if damage == "flip":
        raw[_HEADER.size + 4 * 1000] ^= 0x40
    elif damage == "truncate":
        raw = raw[: len(raw) // 2]
    elif damage == "empty":
        raw = bytearray()
    elif damage == "wrong_key":
        raw[20] ^= 1
    else:  # intact checksum, but token 300's rule no longer concatenates to it: the core's check catches it
        payload = bytearray(raw[_HEADER.size : -32])
        struct.pack_into("<I", payload, 4 * 300, 5)
        raw = raw[: _HEADER.size] + payload + hashlib.sha256(payload).digest()
    with open(path, "wb") as f:
        f.write(bytes(raw))
    calls = _count_builds(monkeypatch)
    enc = Encoding(name="b", tokens=tokens, pat_str=PAT, cache=tmp_path)
    assert calls["cold"] == 1  # rebuilt ...
    assert read_cache(os.path.join(tmp_path, "inc_bpe"), vocab_key(tokens), len(tokens)) is not None  # ... rewritten
    assert enc.encode(TEXT) == Encoding(name="c", tokens=tokens, pat_str=PAT, cache=False).encode(TEXT)


def test_cache_off_and_unwritable(tmp_path, tokens):
    Encoding(name="a", tokens=tokens, pat_str=PAT, cache=False)
    assert not os.path.exists(os.path.join(tmp_path, "inc_bpe"))
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    enc = Encoding(name="b", tokens=tokens, pat_str=PAT, cache=blocker)  # cannot create the folder: still loads
    assert enc.decode(enc.encode(TEXT)) == TEXT


def test_cache_folder_resolution(monkeypatch, tmp_path):
    monkeypatch.delenv("ICML26_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir(True) is None  # no folder named by the caller: nothing is written, not even to the user cache
    monkeypatch.setenv("ICML26_CACHE_DIR", str(tmp_path / "c"))
    assert cache_dir(True) == os.path.join(str(tmp_path / "c"), "inc_bpe")
    monkeypatch.setenv("ICML26_CACHE_DIR", "0")
    assert cache_dir(True) is None
    assert cache_dir(False) is None
    assert cache_dir(tmp_path) == os.path.join(str(tmp_path), "inc_bpe")


def test_bad_cache_argument(tokens):
    with pytest.raises(TypeError, match="cache"):
        Encoding(name="x", tokens=tokens, pat_str=PAT, cache=3)  # type: ignore[arg-type]
