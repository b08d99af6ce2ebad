"""Replicated simulation runs shared by the claim checks of [P36] (errors of each estimator against the Monte Carlo
truth, one row per (seed, replicate, n, method))."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from icml26.common.stats import Estimate, ratio_ci
from icml26.papers.ope_mnar._data import LogisticPolicy, TargetPolicy
from icml26.papers.ope_mnar._fqe import (
    CompleteCaseFQE,
    IdentificationWarning,
    MARIPWFQE,
    OracleFQE,
    ShadowBridgeFQE,
    ZeroImputationFQE,
)
from icml26.papers.ope_mnar._simulator import MNARSimulator

__all__ = ["ESTIMATORS", "POLICY_NOTES", "POLICY_STOP", "abs_bias_ratio_ci", "errors", "replicate", "rmse",
           "rmse_ratio_ci", "truth"]

#: the notes' target policy π(a=1 | s, η_{t-1}) = expit(s₂ + (1 − η_{t-1})): more treatment after a missing record
POLICY_NOTES = LogisticPolicy((0.0, 1.0), 0.0, 1.0)
#: a policy with a large missingness effect: treat when s₂ > 0, stop treating when the last outcome went unrecorded
POLICY_STOP = LogisticPolicy((0.0, 2.0), 0.0, -4.0)

ESTIMATORS = {
    "oracle": OracleFQE,
    "complete_case": CompleteCaseFQE,
    "zero_impute": ZeroImputationFQE,
    "mar_ipw": MARIPWFQE,
    "bridge": ShadowBridgeFQE,
}


def truth(sim: MNARSimulator, policy: TargetPolicy, *, n_mc: int, seed: int) -> tuple[float, float]:
    """Monte Carlo value of ``policy`` with a seed stream disjoint from the data streams."""
    return sim.true_value(policy, n_mc=n_mc, seed=np.random.default_rng(np.random.SeedSequence([seed, 999_983])))


def replicate(task: tuple[Any, ...]) -> list[dict[str, Any]]:
    """One seed's replicates: ``task = (sim, seed, reps, ns, methods, policies)`` with ``policies`` a name -> policy
    mapping. Returns one row per (replicate, n, method, policy) with the estimate (NaN when the bridge refuses) and the
    bridge's identification diagnostics. Runs on one BLAS thread (the algebra is tiny; more threads only add noise)."""
    sim, seed, reps, ns, methods, policies = task
    from threadpoolctl import threadpool_limits

    rows: list[dict[str, Any]] = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", IdentificationWarning)
        for rep in range(reps):
            for n in ns:
                data = sim.sample(int(n), seed=np.random.default_rng(np.random.SeedSequence([seed, int(n), rep])))
                for m in methods:
                    est = ESTIMATORS[m](on_unidentified="warn") if m == "bridge" else ESTIMATORS[m]()
                    est.fit(data)
                    extra = {}
                    if m == "bridge":
                        extra = {"identified": est.identified_, "min_shadow_F": float(np.min(est.shadow_F_))}
                    for pname, pol in policies.items():
                        rows.append({"seed": seed, "rep": rep, "n": int(n), "method": m, "policy": pname,
                                     "estimate": est.estimate(pol), **extra})
    return rows


def errors(rows: Sequence[dict[str, Any]], truths: dict[str, float], *, method: str, n: int,
           policy: str) -> np.ndarray:
    """Estimate − truth for one (method, n, policy), ordered by (seed, rep) so that methods pair up."""
    sel = sorted((r for r in rows if r["method"] == method and r["n"] == n and r["policy"] == policy),
                 key=lambda r: (r["seed"], r["rep"]))
    return np.array([r["estimate"] - truths[policy] for r in sel])


def rmse(e: np.ndarray) -> float:
    """Root mean squared error."""
    return float(np.sqrt(np.mean(np.square(e))))


def abs_bias_ratio_ci(num: np.ndarray, den: np.ndarray, *, n_boot: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """|mean(num)| / |mean(den)| with a paired percentile-bootstrap 95% interval (replicates resampled together)."""
    point = abs(num.mean()) / abs(den.mean())
    if num.size < 2:
        return float(point), float(point), float(point)
    idx = np.random.default_rng(seed).integers(0, num.size, size=(n_boot, num.size))
    boots = np.abs(num[idx].mean(axis=1)) / np.abs(den[idx].mean(axis=1))
    return float(point), float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))


def rmse_ratio_ci(e_num: np.ndarray, e_den: np.ndarray, *, seed: int = 0) -> Estimate:
    """RMSE(e_num) / RMSE(e_den) with a 95% percentile-bootstrap interval (the two error samples come from independent
    data sets, e.g. two sample sizes, and are resampled independently): the square root of the MSE ratio's CI."""
    r = ratio_ci(np.square(e_num), np.square(e_den), paired=False, seed=seed)
    return Estimate(float(np.sqrt(r.value)), float(np.sqrt(r.lo)), float(np.sqrt(r.hi)), r.level)
