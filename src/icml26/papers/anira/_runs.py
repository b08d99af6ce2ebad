"""The trained runs behind the [P23] claims: one model per (task, method, seed), evaluated on fresh in-distribution
and longer sequences, summarised as one row each (shared by the claims of a run group through ``ctx.shared``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.claims import Context
from icml26.papers.anira._analysis import by_difficulty, depth_difficulty_rho, r_squared
from icml26.papers.anira._topo import STATE_FEATURES, STATIC_FEATURES
from icml26.papers.anira._train import RunSpec, TaskSpec, evaluate_tokens, make_task, trained_model

__all__ = ["Runs", "run_all", "run_one"]

#: offsets of the evaluation sets' seeds from the training seed (disjoint streams)
ID_TEST, OOD_TEST = 10_000, 20_000


@dataclass(frozen=True)
class Runs:
    """Which models a claim trains: every (task, method) pair with the shared hyper-parameters ``model``."""

    tasks: tuple[TaskSpec, ...] = (TaskSpec(),)
    methods: tuple[str, ...] = ("anira_e", "anira_o_act", "anira_o_ponder", "fixed", "mod")
    model: RunSpec = RunSpec()
    n_test: int = 500


def _accuracy(res: dict[str, np.ndarray], sel: np.ndarray, exact: bool) -> float:
    if not exact:
        return float(res["correct"][sel].mean())
    seqs = np.unique(res["seq"])
    return float(np.mean([res["correct"][res["seq"] == s].all() for s in seqs]))


def _profile(res: dict[str, np.ndarray]) -> dict[str, list[float]]:
    """Per difficulty: [mean depth, accuracy, number of tokens]."""
    depth = by_difficulty(res["depth"], res["difficulty"])
    acc = by_difficulty(res["correct"].astype(float), res["difficulty"])
    return {str(k): [depth[k], acc[k], float((res["difficulty"] == k).sum())] for k in depth}


def _rho_above_lowest(res: dict[str, np.ndarray]) -> float:
    """Spearman rho among the tokens above the lowest difficulty (pointer chasing: the variables bound to another
    variable; the lowest level is told apart by a token's own fields), 0.0 when fewer than 2 such tokens."""
    sel = res["difficulty"] > res["difficulty"].min()
    return depth_difficulty_rho(res["depth"][sel], res["difficulty"][sel]) if sel.sum() >= 2 else 0.0


def run_one(spec: RunSpec, n_test: int, seed: int) -> dict[str, Any]:
    """Train (or load) ``spec``'s model for ``seed`` and summarise it in-distribution and out of distribution."""
    model = trained_model(spec, seed)
    task = spec.task
    iid = evaluate_tokens(model, make_task(task, "id", n_test, seed=ID_TEST + seed))
    ood = evaluate_tokens(model, make_task(task, "ood", n_test, seed=OOD_TEST + seed))
    beyond = ood["difficulty"] >= task.ood_min_difficulty
    row: dict[str, Any] = {
        "task": task.name, "method": spec.method, "seed": seed,
        "id_accuracy": _accuracy(iid, np.ones_like(iid["correct"]), task.exact_match),
        "id_token_accuracy": float(iid["correct"].mean()),
        "id_depth": float(iid["depth"].mean()), "id_flops": float(iid["flops"].mean()),
        "rho": depth_difficulty_rho(iid["depth"], iid["difficulty"]), "rho_above_lowest": _rho_above_lowest(iid),
        "ood_accuracy": _accuracy(ood, beyond, task.exact_match),
        "ood_token_accuracy": float(ood["correct"].mean()),
        "ood_depth": float(ood["depth"][beyond].mean()), "ood_flops": float(ood["flops"][beyond].mean()),
        "ood_tokens": int(beyond.sum()), "ood_rho": depth_difficulty_rho(ood["depth"], ood["difficulty"]),
        "id_profile": _profile(iid), "ood_profile": _profile(ood),
    }
    if all(f in iid for f in STATIC_FEATURES + STATE_FEATURES):
        row["r2_static"] = r_squared(iid["depth"], np.stack([iid[f] for f in STATIC_FEATURES], 1))
        row["r2_state"] = r_squared(iid["depth"], np.stack([iid[f] for f in STATE_FEATURES], 1))
    return row


def run_all(runs: Runs, seeds: tuple[int, ...], ctx: Context) -> list[dict[str, Any]]:
    """Every (task, method, seed) row of ``runs``, in that order; each row is computed once per run group
    (``ctx.shared``), so claims asking for the same model share it."""
    return [ctx.shared(run_one, dataclasses.replace(runs.model, task=t, method=m), runs.n_test, s)
            for t in runs.tasks for m in runs.methods for s in seeds]
