"""The claim rules can fail: planted fakes (no learning, non-converging curves, uniform policies) must not pass."""

import numpy as np
import pytest

import icml26.papers.dist_irl.claims as C
from icml26.claims import Context, Verdict
from icml26.papers.dist_irl._dominance import standardized_wasserstein

TRUTH = (np.array([0.0, 1.0]), np.array([0.1, 2.0]))


def _fake_run(**over):
    ck = [0, 1, 3, 10, 30, 100]
    base = {"w1_dirl": 0.1, "w1_maxent": float(standardized_wasserstein((TRUTH[0], np.zeros(2)), TRUTH).mean()),
            "sigma_ratio": 20.0, "reward_mean": [0, 0, 1], "reward_std": [0, 0.1, 2.0],
            "agree_safe": {"dirl_free": 1.0, "dirl": 1.0, "maxent": 0.0, "bc": 1.0},
            "cvar": {"dirl_free": 1.0, "dirl": 1.0, "maxent": 0.0, "expert": 1.0}, "agree_all": {},
            "checkpoints": ck, "true_violation": [1.0, 0.3, 0.1, 0.01, 0.0, 0.0],
            "train_violation": [1.0, 0.0], "objective_avg": [1.0 / (t + 1) for t in ck], "f_star": 0.0,
            "mismatched": {"cvar_0.3": {"agree_safe": 0.0, "cvar": 0.0}}}
    base.update(over)
    for k in ("w1_dirl", "sigma_ratio", "true_violation", "objective_avg", "f_star"):
        base.setdefault(k + "_known", base[k])
    return base


@pytest.fixture
def plant(monkeypatch):
    def _plant(**over):
        monkeypatch.setattr(C, "_run", lambda exp, s: dict(_fake_run(**over), seed=s))
    return _plant


CTX = Context(seeds=(0, 1, 2), budget="small")
CFG = C.DirlConfig(C.ExperimentConfig(n_iter=100))


def test_rule_decides_on_the_whole_ci():
    """Review 2: holds only if the whole CI meets the bar, fails only if it wholly misses, and < 3 seeds or a
    non-finite number is always inconclusive."""
    H, F, I = Verdict.HOLDS, Verdict.FAILS, Verdict.INCONCLUSIVE
    assert C.rule(-0.9, -1.0, -0.6, -0.5, upper=True, n=5) == H
    assert C.rule(-0.9, -1.0, -0.4, -0.5, upper=True, n=5) == I  # point meets the bar, the CI straddles it
    assert C.rule(-0.1, -0.3, 0.0, -0.5, upper=True, n=5) == F
    assert C.rule(0.95, 0.92, 1.0, 0.9, upper=False, n=5) == H
    assert C.rule(0.95, 0.85, 1.0, 0.9, upper=False, n=5) == I
    assert C.rule(0.8, 0.7, 0.85, 0.9, upper=False, n=5) == F
    assert C.rule(-0.9, -0.9, -0.9, -0.5, upper=True, n=2) == I  # below MIN_SEEDS
    assert C.rule(-0.1, -0.1, -0.1, -0.5, upper=True, n=1) == I
    assert C.rule(-0.9, float("nan"), float("nan"), -0.5, upper=True, n=5) == I
    assert C.rule(float("nan"), 0.0, 0.0, -0.5, upper=True, n=5) == I
    assert C.combine(Verdict.HOLDS, Verdict.INCONCLUSIVE) == Verdict.INCONCLUSIVE
    assert C.combine(Verdict.HOLDS, Verdict.FAILS) == Verdict.FAILS


def test_one_seed_is_inconclusive(plant):
    plant()
    one = Context(seeds=(0,), budget="smoke")
    assert C.check_risk_averse_imitation(CFG, one).verdict == Verdict.INCONCLUSIVE
    assert C.check_fsd_decreases(CFG, one).verdict == Verdict.INCONCLUSIVE


def test_straddling_seeds_are_inconclusive(monkeypatch):
    """Seeds that disagree (P(safe) 1, 1, 0.6, 1: mean 0.9, on the bar) put the CI across the bar: not holds."""
    vals = {0: 1.0, 1: 1.0, 2: 0.6, 3: 1.0}
    monkeypatch.setattr(C, "_run", lambda exp, s: dict(_fake_run(agree_safe={
        "dirl_free": vals[s], "dirl": 1.0, "maxent": 0.0, "bc": 1.0}), seed=s))
    r = C.check_risk_averse_imitation(CFG, Context(seeds=(0, 1, 2, 3), budget="small"))
    assert r.measured["agree_safe_ci"]["dirl_free"][0] >= 0.9 and r.verdict == Verdict.INCONCLUSIVE


def test_box_corner_fake_never_holds(plant):
    """Zero means, sigmas at the box limits (no learning): W1 ratio 0.36 and sigma ratio 300 meet the bars, yet the
    verdict is not `holds` because the spread is not identifiable on this task."""
    w1 = float(standardized_wasserstein((np.zeros(2), np.array([0.01, 3.0])), TRUTH).mean())
    plant(w1_dirl=w1, sigma_ratio=300.0)
    r = C.check_reward_shape(CFG, CTX)
    assert r.measured["bars_alone"] == "holds" and r.verdict == Verdict.INCONCLUSIVE
    assert "not identifiable" in r.reason


def test_uniform_maxent_and_privileged_only_success_do_not_hold(plant):
    plant(agree_safe={"dirl_free": 1.0, "dirl": 1.0, "maxent": 0.5, "bc": 1.0})
    assert C.check_risk_averse_imitation(CFG, CTX).verdict == Verdict.FAILS  # uniform MaxEnt misses the bar
    plant(agree_safe={"dirl_free": 0.0, "dirl": 1.0, "maxent": 0.0, "bc": 1.0})
    r = C.check_risk_averse_imitation(CFG, CTX)
    assert r.verdict == Verdict.FAILS and r.measured["verdict_known_neutral"] == "holds"
    plant()
    r = C.check_risk_averse_imitation(CFG, CTX)
    assert r.verdict == Verdict.HOLDS and r.measured["mismatched"]["cvar_0.3"]["verdict"] == "fails"


def test_privileged_only_success_does_not_count(plant):
    """Review 1: shape, FSD and rate are judged on the fit with every group learned; the privileged row is extra."""
    plant(true_violation=[0.2, 0.3, 0.4, 0.45, 0.3, 0.0], true_violation_known=[1.0, 0.3, 0.1, 0.01, 0.0, 0.0])
    r = C.check_fsd_decreases(CFG, CTX)
    assert r.verdict == Verdict.FAILS and r.measured["known_neutral"]["verdict"] == "holds"
    plant(w1_dirl=0.9, sigma_ratio=1.0, w1_dirl_known=0.1, sigma_ratio_known=20.0)
    r = C.check_reward_shape(CFG, CTX)
    assert r.verdict == Verdict.FAILS and r.measured["known_neutral"]["bars_alone"] == "holds"


def test_fsd_late_drop_fails_and_early_drop_holds(plant):
    plant(true_violation=[0.2, 0.3, 0.4, 0.45, 0.3, 0.0])  # rises first, drops only at the end
    assert C.check_fsd_decreases(CFG, CTX).verdict == Verdict.FAILS
    plant()
    assert C.check_fsd_decreases(CFG, CTX).verdict == Verdict.HOLDS


def test_rate_is_unsupported_and_constant_curve_fails_the_solver_rule(plant):
    plant(objective_avg=[0.5] * 6)
    r = C.check_iteration_complexity(CFG, CTX)
    assert r.verdict == Verdict.UNSUPPORTED and r.measured["solver_rate_rule"] == "fails"
    plant()
    assert C.check_iteration_complexity(CFG, CTX).measured["solver_rate_rule"] == "holds"
