"""CPU benchmark of [P30]'s block-sparse attention: our native kernel against torch SDPA (causal), same run.

    .venv/bin/python benchmarks/unisparse/bench_attention.py --out /tmp/unisparse-bench.json

For each sequence length n, H = 8 heads, d = 64, blocks of 64 and each thread count (1, and all cores): torch's
``scaled_dot_product_attention(is_causal=True)`` on fp32 (the flash-attention CPU path), then our kernel on masks of
exactly 10/20/30/50 % of the causal blocks (random blocks plus the sink and diagonal: the kernel's time depends on the
count of blocks, not on which), and, apart, UniSparse's selection (``unisparse_mask``, τ = 0.9, c = 16, granularities
16 and 64) on structured synthetic q/k. Each time is the best of ``--reps`` calls, kernel and SDPA interleaved; the
speed-up is SDPA time / kernel time in the same run. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import torch

from icml26.papers.unisparse import (
    block_sparse_attention,
    full_attention,
    native_available,
    random_block_mask,
    structured_qkv,
    unisparse_mask,
)


def best(fn, reps: int) -> float:  # noqa: ANN001 - a benchmark helper
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", type=int, nargs="+", default=[4096, 8192, 16384, 32768])
    ap.add_argument("--densities", type=float, nargs="+", default=[0.1, 0.2, 0.3, 0.5])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, os.cpu_count() or 1])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    if not native_available():
        raise SystemExit("the native kernel is not built: pip install -e . (without ICML26_NO_EXT)")
    rows = []
    print(f"CPU: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; H=8, d=64, block=64, fp32")
    print("| n | threads | SDPA causal ms | density | kernel ms | speed-up | selection ms (UniSparse density) |")
    print("|---|---|---|---|---|---|---|")
    for n in args.ns:
        q, k, v = structured_qkv(8, n, 64, seed=0)
        for th in dict.fromkeys(args.threads):
            torch.set_num_threads(th)
            t_sdpa = best(lambda q=q, k=k, v=v: full_attention(q, k, v), args.reps)
            mask_u = unisparse_mask(q, k, block=64, cq=16, ck=16, tau=0.9)
            t_sel = best(lambda q=q, k=k: unisparse_mask(q, k, block=64, cq=16, ck=16, tau=0.9), args.reps)
            for dens in args.densities:
                m = random_block_mask(q, k, block=64, density=dens, seed=0)
                t_k = best(lambda m=m, q=q, k=k, v=v: block_sparse_attention(q, k, v, m, threads=th), args.reps)
                row = {"n": n, "threads": th, "sdpa_ms": t_sdpa * 1e3, "density": m.density, "kernel_ms": t_k * 1e3,
                       "speedup": t_sdpa / t_k, "selection_ms": t_sel * 1e3, "unisparse_density": mask_u.density}
                rows.append(row)
                print(f"| {n} | {th} | {row['sdpa_ms']:.0f} | {m.density:.2f} | {row['kernel_ms']:.0f} | "
                      f"{row['speedup']:.2f}x | {row['selection_ms']:.0f} ({mask_u.density:.2f}) |", flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"rows": rows, "torch": torch.__version__, "cpu": platform.processor()}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
