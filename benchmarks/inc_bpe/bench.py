"""Head-to-head timings for inc_bpe [P19] against tiktoken, bpe-openai and HF tokenizers (cl100k, one thread).

Run:  TOKENIZERS_PARALLELISM=false RAYON_NUM_THREADS=1 .venv/bin/python benchmarks/inc_bpe/bench.py --out /tmp/inc_bpe_bench.json
All numbers of one table come from one run (best of --reps, process CPU time); ratios are what to read on a shared, noisy machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("RAYON_NUM_THREADS", "1")

from icml26.papers.inc_bpe import load_encoding
from icml26.papers.inc_bpe._baselines import (
    bpe_openai_encoder,
    hf_tokenizer,
    stdlib_corpus,
    tiktoken_encoding,
)


def best(fn, reps):
    b = float("inf")
    for _ in range(reps):
        t = time.process_time()  # CPU time: wall time on a loaded shared machine inflates long calls
        fn()
        b = min(b, time.process_time() - t)
    return b


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bytes", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    enc, pure = load_encoding("cl100k_base"), load_encoding("cl100k_base", pretokenize=False)
    impl = {
        "inc_bpe": (enc.encode_ordinary, pure.encode_ordinary),
        "tiktoken": (tiktoken_encoding(enc).encode_ordinary, tiktoken_encoding(enc, pretokenize=False).encode_ordinary),
        "bpe-openai": (bpe_openai_encoder("cl100k_base").encode, None),
        "hf": ((lambda h: lambda s: h.encode(s).ids)(hf_tokenizer(enc)),
               (lambda h: lambda s: h.encode(s).ids)(hf_tokenizer(enc, pretokenize=False))),
    }
    n = args.bytes
    rng = random.Random(0)
    rows = []
    cases = [("ordinary text (stdlib code)", stdlib_corpus(n), 0)]
    for name, s in [("'a' x n", "a" * n), ("'-' x n", "-" * n), ("' ' x n", " " * n),
                    ("random a-z", "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))),
                    ("CJK run", "你" * (n // 3))]:
        cases.append((name, s, 0))
    cases.append(("pure BPE, no pre-tokenization (stdlib code)", stdlib_corpus(n), 1))
    for name, text, mode in cases:
        nb = len(text.encode())
        ref = impl["inc_bpe"][mode](text)
        row = {"case": name, "bytes": nb}
        for k, fns in impl.items():
            fn = fns[mode]
            if fn is None:
                row[k] = None
                continue
            same = fn(text) == ref
            row[k] = nb / best(lambda: fn(text), args.reps) / 1e6
            row[k + "_identical"] = same
        rows.append(row)
    # streaming: 1 KiB chunks, eager inc_bpe vs re-encoding every prefix with tiktoken (pure BPE)
    data = stdlib_corpus(min(n, 200_000)).encode()
    tkp = tiktoken_encoding(enc, pretokenize=False)

    def stream():
        inc = pure.incremental()
        for i in range(0, len(data), 1024):
            inc.feed(data[i : i + 1024])
        inc.finish()

    def reencode():
        for i in range(1024, len(data) + 1024, 1024):
            tkp.encode_ordinary(data[:i].decode("utf-8", "ignore"))

    rows.append({"case": f"streaming 1 KiB chunks ({len(data)} B): inc_bpe eager vs tiktoken re-encode prefixes",
                 "bytes": len(data), "inc_bpe": len(data) / best(stream, 1) / 1e6,
                 "tiktoken": len(data) / best(reencode, 1) / 1e6, "bpe-openai": None, "hf": None})
    cols = ["inc_bpe", "tiktoken", "bpe-openai", "hf"]
    print("| case | " + " | ".join(f"{c} MB/s" for c in cols) + " | inc_bpe / tiktoken | inc_bpe / hf |")
    print("|---" * (len(cols) + 3) + "|")
    for r in rows:
        cells = ["-" if r[c] is None else f"{r[c]:.2f}" for c in cols]
        rt = f"{r['inc_bpe'] / r['tiktoken']:.2f}x"
        rh = "-" if r["hf"] is None else f"{r['inc_bpe'] / r['hf']:.2f}x"
        print(f"| {r['case']} | " + " | ".join(cells) + f" | {rt} | {rh} |")
    bad = [(r["case"], k) for r in rows for k in cols if r.get(k + "_identical") is False]
    print("outputs identical to inc_bpe:", "all" if not bad else bad)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"rows": rows, "bytes": n, "reps": args.reps}, f, indent=1)


if __name__ == "__main__":
    main()
