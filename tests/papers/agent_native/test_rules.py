"""[P17] rules on planted rows: both verdicts, the learned-floor gate and the seed minimum."""

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.agent_native._rules import RULES, paired
from support.planted import load_planted

P = load_planted("agent_native")
PLANTED, rows = P.PLANTED, P.rows
BARS = {c.id: c.bar_map for c in registry.get_paper("agent_native").claims}


def _bars(cid):
    return BARS[cid]


def test_planted_both_ways():
    for cid, p in PLANTED.items():
        assert RULES[cid](**p.holds, bars=_bars(cid)).verdict is Verdict.HOLDS, cid
        assert RULES[cid](**p.fails, bars=_bars(cid)).verdict is Verdict.FAILS, cid


def test_floor_gate_makes_untrained_runs_inconclusive():
    dead = rows({"static": [0.0, 0.0, 0.05], "ctx": [0.0, 0.02, 0.0], "ctx_env": [0.03, 0.0, 0.0],
                 "ctx_env_half": [0.0, 0.0, 0.0]})
    for cid in ("native_ordering", "half_budget_beats_static"):
        j = RULES[cid](rows=dead, bars=_bars(cid))
        assert j.verdict is Verdict.INCONCLUSIVE and "hardly resolve" in j.reason
    flat = rows({"ctx_env": [0.3] * 3, "none": [0.1] * 3}, {"ctx_env": [0.0] * 3, "none": [0.05] * 3})
    assert RULES["general_code"](rows=flat, bars=_bars("general_code")).verdict is Verdict.INCONCLUSIVE


def test_two_seeds_are_never_decided():
    two = rows({"static": [0.2, 0.2], "ctx": [0.5, 0.5], "ctx_env": [0.9, 0.9], "ctx_env_half": [0.9, 0.9]})
    for cid in ("native_ordering", "half_budget_beats_static"):
        assert RULES[cid](rows=two, bars=_bars(cid)).verdict is Verdict.INCONCLUSIVE


def test_paired_differences_by_seed():
    r = rows({"a": [0.1, 0.2, 0.4], "b": [0.0, 0.3, 0.1]})
    assert paired(r, "resolve", "a", "b").round(6).tolist() == [0.1, -0.1, 0.3]


def test_a_base_at_the_ceiling_decides_only_a_loss():
    res = {"ctx_env": [0.3] * 3, "none": [0.1] * 3}
    tie = rows(res, {"ctx_env": [1.0, 0.95, 1.0], "none": [1.0] * 3})
    j = RULES["general_code"](rows=tie, bars=_bars("general_code"))
    assert j.verdict is Verdict.INCONCLUSIVE and "no room for a gain" in j.reason
    loss = rows(res, {"ctx_env": [0.2, 0.3, 0.1], "none": [1.0, 0.95, 1.0]})
    assert RULES["general_code"](rows=loss, bars=_bars("general_code")).verdict is Verdict.FAILS
