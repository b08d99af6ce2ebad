"""The [P09] rules on planted federation tables: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.mfedpba._rules import judge_ablations, judge_imbalance, judge_outperforms
from support.planted import load_planted

P = load_planted("mfedpba")
BARS = {c.id: c.bar_map for c in registry.get_paper("mfedpba").claims}


def test_outperforms_needs_every_baseline_of_every_setting() -> None:
    bars = BARS["outperforms_baselines"]
    held = judge_outperforms(P.compare_rows(0.03), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("4 of 4 (setting, baseline) pairs hold")
    assert set(held.measured["parts"]) == {"heterogeneous: vs local", "heterogeneous: vs fedproto",
                                           "heterogeneous: vs logit_avg", "same_architecture: vs fedavg"}
    rows = P.compare_rows(0.03)
    for r in rows:  # FedAvg now beats MFedPBA by 1 point in every seed: one failing pair fails the claim
        if r["method"] == "fedavg":
            r["accuracy"] += 0.04
    j = judge_outperforms(rows, bars=bars)
    assert j.verdict is Verdict.FAILS and j.measured["parts"]["same_architecture: vs fedavg"] == "fails"
    assert "3 holds" in j.reason  # what held is said too
    paired = j.measured["paired"]["heterogeneous: vs local"]
    assert paired["seeds"] == [0, 1, 2] and len(paired["diff_points"]) == 3


def test_outperforms_is_inconclusive_with_few_seeds_or_a_mixed_sign() -> None:
    bars = BARS["outperforms_baselines"]
    two = judge_outperforms(P.compare_rows(0.03, 2), bars=bars)
    assert two.verdict is Verdict.INCONCLUSIVE and "only 2" in two.reason
    rows = P.compare_rows(0.0, 5)  # gap 0 with a jitter: differences of both signs
    assert judge_outperforms(rows, bars=bars).verdict is Verdict.INCONCLUSIVE


def test_differences_are_paired_by_seed() -> None:
    rows = P.compare_rows(0.01, 3)
    j = judge_outperforms(rows, bars=BARS["outperforms_baselines"])
    d = j.measured["paired"]["heterogeneous: vs local"]["diff_points"]
    by = {(r["method"], r["seed"]): 100 * r["accuracy"] for r in rows if r["setting"] == "heterogeneous"}
    assert d == pytest.approx([by["mfedpba", s] - by["local", s] for s in range(3)])


def test_imbalance_slope_against_the_best_baseline() -> None:
    bars = BARS["advantage_grows_with_imbalance"]
    held = judge_imbalance(P.imbalance_rows(0.05), bars=bars)
    assert held.verdict is Verdict.HOLDS
    # advantage over the best baseline (local, 0.5 pts above the others) = 1 + 5 f points, plus the seed's jitter
    assert held.measured["mean_advantage_points"] == pytest.approx([2.0, 3.5, 5.0], abs=0.1)
    assert all(s == pytest.approx(5.0, abs=0.5) for s in held.measured["slopes"])
    flat = judge_imbalance(P.imbalance_rows(0.0, 5), bars=bars)  # a constant advantage does not grow
    assert flat.verdict is not Verdict.HOLDS
    assert judge_imbalance(P.imbalance_rows(-0.05), bars=bars).verdict is Verdict.FAILS
    one_fraction = judge_imbalance(P.imbalance_rows(0.05, 3, (0.5,)), bars=bars)
    assert one_fraction.verdict is Verdict.INCONCLUSIVE and ">= 2 unimodal fractions" in one_fraction.reason


def test_imbalance_uses_the_strongest_baseline_of_each_run() -> None:
    rows = P.imbalance_rows(0.05)
    for r in rows:  # FedProto becomes the best baseline at high imbalance: the advantage must shrink accordingly
        if r["method"] == "fedproto":
            r["accuracy"] += 0.1 * r["fraction"]
    j = judge_imbalance(rows, bars=BARS["advantage_grows_with_imbalance"])
    assert j.verdict is Verdict.FAILS and j.measured["slopes"][0] < 0


def test_ablation_rule() -> None:
    bars = BARS["both_alignments_contribute"]
    assert judge_ablations(P.ablation_rows(0.02), bars=bars).verdict is Verdict.HOLDS
    rows = P.ablation_rows(0.02)
    for r in rows:
        if r["method"] == "mfedpba_uniform":
            r["accuracy"] += 0.02  # uniform weights as good as entropy weights, up to the jitter
    j = judge_ablations(rows, bars=bars)
    assert j.verdict is not Verdict.HOLDS and j.measured["parts"]["mfedpba_no_gw"] == "holds"
    assert judge_ablations(P.ablation_rows(0.02, 2), bars=bars).verdict is Verdict.INCONCLUSIVE
