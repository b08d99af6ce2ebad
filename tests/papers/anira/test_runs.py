"""[P23] runs of the claims: the baselines are set from the adaptive methods' measured compute, each batch is computed
once per run group, a mapper gives the serial rows, and the accuracy-against-compute figure draws every method."""

import dataclasses

import numpy as np
import pytest

from icml26.claims import Context
from icml26.papers.anira._figures import compute_figure
from icml26.papers.anira._runs import BASELINES, Runs, baseline_spec, run_all, run_batch
from icml26.papers.anira._train import RunSpec, TaskSpec

POINTER = TaskSpec("pointer", (("n_vars", (3, 5)), ("max_hops", 2)), (("n_vars", (6, 8)), ("max_hops", 3)),
                   ood_min_difficulty=3)
ADDITION = TaskSpec("addition", (("digits", (2, 3)),), (("digits", (4, 5)),), ood_min_difficulty=0, exact_match=True)
TINY = RunSpec(d_model=16, n_head=2, d_ff=16, max_depth=4, n_train=64, steps=3, batch_size=8)
RUNS = Runs(tasks=(POINTER, ADDITION), methods=("anira_o_act",), baselines=BASELINES, model=TINY, n_test=4)


def test_baselines_match_the_mean_depth():
    spec = dataclasses.replace(TINY, method="anira_e")
    fixed = baseline_spec(spec, "fixed", 2.6)
    assert (fixed.method, fixed.depth) == ("fixed", 0)  # depth 0: max_depth
    assert baseline_spec(spec, "fixed_matched", 2.6).depth == 3
    assert baseline_spec(spec, "fixed_matched", 2.4).depth == 2
    assert baseline_spec(spec, "fixed_matched", 0.2).depth == 1  # at least one iteration
    mod = baseline_spec(spec, "mod", 2.6)
    assert (mod.method, mod.capacity) == ("mod", 0.65)  # 2.6 of 4 iterations per token
    assert baseline_spec(spec, "mod", 9.0).capacity == 1.0
    with pytest.raises(ValueError, match="name"):
        baseline_spec(spec, "ut", 2.0)
    with pytest.raises(ValueError, match="mean_depth"):
        baseline_spec(spec, "mod", 0.0)


def _serial(fn, items):
    return [fn(x) for x in reversed(items)][::-1]  # another order of work, the same rows


def test_run_all_sets_the_baselines_from_the_adaptive_rows_once_per_group():
    ctx = Context(seeds=(0,))
    rows = run_all(RUNS, (0,), ctx)
    assert [(r["task"], r["method"], r["seed"]) for r in rows] == (
        [(t.name, m, 0) for t in RUNS.tasks for m in RUNS.methods] + [(t.name, b, 0) for t in RUNS.tasks
                                                                       for b in BASELINES])
    for t in ("pointer", "addition"):
        mean = np.mean([r["id_depth"] for r in rows if r["task"] == t and r["method"] in RUNS.methods])
        by = {r["method"]: r for r in rows if r["task"] == t and r["seed"] == 0}
        assert by["fixed"]["fixed_depth"] == 4 and by["fixed"]["id_depth"] == 4.0
        assert by["fixed_matched"]["fixed_depth"] == int(np.clip(np.rint(mean), 1, 4))
        assert by["fixed_matched"]["id_depth"] == by["fixed_matched"]["fixed_depth"]  # every token, that many
        assert by["mod"]["capacity"] == pytest.approx(mean / 4, abs=1e-3)
        assert "capacity" not in by["anira_o_act"] and "fixed_depth" not in by["anira_o_act"]
    n = len(ctx.memo)
    again = run_all(dataclasses.replace(RUNS, baselines=()), (0,), ctx)  # another claim of the group
    assert len(ctx.memo) == n and again == rows[: len(again)]
    items = ((dataclasses.replace(TINY, task=POINTER, method="anira_o_act"), 4, 0, "anira_o_act"),
             (dataclasses.replace(TINY, task=POINTER, method="mod", capacity=0.5), 4, 1, "mod"))
    batch = run_batch(items, _serial)
    assert batch == run_batch(items) and batch[0] == rows[0] and batch[1]["method"] == "mod"
    with pytest.raises(ValueError, match="runs.methods"):
        run_all(dataclasses.replace(RUNS, methods=()), (0,), Context(seeds=(0,)))
    fig = compute_figure(rows, "pointer")
    assert fig.name == "pointer_accuracy_vs_compute"
    assert all(label in fig.svg for label in ("ANIRA-O (ACT)", "fixed depth T", "fixed depth (matched)",
                                              "Mixture-of-Depths (matched)"))
