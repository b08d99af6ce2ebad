"""One-shot GPU check of the MACKO Triton kernel [P05]: correctness against the CPU reference, then timings against
torch dense fp16 (cuBLAS) and torch CSR (cuSPARSE). Needs torch+CUDA and triton; ``gpu_session.sh`` runs it together
with the GPU claims:

    python benchmarks/macko/gpu_check.py            # ~1-2 min on an H100/H200/4090
    TRITON_INTERPRET=1 python benchmarks/macko/gpu_check.py --interpret --sizes 64   # dry run on a CPU (tests)

Timings: fp16 x in, fp16 y out (fp32 accumulation), each operand rotated over copies so that a pass touches
>= 256 MiB (none stays in L2), 40 calls replayed from a CUDA graph (eager CUDA events for a kernel that cannot be
captured). The Triton launch shape is the best of CONFIGS (entries per step, warps per row), the paper's one warp
per row with 8 entries a lane (256, 1) first; the table names the winner.
Prints one Markdown table; exits non-zero when the kernel disagrees with the reference.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

CONFIGS = ((256, 1), (128, 1), (512, 1), (512, 2), (1024, 4))  # (block, num_warps) of the Triton program


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[4096, 8192])
    ap.add_argument("--sparsities", type=float, nargs="+", default=[0.3, 0.5, 0.7, 0.9])
    ap.add_argument("--interpret", action="store_true", help="Triton's interpreter on the CPU: checks the script only")
    args = ap.parse_args()
    import torch

    from icml26.papers.macko import MackoMatrix
    from icml26.papers.macko._timing import (
        GPU_STREAM_BYTES,
        cuda_graph_time,
        device_time,
        n_copies,
    )
    from icml26.papers.macko._triton import TritonMacko

    dev = "cpu" if args.interpret else "cuda"
    print(f"GPU: {'none (Triton interpreter)' if args.interpret else torch.cuda.get_device_name()}")
    g = np.random.default_rng(0)
    gen = torch.Generator(device=dev).manual_seed(0)  # seeded: never the global torch RNG
    # 1. correctness on awkward shapes (empty rows, gaps >= 16 and 32, lengths not multiple of 8), batch 1 and 3
    bad = 0
    for r, c, d in [(1, 1, 1.0), (7, 45, 0.5), (33, 300, 0.05), (64, 1000, 0.3), (50, 77, 0.9), (3, 200, 0.0),
                    (257, 4099, 0.5)]:
        w = g.standard_normal((r, c)).astype(np.float16)
        w[g.random((r, c)) >= d] = 0
        w[0, :] = 0
        A = MackoMatrix.from_dense(w)
        for b in (1, 3):
            X = g.standard_normal((b, c)).astype(np.float32)
            ref = np.stack([A.matvec(X[i], kernel="reference") for i in range(b)])
            got = TritonMacko(A, interpret=args.interpret)(torch.from_numpy(X).to(dev)).cpu().numpy()
            err = float(np.max(np.abs(got - ref), initial=0.0))
            ok = np.allclose(got, ref, rtol=1e-4, atol=1e-4 * np.sqrt(c))
            bad += not ok
            print(f"correctness {r}x{c} d={d} batch={b}: max abs err {err:.2e} {'ok' if ok else 'MISMATCH'}")

    def graph_us(fs: list) -> float | None:  # µs per call replayed from a CUDA graph; None: not capturable
        sec = None if args.interpret else cuda_graph_time(fs, calls=40, torch=torch)
        return None if sec is None else sec * 1e6

    def eager_us(fs: list) -> float:  # µs per call, eager launches (CUDA events; wall clock in the interpreter)
        return device_time(fs, calls=2 if args.interpret else 40, torch=None if args.interpret else torch) * 1e6

    def copies(nbytes: int) -> int:
        return 1 if args.interpret else n_copies(nbytes, GPU_STREAM_BYTES)

    # 2. timings (µs), every launch shape in CONFIGS tried
    # MACKO and cuBLAS: both replayed from CUDA graphs, or (if either cannot be captured) both eager; cuSPARSE is
    # always eager and is compared with MACKO eager, so that launch overhead is on both sides of every ratio
    print("| N | sparsity | timing | MACKO µs (best launch) | block, warps | MACKO µs at (256, 1) | cuBLAS fp16 µs | "
          "vs cuBLAS | MACKO eager µs | cuSPARSE CSR fp16 µs (eager) | vs cuSPARSE |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        for s in args.sparsities:
            w = g.standard_normal((n, n), dtype=np.float32).astype(np.float16)
            w[g.random((n, n), dtype=np.float32) < s] = 0
            A = MackoMatrix.from_dense(w)
            x = torch.randn(1, n, device=dev, generator=gen).half()
            W = torch.from_numpy(w).to(dev)
            xh = x.reshape(n, 1)
            mk = {cfg: [lambda m=m: m(x, out_dtype=torch.float16)
                        for m in [TritonMacko(A, block=cfg[0], num_warps=cfg[1], interpret=args.interpret)
                                  for _ in range(copies(A.nbytes))]]
                  for cfg in CONFIGS}  # one kernel object per rotated copy of the arrays
            dense = [lambda w=w: w @ xh for w in [W] + [W.clone() for _ in range(copies(2 * n * n) - 1)]]
            tm_g = [graph_us(f) for f in mk.values()]
            td_g = graph_us(dense)
            mode = "graph" if td_g is not None and all(v is not None for v in tm_g) else "eager"
            te = [eager_us(f) for f in mk.values()]
            tm_e = min(te)
            per_cfg = tm_g if mode == "graph" else te
            best = int(np.argmin(per_cfg))
            tm, td = per_cfg[best], (td_g if mode == "graph" else eager_us(dense))
            try:
                Wc = W.to_sparse_csr()
                tc = eager_us([lambda w=w: w @ xh for w in [Wc] + [Wc.clone() for _ in range(copies(6 * A.nnz) - 1)]])
            except (RuntimeError, NotImplementedError):
                tc = float("nan")
            print(f"| {n} | {s:.0%} | {mode} | {tm:.1f} | {CONFIGS[best][0]}, {CONFIGS[best][1]} | {per_cfg[0]:.1f} | "
                  f"{td:.1f} | {td / tm:.2f}x | {tm_e:.1f} | {tc:.1f} | {tc / tm_e:.2f}x |", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
