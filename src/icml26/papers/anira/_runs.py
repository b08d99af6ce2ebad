"""The trained runs behind the [P23] claims: one model per (task, method, seed), evaluated on fresh in-distribution
and longer sequences, summarised as one row each (shared by the claims of a run group through ``ctx.shared``; the
models of one batch train side by side through the runner's ``ctx.mapper`` when it has one).

The baselines are set from the adaptive methods' measured compute on the same task: ``fixed`` runs every token
``T`` iterations, ``fixed_matched`` the adaptive methods' mean depth (rounded, 1..T) and ``mod`` is
Mixture-of-Depths at that mean compute (capacity = mean depth / T, so each iteration runs that share of tokens)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.claims import Context
from icml26.common.validation import choice, real
from icml26.papers.anira._analysis import by_difficulty, depth_difficulty_rho, r_squared
from icml26.papers.anira._topo import STATE_FEATURES, STATIC_FEATURES
from icml26.papers.anira._train import RunSpec, TaskSpec, evaluate_tokens, make_task, trained_model

__all__ = ["BASELINES", "Runs", "baseline_spec", "run_all", "run_batch", "run_one"]

#: the baselines beside the adaptive methods (module docstring)
BASELINES = ("fixed", "fixed_matched", "mod")
#: offsets of the evaluation sets' seeds from the training seed (disjoint streams)
ID_TEST, OOD_TEST = 10_000, 20_000


@dataclass(frozen=True)
class Runs:
    """Which models a claim trains: every (task, method) pair with the shared hyper-parameters ``model``, then the
    ``baselines`` (of :data:`BASELINES`) set from the mean depth of ``methods`` on each task."""

    tasks: tuple[TaskSpec, ...] = (TaskSpec(),)
    methods: tuple[str, ...] = ("anira_e", "anira_o_act", "anira_o_ponder")
    baselines: tuple[str, ...] = ()
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


def run_one(spec: RunSpec, n_test: int, seed: int, label: str | None = None) -> dict[str, Any]:
    """Train (or load) ``spec``'s model for ``seed`` and summarise it in-distribution and out of distribution (the
    row's ``method`` is ``label``, ``spec.method`` by default)."""
    model = trained_model(spec, seed)
    task = spec.task
    iid = evaluate_tokens(model, make_task(task, "id", n_test, seed=ID_TEST + seed))
    ood = evaluate_tokens(model, make_task(task, "ood", n_test, seed=OOD_TEST + seed))
    beyond = ood["difficulty"] >= task.ood_min_difficulty
    row: dict[str, Any] = {
        "task": task.name, "method": label or spec.method, "seed": seed,
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
    if spec.method == "fixed":
        row["fixed_depth"] = spec.depth or spec.max_depth
    if spec.method == "mod":
        row["capacity"] = spec.capacity
    if all(f in iid for f in STATIC_FEATURES + STATE_FEATURES):
        row["r2_static"] = r_squared(iid["depth"], np.stack([iid[f] for f in STATIC_FEATURES], 1))
        row["r2_state"] = r_squared(iid["depth"], np.stack([iid[f] for f in STATE_FEATURES], 1))
    return row


def baseline_spec(spec: RunSpec, name: str, mean_depth: float) -> RunSpec:
    """``spec`` turned into the baseline ``name`` of :data:`BASELINES` for adaptive methods of mean depth
    ``mean_depth`` (iterations per token) on the same task (module docstring)."""
    choice(name, "name", BASELINES)
    m = real(mean_depth, "mean_depth", lo=0.0, lo_open=True)
    T = spec.max_depth
    if name == "fixed":
        return dataclasses.replace(spec, method="fixed", depth=0)
    if name == "fixed_matched":
        return dataclasses.replace(spec, method="fixed", depth=int(np.clip(np.rint(m), 1, T)))
    return dataclasses.replace(spec, method="mod", capacity=round(float(np.clip(m / T, 1.0 / T, 1.0)), 3))


def _run_item(item: tuple[RunSpec, int, int, str]) -> dict[str, Any]:
    return run_one(*item)


def run_batch(items: tuple[tuple[RunSpec, int, int, str], ...], mapper: Any = None) -> list[dict[str, Any]]:
    """The rows of ``items`` (spec, n_test, seed, label), in order, through ``mapper(fn, items)`` (a process pool:
    each item is seeded, so the rows equal a serial run's) when one is given."""
    if mapper is None:
        return [_run_item(i) for i in items]
    return list(mapper(_run_item, list(items)))


def run_all(runs: Runs, seeds: tuple[int, ...], ctx: Context) -> list[dict[str, Any]]:
    """Every (task, method, seed) row of ``runs``, in that order, then the baselines' rows; each batch is computed
    once per run group (``ctx.shared``), so claims asking for the same models share them."""
    items = tuple((dataclasses.replace(runs.model, task=t, method=m), runs.n_test, s, m)
                  for t in runs.tasks for m in runs.methods for s in seeds)
    rows: list[dict[str, Any]] = ctx.shared(run_batch, items, ctx.mapper)
    if not runs.baselines:
        return rows
    if not runs.methods:
        raise ValueError("runs: the baselines are matched to the adaptive methods, and runs.methods is empty")
    extra = []
    for t in runs.tasks:
        mean = float(np.mean([r["id_depth"] for r in rows if r["task"] == t.name]))
        extra += [(baseline_spec(dataclasses.replace(runs.model, task=t), b, mean), runs.n_test, s, b)
                  for b in runs.baselines for s in seeds]
    return rows + ctx.shared(run_batch, tuple(extra), ctx.mapper)
