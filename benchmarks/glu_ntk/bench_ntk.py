"""Empirical NTK: ``glu_ntk.empirical_ntk`` (torch.func vmap + jacrev) against a per-sample autograd loop.

Both compute K = J Jᵀ in float64 for the same parameter-matched ReLU / ReGLU nets; the script checks they agree and
prints the time ratio loop / torch.func, measured in the same run (one thread; best of ``--repeats``).

    .venv/bin/python benchmarks/glu_ntk/bench_ntk.py --n 50 --d 75 --width 1000
"""

from __future__ import annotations

import argparse
import time

import torch

from icml26.papers.glu_ntk import empirical_ntk, gaussian_regression_task, make_mlp


def ntk_loop(net: torch.nn.Module, X: torch.Tensor) -> torch.Tensor:
    """Reference: one backward pass per sample (c = 1), rows stacked into J."""
    rows = []
    for i in range(X.shape[0]):
        grads = torch.autograd.grad(net(X[i : i + 1])[0, 0], list(net.parameters()))
        rows.append(torch.cat([g.reshape(-1) for g in grads]))
    J = torch.stack(rows)
    return J @ J.T


def best_of(fn, repeats: int) -> tuple[float, torch.Tensor]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--d", type=int, default=75)
    ap.add_argument("--width", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    torch.set_num_threads(1)
    X = gaussian_regression_task(a.n, a.d, seed=0).X
    for kind in ("relu", "reglu"):
        net = make_mlp(kind, in_dim=a.d, width=a.width, seed=0)
        t_func, K1 = best_of(lambda: empirical_ntk(net, X), a.repeats)
        t_loop, K2 = best_of(lambda: ntk_loop(net, X), a.repeats)
        err = float((K1 - K2).abs().max() / K2.abs().max())
        print(f"{kind:6s} N={a.n} d={a.d} hidden={net.hidden}: torch.func {t_func * 1e3:7.1f} ms, "
              f"loop {t_loop * 1e3:7.1f} ms, loop/func = {t_loop / t_func:5.2f}x, max rel diff {err:.1e}")


if __name__ == "__main__":
    main()
