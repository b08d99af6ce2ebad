"""Head-to-head timings of JPGD against its baselines: seconds per iteration and seconds to 1e-10, at several n.

Usage: python benchmarks/hankel/bench_hankel.py OUT.json [--sizes 511 4095 32767] [--rank 10] [--ratio 0.3]
       [--kappa 10] [--repeats 3] [--max-iter 2000]

One BLAS thread. Seconds per iteration = (t(1 + K iterations) − t(1 iteration)) / K, best of ``--repeats`` (the spectral
initialisation cancels). Times are also given as ratios to JPGD measured in the same run; the per-iteration cost's
growth is the log-log slope of seconds/iteration against n log n (1 means O(n log n)).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from icml26.common.stats import loglog_slope
from icml26.papers.hankel import METHODS, hankel_complete, make_spectral_signal


def _per_iteration(x: np.ndarray, mask: np.ndarray, rank: int, method: str, k: int, repeats: int) -> float:
    def run(iters: int) -> float:
        t = time.perf_counter()
        hankel_complete(x, mask, rank=rank, method=method, tol=1e-300, max_iter=iters, seed=0)
        return time.perf_counter() - t

    return max(min(run(1 + k) for _ in range(repeats)) - min(run(1) for _ in range(repeats)), 1e-9) / k


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="where to write the JSON results")
    ap.add_argument("--sizes", type=int, nargs="+", default=[511, 4095, 32767])
    ap.add_argument("--rank", type=int, default=10)
    ap.add_argument("--ratio", type=float, default=0.3)
    ap.add_argument("--kappa", type=float, default=10.0)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--max-iter", type=int, default=2000)
    a = ap.parse_args()
    methods = list(METHODS)
    rows = []
    with threadpool_limits(1):
        for n in a.sizes:
            g = np.random.default_rng(n)
            x, _, _ = make_spectral_signal(n, a.rank, kappa=a.kappa, seed=g)
            mask = np.zeros(n, bool)
            mask[g.choice(n, round(a.ratio * n), replace=False)] = True
            for m in methods:
                per_it = _per_iteration(x, mask, a.rank, m, k=50, repeats=a.repeats)
                res = hankel_complete(x, mask, rank=a.rank, method=m, tol=1e-10, max_iter=a.max_iter, seed=0, x_true=x)
                rows.append({"n": n, "method": m, "s_per_iter": per_it, "iterations": res.iterations,
                             "converged": res.converged, "s_total": res.seconds})
    for r in rows:
        ref = next(q for q in rows if q["n"] == r["n"] and q["method"] == "jpgd")
        r["per_iter_vs_jpgd"] = r["s_per_iter"] / ref["s_per_iter"]
        r["total_vs_jpgd"] = r["s_total"] / ref["s_total"]
    slopes = {}
    if len(a.sizes) >= 3:
        for m in methods:
            t = [r["s_per_iter"] for r in rows if r["method"] == m]
            est = loglog_slope([n * math.log(n) for n in a.sizes], t)
            slopes[m] = {"slope": est.value, "ci": [est.lo, est.hi]}
    print(f"rank={a.rank} ratio={a.ratio} kappa={a.kappa}; times are ratios to JPGD in the same run (1 BLAS thread)")
    print(f"{'n':>6} {'method':>9} {'ms/iter':>9} {'x JPGD':>7} {'iters':>6} {'s to 1e-10':>10} {'x JPGD':>7}")
    for r in rows:
        its = f"{r['iterations']}{'' if r['converged'] else '*'}"
        print(f"{r['n']:>6} {r['method']:>9} {1e3 * r['s_per_iter']:>9.3f} {r['per_iter_vs_jpgd']:>7.2f} {its:>6} "
              f"{r['s_total']:>10.3f} {r['total_vs_jpgd']:>7.2f}")
    print("(* = not converged within --max-iter)")
    for m, s in slopes.items():
        print(f"slope of log(s/iter) vs log(n log n), {m:>9}: {s['slope']:.2f} [{s['ci'][0]:.2f}, {s['ci'][1]:.2f}]")
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps({"args": {k: v for k, v in vars(a).items() if k != "out"}, "rows": rows,
                                 "slopes": slopes, "machine": platform.platform()}, indent=1))


if __name__ == "__main__":
    main()
