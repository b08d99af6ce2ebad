"""Claim checks of [P01]: capacity ≈ α bits/param on random tokens; on a generalisable (Markov) distribution
unintended memorisation rises then falls, and loss-threshold membership inference falls toward chance."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from icml26.claims import Budget, Claim, ClaimResult, Context, Verdict
from icml26.common.stats import Estimate, bootstrap_ci
from icml26.figures import new_figure, render
from icml26.papers.capacity._sweep import capacity_sweep
from icml26.papers.capacity._train import TrainConfig

PAPER_ALPHA = 3.6  # bits/param (Abstract); also used, a priori, to place the dataset sizes around the capacity
# The paper's number is judged (review 4: 3.6 ± 25 %, set from the paper's value, not from ours, before re-measuring;
# it replaces notes §4's α ∈ [2, 5], which accepted 0.56x-1.4x of 3.6): the bootstrap CI of α inside the band ->
# holds, overlapping it -> inconclusive, wholly outside -> fails. Proportionality is judged on its own: R² of the line
# through the origin > 0.9 and log-log slope of capacity on P in [0.9, 1.1]; not proportional -> fails.
ALPHA_TOL = 0.25
ALPHA_BAND = (PAPER_ALPHA * (1 - ALPHA_TOL), PAPER_ALPHA * (1 + ALPHA_TOL))  # (2.7, 4.5)
R2_BAR = 0.9
SLOPE_BAR = (0.9, 1.1)
SATURATION_BAR = 0.15  # notes §4 (fixed before measuring): mem at 2× and 4× the paper's capacity agree within ±15 %
FALL_BAR = 0.75  # Markov: mem_U at the smallest and at the largest N <= 0.75 × the peak (rise, then fall)
MIA_DROP_BAR = 0.2  # MIA: AUC falls by >= 0.2 from the smallest to the largest N ...
MIA_CHANCE_BAR = 0.6  # ... to an AUC <= 0.6 (chance 0.5)
# "Trained to saturation", fixed (after review 3, BEFORE re-measuring; the verdict that comes out stays): the old rule
# (< 0.01 bits/token gained per 100 steps, 3 checks, constant lr) stopped the 2x point at 1400 steps, 12 % below a
# 12 000-step run. Now: AdamW lr 2e-2, the lr stepped down x0.3 twice on a plateau (2e-2 -> 6e-3 -> 1.8e-3) before the
# last plateau ends training; a plateau = over 500 steps (5 checks x 100) the loss gained < 0.5 % of the bits/token
# learnt so far; never before 100 epochs; cap 8000 steps (a run hitting the cap counts as not saturated).
SATURATION_PROTOCOL = TrainConfig(lr=2e-2, batch_size=128, max_steps=8000, eval_every=100, patience=5,
                                  min_delta_bits=0.0, rel_tol=0.005, lr_decay=0.3, n_decays=2, min_epochs=100)
FULL_REASON = ("the paper's scale (500K-1.5B-parameter GPT-2 models trained to saturation, ~1e6 steps, hundreds of "
               "models) needs GPU-weeks; this CPU package trains 0.3K-4K-parameter models")
MIN_SEEDS = 3  # the seed CIs of rise_then_fall and mia_to_chance decide only from 3 seeds (small has 3)


@dataclass(frozen=True)
class SweepConfig:
    model_sizes: tuple[tuple[int, int], ...] = ((1, 8), (1, 12), (1, 16))
    multiples: tuple[float, ...] = (1.0, 2.0, 4.0)  # × the paper's capacity 3.6·P bits (uniform; notes §4) ...
    n_sequences: tuple[int, ...] = ()  # ... or absolute dataset sizes (Markov)
    vocab_size: int = 16
    seq_len: int = 16
    concentration: float = 0.1
    train: TrainConfig = field(default_factory=lambda: SATURATION_PROTOCOL)
    full_scale: bool = False  # the paper's scale: unsupported here


def _n_params(L: int, d: int, V: int, S: int) -> int:
    from icml26.papers.capacity._train import make_model

    return make_model(L, d, vocab_size=V, seq_len=S).n_params()


def _unsupported() -> ClaimResult:
    return ClaimResult(verdict=Verdict.UNSUPPORTED, reason=FULL_REASON, summary="not run (paper scale)")


# ---- claim 1: capacity ≈ α bits per parameter --------------------------------------------------------------------
def _proportional(r2: float, slope: float) -> bool:
    return bool(r2 > R2_BAR and SLOPE_BAR[0] <= slope <= SLOPE_BAR[1])  # NaN (one model size) -> False


def _alpha_position(a: Estimate) -> str:
    lo, hi = ALPHA_BAND
    if lo <= a.lo and a.hi <= hi:
        return "CI inside the band"
    return "CI wholly outside the band" if (a.hi < lo or a.lo > hi) else "CI overlaps the band's edge"


def bits_per_param_verdict(alpha: Estimate, *, r2: float, slope: float) -> tuple[Verdict, str]:
    """The rule of ``bits_per_param`` on a saturated sweep (Abstract / Sec. 5 of [P01]: capacity ∝ P, α ≈ 3.6):
    fails if α's CI lies wholly outside ``ALPHA_BAND`` (3.6 ± 25 %) or if capacity is not proportional to P (R² <=
    0.9 or log-log slope outside [0.9, 1.1]); holds if the CI lies inside the band and capacity is proportional;
    otherwise (CI across an edge of the band, or the slope undefined: one model size) inconclusive."""
    band = f"[{ALPHA_BAND[0]:.2f}, {ALPHA_BAND[1]:.2f}] (paper {PAPER_ALPHA} ± {ALPHA_TOL:.0%})"
    prop = (f"R² = {r2:.3f} (bar > {R2_BAR}), log-log slope {slope:.2f} (bar [{SLOPE_BAR[0]}, {SLOPE_BAR[1]}])")
    where = _alpha_position(alpha)
    if where.endswith("outside the band") or (np.isfinite(slope) and not _proportional(r2, slope)):
        return Verdict.FAILS, f"α = {alpha} bits/param, {where} {band}; {prop}"
    if where.endswith("inside the band") and _proportional(r2, slope):
        return Verdict.HOLDS, f"α = {alpha} bits/param, {where} {band}; proportional: {prop}"
    return Verdict.INCONCLUSIVE, f"α = {alpha} bits/param, {where} {band}; {prop}"


def check_bits_per_param(cfg: SweepConfig, ctx: Context) -> ClaimResult:
    """Abstract / Sec. 5 of [P01]: on uniform random sequences mem(D) plateaus as N grows, at a capacity proportional to
    the parameter count, α ≈ 3.6 bits/param. Saturation first (notes §4): mem at 4× vs 2× the paper's capacity
    within ±15 % and every run stopped on its plateau (SATURATION_PROTOCOL), else inconclusive; then
    :func:`bits_per_param_verdict` (α vs 3.6 ± 25 %, proportionality)."""
    if cfg.full_scale:
        return _unsupported()
    V, S = cfg.vocab_size, cfg.seq_len
    bits_per_seq = S * math.log2(V)
    sizes = {}
    for L, d in cfg.model_sizes:  # dataset sizes placed around the *paper's* capacity (nothing tuned on ours)
        cap = PAPER_ALPHA * _n_params(L, d, V, S)
        sizes[(L, d)] = sorted({max(2, round(m * cap / bits_per_seq)) for m in cfg.multiples})
    sweep = capacity_sweep(cfg.model_sizes, sizes, seeds=ctx.seeds, vocab_size=V, seq_len=S, data="uniform",
                           train=cfg.train, mapper=ctx.map)
    plateaus = sweep.plateaus()
    fit = sweep.fit(seed=ctx.seeds[0])
    ratios = {}
    for L, d in cfg.model_sizes:
        rs = [p["last_ratio"] for p in plateaus if (p["n_layer"], p["d_model"]) == (L, d)]
        ratios[f"L{L}d{d}"] = float(np.median(rs))
    saturated = all(abs(r - 1.0) <= SATURATION_BAR for r in ratios.values())
    on_plateau = all(r["saturated"] for r in sweep.rows)
    a = fit.alpha
    if not (saturated and on_plateau):
        verdict = Verdict.INCONCLUSIVE
        why = (f"not saturated: mem(N_max)/mem(N_prev) per size {ratios} (bar 1 ± {SATURATION_BAR}), every run "
               f"stopped on a plateau: {on_plateau}; α = {a} bits/param cannot be read as a capacity")
    else:
        verdict, why = bits_per_param_verdict(a, r2=fit.r2, slope=fit.slope)
        if len(ctx.seeds) < MIN_SEEDS:  # the smoke budget: one run per point decides nothing
            verdict, why = Verdict.INCONCLUSIVE, f"{len(ctx.seeds)} seed(s) < {MIN_SEEDS}: not decided; {why}"
    fig, _ = new_figure(width=10, height=4)
    fig.clear()
    ax1, ax2 = fig.subplots(1, 2)
    for L, d in sizes:
        rs = [r for r in sweep.rows if (r["n_layer"], r["d_model"]) == (L, d)]
        ax1.plot([r["dataset_bits"] for r in rs], [r["mem_bits"] for r in rs], "o", alpha=0.6,
                 label=f"L{L} d{d} ({rs[0]['n_params']} params)")
        ax1.axhline(a.value * rs[0]["n_params"], ls=":", color="gray")
    ax1.set(xlabel="dataset bits N·S·log2 V", ylabel="memorised bits mem(D)", xscale="log")
    ax1.legend(fontsize=7)
    P = np.array([p["n_params"] for p in plateaus])
    C = np.array([p["capacity_bits"] for p in plateaus])
    ax2.plot(P, C, "o", label="plateau (size, seed)")
    grid = np.linspace(0, P.max() * 1.1, 10)
    ax2.plot(grid, a.value * grid, "-", label=f"α = {a.value:.2f} bits/param")
    ax2.plot(grid, PAPER_ALPHA * grid, "--", label=f"paper {PAPER_ALPHA}")
    ax2.set(xlabel="parameters", ylabel="capacity (bits)")
    ax2.legend(fontsize=7)
    figure = render(fig, name="capacity_vs_params", caption="mem(D) vs dataset size (left); plateau vs parameters")
    return ClaimResult(
        verdict=verdict, reason=why,
        summary=(f"α = {a} bits/param vs paper {PAPER_ALPHA} (band [{ALPHA_BAND[0]:.2f}, {ALPHA_BAND[1]:.2f}]): "
                 f"{_alpha_position(a)}; proportional to P: {'yes' if _proportional(fit.r2, fit.slope) else 'no'} "
                 f"(R² = {fit.r2:.3f}, log-log slope {fit.slope:.2f})"),
        measured={"alpha": a.value, "alpha_lo": a.lo, "alpha_hi": a.hi, "r2": fit.r2, "loglog_slope": fit.slope,
                  "proportional": _proportional(fit.r2, fit.slope),
                  "saturation_ratios": ratios, "all_on_plateau": on_plateau,
                  "capacity_bits": {f"L{p['n_layer']}d{p['d_model']}s{p['seed']}": p["capacity_bits"] for p in plateaus}},
        rows=sweep.rows, figures=[figure],
        notes="dataset sizes placed at fixed multiples of the paper's 3.6·P bits; every parameter counted "
              "(embeddings included)")


# ---- claims 2 and 3: the Markov sweep ----------------------------------------------------------------------------
def _markov_sweep(cfg: SweepConfig, ctx: Context):
    L, d = cfg.model_sizes[0]
    sweep = capacity_sweep([(L, d)], list(cfg.n_sequences), seeds=ctx.seeds, vocab_size=cfg.vocab_size,
                           seq_len=cfg.seq_len, data="markov", concentration=cfg.concentration, train=cfg.train,
                           mapper=ctx.map)
    ns = sorted(cfg.n_sequences)
    table = {k: np.array([[r[k] for r in sorted((r for r in sweep.rows if r["seed"] == s), key=lambda r: r["n_sequences"])]
                          for s in ctx.seeds]) for k in ("mem_bits", "mem_bits_heldout", "mia_auc", "mia_f1",
                                                         "dataset_bits", "test_bits_per_token", "ref_bits_per_token")}
    return sweep, ns, table  # table[k]: (seeds, N)


def check_rise_then_fall(cfg: SweepConfig, ctx: Context) -> ClaimResult:
    """Sec. 6 of [P01]: on a generalisable distribution, unintended memorisation (w.r.t. the exact chain) rises with
    N while the data fits in the capacity, then falls as the model generalises. Bars: the seed-mean peak is interior,
    mem_U at the smallest and largest N <= 0.75 × the peak (the last one with its bootstrap CI over seeds); no rise
    (a peak at the smallest N with the seed-CI of the rise below 0), no fall (a peak at the largest N), or the last CI
    above 0.75, fails."""
    if cfg.full_scale:
        return _unsupported()
    sweep, ns, t = _markov_sweep(cfg, ctx)
    mem = t["mem_bits"]
    mean = mem.mean(0)
    k = int(mean.argmax())
    last = bootstrap_ci(mem[:, -1] / np.maximum(mem.max(1), 1e-12), seed=ctx.seeds[0])
    first = float(mean[0] / mean[k]) if mean[k] > 0 else float("nan")
    # the rise, per seed: (largest mem_U at N > N_min - mem_U at N_min) / that seed's peak, with its CI over seeds
    rise = bootstrap_ci((mem[:, 1:].max(1) - mem[:, 0]) / np.maximum(mem.max(1), 1e-12), seed=ctx.seeds[0])
    interior = 0 < k < len(ns) - 1
    if interior and first <= FALL_BAR and last.hi <= FALL_BAR:
        verdict = Verdict.HOLDS
        why = f"peak at N={ns[k]} (interior); mem_U(N_min)/peak = {first:.2f}, mem_U(N_max)/peak = {last} <= {FALL_BAR}"
    elif k == 0 and rise.hi < 0:  # no rise: every seed-CI of (best later N - smallest N) / peak is below 0
        verdict = Verdict.FAILS
        why = f"no rise: peak at the smallest N={ns[0]} of {ns}, rise {rise} < 0, mem_U(N_max)/peak = {last}"
    elif k == len(ns) - 1 or last.lo > FALL_BAR:
        verdict = Verdict.FAILS
        why = f"no fall: peak at N={ns[k]} of {ns}, mem_U(N_max)/peak = {last} (bar <= {FALL_BAR})"
    else:
        verdict = Verdict.INCONCLUSIVE
        why = f"peak at N={ns[k]}; mem_U(N_min)/peak = {first:.2f}, mem_U(N_max)/peak = {last} vs bar {FALL_BAR}"
    if len(ctx.seeds) < MIN_SEEDS:  # one run's peak position decides nothing (the smoke budget)
        verdict, why = Verdict.INCONCLUSIVE, f"{len(ctx.seeds)} seed(s) < {MIN_SEEDS}: not decided; {why}"
    fig, ax = new_figure()
    ax.errorbar(ns, mean, yerr=mem.std(0), fmt="o-", label="mem_U(train) (seed mean ± sd)")
    ax.plot(ns, t["mem_bits_heldout"].mean(0), "s--", label="same statistic on held-out sequences")
    ax.set(xscale="log", xlabel="training sequences N", ylabel="unintended memorisation (bits)")
    ax.legend(fontsize=8)
    gap = (t["test_bits_per_token"] - t["ref_bits_per_token"]).mean(0)
    return ClaimResult(
        verdict=verdict, reason=why,
        summary=f"mem_U by N {ns}: {np.round(mean).astype(int).tolist()} bits; test−H gap {np.round(gap, 2).tolist()} bits/tok",
        measured={"n_sequences": ns, "mem_bits_mean": mean.tolist(), "mem_heldout_mean": t["mem_bits_heldout"].mean(0).tolist(),
                  "dataset_bits_mean": t["dataset_bits"].mean(0).tolist(), "peak_n": ns[k], "first_over_peak": first,
                  "last_over_peak": last.value, "last_over_peak_ci": [last.lo, last.hi],
                  "test_minus_entropy_bits_per_token": gap.tolist()},
        rows=sweep.rows, figures=[render(fig, name="markov_memorisation", caption="unintended memorisation vs N")],
        notes="reference = the exact generating Markov chain (the paper uses a larger model trained on more data)")


def check_mia_to_chance(cfg: SweepConfig, ctx: Context) -> ClaimResult:
    """Sec. 6 of [P01]: loss-threshold membership inference weakens as data/capacity grows, toward chance (AUC 0.5).
    Bars: AUC drops by >= 0.2 from the smallest to the largest N and ends <= 0.6 (bootstrap CIs over seeds)."""
    if cfg.full_scale:
        return _unsupported()
    sweep, ns, t = _markov_sweep(cfg, ctx)
    auc = t["mia_auc"]
    drop = bootstrap_ci(auc[:, 0] - auc[:, -1], seed=ctx.seeds[0])
    last = bootstrap_ci(auc[:, -1], seed=ctx.seeds[0])
    if drop.lo >= MIA_DROP_BAR and last.hi <= MIA_CHANCE_BAR:
        verdict, why = Verdict.HOLDS, f"AUC falls by {drop} to {last} (bars: drop >= {MIA_DROP_BAR}, end <= {MIA_CHANCE_BAR})"
    elif drop.hi < MIA_DROP_BAR or last.lo > MIA_CHANCE_BAR:
        verdict, why = Verdict.FAILS, f"AUC falls by {drop} to {last} (bars: drop >= {MIA_DROP_BAR}, end <= {MIA_CHANCE_BAR})"
    else:
        verdict, why = Verdict.INCONCLUSIVE, f"AUC drop {drop}, final AUC {last}: CIs straddle the bars"
    if len(ctx.seeds) < MIN_SEEDS:  # a CI over one seed has no spread (the smoke budget)
        verdict, why = Verdict.INCONCLUSIVE, f"{len(ctx.seeds)} seed(s) < {MIN_SEEDS}: not decided; {why}"
    fig, ax = new_figure()
    ratio = t["dataset_bits"].mean(0)
    ax.plot(ratio, auc.mean(0), "o-", label="AUC")
    ax.plot(ratio, t["mia_f1"].mean(0), "s--", label="F1 (median threshold)")
    ax.axhline(0.5, color="gray", ls=":")
    ax.set(xscale="log", xlabel="dataset bits (exact)", ylabel="membership inference")
    ax.legend(fontsize=8)
    return ClaimResult(
        verdict=verdict, reason=why,
        summary=f"MIA AUC by N {ns}: {np.round(auc.mean(0), 3).tolist()}; F1 {np.round(t['mia_f1'].mean(0), 3).tolist()}",
        measured={"n_sequences": ns, "auc_mean": auc.mean(0).tolist(), "f1_mean": t["mia_f1"].mean(0).tolist(),
                  "auc_drop": drop.value, "auc_drop_ci": [drop.lo, drop.hi], "auc_last": last.value,
                  "auc_last_ci": [last.lo, last.hi]},
        rows=sweep.rows, figures=[render(fig, name="mia_auc", caption="loss-threshold MIA vs dataset size")])


_TINY = TrainConfig(lr=3e-2, batch_size=64, max_steps=100, eval_every=50, patience=2, min_delta_bits=0.02)
_MARKOV_TRAIN = TrainConfig(lr=2e-2, batch_size=128, max_steps=6000, eval_every=100, patience=3, min_delta_bits=0.01)
_MARKOV = dict(model_sizes=((1, 8),), n_sequences=(16, 64, 256, 1024), train=_MARKOV_TRAIN)  # unchanged protocol
_MARKOV_SMOKE = dict(model_sizes=((1, 4),), n_sequences=(8, 32, 128), vocab_size=8, seq_len=8, train=_TINY)

CLAIMS = [
    Claim("bits_per_param", check=check_bits_per_param, budgets={
        "smoke": Budget(SweepConfig(model_sizes=((1, 4),), multiples=(1.0, 2.0), vocab_size=8, seq_len=8, train=_TINY),
                        seeds=1, expected_s=4),
        "small": Budget(SweepConfig(), seeds=3, expected_s=300),
        "full": Budget(SweepConfig(full_scale=True), seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("rise_then_fall", check=check_rise_then_fall, budgets={
        "smoke": Budget(SweepConfig(**_MARKOV_SMOKE), seeds=1, expected_s=4),
        "small": Budget(SweepConfig(**_MARKOV), seeds=3, expected_s=300),
        "full": Budget(SweepConfig(full_scale=True), seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
    Claim("mia_to_chance", check=check_mia_to_chance, budgets={
        "smoke": Budget(SweepConfig(**_MARKOV_SMOKE), seeds=1, expected_s=4),
        "small": Budget(SweepConfig(**_MARKOV), seeds=3, expected_s=300),
        "full": Budget(SweepConfig(full_scale=True), seeds=3, expected_s=1.0, requires=("gpu",)),
    }),
]
