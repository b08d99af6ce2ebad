"""The [P11] rules on planted rows: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.reqat._rules import (
    judge_degrades,
    judge_low_entropy,
    judge_ptq_gap,
    judge_qfit,
    judge_recovers,
    judge_surpasses,
)
from support.planted import load_planted

P = load_planted("reqat")
BARS = {c.id: c.bar_map for c in registry.get_paper("reqat").claims}


def test_degradation_is_pooled_over_documents():
    j = judge_degrades(P.acc_rows([8, 9, 8, 9, 8], [2, 3, 2, 1, 3]), bars=BARS["fp4_degrades"])
    assert j.verdict is Verdict.HOLDS
    assert j.measured["acc_ref"] == pytest.approx(42 / 50) and j.measured["acc_ptq"] == pytest.approx(11 / 50)
    few = judge_degrades(P.acc_rows([8, 9], [2, 3]), bars=BARS["fp4_degrades"])
    assert few.verdict is Verdict.INCONCLUSIVE and "only 2" in few.reason
    mixed = judge_degrades(P.acc_rows([8, 9, 8, 9, 8], [8, 9, 3, 9, 8]), bars=BARS["fp4_degrades"])
    assert mixed.verdict is Verdict.INCONCLUSIVE and "straddles" in mixed.reason


def test_low_entropy_gap_and_documents_without_an_extreme_bin():
    bars = BARS["low_entropy_failures"]
    j = judge_low_entropy(P.bin_rows([3.0, 2.5, 3.2, 2.8], [0.1, 0.05, 0.1, 0.2]), bars=bars)
    assert j.verdict is Verdict.HOLDS and j.measured["per_bin"]["0"]["log_rho"] == pytest.approx(2.875)
    rows = P.bin_rows([3.0, 2.5, 3.2, 2.8], [0.1, 0.05, 0.1, 0.2])
    rows[1]["n"] = 0  # document 0 has no high-entropy position
    j = judge_low_entropy(rows, bars=bars)
    assert j.verdict is Verdict.HOLDS and "1 documents lack an extreme bin" in j.reason
    near = judge_low_entropy(P.bin_rows([0.9, 0.5, 0.8, 0.6], [0.0, 0.0, 0.0, 0.0]), bars=bars)
    assert near.verdict is Verdict.INCONCLUSIVE  # straddles ln 2


def test_qfit_ratio_is_a_geometric_mean_over_layers():
    j = judge_qfit(P.kv_rows([0.5] * 5), bars=BARS["qfit_kv_error"])
    assert j.verdict is Verdict.HOLDS and j.measured["per_layer_ratio"] == pytest.approx([0.5, 0.5, 0.5])
    rows = P.kv_rows([1.0] * 5)
    for r in rows:  # one layer 2x better, two 1.5x worse: the geometric mean is above 1
        r["mse_qfit"] *= 0.5 if r["layer"] == 0 else 1.5
    assert judge_qfit(rows, bars=BARS["qfit_kv_error"]).verdict is Verdict.FAILS


def test_training_rules_need_three_seeds_and_pair_by_seed():
    two = P.method_rows({"ft": [0.8, 0.8], "ft_ptq": [0.5, 0.5], "qat": [0.7, 0.7], "reqat": [0.9, 0.9]})
    for rule, cid in ((judge_ptq_gap, "ptq_degrades"), (judge_recovers, "reqat_recovers"),
                      (judge_surpasses, "surpasses_ft")):
        j = rule(two, bars=BARS[cid])
        assert j.verdict is Verdict.INCONCLUSIVE and "only 2 seeds" in j.reason
    rows = P.method_rows({"ft": [0.80, 0.82, 0.81], "ft_ptq": [0.5] * 3, "qat": [0.80, 0.82, 0.81],
                          "reqat": [0.81, 0.83, 0.82]})
    j = judge_recovers(rows, bars=BARS["reqat_recovers"])  # non-inferior to FT, but no 2-point gain over QAT
    assert j.verdict is Verdict.FAILS and j.measured["parts"] == {"vs FT": "holds", "vs QAT": "fails"}
    assert j.measured["mean_accuracy"]["reqat"] == pytest.approx(0.82)


def test_surpassing_is_decided_by_the_sign_of_the_whole_ci():
    bars = BARS["surpasses_ft"]
    tie = P.method_rows({"ft": [0.8, 0.8, 0.8], "ft_ptq": [0.5] * 3, "qat": [0.7] * 3, "reqat": [0.79, 0.8, 0.82]})
    assert judge_surpasses(tie, bars=bars).verdict is Verdict.INCONCLUSIVE
