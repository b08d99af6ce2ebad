"""Run by test_triton_interpret.py in a subprocess with TRITON_INTERPRET=1: the Triton kernel of [P30] on the CPU.

Prints one JSON object; the test makes the assertions. Triton's interpreter must be on before triton is imported.
"""

from __future__ import annotations

import functools
import json
import math

import torch

from icml26.common.models import tiny_causal_lm
from icml26.papers.unisparse import BlockMask, block_sparse_attention, sparse_prefill, unisparse_mask


def cases() -> list[dict]:
    g = torch.Generator().manual_seed(0)
    out = []
    for hq, hkv, n, d, block, p, dtype in [(2, 1, 100, 24, 32, 0.5, torch.float32), (2, 2, 64, 16, 16, 1.0, torch.float32),
                                           (3, 1, 90, 40, 16, 0.3, torch.float32), (2, 2, 96, 32, 32, 0.6, torch.float16)]:
        q, k, v = (torch.randn(h, n, d, generator=g) for h in (hq, hkv, hkv))
        nb = math.ceil(n / block)
        m = (torch.rand(hq, nb, nb, generator=g) < p).tril() | torch.eye(nb, dtype=torch.bool)
        mask = BlockMask(m, block, n)
        ref = block_sparse_attention(q.to(dtype).float(), k.to(dtype).float(), v.to(dtype).float(), mask,
                                     backend="reference")
        got = block_sparse_attention(q.to(dtype), k.to(dtype), v.to(dtype), mask, backend="triton").float()
        out.append({"shape": [hq, hkv, n, d, block], "dtype": str(dtype), "density": mask.density,
                    "max_err": float((got - ref).abs().max()), "out_shape": list(got.shape)})
    return out


def patched_model() -> dict:
    model, _ = tiny_causal_lm(seed=0, max_positions=256)
    ids = torch.randint(0, 256, (1, 96), generator=torch.Generator().manual_seed(1))
    method = functools.partial(unisparse_mask, block=16, cq=4, ck=4, tau=1.0)
    with torch.no_grad():
        ref = model(input_ids=ids).logits
        with sparse_prefill(model, method, backend="triton"):
            got = model(input_ids=ids).logits
    return {"max_err": float((got - ref).abs().max())}


if __name__ == "__main__":
    print(json.dumps({"cases": cases(), "model": patched_model()}))
