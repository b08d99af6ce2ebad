"""The [P27] rules on planted tables: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.zerounlearn._rules import judge_ga, judge_projector, judge_unlearning
from support.planted import load_planted

P = load_planted("zerounlearn")
BARS = {c.id: c.bar_map for c in registry.get_paper("zerounlearn").claims}


def test_unlearning_needs_every_bar():
    held = judge_unlearning(P.rows(P.GOOD), bars=BARS["targeted_unlearning"])
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("4 of 4 bars hold")
    leaky = {**P.GOOD, "zerounlearn": (0.0, 5.0, 95.0, 20.0)}  # forgets, but perplexity +25%
    j = judge_unlearning(P.rows(leaky), bars=BARS["targeted_unlearning"])
    assert j.verdict is Verdict.FAILS
    assert j.measured["parts"] == {"efficacy": "holds", "generalisation": "holds", "specificity": "holds",
                                   "perplexity": "fails"}
    assert j.measured["perplexity"]["perplexity increase (%)"]["estimate"] == pytest.approx(25.0, rel=1e-2)
    broad = {**P.GOOD, "zerounlearn": (0.0, 5.0, 85.0, 16.3)}  # a 15-pt specificity drop
    assert judge_unlearning(P.rows(broad), bars=BARS["targeted_unlearning"]).measured["parts"]["specificity"] == "fails"


def test_unlearning_needs_seeds_and_rows():
    two = judge_unlearning(P.rows(P.GOOD, 2), bars=BARS["targeted_unlearning"])
    assert two.verdict is Verdict.INCONCLUSIVE and "only 2" in two.reason
    none = judge_unlearning([r for r in P.rows(P.GOOD) if r["method"] != "zerounlearn"],
                            bars=BARS["targeted_unlearning"])
    assert none.verdict is Verdict.INCONCLUSIVE


def test_ga_rule_reads_the_perplexity_ratio():
    held = judge_ga(P.rows(P.GOOD), bars=BARS["gradient_ascent_cost"])
    assert held.verdict is Verdict.HOLDS and held.measured["reached"] == 3
    assert held.measured["GA perplexity after / before"]["estimate"] == pytest.approx(60.0 / 16.0, rel=1e-2)
    cheap = judge_ga(P.rows(P.BAD), bars=BARS["gradient_ascent_cost"])
    assert cheap.verdict is Verdict.FAILS
    unreached = {**P.GOOD, "ga": (50.0, 40.0, 40.0, 60.0, False)}
    j = judge_ga(P.rows(unreached), bars=BARS["gradient_ascent_cost"])
    assert "on 0 of 3" in j.reason and j.measured["reached"] == 0


def test_projector_rule_is_a_paired_gap():
    held = judge_projector(P.rows(P.GOOD), bars=BARS["projector_matters"])
    assert held.verdict is Verdict.HOLDS and held.measured["generalisation without P − with P (pts)"]["estimate"] == pytest.approx(10.0)
    assert judge_projector(P.rows(P.BAD), bars=BARS["projector_matters"]).verdict is Verdict.FAILS
    rows = P.rows(P.GOOD)
    for r in rows:  # with P worse on one seed, better on two: the CI straddles 0
        if r["method"] == "zerounlearn_no_op":
            r["generalisation"] = {0: 0.0, 1: 6.0, 2: 7.0}[r["seed"]]
    assert judge_projector(rows, bars=BARS["projector_matters"]).verdict is Verdict.INCONCLUSIVE
