"""Per-sample last-layer gradients: the closed form (p − e_y) hᵀ against autograd, in one run.

Usage: python benchmarks/emvc_purify/bench_gradients.py OUT.json [--sizes 1437 10000 50000] [--dim 64] [--classes 10]
       [--repeats 3]

Three ways to get the n per-sample gradients of the cross-entropy with respect to a (C, d) last layer: the closed
form of ``last_layer_gradients`` (numpy, float64), one autograd backward pass per sample (what a per-sample loop
does, as in the authors' code), and ``torch.func.vmap(grad)`` (PyTorch's batched per-sample gradients). One thread;
best of ``--repeats``; the per-sample loop is timed on the first 2,000 samples and scaled. Every method's result is
compared with the closed form (max abs difference reported).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch

from icml26.papers.emvc_purify import last_layer_gradients


def _best(fn, repeats: int) -> tuple[float, object]:
    out, best = None, float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _loop(h: torch.Tensor, w: torch.Tensor, b: torch.Tensor, y: torch.Tensor) -> np.ndarray:
    out = []
    for i in range(h.shape[0]):
        wi = w.clone().requires_grad_(True)
        torch.nn.functional.cross_entropy(h[i : i + 1] @ wi.T + b, y[i : i + 1]).backward()
        out.append(wi.grad.ravel())
    return torch.stack(out).numpy()


def _vmap(h: torch.Tensor, w: torch.Tensor, b: torch.Tensor, y: torch.Tensor) -> np.ndarray:
    def loss(wi, hi, yi):
        return torch.nn.functional.cross_entropy((hi @ wi.T + b)[None], yi[None])

    return torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))(w, h, y).reshape(h.shape[0], -1).numpy()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1437, 10000, 50000])
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(1)
    g = np.random.default_rng(0)
    rows = []
    for n in args.sizes:
        h = g.normal(size=(n, args.dim))
        w, b = g.normal(size=(args.classes, args.dim)), g.normal(size=args.classes)
        y = g.integers(0, args.classes, size=n)
        z = h @ w.T + b
        th, tw, tb, ty = (torch.tensor(a) for a in (h, w, b, y))
        t_cf, ref = _best(lambda: last_layer_gradients(h, z, y), args.repeats)
        t_vm, vm = _best(lambda: _vmap(th, tw, tb, ty), args.repeats)
        m = min(n, 2000)
        t_lp, lp = _best(lambda: _loop(th[:m], tw, tb, ty[:m]), 1)
        row = {"n": n, "closed_form_s": t_cf, "vmap_s": t_vm, "loop_s": t_lp * n / m,
               "vmap_over_closed_form": t_vm / t_cf, "loop_over_closed_form": t_lp * n / m / t_cf,
               "max_abs_diff_vmap": float(np.abs(np.asarray(vm) - np.asarray(ref)).max()),
               "max_abs_diff_loop": float(np.abs(np.asarray(lp) - np.asarray(ref)[:m]).max())}
        rows.append(row)
        print(json.dumps(row))
    args.out.write_text(json.dumps({"machine": platform.platform(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
