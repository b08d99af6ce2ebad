"""The [P06] rules on planted rows: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.implicit_patch._rules import judge_controls, judge_equivalence, judge_generation, judge_real
from support.planted import load_planted

P = load_planted("implicit_patch")
BARS = {c.id: c.bar_map for c in registry.get_paper("implicit_patch").claims}


@pytest.mark.parametrize("claim", ["gemma_equivalence", "general_equivalence"])
def test_equivalence_rule(claim: str) -> None:
    bars = BARS[claim]
    assert judge_equivalence(P.equiv_rows(), bars=bars).verdict is Verdict.HOLDS
    f64 = judge_equivalence(P.equiv_rows(diff64=2e-9), bars=bars)
    assert f64.verdict is Verdict.FAILS and "max |Δlogit| float64 = 2e-09" in f64.reason
    f32 = judge_equivalence(P.equiv_rows(diff32=2e-4), bars=bars)
    assert f32.verdict is Verdict.FAILS and "float32" in f32.reason
    blind = judge_equivalence(P.equiv_rows(effect=1e-5), bars=bars)  # the context does not move the logits
    assert blind.verdict is Verdict.INCONCLUSIVE and "insensitive" in blind.reason
    with pytest.raises(ValueError, match="at least one row"):
        judge_equivalence([], bars=bars)


def test_generation_rule_and_its_guards() -> None:
    bars = BARS["patched_generation"]
    assert judge_generation(P.gen_rows(), bars=bars).verdict is Verdict.HOLDS
    assert judge_generation(P.gen_rows(agree=0.95), bars=bars).verdict is Verdict.FAILS  # one token differs
    free = judge_generation(P.gen_rows(alone=0.6), bars=bars)  # the query alone already agrees: uninformative
    assert free.verdict is Verdict.INCONCLUSIVE and "unpatched" in free.reason
    collapsed = judge_generation(P.gen_rows(distinct=2), bars=bars)
    assert collapsed.verdict is Verdict.INCONCLUSIVE and "distinct" in collapsed.reason
    assert judge_generation(P.gen_rows(agree=0.95, distinct=1), bars=bars).verdict is Verdict.FAILS


def test_controls_rule() -> None:
    bars = BARS["negative_controls"]
    held = judge_controls(P.control_rows(), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("3 of 3 patches hold")
    unneeded = judge_controls(P.control_rows(rel=5e-3), bars=bars)  # a partial patch within 1 % of the effect
    assert unneeded.verdict is Verdict.FAILS and "misses the bar > 0.01 (ours)" in unneeded.reason
    inexact = judge_controls(P.control_rows(full=1e-6), bars=bars)  # the full patch itself misses
    assert inexact.verdict is Verdict.FAILS
    with pytest.raises(ValueError, match="partial-patch rows"):
        judge_controls([r for r in P.control_rows() if r["variant"] == "full patch"], bars=bars)



def test_real_model_rule_each_part_and_the_sensitivity_guard() -> None:
    bars = BARS["llama_equivalence"]
    held = judge_real(P.real_rows(), bars=bars)
    assert held.verdict is Verdict.HOLDS and held.reason.startswith("4 of 4 parts hold")
    assert judge_real(P.real_rows(gap=2e-9), bars=bars).verdict is Verdict.FAILS  # above 1e-9 relative
    assert judge_real(P.real_rows(agree=0.75), bars=bars).verdict is Verdict.FAILS  # one greedy token differs
    leak = judge_real(P.real_rows(control=1e-3), bars=bars)  # another context's patches nearly reproduce the logits
    assert leak.verdict is Verdict.FAILS and "another context" in leak.reason
    blind = judge_real(P.real_rows(effect=1e-5), bars=bars)  # the context does not move the logits
    assert blind.verdict is Verdict.INCONCLUSIVE and "insensitive" in blind.reason
    with pytest.raises(ValueError, match="greedy agreement"):
        judge_real([{k: v for k, v in r.items() if k != "agree"} for r in P.real_rows()], bars=bars)
