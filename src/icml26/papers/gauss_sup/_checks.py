"""What the [P33] claims measure: reference optima, the PTAS and the greedy against them, and their figures.

The two approximation claims are judged on the *gain* over the deterministic allocation (σ = 0), i.e. on
(F(σ) − F(0)) / (OPT − F(0)), where F(0) = Σ_j max_{i∈S_j} μ_i: since E max ≥ max E, every allocation (even σ = 0)
scores at least F(0), so a ratio of raw values F/OPT is padded by F(0)/OPT. The verdicts come from :mod:`._rules`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import new_figure, render
from icml26.papers.gauss_sup._approx import greedy_buckets, ptas_single
from icml26.papers.gauss_sup._optimize import equal_split, optimal_allocation_reference
from icml26.papers.gauss_sup._quadrature import expected_max, expected_sum_max
from icml26.papers.gauss_sup._rules import judge_concentration, judge_log_n, judge_ptas, log_levels

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.gauss_sup.claims import ConcentrationConfig, LogNConfig, PTASConfig

#: an algorithm under test: m = 1, (mu, eps) -> sigma; m > 1, (mu, sets) -> sigma
SingleAlgorithm = Callable[[np.ndarray, float], np.ndarray]
MultiAlgorithm = Callable[[np.ndarray, list[np.ndarray]], np.ndarray]


def _instance(n: int, m: int, p: float, seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Means μ_i ~ U(0, 0.5) and m Erdős-Rényi sets (each i ∈ S_j with probability p, never empty)."""
    g = np.random.default_rng(seed)
    mu = g.uniform(0.0, 0.5, n)
    sets = []
    for _ in range(m):
        s = np.flatnonzero(g.random(n) < p)
        sets.append(s if s.size else np.array([int(g.integers(n))]))
    return mu, sets


# ---------------------------------------------------------------------------------------------------- concentration
def zero_mean_opt(task: tuple[int, int, int]) -> dict[str, Any]:
    """Reference OPT for ``n`` zero-mean variables (m = 1), ``task = (n, restarts, seed)``: value and variances."""
    n, restarts, seed = task
    a = optimal_allocation_reference(np.zeros(n), restarts=restarts, seed=seed)
    return {"n": n, "seed": seed, "opt": a.value, "variance": a.variance.tolist(), "evaluations": a.evaluations}


def check_concentration(cfg: ConcentrationConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P33]: the optimal allocation concentrates on a small subset as |S_j| grows (zero means, m = 1).

    Each n is solved once per seed (the seeds drive the reference's random restarts); the rule judges the best OPT
    over seeds and asks the support to agree across them.
    """
    tasks = [(n, cfg.restarts, seed * 1000 + n) for seed in ctx.seeds for n in cfg.sizes]
    rows = ctx.map(zero_mean_opt, tasks)
    j = judge_concentration(rows, bars=ctx.bars)
    best = {n: max((r for r in rows if r["n"] == n), key=lambda r: r["opt"]) for n in cfg.sizes}
    thr = float(ctx.bar("carries_variance").value)  # type: ignore[arg-type]
    fig, ax = new_figure()
    for n in cfg.sizes:
        w = sorted(best[n]["variance"], reverse=True)[:10]
        ax.plot(range(1, len(w) + 1), w, marker="o", label=f"n={n}")
    ax.axhline(thr, color="grey", ls=":")
    ax.set(xlabel="rank of variable", ylabel="σ_i² at the reference OPT (best seed)")
    ax.legend()
    sup, mass = j.measured["support"], j.measured["top_mass"]
    spread = {n: max(r["opt"] for r in rows if r["n"] == n) - min(r["opt"] for r in rows if r["n"] == n)
              for n in cfg.sizes}
    return ClaimResult.judged(
        j, summary=f"support {min(sup.values())}-{max(sup.values())} variables for n = {cfg.sizes[0]}..{cfg.sizes[-1]} "
                   f"over {len(ctx.seeds)} seed(s); top-{int(float(ctx.bar('support').value))} mass >= "  # type: ignore[arg-type]
                   f"{min(mass.values()):.4f}",
        measured={"opt": {n: best[n]["opt"] for n in cfg.sizes}, "opt_spread_over_seeds": spread},
        rows=[{k: v for k, v in r.items() if k != "variance"} | {"top_variances": sorted(r["variance"])[::-1][:10]}
              for r in rows],
        figures=[render(fig, name="opt_variance_profile", caption="Sorted variances of the reference OPT, zero means")],
        notes="OPT is the best of projected gradient ascent from equal splits and random starts (a lower bound on OPT); "
              "the support is counted over all n variances.")


# ----------------------------------------------------------------------------------------------------------------- PTAS
def _ptas_algorithm(mu: np.ndarray, eps: float) -> np.ndarray:
    return ptas_single(mu, eps=eps).sigma


def ptas_task(task: tuple[int, int, int, tuple[float, ...], bool], *, algorithm: SingleAlgorithm) -> list[dict[str, Any]]:
    """One instance, ``task = (seed, n, restarts, eps values, zero means)``: the algorithm at each ε against one
    reference OPT computed without the algorithm (uniform, top-k splits and random starts, never its allocation)."""
    seed, n, restarts, eps_values, zero = task
    mu = np.zeros(n) if zero else _instance(n, 1, 1.0, seed * 1000 + n)[0]
    ref = optimal_allocation_reference(mu, restarts=restarts, seed=seed)
    rows = []
    for eps in eps_values:
        sigma = np.asarray(algorithm(mu, eps), dtype=float)
        rows.append({"seed": seed, "n": n, "eps": eps, "alg": expected_max(mu, sigma), "opt": ref.value,
                     "top": float(mu.max()), "budget": float(np.sum(sigma**2))})
    return rows


def run_ptas_check(cfg: PTASConfig, ctx: Context, algorithm: SingleAlgorithm = _ptas_algorithm) -> ClaimResult:
    """The ``ptas`` check for any m = 1 algorithm ``(mu, eps) -> sigma`` (the tests feed it trivial stubs)."""
    tasks = [(seed, n, cfg.restarts, cfg.eps, seed == ctx.seeds[0] and n == cfg.sizes[0])
             for seed in ctx.seeds for n in cfg.sizes]
    rows = [r for rs in ctx.map(partial(ptas_task, algorithm=algorithm), tasks) for r in rs]
    for r in rows:
        r["gain_ratio"] = (r["alg"] - r["top"]) / (r["opt"] - r["top"])
    j = judge_ptas(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for eps in cfg.eps:
        sel = [r for r in rows if r["eps"] == eps]
        ax.scatter([r["n"] for r in sel], [r["gain_ratio"] for r in sel], label=f"ε={eps}")
        ax.axhline(1 - eps, ls="--", lw=0.8)
    ax.set(xlabel="n", ylabel="(F − max μ) / (OPT − max μ)")
    ax.legend()
    gains = [r["gain_ratio"] for r in rows]
    return ClaimResult.judged(
        j, summary=f"gain ratio min {min(gains):.5f}, mean {float(np.mean(gains)):.5f} over {len(rows)} runs; "
                   f"algorithm above the reference in {j.measured['runs_above_reference']}",
        rows=rows, figures=[render(fig, name="ptas_gain_ratio", caption="PTAS gain over max μ, relative to OPT's; "
                                   "dashed: 1 − ε")],
        notes="Judged on the gain over the best constant max μ (every allocation reaches F >= max μ). Grid of "
              "N = ⌈2/ε⌉ variance units (a practical choice, not the paper's worst-case grid). OPT is the reference "
              "ascent from the uniform split, the top-k equal splits and random starts, never from the algorithm's "
              "allocation, so the ratio may exceed 1 (then the reference is no optimum there, and says so).")


def check_ptas(cfg: PTASConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P33]: a PTAS for m = 1, judged as (F − max μ) >= (1 − ε)(OPT − max μ); μ ~ U(0, 0.5), zero means."""
    return run_ptas_check(cfg, ctx)


# ------------------------------------------------------------------------------------------------------- O(log n) greedy
def log_n_bar(n: int) -> float:
    """The explicit O(log n) bound on the gain ratio: (1 − 1/e)/(√2·(⌊log₂ n⌋ + 2)) (for the figure and tests)."""
    return (1 - 1 / math.e) / (math.sqrt(2) * log_levels(n))


def _greedy_algorithm(mu: np.ndarray, sets: list[np.ndarray]) -> np.ndarray:
    return greedy_buckets(mu, sets).sigma


def baseline_values(mu: np.ndarray, sets: list[np.ndarray]) -> dict[str, float]:
    """The trivial allocations of the notes (§5) on one instance: uniform, the best equal split over the top-k means
    (k ∈ {1, 2, 4, …} ∪ {n}; k = 1 is all variance on the largest mean) and the best single variable (σ_i = 1)."""
    n = mu.size
    order = np.argsort(-mu, kind="stable")
    ks = sorted({2**j for j in range(int(math.log2(n)) + 1)} | {n})
    top_k = max(expected_sum_max(mu, equal_split(n, order[:k]), sets) for k in ks)
    return {"uniform": expected_sum_max(mu, np.full(n, 1 / math.sqrt(n)), sets), "top_k": top_k,
            "single": greedy_buckets(mu, sets, levels=(1,)).value}


def log_n_task(task: tuple[int, int, int, float, int], *, algorithm: MultiAlgorithm) -> dict[str, Any]:
    """One instance, ``task = (seed, n, m, p, restarts)``: the algorithm, the trivial allocations and OPT."""
    seed, n, m, p, restarts = task
    mu, sets = _instance(n, m, p, seed * 1000 + n + m)
    sigma = np.asarray(algorithm(mu, sets), dtype=float)
    val = expected_sum_max(mu, sigma, sets)
    init = [sigma] if np.any(sigma > 0) and np.all(np.isfinite(sigma)) and np.all(sigma >= 0) else []
    ref = optimal_allocation_reference(mu, sets, restarts=restarts, seed=seed, inits=init)
    bl = baseline_values(mu, sets)
    best_bl = max(bl.values())
    opt = max(ref.value, val, best_bl)
    base = float(sum(mu[s].max() for s in sets))  # F(σ = 0)
    gr, bgr = (val - base) / (opt - base), (best_bl - base) / (opt - base)
    return {"seed": seed, "n": n, "m": m, "alg": val, "opt": opt, "base": base, **bl,
            "gain_ratio": gr, "baseline_gain_ratio": bgr, "margin": gr - bgr, "ratio": val / opt,
            **{f"{k}_gain_ratio": (v - base) / (opt - base) for k, v in bl.items()}, "bar": log_n_bar(n),
            "budget": float(np.sum(sigma**2))}


def run_log_n_check(cfg: LogNConfig, ctx: Context, algorithm: MultiAlgorithm = _greedy_algorithm) -> ClaimResult:
    """The ``log_n_approx`` check for any algorithm ``(mu, sets) -> sigma`` (the tests feed it trivial stubs)."""
    tasks = [(seed, n, m, cfg.p, cfg.restarts) for seed in ctx.seeds for n in cfg.sizes for m in cfg.m_sets]
    rows = ctx.map(partial(log_n_task, algorithm=algorithm), tasks)
    j = judge_log_n(rows, bars=ctx.bars, seed=ctx.seeds[0])
    gains = [r["gain_ratio"] for r in rows]
    fig, ax = new_figure()
    ax.scatter([r["n"] for r in rows], gains, label="algorithm gain / OPT gain")
    for key, mark, lab in (("uniform_gain_ratio", "x", "uniform"), ("top_k_gain_ratio", "^", "best top-k-by-mean"),
                           ("single_gain_ratio", "+", "best single variable")):
        ax.scatter([r["n"] for r in rows], [r[key] for r in rows], marker=mark, label=lab)
    ns = sorted(set(cfg.sizes))
    ax.plot(ns, [log_n_bar(n) for n in ns], "k--", label="bound (1−1/e)/(√2(⌊log₂n⌋+2))")
    ax.set(xscale="log", xlabel="n", ylabel="(F − F(0)) / (OPT − F(0))")
    ax.legend()
    trivial_below = sum(r["baseline_gain_ratio"] < r["bar"] for r in rows)
    ci = j.measured["mean_margin_ci"]
    return ClaimResult.judged(
        j, summary=f"gain ratio min {min(gains):.4f}; margin over the best trivial allocation "
                   f"{j.measured['mean_margin']:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]",
        measured={"trivial_below_bound": int(trivial_below),
                  "min_baseline_gain_ratio": min(r["baseline_gain_ratio"] for r in rows),
                  "min_uniform_gain_ratio": min(r["uniform_gain_ratio"] for r in rows),
                  "min_top_k_gain_ratio": min(r["top_k_gain_ratio"] for r in rows),
                  "min_single_gain_ratio": min(r["single_gain_ratio"] for r in rows),
                  "min_ratio": min(r["ratio"] for r in rows),
                  "gain_ratio_by_n": {n: min(r["gain_ratio"] for r in rows if r["n"] == n) for n in ns}},
        rows=rows, figures=[render(fig, name="greedy_gain_ratio", caption="Gain over σ = 0 relative to OPT's: "
                                   "the algorithm, the trivial allocations and the O(log n) bound")],
        notes="F(0) = Σ_j max_{i∈S_j} μ_i is what σ = 0 scores; judging F/OPT would be padded by it. Means U(0, 0.5); "
              "S_j Erdős-Rényi with membership p. OPT is the best of the reference ascent (also started from the "
              "algorithm's allocation), the algorithm and the trivial allocations: a lower bound on the true OPT. "
              "Trivial allocations: uniform, best top-k-by-mean equal split, best single variable (greedy's own k = 1 "
              "bucket). Instances where they fall below the bound are out of reach: on m disjoint sets OPT <= √m × the "
              "best allocation confined to one set (E max is convex in the scale of σ), which a single variable "
              "matches to 0.76 for zero means, so the best single variable drops below the bound (~0.04) only for "
              "m >~ 400 sets, and the uniform split only with many more variables: beyond the O(n²) greedy here.")


def check_log_n_approx(cfg: LogNConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P33]: an O(log n)-approximation for m > 1, judged on the gain over σ = 0 and against trivial
    allocations (uniform, top-k-by-mean splits, best single variable), which also clear the bound here."""
    return run_log_n_check(cfg, ctx)
