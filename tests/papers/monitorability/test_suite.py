"""The [P02] organism, monitors and eval runner: rates the organism promises, monitors against brute force."""

import numpy as np
import pytest

from icml26.papers.monitorability import (
    BagOfWordsMonitor,
    OrganismConfig,
    PartialReadMonitor,
    SimulatedAgent,
    View,
    best_threshold,
    episodes_of,
    g_mean2,
    organism_eval,
    run_eval,
    view_of,
)


def _episodes(arch: str, cfg: OrganismConfig, n: int, seed: int, followup: bool = False):
    ev = organism_eval(arch)
    return ev, episodes_of(SimulatedAgent(cfg), ev, ev.tasks(n, seed=seed), samples=2, followup=followup, seed=seed)


def test_verbalization_rate_is_one_minus_one_minus_v_to_the_k() -> None:
    cfg = OrganismConfig(cot_steps=5, verbalize=0.2, noise=0.0)
    _, eps = _episodes("outcome", cfg, 2000, 0)
    hacked = [e for e in eps if e.transcript.meta["property"]]
    said = np.mean(["special_case" in e.transcript.cot.split() for e in hacked])
    assert said == pytest.approx(1 - 0.8 ** 5, abs=0.03)
    assert not any("special_case" in e.transcript.cot for e in eps if not e.transcript.meta["property"])


def test_intervention_cause_only_in_the_treatment_arm_and_only_towards_the_hint() -> None:
    ev, eps = _episodes("intervention", OrganismConfig(), 500, 1)
    for e in eps:
        if e.transcript.meta["property"]:
            assert e.prompt.arm == "treatment" and e.transcript.action == "ABCD"[e.prompt.task.target]
    idx, arm = ev.cases(eps)
    assert all(eps[i].transcript.action == "ABCD"[eps[i].prompt.task.target] for i in idx)
    assert 0 < arm.mean() < 1
    # both arms are shown the treated prompt: the view does not give the arm away
    assert ev.view(eps[0], "action").prompt == eps[0].prompt.task.treated_prompt


def test_views_hide_what_the_scope_does_not_allow() -> None:
    _, eps = _episodes("process", OrganismConfig(), 2, 0, followup=True)
    e = eps[0]
    assert view_of(e, "action", question="q").cot is None
    assert view_of(e, "cot", question="q").action is None
    assert view_of(e, "all", question="q").followup is None
    assert view_of(e, "all+followup", question="q").followup == e.transcript.followup
    with pytest.raises(ValueError, match="scope"):
        view_of(e, "everything", question="q")


def test_cot_monitor_beats_action_only_and_followup_helps_on_the_organism() -> None:
    ev, train = _episodes("outcome", OrganismConfig(), 300, 0, followup=True)
    _, test = _episodes("outcome", OrganismConfig(), 300, 1, followup=True)
    mons = {s: BagOfWordsMonitor(s) for s in ("action", "all", "all+followup")}
    run = run_eval(ev, mons, train=train, test=test, n_boot=100, seed=0)
    g = {n: run.scores[n].g_mean2 for n in run.names}
    assert g["all+followup"] > g["all"] > g["action"] > 0
    _, y = ev.cases(test)
    assert g["all"] == pytest.approx(g_mean2(y, run.flags["all"]))
    assert run.replicates.shape == (100, 3)


def test_partial_reads_with_everything_kept_equal_the_base_monitor() -> None:
    ev, train = _episodes("process", OrganismConfig(), 100, 0)
    _, test = _episodes("process", OrganismConfig(), 50, 1)
    _, y = ev.cases(train)
    tv, sv = [ev.view(e, "all") for e in train], [ev.view(e, "all") for e in test]
    base = BagOfWordsMonitor("all").fit(tv, y, seed=0)
    full = PartialReadMonitor(BagOfWordsMonitor("all"), reads=3, keep=1.0).fit(tv, y, seed=0)
    assert np.array_equal(full.predict_proba(sv, seed=0), (base.predict_proba(sv, seed=0) >= 0.5).astype(float))
    with pytest.raises(ValueError, match="odd"):
        PartialReadMonitor(BagOfWordsMonitor("all"), reads=4)


def test_best_threshold_against_brute_force() -> None:
    g = np.random.default_rng(0)
    s = np.round(g.normal(size=60), 1)
    y = (s + g.normal(size=60) > 0).astype(int)
    t = best_threshold(s, y)
    def gm(c: float) -> float:
        return float(g_mean2(y, (s >= c).astype(int)))
    assert gm(t) == pytest.approx(max(gm(c) for c in np.r_[s, s.max() + 1]))


def test_single_class_training_gives_a_constant_monitor() -> None:
    views = [View(question="q", prompt="p", cot="a b"), View(question="q", prompt="p", cot="c")]
    m = BagOfWordsMonitor("cot").fit(views, np.array([1, 1]), seed=0)
    assert np.array_equal(m.predict_proba(views, seed=0), [1.0, 1.0])


def test_the_suite_classes_implement_the_protocols() -> None:
    from icml26.papers.monitorability import Agent, Eval, Monitor

    assert all(isinstance(organism_eval(a), Eval) for a in ("intervention", "process", "outcome"))
    assert isinstance(SimulatedAgent(OrganismConfig()), Agent)
    assert isinstance(BagOfWordsMonitor("all"), Monitor)
    assert isinstance(PartialReadMonitor(BagOfWordsMonitor("cot"), reads=3), Monitor)
