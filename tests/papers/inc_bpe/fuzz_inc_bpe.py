"""atheris fuzz target for the native inc_bpe core (not collected by pytest).

Run:  .venv/bin/python tests/papers/inc_bpe/fuzz_inc_bpe.py -atheris_runs=200000
Checks that no input crashes the core and that encode / streaming agree with each other and round-trip.
"""

import sys

import atheris

with atheris.instrument_imports():
    from icml26.papers.inc_bpe import load_encoding

PURE = load_encoding("cl100k_base", pretokenize=False)
PRE = load_encoding("cl100k_base")  # the native cl100k scanner
PRE_O200K = load_encoding("o200k_base")  # the native o200k scanner


def one_input(data: bytes) -> None:
    if not data:
        return
    cut = data[0] % (len(data) + 1)
    body = data[1:]
    for enc in (PURE, PRE, PRE_O200K):
        ids = enc.encode_bytes(body)
        assert enc.decode_bytes(ids) == body
        inc = enc.incremental()
        out = inc.feed(body[:cut]) + inc.feed(body[cut:]) + inc.finish()
        assert out == ids


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
