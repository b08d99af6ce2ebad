"""Head-to-head SpMV timings for MACKO [P05] on CPU, single thread, ratios measured in one run.

    .venv/bin/python benchmarks/macko/bench_spmv.py [--sizes 4096 8192] [--sparsities 0.3 0.5 0.7 0.9] [--reps 5]

Kernels: MACKO (our C++ kernel), numpy dense fp32 GEMV (OpenBLAS), scipy CSR fp32, our dense fp16 GEMV. numpy's fp16
matvec is deliberately absent (it does not use BLAS and would inflate every ratio 30-80x). Matrices smaller than
~3x the L3 cache are rotated through copies so that every timing streams from DRAM. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from icml26.papers.macko import MackoMatrix, best_isa, dense_fp16_gemv

DRAM_GBPS = 40.0  # measured copy/read bandwidth of this machine (shared notes, perf-anchors §2.5)


def best_time(fns: list, reps: int) -> float:
    for f in fns:
        f()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        for f in fns:
            f()
        ts.append((time.perf_counter() - t) / len(fns))
    return min(ts)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[4096, 8192])
    ap.add_argument("--sparsities", type=float, nargs="+", default=[0.3, 0.5, 0.7, 0.9])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    print(f"ISA: {best_isa()}; single thread; ms = best of {a.reps}; GB/s = format bytes / time")
    print("| N | sparsity | kernel | MB | ms | GB/s | % of 40 GB/s | speedup vs MACKO |")
    print("|---|---|---|---|---|---|---|---|")
    g = np.random.default_rng(a.seed)
    for n in a.sizes:
        copies = max(1, int(np.ceil(3 * 32e6 / (2 * n * n * 0.5))))  # >= ~3x L3 of MACKO bytes per rotation
        x = g.standard_normal(n).astype(np.float32)
        for s in a.sparsities:
            w16 = g.standard_normal((n, n), dtype=np.float32).astype(np.float16)
            w16[g.random((n, n), dtype=np.float32) < s] = 0
            k = copies if s < 0.8 else copies * 2
            A = [MackoMatrix.from_dense(w16) for _ in range(k)]
            W16 = [w16.copy() for _ in range(min(k, 3))]
            W32 = [w16.astype(np.float32) for _ in range(min(k, 2))]
            C32 = [sp.csr_matrix(W32[0]) for _ in range(min(k, 2))]
            kern = {
                "MACKO fp16": ([lambda M=M: M.matvec(x) for M in A], A[0].nbytes),
                "dense fp16 (ours)": ([lambda M=M: dense_fp16_gemv(M, x) for M in W16], W16[0].nbytes),
                "dense fp32 (numpy)": ([lambda M=M: M @ x for M in W32], W32[0].nbytes),
                "CSR fp32 (scipy)": ([lambda M=M: M @ x for M in C32],
                                     C32[0].data.nbytes + C32[0].indices.nbytes + C32[0].indptr.nbytes),
            }
            with threadpool_limits(1):
                res = {name: (best_time(fns, a.reps), nb) for name, (fns, nb) in kern.items()}
            tm = res["MACKO fp16"][0]
            for name, (t, nb) in res.items():
                gbs = nb / t / 1e9
                print(f"| {n} | {s:.0%} | {name} | {nb / 1e6:.1f} | {t * 1e3:.2f} | {gbs:.1f} | "
                      f"{gbs / DRAM_GBPS:.0%} | {t / tm:.2f}x |", flush=True)
            del A, W16, W32, C32


if __name__ == "__main__":
    main()
