"""The exact toy: expected GRPO update vs exact enumeration of groups vs Monte Carlo; KL optimum; bad input."""

import itertools

import numpy as np
import pytest

from icml26.papers.diff_smoothing import (
    ToyTasks,
    differential_smoothing,
    expected_update,
    kl_optimum,
    make_toy_tasks,
    sampled_update,
    train_toy,
    vanilla,
)

BASE = np.array([[0.5, 0.3, 0.2]])
COR = np.array([[True, False, True]])
TASKS = ToyTasks(BASE, COR)
LOGITS = np.log(BASE)


def _enumerate_groups(tr, G):
    """The exact expectation of the sampled GRPO estimator: a sum over all N^G groups."""
    pi, N = BASE[0], BASE.shape[1]
    lp = np.log(pi)
    tot = np.zeros(N)
    for ys in itertools.product(range(N), repeat=G):
        ys = np.array(ys)
        adv = tr(COR[0, ys].astype(float), lp[ys])
        g = np.zeros(N)
        np.add.at(g, ys, adv)
        tot += np.prod(pi[ys]) * (g - pi * adv.sum()) / G
    return tot


@pytest.mark.parametrize("tr", [vanilla(), differential_smoothing(gamma_p=0.2, gamma_n=0.3)], ids=lambda t: t.label)
def test_sampled_estimator_matches_exact_enumeration(tr):
    G = 3
    exact = _enumerate_groups(tr, G)
    g = np.random.default_rng(0)
    n = 40_000
    tasks = ToyTasks(np.repeat(BASE, n, axis=0), np.repeat(COR, n, axis=0))
    mc = sampled_update(np.repeat(LOGITS, n, axis=0), tasks, tr, group_size=G, rng=g)
    se = mc.std(axis=0) / np.sqrt(n)
    assert np.all(np.abs(mc.mean(axis=0) - exact) < 5 * se + 1e-4)


def test_unnormalised_expectation_closed_form():
    # E[(r_i − r̄)(e_i − π)] = (1 − 1/G)·π⊙(r − ⟨π,r⟩); the −αℓ term has no baseline and is exact.
    G = 4
    tr = differential_smoothing(gamma_p=0.2, gamma_n=0.3, normalize=False)
    pi, r = BASE[0], COR[0].astype(float)
    s = -np.where(COR[0], 0.2, -0.3) * np.log(pi)
    closed = (1 - 1 / G) * pi * (r - pi @ r) + pi * (s - pi @ s)
    assert _enumerate_groups(tr, G) == pytest.approx(closed, abs=1e-12)
    # the expected_update (infinite group) is the G → ∞ limit
    assert expected_update(LOGITS, TASKS, tr)[0] == pytest.approx(pi * (r - pi @ r) + pi * (s - pi @ s), abs=1e-12)


def test_kl_regularised_dynamics_reach_the_closed_form_optimum():
    tasks = make_toy_tasks(3, n_answers=6, n_correct=(2, 3), seed=1)
    tr = differential_smoothing(gamma_p=0.2, gamma_n=0.1, normalize=False)
    run = train_toy(tasks, tr, steps=6000, lr=0.5, ref="base", kl_coef=0.5, ks=(2,))
    star = kl_optimum(tasks.base_probs, tasks.correct, beta=0.5, gamma_p=0.2, gamma_n=0.1)
    assert run.policy_ == pytest.approx(star, abs=1e-5)


def test_ds_optimum_improves_both_pass1_and_diversity():
    # the theory of the paper at the KL-regularised optimum: π_DS ∝ π_base^{1−γp/β} on C, π_base^{1+γn/β} off C
    from icml26.papers.diff_smoothing import categorical_pass_at_k, correct_set_entropy

    t = make_toy_tasks(50, seed=3)
    v = kl_optimum(t.base_probs, t.correct, beta=0.5, gamma_p=0.0, gamma_n=0.0)
    d = kl_optimum(t.base_probs, t.correct, beta=0.5, gamma_p=0.1, gamma_n=0.1)
    assert np.all(categorical_pass_at_k(d, t.correct, 1) > categorical_pass_at_k(v, t.correct, 1))
    assert np.all(correct_set_entropy(d, t.correct) >= correct_set_entropy(v, t.correct) - 1e-12)


def test_vanilla_exact_dynamics_raise_pass1_and_sharpen():
    t = make_toy_tasks(20, seed=0)
    run = train_toy(t, vanilla(), steps=100, lr=0.1, record_every=10)
    p1 = [m["pass@1"] for _, m in run.history]
    assert all(b >= a - 1e-12 for a, b in itertools.pairwise(p1))
    assert run.final["entropy_correct"] < run.history[0][1]["entropy_correct"]


def test_sampled_training_is_deterministic_for_a_seed():
    t = make_toy_tasks(5, seed=0)
    a = train_toy(t, vanilla(), steps=20, mode="sampled", seed=3).policy_
    b = train_toy(t, vanilla(), steps=20, mode="sampled", seed=3).policy_
    assert np.array_equal(a, b)


def test_bad_input_rejected():
    with pytest.raises(ValueError, match="base_probs must sum to 1"):
        ToyTasks(np.array([[0.5, 0.4]]), np.array([[True, False]]))
    with pytest.raises(ValueError, match=r"base_probs must hold probabilities in \[0, 1\]"):
        ToyTasks(np.array([[1.2, -0.2]]), np.array([[True, False]]))
    with pytest.raises(ValueError, match="correct has shape"):
        ToyTasks(BASE, np.array([[True, False]]))
    with pytest.raises(ValueError, match="correct must mark at least one"):
        ToyTasks(BASE, np.zeros_like(COR))
    with pytest.raises(ValueError, match="base_probs must be a non-empty"):
        ToyTasks(np.zeros((1, 0)), np.zeros((1, 0), dtype=bool))
    with pytest.raises(ValueError, match="mode must be"):
        train_toy(TASKS, vanilla(), steps=1, mode="adam")
    with pytest.raises(ValueError, match="group_size must be an int in \\[2, "):
        train_toy(TASKS, vanilla(), steps=1, mode="sampled", group_size=1)
    with pytest.raises(TypeError, match="transform must be an AdvantageTransform"):
        train_toy(TASKS, lambda r, lp: r, steps=1)
    with pytest.raises(ValueError, match="n_correct must satisfy"):
        make_toy_tasks(2, n_answers=4, n_correct=(3, 6))


def test_kl_optimum_rejects_bad_input():
    ok = {"beta": 0.5, "gamma_p": 0.1, "gamma_n": 0.1}
    for beta in (0.0, -0.5, np.inf, np.nan):
        with pytest.raises(ValueError, match="beta must be finite and > 0"):
            kl_optimum(BASE, COR, **{**ok, "beta": beta})
    for beta in ("1", True, None):
        with pytest.raises(TypeError, match="beta must be a real number"):
            kl_optimum(BASE, COR, **{**ok, "beta": beta})
    with pytest.raises(ValueError, match="gamma_p and gamma_n must be >= 0"):
        kl_optimum(BASE, COR, **{**ok, "gamma_n": -0.1})
    with pytest.raises(TypeError, match="gamma_p must be a finite real"):
        kl_optimum(BASE, COR, **{**ok, "gamma_p": np.nan})
    with pytest.raises(ValueError, match="base must sum to 1"):
        kl_optimum(np.array([[0.5, 0.3, 0.1]]), COR, **ok)
    with pytest.raises(ValueError, match=r"base must hold probabilities in \[0, 1\]"):
        kl_optimum(np.array([[1.2, -0.1, -0.1]]), COR, **ok)
    with pytest.raises(ValueError, match="base must be > 0 everywhere"):
        kl_optimum(np.array([[0.5, 0.5, 0.0]]), COR, **ok)
    np.testing.assert_array_equal(kl_optimum(BASE, COR.astype(int), **ok), kl_optimum(BASE, COR, **ok))  # 0/1 mask
    with pytest.raises(ValueError, match="correct must be a boolean mask"):
        kl_optimum(BASE, COR.astype(int) * 2, **ok)
    with pytest.raises(ValueError, match="correct has shape"):
        kl_optimum(BASE, np.array([[True, False]]), **ok)
    # valid input: a distribution; with γ = 0 it is π_base·e^{r/β} renormalised
    v = kl_optimum(BASE[0], COR[0], beta=0.5, gamma_p=0.0, gamma_n=0.0)
    w = BASE[0] * np.exp(COR[0] / 0.5)
    assert v == pytest.approx(w / w.sum())
