"""Batch throughput of inc_bpe [P19] on 1 and 2 threads (native threads without the GIL), beside tiktoken's
encode_ordinary_batch on the same texts, cl100k, outputs checked equal.

Run (machine otherwise idle):  .venv/bin/python benchmarks/inc_bpe/batch.py --docs 2000
Wall-clock (threads add CPU time), best of --reps; the ratio 2 threads / 1 thread is what to read. On a busy machine
wall-clock scaling is not measurable; the CPU-time lines (inc_bpe's process CPU time per call split into the calling
thread's and the others', medians of --reps) give the work each thread did, whose larger part bounds the wall-clock
of an idle run from below.
"""

from __future__ import annotations

import argparse
import statistics
import time

from icml26.papers.inc_bpe import load_encoding
from icml26.papers.inc_bpe._baselines import stdlib_corpus, tiktoken_encoding


def best(fn, reps):
    b = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        b = min(b, time.perf_counter() - t)
    return b


def cpu_split(fn, reps):
    """Median process CPU time of fn() and the calling thread's part of it (seconds)."""
    total, caller = [], []
    for _ in range(reps):
        p, t = time.process_time(), time.thread_time()
        fn()
        caller.append(time.thread_time() - t)
        total.append(time.process_time() - p)
    return statistics.median(total), statistics.median(caller)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--doc-bytes", type=int, default=4000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    text = stdlib_corpus(args.docs * args.doc_bytes)
    docs = [text[i : i + args.doc_bytes] for i in range(0, len(text), args.doc_bytes)]
    nb = sum(len(d.encode()) for d in docs)
    enc = load_encoding("cl100k_base")
    tk = tiktoken_encoding(enc)
    ref = tk.encode_ordinary_batch(docs, num_threads=1)
    assert enc.encode_ordinary_batch(docs, num_threads=2) == ref
    print(f"{len(docs)} documents, {nb / 1e6:.1f} MB")
    print("| threads | inc_bpe MB/s | tiktoken MB/s | inc_bpe / tiktoken |")
    print("|---|---|---|---|")
    speed = {}
    for th in (1, 2):
        ours = nb / best(lambda: enc.encode_ordinary_batch(docs, num_threads=th), args.reps) / 1e6
        theirs = nb / best(lambda: tk.encode_ordinary_batch(docs, num_threads=th), args.reps) / 1e6
        speed[th] = ours
        print(f"| {th} | {ours:.1f} | {theirs:.1f} | {ours / theirs:.2f}x |")
    print(f"inc_bpe 2 threads / 1 thread: {speed[2] / speed[1]:.2f}x")
    for th in (1, 2):
        total, caller = cpu_split(lambda: enc.encode_ordinary_batch(docs, num_threads=th), args.reps)
        print(f"inc_bpe CPU time, {th} thread(s): {total * 1e3:.0f} ms per call, calling thread {caller * 1e3:.0f} ms, "
              f"the others {(total - caller) * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
