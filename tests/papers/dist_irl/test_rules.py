"""The [P18] rules on planted rows (each verdict where it should be, for the right reason) and the checks' plumbing
on a stubbed run (one run per seed, shared by the claims of the group)."""

import functools

import numpy as np
import pytest

from icml26 import registry
from icml26.claims import Context, Memo, Verdict
from icml26.papers.dist_irl import _checks
from icml26.papers.dist_irl._dominance import standardized_wasserstein
from icml26.papers.dist_irl._experiments import ExperimentConfig
from icml26.papers.dist_irl._rules import RULES, UNJUDGED, judge_fsd, judge_imitation, judge_reward_shape
from icml26.papers.dist_irl.claims import CLAIMS, DirlConfig
from support.planted import load_planted

P = load_planted("dist_irl")
BARS = {c.id: c.bar_map for c in registry.get_paper("dist_irl").claims}
H, F, I = Verdict.HOLDS, Verdict.FAILS, Verdict.INCONCLUSIVE


def _shape(rows):
    return judge_reward_shape(rows, bars=BARS["reward_shape"])


def test_shape_rule_judges_the_ordering_not_the_size():
    held = _shape(P.RIGHT)
    assert held.verdict is H and held.reason.startswith("2 of 2 orderings hold")
    assert held.measured["sigma_ratio"] == pytest.approx([20.0, 7.5, 60.0])
    small_but_right = P.shape_rows([1.0, 1.1, 0.9], [1.2, 1.3, 1.1], [0.0] * 3, [0.2, 0.3, 0.25])  # ratio ~1.2
    assert _shape(small_but_right).verdict is H  # the size of the spread is not identifiable: not judged
    assert _shape(P.INVERTED).verdict is F


def test_shape_rule_refuses_the_no_learning_and_box_corner_fakes():
    no_learning = P.shape_rows([0.5] * 3, [0.5] * 3, [0.0] * 3, [0.0] * 3)  # phi_0 = (0, init_std)
    j = _shape(no_learning)
    assert j.verdict is F and j.measured["parts"] == {"spread": "fails", "mean": "fails"}
    corner = P.shape_rows([0.01] * 3, [3.0] * 3, [0.0] * 3, [0.0] * 3)  # zero means, sigmas at the box limits
    truth = (np.array([0.0, 1.0]), np.array([0.1, 2.0]))
    w1 = standardized_wasserstein((np.zeros(2), np.array([0.01, 3.0])), truth).mean()
    w1_maxent = standardized_wasserstein((truth[0], np.zeros(2)), truth).mean()
    assert w1 / w1_maxent <= 0.5  # it met the former W1 bar, and a sigma ratio of 300 the former sigma bar
    j = _shape(corner)
    assert j.verdict is F and j.measured["parts"] == {"spread": "holds", "mean": "fails"}


def test_shape_rule_needs_three_seeds_and_agreeing_seeds():
    assert "only 1" in _shape(P.RIGHT[:1]).reason and _shape(P.RIGHT[:1]).verdict is I
    mixed = P.shape_rows([0.1, 0.1, 2.0, 0.1], [2.0, 2.0, 0.1, 2.0], [0.0] * 4, [1.0] * 4)
    j = _shape(mixed)
    assert j.verdict is I and j.measured["parts"]["spread"] == "inconclusive"


def test_imitation_rule():
    bars = BARS["risk_averse_imitation"]
    held = judge_imitation(P.agree_rows([1.0, 1.0, 1.0]), bars=bars)
    assert held.verdict is H and held.reason.startswith("3 of 3 parts hold")
    assert held.measured["diff"]["bc"] == pytest.approx([0.15, 0.11, 0.08])
    always_safe = judge_imitation(P.agree_rows([0.5, 0.5, 0.5]), bars=bars)  # 1 where the expert is safe, 0 where not
    assert always_safe.verdict is F and always_safe.measured["parts"]["agreement"] == "fails"
    straddles = judge_imitation(P.agree_rows([1.0, 1.0, 0.6, 1.0]), bars=bars)  # mean 0.9, on the bar
    assert straddles.verdict is I and "straddles" in straddles.reason
    assert judge_imitation(P.agree_rows([1.0]), bars=bars).verdict is I


def test_imitation_rule_refuses_a_clone_of_the_demonstrator():
    bars = BARS["risk_averse_imitation"]
    clone = judge_imitation(P.agree_rows(P.BC[:3], bc=P.BC[:3]), bars=bars)  # DIRL no better than BC
    assert clone.verdict is F and clone.measured["parts"]["beats bc"] == "fails"
    good_clone = P.agree_rows([0.93, 0.95, 0.94], bc=[0.92, 0.96, 0.93])  # meets 0.9, but not above BC
    j = judge_imitation(good_clone, bars=bars)
    assert j.measured["parts"]["agreement"] == "holds" and j.verdict is not H


def test_fsd_rule_reads_a_fixed_step():
    bars = BARS["fsd_decreases"]
    late = judge_fsd(P.fsd_rows(P.LATE), bars=bars, at=P.AT)
    assert late.verdict is F and late.measured["ratio_at_end"] == pytest.approx([0.0] * 3)  # reaching 0 late is not enough
    assert judge_fsd(P.fsd_rows(P.FALLS), bars=bars, at=P.AT).verdict is H
    # ten times the budget: the same reading at step 500, the same verdict
    assert judge_fsd(P.fsd_rows(P.LATE_LONG), bars=bars, at=P.AT).verdict is F
    assert judge_fsd(P.fsd_rows(P.FALLS_LONG), bars=bars, at=P.AT).verdict is H
    short = judge_fsd(P.fsd_rows({0: 0.2, 100: 0.0, 200: 0.0}), bars=bars, at=P.AT)
    assert short.verdict is I and "stop at step 200, before step 500" in short.reason
    assert judge_fsd(P.fsd_rows(P.FALLS, n_seeds=1), bars=bars, at=P.AT).verdict is I


def test_the_rate_claim_is_not_judged():
    assert "iteration_complexity" not in RULES and "theorem" in UNJUDGED["iteration_complexity"]


# ---- the checks on a stubbed run ------------------------------------------------------------------------------------

CALLS: list[int] = []
TRUTH = (np.array([0.0, 1.0]), np.array([0.1, 2.0]))


def fake_run(exp: ExperimentConfig, seed: int, *, curve: dict) -> dict:
    CALLS.append(seed)
    ck = sorted(curve)
    v = [curve[t] for t in ck]
    return {"seed": seed, "reward_mean": [0.0, 0.1, -0.1], "reward_std": [0.6, 0.6, 0.3],
            "reward_mean_known": [0.0, 0.0, 1.0], "reward_std_known": [0.0, 0.1, 2.0],
            "w1_dirl": 0.9, "w1_dirl_known": 0.1, "w1_maxent": 0.5,
            "agree_safe": {"dirl_free": 1.0, "dirl": 1.0, "maxent": 0.46, "bc": 0.9},
            "agree_all": {"dirl_free": 1.0, "dirl": 1.0, "maxent": 0.66, "bc": 0.85 + 0.02 * seed},
            "cvar": {"dirl_free": 1.0, "dirl": 1.0, "maxent": 0.0, "expert": 1.0},
            "mismatched": {"cvar_0.3": {"agree_safe": 0.0, "agree_all": 0.5, "cvar": 0.0}},
            "checkpoints": ck, "true_violation": v, "true_violation_known": v, "train_violation": [1.0, 0.0],
            "objective_avg": [1.0 / np.sqrt(t + 1) for t in ck], "objective_avg_known": [1.0 / (t + 1) for t in ck],
            "f_star": 0.0, "f_star_known": 0.0}


def _run_group(monkeypatch, curve):
    CALLS.clear()
    monkeypatch.setattr(_checks, "run_seed", functools.partial(fake_run, curve=curve))
    memo, cfg = Memo(), DirlConfig(ExperimentConfig(n_iter=2000))
    out = {}
    for claim in CLAIMS:
        ctx = Context(seeds=(0, 1, 2), budget="small", bars=BARS[claim.id], memo=memo)
        out[claim.id] = claim.check(cfg, ctx)
    return out


def test_the_group_computes_each_seed_once_and_every_check_judges(monkeypatch):
    out = _run_group(monkeypatch, {**P.FALLS, 2000: 0.0})
    assert sorted(CALLS) == [0, 1, 2]  # four claims, one run per seed
    shape = out["reward_shape"]  # judged on the fit with every group learned: the stub has its ordering inverted
    assert shape.verdict is F and shape.measured["known"]["verdict"] == "holds"
    assert "against the same bars: holds" in shape.findings["start/goal cells known to pay 0 (privileged)"]
    imitation = out["risk_averse_imitation"]
    assert imitation.verdict is H and imitation.rows[0] == {"seed": 0, "dirl": 1.0, "bc": 0.85, "maxent": 0.66}
    assert "cvar_0.3: agreement = 0.5" in imitation.findings["DIRL with another distortion than the expert's"]
    assert out["fsd_decreases"].verdict is H
    rate = out["iteration_complexity"]
    assert rate.verdict is Verdict.UNSUPPORTED and rate.measured["solver_slope"][0] == pytest.approx(-0.5, abs=0.05)
    out = _run_group(monkeypatch, P.LATE)
    assert out["fsd_decreases"].verdict is F and "end of the run (step 2000)" in out["fsd_decreases"].findings
