"""[P28] rules on planted rows: both verdicts, for the right part, and inconclusive below three seeds."""

import pytest

from icml26 import registry
from icml26.claims import Verdict
from icml26.papers.actg._rules import RULES
from support.planted import load_planted

P = load_planted("actg")
BARS = {c.id: c.bar_map for c in registry.get_paper("actg").claims}


@pytest.mark.parametrize("cid", sorted(RULES))
def test_planted_both_ways(cid):
    p = P.PLANTED[cid]
    assert RULES[cid](**p.holds, bars=BARS[cid]).verdict is Verdict.HOLDS
    assert RULES[cid](**p.fails, bars=BARS[cid]).verdict is Verdict.FAILS


@pytest.mark.parametrize("cid", ["actg_beats_dpsft", "arl_control", "rl_reward_hacking"])
def test_two_seeds_are_inconclusive(cid):
    j = RULES[cid](rows=P.seed_rows(2, **P.GOOD), bars=BARS[cid])
    assert j.verdict is Verdict.INCONCLUSIVE and "only 2" in j.reason


def test_arl_keeping_control_but_losing_mauve_fails_on_mauve():
    rows = P.seed_rows(3, **{**P.GOOD, "mauve_arl": 0.5})
    j = RULES["arl_control"](rows=rows, bars=BARS["arl_control"])
    assert j.verdict is Verdict.FAILS and j.measured["parts"] == {"control gain": "holds", "MAUVE kept": "fails"}


def test_accounting_flags_a_pld_above_rdp():
    j = RULES["privacy_accounting"](rows=P.accounting(eps_pld=3.8), bars=BARS["privacy_accounting"])
    assert j.verdict is Verdict.FAILS and "PLD" in j.reason


def test_reward_hacking_needs_the_anchor_to_make_a_difference():
    # RL without the anchor gains control and loses MAUVE, but ARL loses just as much: the anchor prevents nothing
    rows = P.seed_rows(3, **{**P.GOOD, "mauve_arl": P.GOOD["mauve_rl_only"]})
    j = RULES["rl_reward_hacking"](rows=rows, bars=BARS["rl_reward_hacking"])
    assert j.verdict is Verdict.FAILS
    assert j.measured["parts"] == {"control gain": "holds", "MAUVE lost": "holds", "anchor effect": "fails"}


def test_accounting_flags_an_opacus_disagreement_on_the_composed_epsilon():
    j = RULES["privacy_accounting"](rows=P.accounting(opacus_total=4.2), bars=BARS["privacy_accounting"])
    assert j.verdict is Verdict.FAILS and "composed" in j.reason
