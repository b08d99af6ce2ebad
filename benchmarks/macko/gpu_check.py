"""One-shot GPU check of the MACKO Triton kernel [P05]: correctness against the CPU reference, then timings against
torch dense fp16 (cuBLAS) and torch CSR (cuSPARSE). Run in a session that has a GPU (needs torch+CUDA and triton):

    .venv/bin/pip install triton   # if missing
    .venv/bin/python benchmarks/macko/gpu_check.py            # ~1-2 min on an H100/H200/4090
    .venv/bin/python -c "from icml26.claims import run_claim as r; x=r('macko','spmv_speedup_50',budget='full'); print(x['verdict'], x['reason'])"

Prints one Markdown table; exits non-zero when the kernel disagrees with the reference.
"""

from __future__ import annotations

import sys

import numpy as np


def main() -> int:
    import torch

    from icml26.papers.macko import MackoMatrix
    from icml26.papers.macko._triton import TritonMacko

    print(f"GPU: {torch.cuda.get_device_name()}")
    g = np.random.default_rng(0)
    gen = torch.Generator(device="cuda").manual_seed(0)  # seeded: never the global torch RNG
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
            got = TritonMacko(A)(torch.from_numpy(X).cuda()).cpu().numpy()
            err = float(np.max(np.abs(got - ref), initial=0.0))
            ok = np.allclose(got, ref, rtol=1e-4, atol=1e-4 * np.sqrt(c))
            bad += not ok
            print(f"correctness {r}x{c} d={d} batch={b}: max abs err {err:.2e} {'ok' if ok else 'MISMATCH'}")

    def timed(f, iters: int = 50) -> float:
        for _ in range(5):
            f()
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(iters):
            f()
        e.record()
        torch.cuda.synchronize()
        return s.elapsed_time(e) / iters * 1e3  # µs

    # 2. timings (µs), block sizes of the Triton program tried: 128/256/512
    print("| N | sparsity | MACKO µs (best block) | cuBLAS fp16 µs | cuSPARSE CSR fp16 µs | vs cuBLAS | vs cuSPARSE |")
    print("|---|---|---|---|---|---|---|")
    for n in (4096, 8192):
        for s in (0.3, 0.5, 0.7, 0.9):
            w = g.standard_normal((n, n), dtype=np.float32).astype(np.float16)
            w[g.random((n, n), dtype=np.float32) < s] = 0
            A = MackoMatrix.from_dense(w)
            x = torch.randn(1, n, device="cuda", generator=gen)
            tm = min(timed(lambda k=TritonMacko(A, block=blk): k(x)) for blk in (128, 256, 512))
            W = torch.from_numpy(w).cuda()
            xh = x.half().reshape(n, 1)
            td = timed(lambda: W @ xh)
            try:
                Wc = W.to_sparse_csr()
                tc = timed(lambda: Wc @ xh)
            except (RuntimeError, NotImplementedError):
                tc = float("nan")
            print(f"| {n} | {s:.0%} | {tm:.1f} | {td:.1f} | {tc:.1f} | {td / tm:.2f}x | {tc / tm:.2f}x |", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
