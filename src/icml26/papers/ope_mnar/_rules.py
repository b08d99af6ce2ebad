"""Verdict rules of the [P36] claims: pure functions of replicated estimates, built from :mod:`icml26.verdicts`.

A row is one estimate: ``{"seed", "rep", "n", "method", "policy", "estimate"}`` (the bridge's rows also carry
``"identified"``); errors are estimate − truth (the truth by Monte Carlo), paired across methods by (seed, rep). Every
CI is a 95% bootstrap over datasets.

- ``consistency``: at the largest n, |bias| bridge / |bias| complete case meets ``bias_ratio``, and the bridge's RMSE
  log-log slope over n (t-interval) lies in ``rmse_slope``.
- ``mar_biased``: under MNAR each MAR method's bias at the largest n keeps ``persistence`` of its bias at the smallest
  n; control: under MCAR the same methods are unbiased (``mcar_control``). A failed control makes the verdict
  ``inconclusive`` (the check would not be measuring MNAR selection).
- ``missingness_policy``: the bridge's bias on the missingness-aware policy, in units of the true value gap Δ to its
  missingness-blind twin, lies in ``bias_share``; the estimated gap over the true one meets ``contrast``.
- ``identification``: the relevance diagnostic accepts the relevant shadow and refuses the irrelevant one in
  ``accept_rate`` of the datasets at every n (``rate_fail`` fails); with the relevant shadow the bridge meets
  ``bias_ratio`` and its RMSE shrinks (``rmse_shrink``); with the irrelevant one the unguarded number stays biased
  (``unidentified_bias``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import Estimate, bootstrap_ci, loglog_slope, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, share

__all__ = ["MAR_METHODS", "RULES", "abs_bias_ratio_ci", "errors", "judge_consistency", "judge_identification",
           "judge_mar_biased", "judge_missingness_policy", "rmse", "rmse_ratio_ci"]

Rows = Sequence[Mapping[str, Any]]
#: the methods valid under MAR whose MNAR bias ``mar_biased`` is about
MAR_METHODS = ("complete_case", "mar_ipw")


def errors(rows: Rows, truths: Mapping[str, float], *, method: str, n: int, policy: str) -> np.ndarray:
    """Estimate − truth for one (method, n, policy), ordered by (seed, rep) so that methods pair up."""
    sel = sorted((r for r in rows if r["method"] == method and r["n"] == n and r["policy"] == policy),
                 key=lambda r: (r["seed"], r["rep"]))
    return np.array([r["estimate"] - truths[policy] for r in sel], dtype=float)


def rmse(e: np.ndarray) -> float:
    """Root mean squared error."""
    return float(np.sqrt(np.mean(np.square(e))))


def abs_bias_ratio_ci(num: np.ndarray, den: np.ndarray, *, n_boot: int = 2000, seed: int = 0) -> Estimate:
    """|mean(num)| / |mean(den)| with a paired percentile-bootstrap 95% interval (replicates resampled together)."""
    point = float(abs(num.mean()) / abs(den.mean()))
    if num.size < 2:
        return Estimate(point, point, point)
    idx = np.random.default_rng(seed).integers(0, num.size, size=(n_boot, num.size))
    boots = np.abs(num[idx].mean(axis=1)) / np.abs(den[idx].mean(axis=1))
    return Estimate(point, float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975)))


def rmse_ratio_ci(e_num: np.ndarray, e_den: np.ndarray, *, seed: int = 0) -> Estimate:
    """RMSE(e_num) / RMSE(e_den) with a 95% bootstrap interval (independent samples, e.g. two sample sizes): the
    square root of the MSE ratio's CI."""
    r = ratio_ci(np.square(e_num), np.square(e_den), paired=False, seed=seed)
    return Estimate(float(np.sqrt(r.value)), float(np.sqrt(r.lo)), float(np.sqrt(r.hi)), r.level)


def _ns(rows: Rows) -> list[int]:
    return sorted({int(r["n"]) for r in rows})


def judge_consistency(rows: Rows, *, bars: Mapping[str, Bar], truth: float) -> Judgement:
    """``consistency``: the bias ratio at the largest n and the RMSE slope over n (module docstring)."""
    ns, tv = _ns(rows), {"pi": truth}
    err = {m: {n: errors(rows, tv, method=m, n=n, policy="pi") for n in ns} for m in ("complete_case", "bridge")}
    nmax = ns[-1]
    k = int(err["bridge"][nmax].size)
    ratio = abs_bias_ratio_ci(err["bridge"][nmax], err["complete_case"][nmax])
    rm = [rmse(err["bridge"][n]) for n in ns]
    parts = {"bias": against_bar(f"|bias| bridge / complete case at n={nmax}", ratio, bars["bias_ratio"], n=k,
                                 min_n=MIN_SEEDS)}
    if len(ns) >= 3:
        slope = loglog_slope(np.array(ns, dtype=float), np.array(rm))
        parts["slope"] = against_bar("RMSE log-log slope over n", slope, bars["rmse_slope"], n=len(ns))
    else:
        parts["slope"] = Judgement(Verdict.INCONCLUSIVE, f"{len(ns)} sample sizes: a slope needs 3")
    j = all_of(parts, what="parts")
    measured = {**j.measured, "n": ns, "rmse_bridge": rm, "bias_ratio": [ratio.value, ratio.lo, ratio.hi],
                "bias_at_nmax": {m: float(e[nmax].mean()) for m, e in err.items()}}
    return Judgement(j.verdict, j.reason, measured)


def judge_mar_biased(rows_mnar: Rows, rows_mcar: Rows, *, bars: Mapping[str, Bar], truth_mnar: float,
                     truth_mcar: float) -> Judgement:
    """``mar_biased``: each MAR method's MNAR bias persists over n; the MCAR control is unbiased (module docstring)."""
    ns = _ns(rows_mnar)
    lo_n, hi_n = ns[0], ns[-1]
    stays, control = {}, {}
    for m in MAR_METHODS:
        e_lo, e_hi = (errors(rows_mnar, {"pi": truth_mnar}, method=m, n=n, policy="pi") for n in (lo_n, hi_n))
        e_mcar = errors(rows_mcar, {"pi": truth_mcar}, method=m, n=hi_n, policy="pi")
        persistence = ratio_ci(e_hi, e_lo, paired=False, seed=0)
        stays[f"{m} stays biased"] = against_bar(f"{m} bias n={hi_n} / n={lo_n}", persistence, bars["persistence"],
                                                 n=int(e_hi.size), min_n=MIN_SEEDS)
        control[f"{m} unbiased under MCAR"] = against_bar(
            f"{m} |bias| MCAR / MNAR at n={hi_n}", abs_bias_ratio_ci(e_mcar, e_hi), bars["mcar_control"],
            n=int(e_hi.size), min_n=MIN_SEEDS)
    j = all_of({**stays, **control}, what="parts", show=4)
    if any(c.verdict is Verdict.FAILS for c in control.values()):
        return Judgement(Verdict.INCONCLUSIVE, f"the MCAR control failed, so the check cannot attribute a bias to MNAR "
                         f"selection: {j.reason}", j.measured)
    return j


def judge_missingness_policy(rows: Rows, *, bars: Mapping[str, Bar], truths: Mapping[str, float]) -> Judgement:
    """``missingness_policy``: bias on π_h relative to Δ = V(π_h) − V(π_blind), and the estimated Δ's sign."""
    nmax = _ns(rows)[-1]
    delta = float(truths["pi_h"] - truths["pi_blind"])
    e_h = errors(rows, truths, method="bridge", n=nmax, policy="pi_h")
    e_b = errors(rows, truths, method="bridge", n=nmax, policy="pi_blind")
    k = int(e_h.size)
    parts = {
        "bias": against_bar("bridge bias on π_h / |Δ|", bootstrap_ci(e_h / abs(delta), seed=0), bars["bias_share"],
                            n=k, min_n=MIN_SEEDS),
        "contrast": against_bar("estimated Δ / true Δ", bootstrap_ci((e_h - e_b + delta) / delta, seed=0),
                                bars["contrast"], n=k, min_n=MIN_SEEDS),
    }
    j = all_of(parts, what="parts")
    return Judgement(j.verdict, f"{j.reason}. True Δ = {delta:+.4g} at n={nmax}", {**j.measured, "delta": delta})


def _rates(rows: Rows, ns: list[int], *, accepted: bool, what: str, bars: Mapping[str, Bar]) -> dict[str, Judgement]:
    out = {}
    for n in ns:
        ids = [bool(r["identified"]) for r in rows if r["n"] == n and r["method"] == "bridge" and r["policy"] == "pi"]
        k = sum(i == accepted for i in ids)
        out[f"{what} at n={n}"] = share(what, k, len(ids), bars["accept_rate"], fail_bar=bars["rate_fail"])
    return out


def judge_identification(rows_relevant: Rows, rows_irrelevant: Rows, *, bars: Mapping[str, Bar],
                         truth_relevant: float, truth_irrelevant: float) -> Judgement:
    """``identification``: diagnostic rates, bridge accuracy with a relevant shadow, bias without (module docstring)."""
    ns = _ns(rows_relevant)
    lo_n, hi_n = ns[0], ns[-1]
    rel, irr = {"pi": truth_relevant}, {"pi": truth_irrelevant}
    e_rel = {n: errors(rows_relevant, rel, method="bridge", n=n, policy="pi") for n in (lo_n, hi_n)}
    e_cc = errors(rows_relevant, rel, method="complete_case", n=hi_n, policy="pi")
    e_irr = errors(rows_irrelevant, irr, method="bridge", n=hi_n, policy="pi")
    k = int(e_cc.size)
    parts = {
        **_rates(rows_relevant, ns, accepted=True, what="relevant shadow accepted", bars=bars),
        **_rates(rows_irrelevant, ns, accepted=False, what="irrelevant shadow refused", bars=bars),
        "bias": against_bar(f"|bias| bridge / complete case at n={hi_n}", abs_bias_ratio_ci(e_rel[hi_n], e_cc),
                            bars["bias_ratio"], n=k, min_n=MIN_SEEDS),
        "rmse_shrinks": against_bar(f"RMSE n={hi_n} / n={lo_n}", rmse_ratio_ci(e_rel[hi_n], e_rel[lo_n]),
                                    bars["rmse_shrink"], n=k, min_n=MIN_SEEDS),
        "irrelevant_biased": against_bar(f"unguarded |bias| irrelevant / complete case at n={hi_n}",
                                         abs_bias_ratio_ci(e_irr, e_cc), bars["unidentified_bias"], n=k,
                                         min_n=MIN_SEEDS),
    }
    j = all_of(parts, what="parts", show=len(parts))
    measured = {**j.measured, "rmse": {"relevant": {str(n): rmse(e) for n, e in e_rel.items()},
                                       "irrelevant_unguarded": rmse(e_irr)}}
    return Judgement(j.verdict, j.reason, measured)


RULES = {"consistency": judge_consistency, "mar_biased": judge_mar_biased,
         "missingness_policy": judge_missingness_policy, "identification": judge_identification}
