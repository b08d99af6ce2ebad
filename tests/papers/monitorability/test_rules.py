"""The [P02] rules on planted rows: each verdict comes out where it should, for the right reason."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.harness import run_claim
from icml26.papers.monitorability._rules import (
    ORGANISM_RULES,
    RULES,
    UNJUDGED,
    judge_compute,
    judge_cot_beats_action,
    judge_longer,
    judge_real,
    judge_recovers,
)
from support.planted import load_planted

P = load_planted("monitorability")
BARS = {c.id: c.bar_map for c in registry.get_paper("monitorability").claims}


def test_every_archetype_must_hold() -> None:
    rows = P.scope_rows({"all": [0.7, 0.72, 0.68], "action": [0.3, 0.35, 0.32]}, ("intervention", "process"))
    rows += P.scope_rows({"all": [0.3, 0.3, 0.3], "action": [0.5, 0.5, 0.5]}, ("outcome",))
    j = judge_cot_beats_action(rows, bars=BARS["cot_beats_action"])
    assert j.verdict is Verdict.FAILS
    assert j.measured["parts"] == {"intervention": "holds", "outcome": "fails", "process": "holds"}
    d = j.measured["process"]["process: g-mean²(CoT+action) − g-mean²(action)"]
    assert d["estimate"] == pytest.approx((0.4 + 0.37 + 0.36) / 3) and d["n"] == 3


def test_too_few_seeds_or_undefined_values_are_inconclusive() -> None:
    few = judge_cot_beats_action(P.scope_rows({"all": [0.9, 0.9], "action": [0.1, 0.1]}),
                                 bars=BARS["cot_beats_action"])
    assert few.verdict is Verdict.INCONCLUSIVE and "only 2 seeds" in few.reason
    nan = judge_real(P.real_rows({"action": [0.1, float("nan"), 0.1], "cot_words": [0.5, 0.5, 0.5]}),
                     bars=BARS["cot_beats_action_real"])
    assert nan.verdict is Verdict.INCONCLUSIVE and "undefined in 1 of 3 seeds" in nan.reason


def test_mixed_seeds_straddle() -> None:
    j = judge_cot_beats_action(P.scope_rows({"all": [0.7, 0.2, 0.6], "action": [0.3, 0.35, 0.32]}),
                               bars=BARS["cot_beats_action"])
    assert j.verdict is Verdict.INCONCLUSIVE and "straddles" in j.reason


def test_slopes_are_fitted_against_log2_of_the_sweep() -> None:
    # g-mean² = 0.1 log2 K exactly: slope 0.1 in every seed
    rows = [{"archetype": "process", "monitor": "all", "seed": s, "cot_steps": k, "g_mean2": 0.1 * i}
            for s in range(3) for i, k in enumerate((1, 2, 4, 8))]
    j = judge_longer(rows, bars=BARS["longer_cot"])
    assert j.verdict is Verdict.HOLDS
    assert j.measured["process"]["process: d g-mean² / d log2 K"]["estimate"] == pytest.approx(0.1)


def test_compute_needs_both_a_rising_cot_curve_and_a_steeper_one() -> None:
    up = [u[:4] for u in P.UP]
    both_up = P.sweep_rows("reads", {"all": up, "action": up}, P.R4, key="scope")
    j = judge_compute(both_up, bars=BARS["compute_scaling"])
    assert j.verdict is not Verdict.HOLDS
    assert j.measured["parts"]["process slope"] == "holds" and j.measured["parts"]["process steeper"] != "holds"


def test_estimator_error_band() -> None:
    bars = BARS["estimator_recovers"]
    assert judge_recovers(P.estimator_rows([0.01, 0.0, -0.01]), bars=bars).verdict is Verdict.HOLDS
    assert judge_recovers(P.estimator_rows([0.1, 0.09, -0.08]), bars=bars).verdict is Verdict.FAILS
    near = judge_recovers(P.estimator_rows([0.0, 0.05, 0.01]), bars=bars)
    assert near.verdict is Verdict.INCONCLUSIVE and "straddles" in near.reason


def test_judged_and_unjudged_claims_partition_the_paper() -> None:
    ids = set(BARS)
    assert set(RULES) | set(UNJUDGED) == ids and not set(RULES) & set(UNJUDGED)
    # the organism verbalizes by construction: only the estimator and the real LM are judged
    assert set(RULES) == {"estimator_recovers", "cot_beats_action_real"}
    assert set(ORGANISM_RULES) == set(UNJUDGED) == set(P.ORGANISM)


@pytest.mark.parametrize("claim", sorted(UNJUDGED))
def test_organism_measurements_still_separate_planted_effects(claim: str) -> None:
    """The finding an unjudged claim reports must tell a planted effect from its absence, at every size."""
    p = P.ORGANISM[claim]
    for holds, fails in ((p.holds, p.fails), *p.budget_variants):
        assert ORGANISM_RULES[claim](**holds, bars=BARS[claim]).verdict is Verdict.HOLDS
        assert ORGANISM_RULES[claim](**fails, bars=BARS[claim]).verdict is Verdict.FAILS


def test_an_organism_claim_is_reported_not_judged() -> None:
    rec = run_claim("monitorability", "cot_beats_action", budget="smoke", seed=0)
    assert rec.verdict == "unsupported" and rec.bar_verdict == "unsupported", rec.reason
    assert "not judged" in rec.reason and "by construction" in rec.reason
    (finding,) = [v for k, v in rec.findings.items() if k.startswith("organism against the claim's bar")]
    assert finding.split(":")[0] in ("holds", "inconclusive", "fails")
    assert "archetypes" in finding and "intervention" in rec.summary and "action" in rec.summary
