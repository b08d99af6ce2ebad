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
            "train_violation": [1.0, 0.0], "objective_avg": [1.0 / (t + 1) for t in ck], "f_star": 0.0}
    base.update(over)
    return base


@pytest.fixture
def plant(monkeypatch):
    def _plant(**over):
        monkeypatch.setattr(C, "_run", lambda exp, s: dict(_fake_run(**over), seed=s))
    return _plant


CTX = Context(seeds=(0, 1, 2), budget="small")
CFG = C.DirlConfig(C.ExperimentConfig(n_iter=100))


def test_rule_handles_nan_ci_and_bars():
    assert C.rule(-0.1, float("nan"), float("nan"), -0.5, upper=True) == Verdict.FAILS
    assert C.rule(-0.9, float("nan"), float("nan"), -0.5, upper=True) == Verdict.HOLDS
    assert C.rule(float("nan"), 0.0, 0.0, -0.5, upper=True) == Verdict.INCONCLUSIVE
    assert C.rule(-0.4, -0.6, -0.2, -0.5, upper=True) == Verdict.INCONCLUSIVE
    assert C.rule(0.8, 0.7, 0.85, 0.9, upper=False) == Verdict.FAILS
    assert C.combine(Verdict.HOLDS, Verdict.INCONCLUSIVE) == Verdict.INCONCLUSIVE
    assert C.combine(Verdict.HOLDS, Verdict.FAILS) == Verdict.FAILS


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
    assert C.check_risk_averse_imitation(CFG, CTX).verdict == Verdict.HOLDS


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
