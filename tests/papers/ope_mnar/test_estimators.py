"""Estimators of ope_mnar against exact dynamic programming on a tiny tabular MNAR MDP and Monte Carlo truth."""

import warnings

import numpy as np
import pytest

from icml26.papers.ope_mnar import (
    MARIPWFQE,
    CompleteCaseFQE,
    IdentificationError,
    IdentificationWarning,
    LogisticPolicy,
    MNARSimulator,
    OracleFQE,
    ShadowBridgeFQE,
    Trajectories,
    ZeroImputationFQE,
    fitted_q_evaluation,
)

# ---- a tabular MNAR MDP: 3 states (one-hot), 2 actions, binary rewards, next state depends on (a, r) ---------------
MU0 = np.array([0.3, 0.3, 0.4])
PB = np.array([0.3, 0.5, 0.7])  # behaviour P(a=1 | s)
PR = np.array([[0.2, 0.6], [0.5, 0.3], [0.7, 0.4]])  # P(R=1 | s, a)
PETA = np.array([0.9, 0.4])  # P(η=1 | r): successes are often unrecorded (MNAR)
PS = np.array([[[0.6, 0.3, 0.1], [0.1, 0.2, 0.7]],  # P(s' | a=0, r)
               [[0.5, 0.4, 0.1], [0.2, 0.1, 0.7]]])  # P(s' | a=1, r)
PI = np.array([[0.8, 0.2], [0.5, 0.9], [0.1, 0.6]])  # target P(a=1 | s, η_prev): columns η_prev = 0, 1


def tab_policy(t, states, eta_prev):
    p1 = PI[states.argmax(axis=1), np.asarray(eta_prev, dtype=int)]
    return np.stack([1 - p1, p1], axis=1)


def exact_value(T):
    """Backward DP over (s, η_prev): V_t(s, h) = Σ_a π(a|s,h) Σ_r P(r|s,a)[r + Σ_s' P(s'|a,r) Σ_η P(η|r) V_{t+1}(s', η)]."""
    V = np.zeros((3, 2))
    for _ in range(T):
        newV = np.zeros((3, 2))
        for s in range(3):
            for h in range(2):
                for a in range(2):
                    pa = PI[s, h] if a == 1 else 1 - PI[s, h]
                    for r in range(2):
                        pr = PR[s, a] if r == 1 else 1 - PR[s, a]
                        cont = sum(PS[a, r, s2] * (PETA[r] * V[s2, 1] + (1 - PETA[r]) * V[s2, 0]) for s2 in range(3))
                        newV[s, h] += pa * pr * (r + cont)
        V = newV
    return float(MU0 @ V[:, 1])


def sample_tabular(n, T, seed):
    g = np.random.default_rng(seed)
    s = g.choice(3, size=n, p=MU0)
    S = np.zeros((n, T + 1), dtype=int)
    A, R, O = np.zeros((n, T), int), np.zeros((n, T)), np.zeros((n, T), bool)
    for t in range(T):
        S[:, t] = s
        a = (g.random(n) < PB[s]).astype(int)
        r = (g.random(n) < PR[s, a]).astype(float)
        O[:, t] = g.random(n) < PETA[r.astype(int)]
        A[:, t], R[:, t] = a, r
        cum = PS[a, r.astype(int)].cumsum(axis=1)
        s = (g.random(n)[:, None] > cum).sum(axis=1)
    S[:, T] = s
    return Trajectories(np.eye(3)[S], A, np.where(O, R, np.nan), O, full_rewards=R)


ONE_HOT = dict(features=lambda x: x)  # saturated Q-function sieve over the one-hot states


def test_exact_dp_oracle_and_bridge_on_tabular_mdp():
    T = 2
    v = exact_value(T)
    data = sample_tabular(20000, T, seed=0)
    oracle = OracleFQE(**ONE_HOT).fit(data).estimate(tab_policy)
    bridge = ShadowBridgeFQE(**ONE_HOT, shadow_features=lambda x: x).fit(data)
    assert bridge.identified_
    vb = bridge.estimate(tab_policy)
    cc = CompleteCaseFQE(**ONE_HOT).fit(data).estimate(tab_policy)
    assert abs(oracle - v) < 0.03
    assert abs(vb - v) < 0.05
    assert abs(cc - v) > 0.15 and abs(vb - v) < 0.25 * abs(cc - v)


def test_fqe_with_exact_rewards_is_exact_for_saturated_features():
    """One step (T = 1), pseudo-rewards = the true E[R | s, a]: FQE returns Σ_s μ̂(s) Σ_a π(a|s) r(s, a) exactly."""
    data = sample_tabular(500, 1, seed=1)
    s, a = data.states[:, 0].argmax(axis=1), data.actions[:, 0]
    pseudo = PR[s, a][:, None]
    got = fitted_q_evaluation(data, pseudo, tab_policy, features=lambda x: x, ridge=1e-12)
    want = np.mean(PI[s, 1] * PR[s, 1] + (1 - PI[s, 1]) * PR[s, 0])
    assert got == pytest.approx(want, abs=1e-8)


def test_constant_rewards_give_T_times_the_constant():
    data = MNARSimulator(horizon=4).sample(300, seed=0)
    pol = LogisticPolicy((1.0, -1.0), 0.2, 2.0)
    assert fitted_q_evaluation(data, np.full((300, 4), 0.7), pol, ridge=1e-12) == pytest.approx(2.8, abs=1e-6)


def test_all_methods_agree_when_nothing_is_missing():
    d = MNARSimulator().sample(400, seed=2)
    full = Trajectories(d.states, d.actions, d.full_rewards, np.ones_like(d.observed), full_rewards=d.full_rewards)
    pol = LogisticPolicy((0.0, 1.0), 0.0, 1.0)
    ref = OracleFQE(ridge=1e-12).fit(full).estimate(pol)
    for E in (CompleteCaseFQE, ZeroImputationFQE):
        assert E(ridge=1e-12).fit(full).estimate(pol) == pytest.approx(ref, abs=1e-6)
    assert MARIPWFQE(ridge=1e-12).fit(full).estimate(pol) == pytest.approx(ref, abs=1e-2)


# ---- the continuous simulator -------------------------------------------------------------------------------------
def test_simulator_value_matches_closed_form():
    """Constant policy p: V = 0 for T = 1 and V = κ p (1 + p) for T = 2 (E[S] = 0, E[R_1] = 0, E[S_2] = κ p·1)."""
    const = LogisticPolicy((0.0, 0.0), 0.0, 0.0)  # p = 1/2
    v1, se1 = MNARSimulator(horizon=1).true_value(const, n_mc=200_000, seed=0)
    v2, se2 = MNARSimulator(horizon=2).true_value(const, n_mc=200_000, seed=1)
    assert abs(v1) < 4 * se1
    assert abs(v2 - 0.3 * 0.5 * 1.5) < 4 * se2


def test_simulator_structure():
    sim = MNARSimulator(missing_slope=0.0)
    d = sim.sample(20000, seed=0)
    assert abs(d.missing_rate - (1 - 1 / (1 + np.exp(-1.0)))) < 0.01  # MCAR: 1 − expit(α)
    d0 = MNARSimulator(shadow_strength=0.0, horizon=1).sample(5000, seed=0)
    res = d0.states[:, 1, 0] - 0.5 * d0.states[:, 0, 0] - 0.3 * d0.actions[:, 0]
    assert abs(np.corrcoef(res, d0.full_rewards[:, 0])[0, 1]) < 0.05  # γ = 0: S' carries nothing on R
    np.testing.assert_array_equal(sim.sample(50, seed=3).states, sim.sample(50, seed=3).states)
    with pytest.raises(ValueError, match="n"):
        sim.sample(0, seed=0)
    with pytest.raises(ValueError, match="horizon"):
        MNARSimulator(horizon=0)
    with pytest.raises(ValueError, match="reward_noise"):
        MNARSimulator(reward_noise=-1.0)


def test_bridge_beats_complete_case_on_the_simulator():
    """The notes' test: one replicate, proposed error well below the complete-case error."""
    sim, pol = MNARSimulator(), LogisticPolicy((0.0, 1.0), 0.0, 1.0)
    v, _ = sim.true_value(pol, n_mc=200_000, seed=9)
    d = sim.sample(4000, seed=4)
    est = ShadowBridgeFQE(features="quadratic", ridge=1e-6).fit(d)
    assert est is not None and est.identified_ and est.shadow_F_.min() > 100
    e_b = est.estimate(pol) - v
    e_cc = CompleteCaseFQE().fit(d).estimate(pol) - v
    assert abs(e_b) < 0.25 * abs(e_cc)


def test_irrelevant_shadow_is_refused():
    d = MNARSimulator(shadow_strength=0.0).sample(1000, seed=0)
    pol = LogisticPolicy((0.0, 1.0), 0.0, 1.0)
    est = ShadowBridgeFQE().fit(d)
    assert not est.identified_ and est.shadow_F_.min() < 10
    with pytest.raises(IdentificationError, match="shadow"):
        est.estimate(pol)
    with pytest.warns(IdentificationWarning):
        assert np.isfinite(ShadowBridgeFQE(on_unidentified="warn").fit(d).estimate(pol))


def test_sklearn_contract_and_bad_arguments():
    d = MNARSimulator().sample(200, seed=0)
    pol = LogisticPolicy((0.0, 1.0))
    est = ShadowBridgeFQE()
    assert est.fit(d) is est and est.pseudo_rewards_.shape == (200, 3) and len(est.bridge_coef_) == 3
    assert "ShadowBridgeFQE(" in repr(est)
    with pytest.raises(RuntimeError, match="fit"):
        CompleteCaseFQE().estimate(pol)
    with pytest.raises(TypeError, match="trajectories"):
        OracleFQE().fit(np.zeros((3, 3)))
    for kw, match in [(dict(ridge=-1.0), "ridge"), (dict(features="quartic"), "features"),
                      (dict(shadow_features=7), "shadow_features"), (dict(min_shadow_F=-1.0), "min_shadow_F"),
                      (dict(on_unidentified="ignore"), "on_unidentified")]:
        with pytest.raises(ValueError, match=match):
            ShadowBridgeFQE(**kw).fit(d)
    with pytest.raises(ValueError, match="clip"):
        MARIPWFQE(clip=0.0).fit(d)
    no_full = Trajectories(d.states, d.actions, d.rewards, d.observed)
    with pytest.raises(ValueError, match="full_rewards"):
        OracleFQE().fit(no_full)


def test_policy_without_overlap_is_rejected():
    d = MNARSimulator().sample(100, seed=0)
    only0 = Trajectories(d.states, np.zeros_like(d.actions), d.rewards, d.observed)
    with pytest.raises(ValueError, match="target_policy"):
        ZeroImputationFQE().fit(only0).estimate(lambda t, s, h: np.tile([0.0, 1.0], (s.shape[0], 1)))
    with pytest.raises(ValueError, match="sum to 1"):
        ZeroImputationFQE().fit(d).estimate(lambda t, s, h: np.full((s.shape[0], 2), 0.6))


def test_estimates_are_deterministic():
    d = MNARSimulator().sample(300, seed=5)
    pol = LogisticPolicy((0.0, 1.0), 0.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = ShadowBridgeFQE().fit(d).estimate(pol)
    assert a == ShadowBridgeFQE().fit(d).estimate(pol)


def test_bootstrap_interval_is_seeded_and_brackets_the_estimate():
    d = MNARSimulator().sample(400, seed=6)
    pol = LogisticPolicy((0.0, 1.0), 0.0, 1.0)
    est = ShadowBridgeFQE(random_state=11).fit(d)
    v, lo, hi = est.estimate_interval(pol, n_boot=30)
    assert lo < v < hi and (lo, hi) == est.estimate_interval(pol, n_boot=30)[1:]
    assert est.n_boot_skipped_ == 0  # every resample of this data set has observed rewards at every step
    with pytest.raises(ValueError, match="n_boot"):
        est.estimate_interval(pol, n_boot=1)
    sub = d.take(np.r_[np.arange(400), 0])
    assert sub.n == 401 and np.array_equal(sub.states[400], d.states[0])


def test_fitted_q_evaluation_rejects_bad_arguments():
    d = MNARSimulator().sample(100, seed=0)
    pol, y = LogisticPolicy((0.0, 1.0)), np.zeros((100, 3))
    for ridge in (-0.5, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="ridge"):
            fitted_q_evaluation(d, y, pol, ridge=ridge)
    with pytest.raises(ValueError, match="features"):
        fitted_q_evaluation(d, y, pol, features="quartic")
    with pytest.raises(TypeError, match="data"):
        fitted_q_evaluation(d.states, y, pol)


def test_bootstrap_skips_resamples_without_an_observed_reward():
    """Only trajectory 0 records its last reward: about (1 − 1/n)^n ≈ 36% of resamples miss it and are skipped."""
    d = MNARSimulator().sample(40, seed=1)
    obs = d.observed.copy()
    obs[:, 2] = False
    obs[0, 2] = True
    sparse = Trajectories(d.states, d.actions, np.where(obs, d.full_rewards, np.nan), obs)
    est = CompleteCaseFQE().fit(sparse)
    v, lo, hi = est.estimate_interval(LogisticPolicy((0.0, 1.0)), n_boot=30)
    assert 0 < est.n_boot_skipped_ < 30 and lo <= hi and np.isfinite([v, lo, hi]).all()


class _HalfUnidentified(ShadowBridgeFQE):
    """Every other fit is flagged unidentified and given absurd pseudo-rewards (1000): they must not reach the interval."""

    fits = 0

    def _pseudo_rewards(self, data):
        out = super()._pseudo_rewards(data)
        type(self).fits += 1
        if type(self).fits % 2 == 0:
            self.identified_ = False
            return np.full_like(out, 1000.0)
        return out


def test_bootstrap_skips_unidentified_resamples():
    d = MNARSimulator().sample(400, seed=6)
    _HalfUnidentified.fits = 0
    est = _HalfUnidentified().fit(d)  # fit 1: identified
    v, lo, hi = est.estimate_interval(LogisticPolicy((0.0, 1.0), 0.0, 1.0), n_boot=20)
    assert est.n_boot_skipped_ == 10 and hi < 100 and lo < v < hi


def test_bootstrap_interval_is_reproducible_by_default():
    d = MNARSimulator().sample(300, seed=7)
    pol = LogisticPolicy((0.0, 1.0), 0.0, 1.0)
    est = ShadowBridgeFQE()
    assert est.random_state == 0 and all(E().random_state == 0 for E in (OracleFQE, CompleteCaseFQE, MARIPWFQE))
    est.fit(d)
    assert est.estimate_interval(pol, n_boot=10) == est.estimate_interval(pol, n_boot=10)
    assert ShadowBridgeFQE().fit(d).estimate_interval(pol, n_boot=10) == est.estimate_interval(pol, n_boot=10)
    other = ShadowBridgeFQE(random_state=1).fit(d).estimate_interval(pol, n_boot=10)
    assert other != est.estimate_interval(pol, n_boot=10)


def test_true_value_rejects_a_bad_chunk():
    pol = LogisticPolicy((0.0, 1.0))
    for chunk, err in ((0, ValueError), (-5, ValueError), (2.5, TypeError), (True, TypeError)):
        with pytest.raises(err, match="chunk"):
            MNARSimulator().true_value(pol, n_mc=100, seed=0, chunk=chunk)


def test_policy_coef_of_the_wrong_length_is_named():
    est = ShadowBridgeFQE().fit(MNARSimulator().sample(300, seed=0))  # states in R^2
    with pytest.raises(ValueError, match=r"target_policy.coef has 3 entries but the data's states have dimension 2"):
        est.estimate(LogisticPolicy(coef=(1.0, 2.0, 3.0)))
    with pytest.raises(ValueError, match=r"LogisticPolicy coef has 3 entries but the states have dimension 2"):
        LogisticPolicy(coef=(1.0, 2.0, 3.0))(0, np.zeros((4, 2)), np.ones(4))


def test_bridge_fit_on_too_few_rows_says_so_instead_of_irrelevance():
    with pytest.raises(ValueError, match=r"too few rows: step 0, action \d has \d complete cases") as exc:
        ShadowBridgeFQE().fit(MNARSimulator().sample(5, seed=0))
    assert not isinstance(exc.value, IdentificationError)
    assert "at least 9 = 6 features of S_t + 2 shadow features + 1" in str(exc.value)


def test_simulator_hyper_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        MNARSimulator(3, 0.8)
    assert MNARSimulator(horizon=2, shadow_strength=0.0).horizon == 2
