"""Run by test_triton_interpret.py in a subprocess with TRITON_INTERPRET=1: the Triton kernel of [P05] on the CPU.

Prints one JSON object; the test makes the assertions. Triton's interpreter must be switched on before triton is
imported, hence the separate process.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))

from test_kernels import structured_cases

from icml26.papers.macko import MackoMatrix
from icml26.papers.macko._torch import TritonMackoLinear
from icml26.papers.macko._triton import TritonMacko


def spmv_cases() -> list[dict]:
    """Every structured case, batch 1 and 3, block 16 and 64, fp32 and fp16 inputs, against the numpy reference."""
    out = []
    g = np.random.default_rng(7)
    nan_w = structured_cases()[2].copy()
    nan_w[4, 10] = np.nan  # a NaN weight reaches its row's output, as in dense
    for case, w in enumerate([*structured_cases(), nan_w, np.zeros((0, 5), np.float16)]):
        A = MackoMatrix.from_dense(w)
        for batch, block, dtype in ((1, 16, torch.float32), (3, 64, torch.float32), (2, 16, torch.float16)):
            X = g.standard_normal((batch, w.shape[1])).astype(np.float32)
            Xt = torch.from_numpy(X).to(dtype)
            Xr = Xt.float().numpy()
            ref = np.stack([A.matvec(Xr[i], kernel="reference") for i in range(batch)])
            got = TritonMacko(A, block=block, interpret=True)(Xt, out_dtype=torch.float32).numpy()
            scale = np.abs(Xr.astype(np.float64)) @ np.abs(np.nan_to_num(w.astype(np.float64))).T + 1e-30
            err = np.abs(got.astype(np.float64) - ref)
            ok = bool(np.array_equal(np.isnan(got), np.isnan(ref))
                      and np.all(np.nan_to_num(err) <= 1e-5 * scale * max(1, w.shape[1]) ** 0.5 + 1e-30))
            out.append({"case": case, "shape": list(w.shape), "batch": batch, "block": block, "dtype": str(dtype),
                        "ok": ok, "nan_rows": int(np.isnan(got).any(axis=0).sum()), "out_shape": list(got.shape)})
    return out


def linear_case() -> dict:
    """TritonMackoLinear in fp16 against torch's fp16 linear on the same (pruned) weight."""
    g = torch.Generator().manual_seed(3)
    w = torch.randn(24, 40, generator=g)
    w[torch.rand(24, 40, generator=g) < 0.5] = 0
    b = torch.randn(24, generator=g)
    x = torch.randn(2, 5, 40, generator=g).half()
    layer = TritonMackoLinear(w, b, block=16, interpret=True)
    y = layer(x)
    want = torch.nn.functional.linear(x.float(), w.half().float(), b).half()
    rel = float((y.float() - want.float()).abs().max() / want.float().abs().max())
    return {"dtype": str(y.dtype), "shape": list(y.shape), "rel_err": rel, "bytes": layer.weight_nbytes,
            "cpu_bytes": MackoMatrix.from_dense(w.half().numpy()).nbytes}


def e2e_case() -> dict:
    """The GPU path of the end-to-end claims, run through the interpreter, next to the CPU path on the same model."""
    from icml26.papers.macko._e2e import build_e2e, decode_agreement, time_decode
    from icml26.papers.macko.claims import E2EModel

    model = E2EModel(d_model=16, n_layers=1, n_heads=2, vocab=16, calib_tokens=8, prompt=2, new_tokens=2)
    gpu = build_e2e(model, 0, interpret=True)
    cpu = build_e2e(model, 0)
    times = time_decode(gpu, new_tokens=model.new_tokens, reps=1)
    return {"device": gpu["device"], "agreement": decode_agreement(gpu, model.new_tokens), "models": sorted(times),
            "macko_bytes": [gpu["macko_bytes"], cpu["macko_bytes"]],
            "dense16_bytes": [gpu["dense16_bytes"], cpu["dense16_bytes"]]}


def speed_case() -> dict:
    """The GPU speed check's code (copies, cuBLAS/cuSPARSE baselines, paired rounds) on the CPU: runs, not numbers."""
    from icml26 import registry
    from icml26.claims import Context
    from icml26.papers.macko._checks_gpu import gpu_speed
    from icml26.papers.macko.claims import SpeedConfig

    bars = registry.get_paper("macko").claim("spmv_speedup_50").bar_map
    res = gpu_speed(SpeedConfig(n=48, reps=3, gpu=True), Context(seeds=(0,), budget="test", bars=bars),
                    interpret=True)
    return {"verdict": res.verdict.value, "kernels": sorted(res.timings["us"]), "rel_err": res.timings["rel_err"]}


if __name__ == "__main__":
    print(json.dumps({"spmv": spmv_cases(), "linear": linear_case(), "e2e": e2e_case(), "speed": speed_case()}))
