"""Streaming and pickling regressions of [P19]'s encoder: tokens() after finish, one stream fed from many threads,
and encodings sent to other processes (pickle, deepcopy)."""

from __future__ import annotations

import copy
import pickle
import threading

import pytest

pytest.importorskip("tiktoken")

from icml26.papers.inc_bpe import Encoding, load_encoding  # noqa: E402
from icml26.papers.inc_bpe._vocab import CL100K_PAT  # noqa: E402


@pytest.mark.parametrize("pretokenize", [False, True])
@pytest.mark.parametrize("text", [b"abc", b"hello world", b"  spaces  and\ttabs\n"])
def test_tokens_after_finish_are_the_whole_encoding_once(pretokenize, text, tk_cl100k):
    enc = load_encoding("cl100k_base", pretokenize=pretokenize)
    inc = enc.incremental()
    got = inc.feed(text)
    got += inc.finish()
    assert inc.tokens() == got == enc.encode_bytes(text)
    if pretokenize:
        assert got == tk_cl100k.encode_ordinary(text.decode())


@pytest.mark.parametrize("pretokenize", [False, True])
def test_one_stream_fed_from_four_threads_keeps_every_byte_once(pretokenize):
    enc = load_encoding("cl100k_base", pretokenize=pretokenize)
    inc = enc.incremental()
    chunks = {t: [f"thread {t} line {i}: some words, 123 numbers.\n".encode() for i in range(150)] for t in range(4)}
    fed: list[bytes] = []
    order = threading.Lock()

    def feed(t: int) -> None:
        for c in chunks[t]:
            with order:  # records the order the chunks enter the stream in (the stream's own lock serialises too)
                inc.feed(c)
                fed.append(c)

    threads = [threading.Thread(target=feed, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    inc.finish()
    whole = b"".join(fed)
    assert enc.decode_bytes(inc.tokens()) == whole
    assert inc.tokens() == enc.encode_bytes(whole)


def test_concurrent_feeds_without_an_outer_lock_lose_and_duplicate_nothing():
    enc = load_encoding("cl100k_base", pretokenize=True)
    inc = enc.incremental()
    chunk = b"x" * 10 + b" the quick brown fox, 42.\n"

    def feed() -> None:
        for _ in range(200):
            inc.feed(chunk)

    threads = [threading.Thread(target=feed) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    inc.finish()
    assert len(enc.decode_bytes(inc.tokens())) == 4 * 200 * len(chunk)  # every chunk whole: all equal, so any order


@pytest.mark.parametrize("pretokenize", [False, True])
def test_builtin_encodings_pickle_and_deepcopy(pretokenize):
    enc = load_encoding("cl100k_base", pretokenize=pretokenize)
    for clone in (pickle.loads(pickle.dumps(enc)), copy.deepcopy(enc)):
        assert clone.name == enc.name and clone.pretokenize == enc.pretokenize
        assert clone.encode_ordinary("pickled encodings, 1234 ok") == enc.encode_ordinary("pickled encodings, 1234 ok")


def test_custom_encodings_pickle_with_their_tokens_and_specials():
    enc = Encoding.from_ranks({bytes([i]): i for i in range(256)} | {b"ab": 256}, pat_str=CL100K_PAT,
                              special_tokens={"<eot>": 300}, name="tiny")
    clone = pickle.loads(pickle.dumps(enc))
    text = "abab<eot>c"
    assert clone.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all") == [256, 256, 300, 99]


@pytest.mark.parametrize(("text", "allowed"), [("abc", {"bc"}), ("abc", {"ab"}), ("abcbc", {"bc"}), ("xabcab", {"ab", "bc"})])
def test_overlapping_specials_follow_tiktoken(text, allowed):
    import tiktoken

    ranks = {bytes([i]): i for i in range(256)}
    specials = {"ab": 300, "bc": 301}
    ours = Encoding.from_ranks(ranks, pat_str=CL100K_PAT, special_tokens=specials, name="overlap")
    theirs = tiktoken.Encoding("overlap", pat_str=CL100K_PAT, mergeable_ranks=ranks, special_tokens=specials)
    assert ours.encode(text, allowed_special=allowed, disallowed_special=()) == theirs.encode(
        text, allowed_special=allowed, disallowed_special=())
    assert ours.encode("abc", allowed_special={"bc"}, disallowed_special=()) == [97, 301]


def test_a_disallowed_special_overlapping_an_ordinary_one_still_raises():
    ranks = {bytes([i]): i for i in range(256)}
    enc = Encoding.from_ranks(ranks, pat_str=CL100K_PAT, special_tokens={"ab": 300, "bc": 301}, name="overlap")
    with pytest.raises(ValueError, match="'bc'"):
        enc.encode("abc", disallowed_special={"bc"})
