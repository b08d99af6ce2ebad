"""One-shot GPU check of [P30]'s Triton block-sparse kernel: correctness against the torch reference, then timings
against torch SDPA's FlashAttention backend. Needs torch+CUDA and triton; ``gpu_session.sh`` runs it:

    python benchmarks/unisparse/gpu_check.py                  # ~1-3 min on an H100/H200
    TRITON_INTERPRET=1 python benchmarks/unisparse/gpu_check.py --interpret --ns 256   # dry run on a CPU

Timings: fp16, H = 32, d = 128, blocks of 64; the kernel on masks of exactly 10/20/30 % of the causal blocks, and
UniSparse end to end (selection in torch + kernel) on structured synthetic q/k; median of 10 calls after a warm-up,
each call synchronised. Prints Markdown tables; exits non-zero when the kernel disagrees with the reference.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", type=int, nargs="+", default=[16384, 32768, 65536, 131072])
    ap.add_argument("--interpret", action="store_true", help="Triton's interpreter on the CPU: checks the script only")
    args = ap.parse_args()
    import torch

    from icml26.papers.unisparse import (
        BlockMask,
        block_sparse_attention,
        random_block_mask,
        structured_qkv,
        unisparse_mask,
    )

    dev = "cpu" if args.interpret else "cuda"
    print(f"GPU: {'none (Triton interpreter)' if args.interpret else torch.cuda.get_device_name()}")
    g = torch.Generator().manual_seed(0)
    bad = 0
    print("| heads q/kv | n | d | block | dtype | max abs err |\n|---|---|---|---|---|---|")
    for hq, hkv, n, d, block, dtype in [(4, 2, 1000, 64, 64, torch.float32), (2, 1, 777, 128, 64, torch.bfloat16),
                                        (8, 8, 2048, 64, 128, torch.float16), (3, 3, 100, 24, 16, torch.float32)]:
        if args.interpret and dtype == torch.bfloat16:
            continue  # Triton's interpreter mishandles bf16 tensors (numpy has no bf16); checked on a GPU only
        q, k, v = (torch.randn(h, n, d, generator=g) for h in (hq, hkv, hkv))
        nb = math.ceil(n / block)
        m = BlockMask((torch.rand(hq, nb, nb, generator=g) < 0.4).tril() | torch.eye(nb, dtype=torch.bool), block, n)
        ref = block_sparse_attention(*(x.to(dtype).float() for x in (q, k, v)), m, backend="reference")
        got = block_sparse_attention(*(x.to(dev, dtype) for x in (q, k, v)), m, backend="triton").float().cpu()
        err = float((got - ref).abs().max())
        ok = err < (1e-4 if dtype == torch.float32 else 3e-2)
        bad += not ok
        print(f"| {hq}/{hkv} | {n} | {d} | {block} | {dtype} | {err:.2e}{'' if ok else ' FAIL'} |")
    if args.interpret:
        return int(bad > 0)

    def timed(fn) -> float:  # noqa: ANN001
        fn()
        torch.cuda.synchronize()
        out = []
        for _ in range(10):
            t0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            out.append(time.perf_counter() - t0)
        return statistics.median(out)

    from torch.nn.attention import SDPBackend, sdpa_kernel

    print("\n| n | flash ms | density | kernel ms | speed-up | UniSparse density | UniSparse ms (selection) | speed-up |")
    print("|---|---|---|---|---|---|---|---|")
    for n in args.ns:
        q, k, v = (x.to(dev, torch.float16) for x in structured_qkv(32, n, 128, seed=0))
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            t_flash = timed(lambda: torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None],
                                                                                    is_causal=True))
        mu = unisparse_mask(q, k, block=64, cq=16, ck=16, tau=0.9)
        t_sel = timed(lambda: unisparse_mask(q, k, block=64, cq=16, ck=16, tau=0.9))
        t_uni = timed(lambda: block_sparse_attention(q, k, v, unisparse_mask(q, k, block=64, cq=16, ck=16, tau=0.9)))
        for dens in (0.1, 0.2, 0.3):
            m = random_block_mask(q.cpu(), k.cpu(), block=64, density=dens, seed=0)
            t_k = timed(lambda m=m: block_sparse_attention(q, k, v, m))
            print(f"| {n} | {t_flash * 1e3:.2f} | {m.density:.2f} | {t_k * 1e3:.2f} | {t_flash / t_k:.2f}x | "
                  f"{mu.density:.3f} | {t_uni * 1e3:.2f} ({t_sel * 1e3:.2f}) | {t_flash / t_uni:.2f}x |", flush=True)
    return int(bad > 0)


if __name__ == "__main__":
    sys.exit(main())
