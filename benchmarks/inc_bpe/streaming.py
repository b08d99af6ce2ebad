"""Streaming speed of inc_bpe [P19]: bytes arriving in chunks, tokens committed eagerly, against re-encoding.

Run:  .venv/bin/python benchmarks/inc_bpe/streaming.py --bytes 200000 --chunk 1024
A stream of stdlib code arrives in --chunk byte pieces. inc_bpe's incremental encoder (pure BPE, no
pre-tokenization, the paper's setting) feeds each piece once; the alternative a tiktoken user has is to re-encode
the whole prefix after every piece. Both end with the same tokens (checked). One thread, process CPU time.
"""

from __future__ import annotations

import argparse
import time

from icml26.papers.inc_bpe import load_encoding
from icml26.papers.inc_bpe._baselines import stdlib_corpus, tiktoken_encoding


def cpu_seconds(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bytes", type=int, default=200_000)
    ap.add_argument("--chunk", type=int, default=1024)
    args = ap.parse_args()
    data = stdlib_corpus(args.bytes).encode()
    pure = load_encoding("cl100k_base", pretokenize=False)
    oracle = tiktoken_encoding(pure, pretokenize=False)
    out: dict[str, list[int]] = {}

    def eager() -> None:
        inc = pure.incremental()
        for i in range(0, len(data), args.chunk):
            inc.feed(data[i : i + args.chunk])
        inc.finish()
        out["inc_bpe"] = list(inc.tokens())

    def reencode() -> None:
        last: list[int] = []
        for end in range(args.chunk, len(data) + args.chunk, args.chunk):
            last = oracle.encode_ordinary(data[:end].decode("utf-8", "ignore"))
        out["tiktoken"] = last

    t_inc, t_tik = cpu_seconds(eager), cpu_seconds(reencode)
    same = out["inc_bpe"] == out["tiktoken"]
    mb = len(data) / 1e6
    print(f"{len(data)} B in {args.chunk} B chunks: inc_bpe eager {mb / t_inc:.2f} MB/s, "
          f"tiktoken re-encoding prefixes {mb / t_tik:.3f} MB/s, ratio {t_tik / t_inc:.0f}x, same tokens: {same}")


if __name__ == "__main__":
    main()
