"""Head-to-head speed of inc_bpe [P19] against every fast BPE peer, cl100k and o200k, one thread, one run.

Run:  TOKENIZERS_PARALLELISM=false RAYON_NUM_THREADS=1 .venv/bin/python benchmarks/inc_bpe/bench.py --out /tmp/inc_bpe_bench.json
Peers (benchmarks/inc_bpe/requirements.txt): tiktoken, bpe-openai, HF tokenizers, tuetoken, tokie, riptoken; one that
is not installed is skipped with a message. Every peer's output is checked against tiktoken on every row, and only
the exact ones count for "best exact peer". Timings are process CPU time; the repetitions are interleaved (each
repetition times every tokenizer once, in turn) and the median is reported, so that a loaded machine slows all of
them alike and the ratios stay readable.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("RAYON_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peers import peers  # noqa: E402

from icml26.papers.inc_bpe import load_encoding  # noqa: E402
from icml26.papers.inc_bpe._baselines import stdlib_corpus  # noqa: E402

PEERS = ["tiktoken", "bpe-openai", "hf", "tuetoken", "tokie", "riptoken"]


def english(n: int) -> str:
    """Python's own reference documentation (``pydoc_data.topics``, English prose), repeated to ``n`` bytes."""
    import pydoc_data.topics as t

    text = "\n".join(t.topics[k] for k in sorted(t.topics))
    return (text * (n // len(text.encode()) + 1)).encode()[:n].decode("utf-8", "ignore")


def multilingual(n: int, rng: random.Random) -> str:
    """Random words of Latin, Cyrillic, Greek, Arabic, Devanagari, CJK and emoji characters with spaces/punctuation."""
    blocks = [(0x61, 0x7A), (0xE0, 0xFF), (0x430, 0x44F), (0x3B1, 0x3C9), (0x627, 0x64A), (0x915, 0x939),
              (0x4E00, 0x4FFF), (0x3041, 0x3096), (0xAC00, 0xAD00), (0x1F600, 0x1F64F)]
    out, size = [], 0
    while size < n:
        lo, hi = rng.choice(blocks)
        w = "".join(chr(rng.randint(lo, hi)) for _ in range(rng.randint(1, 8))) + rng.choice(" , . \n")
        out.append(w)
        size += len(w.encode())
    return "".join(out).encode()[:n].decode("utf-8", "ignore")


def cases(n: int) -> list[tuple[str, str]]:
    rng = random.Random(0)
    out = [("English prose (Python docs)", english(n)), ("code (stdlib .py)", stdlib_corpus(n)),
           ("multilingual random words", multilingual(n, rng)),
           ("random a-z", "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))),
           ("random digits", "".join(rng.choice("0123456789") for _ in range(n)))]
    out += [(f"{c!r} x n", c * n) for c in (" ", "\n", "-", "a")]
    return out


def oracle_by_pieces(name: str, text: str) -> list[int]:
    """tiktoken's own BPE (its pattern-free encoding) on each piece of tiktoken's pattern, split by ``regex``."""
    import regex

    from icml26.papers.inc_bpe._baselines import tiktoken_reference

    pat, pure = tiktoken_reference(name)._pat_str, tiktoken_reference(name, pretokenize=False)
    return [t for piece in regex.findall(pat, text) for t in pure.encode_ordinary(piece)]


def time_row(fns: dict, text: str, reps: int) -> dict[str, float]:
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(reps):
        for k, fn in fns.items():
            t = time.process_time()  # CPU time: wall time on a loaded shared machine inflates long calls
            fn(text)
            times[k].append(time.process_time() - t)
    return {k: statistics.median(v) for k, v in times.items()}


def run_encoding(name: str, n: int, reps: int, folder: str) -> tuple[list[dict], list[str]]:
    enc = load_encoding(name)
    fns, missing = peers(name, folder)
    fns = {"inc_bpe": enc.encode_ordinary, **fns}
    rows = []
    for case, text in cases(n):
        nb = len(text.encode())
        live, row = {}, {"encoding": name, "case": case, "bytes": nb}
        try:
            ref = fns["tiktoken"](text)
        except BaseException as exc:  # tiktoken's regex engine overflows its stack on some long runs (o200k)
            ref = oracle_by_pieces(name, text)
            row["oracle"] = f"tiktoken raised {type(exc).__name__}: its BPE on the regex module's pieces"
        for k, fn in fns.items():
            try:
                row[k + "_exact"] = fn(text) == ref
                live[k] = fn
            except BaseException as exc:  # a peer that crashes on a row (a panic is a BaseException) gets no number
                row[k + "_error"] = f"{type(exc).__name__}: {str(exc)[:80]}"
        for k, dt in time_row(live, text, reps).items():
            row[k] = nb / dt / 1e6
        exact = [k for k in PEERS if row.get(k + "_exact")]
        best = max(exact, key=lambda k: row[k]) if exact else None
        row["best_exact_peer"] = best
        row["ratio"] = row["inc_bpe"] / row[best] if best else None
        rows.append(row)
        print(f"{name} {case}: inc_bpe {row['inc_bpe']:.1f} MB/s, best exact peer {best} "
              f"{row[best]:.1f} MB/s" if best else f"{name} {case}: no exact peer", file=sys.stderr, flush=True)
    return rows, missing


def cell(r: dict, k: str) -> str:
    if k + "_error" in r:
        return "error"
    if k not in r:
        return "-"
    return f"{r[k]:.1f}" + ("" if r.get(k + "_exact") else " ✗")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bytes", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--encodings", default="cl100k_base,o200k_base")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows, missing = [], []
    with tempfile.TemporaryDirectory() as folder:
        for name in args.encodings.split(","):
            r, m = run_encoding(name, args.bytes, args.reps, folder)
            rows += r
            missing = m
    for m in missing:
        print(m)
    print(f"MB/s, one thread, median of {args.reps} interleaved repetitions, {args.bytes} B per case; "
          "✗: output differs from tiktoken (not counted)")
    print("| encoding | case | inc_bpe | " + " | ".join(PEERS) + " | inc_bpe / best exact peer |")
    print("|---" * (len(PEERS) + 4) + "|")
    for r in rows:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}x ({r['best_exact_peer']})"
        print(f"| {r['encoding'].split('_')[0]} | {r['case']} | {cell(r, 'inc_bpe')} | "
              + " | ".join(cell(r, k) for k in PEERS) + f" | {ratio} |")
    worst = min((r["ratio"] for r in rows if r["ratio"] is not None), default=None)
    print("inc_bpe exact on every row:", all(r["inc_bpe_exact"] for r in rows), "| lowest ratio:",
          "-" if worst is None else f"{worst:.2f}x")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"rows": rows, "bytes": args.bytes, "reps": args.reps, "skipped": missing}, f, indent=1)


if __name__ == "__main__":
    main()
