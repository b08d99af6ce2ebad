"""atheris fuzz target for the native inc_bpe core (not collected by pytest; test_fuzz_seeds.py replays the seeds).

Run, starting from the seed corpus (atheris writes new interesting inputs into the first folder given, so copy the
seeds to a scratch folder first):
    cp -r tests/papers/inc_bpe/fuzz_seeds /tmp/inc_bpe_corpus
    .venv/bin/python tests/papers/inc_bpe/fuzz_inc_bpe.py /tmp/inc_bpe_corpus -atheris_runs=200000
Input layout: byte 0 picks the streaming cut point, the rest is the text (any bytes, valid UTF-8 or not).
Checks that no input crashes the core, that encode / two-chunk streaming agree and round-trip, that the run-length
shortcut equals the per-byte core, and that pure BPE (and the shortcut) on short inputs equals the heap reference.
"""

import functools
import sys


@functools.cache
def _encodings():
    from icml26.papers.inc_bpe import load_encoding

    pure = load_encoding("cl100k_base", pretokenize=False)
    pre = load_encoding("cl100k_base")  # the native cl100k scanner
    pre_o200k = load_encoding("o200k_base")  # the native o200k scanner
    return pure, pre, pre_o200k, {t: i for i, t in enumerate(pure._tokens)}


def one_input(data: bytes) -> None:
    """The fuzz entry point: one input, asserts on any disagreement."""
    if not data:
        return
    from icml26.papers.inc_bpe import bpe_reference

    pure, pre, pre_o200k, ranks = _encodings()
    cut = data[0] % (len(data) + 1)
    body = data[1:]
    for enc in (pure, pre, pre_o200k):
        ids = enc.encode_bytes(body)
        assert enc.decode_bytes(ids) == body
        inc = enc.incremental()
        out = inc.feed(body[:cut]) + inc.feed(body[cut:]) + inc.finish()
        assert out == ids
    assert pure._core.encode(body) == pure._core.encode(body, runs=False)  # the run-length shortcut is exact
    if 0 < len(body) <= 256:
        assert pure.encode_bytes(body) == bpe_reference(body, ranks)
        for all_at_once in (True, False):
            short = pure._core.encode_runs(body, all_at_once=all_at_once)
            assert short is None or short[0] == bpe_reference(body, ranks)


if __name__ == "__main__":
    import atheris

    with atheris.instrument_imports():
        import icml26.papers.inc_bpe  # noqa: F401  (instrumented before the encodings are built)
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
