"""MDP containers, exact returns (oracle), DistributionalIRL and the baselines: worked example, oracles, bad input."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from icml26.papers.dist_irl import (
    BehaviourCloning,
    CVaR,
    Demonstrations,
    DistributionalIRL,
    Expectation,
    GaussianRewards,
    MaxEntIRL,
    TabularMDP,
    exact_returns,
    gaussian_mixture_quantiles,
    make_two_route_task,
    quantile_grid,
    rollout,
)
from icml26.papers.dist_irl._laws import expert_law, law_quantiles, policy_law
from icml26.papers.dist_irl._mdp import ROW_SUM_ATOL, return_coefficients


@pytest.fixture(scope="module")
def task():
    return make_two_route_task((1, 12))


def test_expert_of_the_two_route_task(task):
    # CVaR_0.2-averse: safe when the route is short, risky when long; risk-neutral: risky everywhere
    np.testing.assert_array_equal(task.p_risky(task.risk_optimal_policy(CVaR(0.2))), [0.0, 1.0])
    np.testing.assert_array_equal(task.p_risky(task.risk_optimal_policy(Expectation())), [1.0, 1.0])


def test_exact_returns_match_monte_carlo(task):
    pi = task.route_policy((True, False))
    pi[task.starts[0]] = (0.3, 0.7)
    w, m, s = exact_returns(task.mdp, pi, task.true_rewards, start=task.starts[0])
    q = gaussian_mixture_quantiles(w, m, s, quantile_grid(10))
    d = rollout(task.mdp, pi, 20000, start=task.starts[0], seed=0)
    eps = np.random.default_rng(1).standard_normal(d.states.shape)
    a, b = return_coefficients(task.mdp, d, eps)
    z = a @ task.true_rewards.mean + b @ task.true_rewards.std
    np.testing.assert_allclose(np.quantile(z, quantile_grid(10)), q, atol=0.12)


def test_maxent_picks_the_risky_route_and_matches_visits(task):
    expert = task.risk_optimal_policy(CVaR(0.2))
    demos = task.demonstrations(expert, 200, seed=0)
    m = MaxEntIRL().fit(demos, task.mdp)
    assert task.p_risky(m.policy_)[0] > 0.5  # mean matching cannot explain the safe short-route choice
    start = np.bincount(demos.states[:, 0], minlength=task.mdp.n_states) / len(demos)
    f_pi = m.group_visits(task.mdp, m.policy_, start)
    k = task.mdp.groups[demos.states, demos.actions]
    f_e = np.bincount(k.ravel(), minlength=3) / len(demos)
    np.testing.assert_allclose(f_pi[1:], f_e[1:], atol=0.05)  # MaxEnt's moment-matching optimality condition


def test_bc_copies_the_expert_where_it_has_data(task):
    expert = task.risk_optimal_policy(CVaR(0.2))
    bc = BehaviourCloning().fit(task.demonstrations(expert, 200, seed=0), task.mdp)
    assert np.all(np.abs(task.p_risky(bc.policy_) - task.p_risky(expert)) < 0.05)


def test_dirl_fit_is_deterministic_and_sklearn_like(task):
    demos = task.demonstrations(task.risk_optimal_policy(CVaR(0.2)), 40, seed=0)
    kw = {"n_iter": 15, "n_quantiles": 8}
    a = DistributionalIRL(**kw)
    assert a.fit(demos, task.mdp) is a
    b = DistributionalIRL(**kw).fit(demos, task.mdp)
    np.testing.assert_array_equal(a.reward_mean_, b.reward_mean_)
    np.testing.assert_array_equal(a.policy_, b.policy_)
    np.testing.assert_allclose(a.policy_.sum(axis=1), 1.0)
    assert np.all(np.abs(a.reward_mean_) <= 1.0) and np.all((a.reward_std_ >= 0.01) & (a.reward_std_ <= 3.0))
    assert len(a.history_["objective"]) == 15 and a.predict([0, 1]).shape == (2,)


def test_dirl_recovers_the_risk_averse_expert_and_reward_shape(task):
    """Worked example: the game's solution makes the CVaR expert optimal, with wide risky and narrow safe cells."""
    expert = task.risk_optimal_policy(CVaR(0.2))
    demos = task.demonstrations(expert, 60, seed=0)
    d = DistributionalIRL(n_iter=1500, n_quantiles=16, known_rewards={0: (0.0, 0.0)}).fit(demos, task.mdp)
    np.testing.assert_array_equal(task.p_risky(d.policy_), task.p_risky(expert))
    assert d.reward_std_[2] > 5 * d.reward_std_[1] and d.reward_mean_[2] > d.reward_mean_[1]
    assert d.objective(d.reward_mean_, d.reward_std_) < 0  # the expert beats every deviation in rho_g
    assert (d.reward_mean_[0], d.reward_std_[0]) == (0.0, 0.0)  # known groups stay pinned


def test_quantile_gradients_match_finite_differences(task):
    """law_quantiles: implicit-function gradients of mixture quantiles agree with finite differences."""
    pi = task.route_policy((True, False))
    d = rollout(task.mdp, pi, 30, seed=1)
    law = expert_law(task.mdp, d, np.arange(30))  # a mixture over the two starts' paths
    assert law.weights.size > 1
    mu, sig = np.array([0.1, 0.2, 0.4]), np.array([0.3, 0.3, 0.5])
    taus = quantile_grid(8)
    q, dm, ds = law_quantiles(law, mu, sig, taus)
    h = 1e-6
    for k in range(3):
        e = np.eye(3)[k] * h
        np.testing.assert_allclose((law_quantiles(law, mu + e, sig, taus)[0] - q) / h, dm[:, k], atol=1e-4)
        np.testing.assert_allclose((law_quantiles(law, mu, sig + e, taus)[0] - q) / h, ds[:, k], atol=1e-4)


def test_policy_law_matches_exact_returns(task):
    """The coefficient-form law of a deterministic policy equals the enumerated Gaussian mixture (oracle)."""
    pi = task.route_policy((False, True))
    a = pi.argmax(axis=1)
    law = policy_law(task.mdp, a, task.starts[1])
    w, m, s = exact_returns(task.mdp, pi, task.true_rewards, start=task.starts[1])
    np.testing.assert_allclose(law.A @ task.true_rewards.mean, m)
    np.testing.assert_allclose(np.sqrt(law.B @ task.true_rewards.std**2), s)
    np.testing.assert_allclose(law.weights, w)


def _tiny_mdp():
    p = np.zeros((2, 2, 2))
    p[:, :, 1] = 1.0
    return TabularMDP(p, np.array([1.0, 0.0]), horizon=2)


def test_bad_mdp_input():
    p = np.zeros((2, 2, 2))
    p[:, :, 1] = 1.0
    with pytest.raises(ValueError, match="transitions"):
        TabularMDP(p * 0.5, np.array([1.0, 0.0]), horizon=2)  # rows do not sum to 1
    with pytest.raises(ValueError, match="transitions"):
        TabularMDP(np.ones((2, 2, 3)), np.array([1.0, 0.0]), horizon=2)
    with pytest.raises(ValueError, match="initial"):
        TabularMDP(p, np.array([1.5, -0.5]), horizon=2)
    with pytest.raises(ValueError, match="horizon"):
        TabularMDP(p, np.array([1.0, 0.0]), horizon=0)
    with pytest.raises(ValueError, match="gamma"):
        TabularMDP(p, np.array([1.0, 0.0]), horizon=2, gamma=1.5)
    with pytest.raises(ValueError, match="std"):
        GaussianRewards(np.zeros(2), np.array([1.0, -1.0]))


def test_exact_returns_rejects_a_bad_start(task):
    """An out-of-range or non-int start is refused by name (not an IndexError from inside the enumeration)."""
    pi = task.route_policy((False, True))
    for bad, err in ((999, ValueError), (-1, ValueError), (1.0, TypeError), (True, TypeError)):
        with pytest.raises(err, match="start"):
            exact_returns(task.mdp, pi, task.true_rewards, start=bad)
    exact_returns(task.mdp, pi, task.true_rewards, start=np.int64(task.starts[1]))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=2, max_size=2))
@example([0.0, 0.99999])  # sums to 1 - 1e-5: a relative tolerance (np.allclose's default rtol) let it through
@example([0.5, 0.5])
def test_policies_that_are_not_distributions_are_rejected(row):
    mdp = _tiny_mdp()
    pi = np.array([row, [0.5, 0.5]])
    ok = all(0 <= x <= 1 for x in row) and abs(sum(row) - 1) <= ROW_SUM_ATOL
    if ok:
        rollout(mdp, pi, 3, seed=0)
    else:
        with pytest.raises(ValueError, match="policy"):
            rollout(mdp, pi, 3, seed=0)


def test_bad_demonstrations_and_fit_args():
    mdp = _tiny_mdp()
    with pytest.raises(ValueError, match="empty"):
        Demonstrations(np.zeros((0, 2), int), np.zeros((0, 2), int))
    with pytest.raises(ValueError, match="same shape"):
        Demonstrations(np.zeros((3, 2), int), np.zeros((3, 1), int))
    with pytest.raises(TypeError, match="states"):
        Demonstrations(np.full((1, 2), 0.5), np.zeros((1, 2), int))
    with pytest.raises(ValueError, match="horizon"):
        DistributionalIRL().fit(Demonstrations(np.zeros((1, 3), int), np.zeros((1, 3), int)), mdp)
    with pytest.raises(ValueError, match="n_states"):
        DistributionalIRL().fit(Demonstrations(np.full((1, 2), 5), np.zeros((1, 2), int)), mdp)
    demos = Demonstrations(np.zeros((1, 2), int), np.zeros((1, 2), int))
    with pytest.raises(TypeError, match="demonstrations"):
        DistributionalIRL().fit([[0, 0]], mdp)
    with pytest.raises(TypeError, match="risk_measure"):
        DistributionalIRL(risk_measure="cvar").fit(demos, mdp)
    with pytest.raises(ValueError, match="n_quantiles"):
        DistributionalIRL(n_quantiles=0).fit(demos, mdp)
    with pytest.raises(ValueError, match="std_bounds"):
        DistributionalIRL(std_bounds=(1.0, 2.0), init_std=0.5).fit(demos, mdp)
    with pytest.raises(ValueError, match="solver"):
        DistributionalIRL(solver="adam").fit(demos, mdp)
    with pytest.raises(TypeError, match="known_rewards"):
        DistributionalIRL(known_rewards=[0.0]).fit(demos, mdp)
    with pytest.raises(ValueError, match="known_rewards"):
        DistributionalIRL(known_rewards={1: (0.0,)}).fit(demos, mdp)
    with pytest.raises(TypeError, match="known_rewards"):
        DistributionalIRL(known_rewards={1: ("a", 0.0)}).fit(demos, mdp)
    with pytest.raises(ValueError, match="std_bounds"):
        DistributionalIRL(std_bounds=(1.0,)).fit(demos, mdp)
    with pytest.raises(TypeError, match="std_bounds"):
        DistributionalIRL(std_bounds="ab").fit(demos, mdp)
    with pytest.raises(TypeError, match="random_state"):
        DistributionalIRL(random_state=0)  # removed: the method is deterministic given the data
    with pytest.raises(RuntimeError, match="not fitted"):
        DistributionalIRL().predict([0])
    with pytest.raises(TypeError, match="mdp"):
        MaxEntIRL().fit(demos, "mdp")


def test_softmax_rejects_an_empty_last_axis():
    from icml26.papers.dist_irl import softmax

    with pytest.raises(ValueError, match=r"logits must have at least one entry along the last axis"):
        softmax(np.array([]))
    with pytest.raises(ValueError, match=r"logits must have at least one entry"):
        softmax(np.zeros((3, 0)))
    np.testing.assert_allclose(softmax(np.zeros((2, 4))), 0.25)


def test_estimators_validate_hyper_parameters_in_the_constructor():
    with pytest.raises(ValueError, match="n_quantiles"):
        DistributionalIRL(n_quantiles=0)
    with pytest.raises(ValueError, match="solver"):
        DistributionalIRL(solver="xx")
    with pytest.raises(ValueError, match="std_bounds"):
        DistributionalIRL(std_bounds=(1.0, 2.0), init_std=0.5)
    with pytest.raises(ValueError, match="lr must be > 0"):
        MaxEntIRL(lr=-1)
    with pytest.raises(ValueError, match="n_iter"):
        MaxEntIRL(n_iter=-1)
    with pytest.raises(ValueError, match="l2 must be >= 0"):
        MaxEntIRL(l2=-0.1)
    with pytest.raises(TypeError, match="lr must be a number"):
        MaxEntIRL(lr="0.1")
    with pytest.raises(ValueError, match="smoothing must be > 0"):
        BehaviourCloning(smoothing=0.0)
