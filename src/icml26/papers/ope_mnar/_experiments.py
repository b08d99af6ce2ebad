"""Replicated simulation runs of the [P36] claim checks: one row per (seed, replicate, n, method, policy) with the
estimate, and the Monte Carlo truth."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from icml26.papers.ope_mnar._data import LogisticPolicy, TargetPolicy
from icml26.papers.ope_mnar._fqe import (
    MARIPWFQE,
    CompleteCaseFQE,
    IdentificationWarning,
    OracleFQE,
    ShadowBridgeFQE,
    ZeroImputationFQE,
)
from icml26.papers.ope_mnar._simulator import MNARSimulator

__all__ = ["ESTIMATORS", "POLICY_NOTES", "POLICY_STOP", "replicate", "truth"]

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
    bridge's identification diagnostics."""
    sim, seed, reps, ns, methods, policies = task
    rows: list[dict[str, Any]] = []
    with warnings.catch_warnings():
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
