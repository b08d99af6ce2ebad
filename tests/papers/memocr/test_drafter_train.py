"""[P29] drafter, geometric reader and GRPO: features against a hand-built episode, the score-function gradient
against finite differences, legibility monotone in the budget, and training that learns to promote evidence."""

import numpy as np
import pytest

from icml26.papers.memocr import (
    FEATURES,
    Episode,
    Fact,
    LayoutPolicy,
    Question,
    draft_memory,
    fact_features,
    legible,
    make_episode,
    train_layout_policy,
)

EP = Episode(facts=(Fact("Kovar", "founded", "Lumeta"), Fact("Lumeta", "from", "Tarsk"),
                    Fact("Rofi", "founded", "Baze"), Fact("Baze", "from", "Tarsk")),
             questions=(Question("Kovar", ("founded", "from"), "Tarsk", (0, 1)),
                        Question("Baze", ("from",), "Tarsk", (3,))),
             bands=("Lumeta", "Baze"), cities=("Tarsk",))


def test_features_by_hand():
    two, one = fact_features(EP, EP.questions[0]), fact_features(EP, EP.questions[1])
    assert FEATURES == ("bias", "names_subject", "names_neighbour", "relation_from", "two_hop_question")
    np.testing.assert_array_equal(two, [[1, 1, 0, 0, 1], [1, 0, 1, 1, 1], [1, 0, 0, 0, 1], [1, 0, 0, 1, 1]])
    np.testing.assert_array_equal(one, [[1, 0, 0, 0, 0], [1, 0, 0, 1, 0], [1, 1, 0, 0, 0], [1, 1, 0, 1, 0]])


def test_draft_puts_promoted_facts_in_headings():
    md = draft_memory(EP, np.array([True, False, False, True]))
    assert md.splitlines() == ["# Kovar founded band Lumeta.", "# Band Baze is from Tarsk.",
                               "Band Lumeta is from Tarsk. Rofi founded band Baze."]
    with pytest.raises(ValueError, match="promote"):
        draft_memory(EP, np.array([1, 0, 0, 1]))


def test_score_function_matches_finite_differences():
    """∇_w log π(a | q) = Σ_f (a_f − p_f) φ_f, the gradient the GRPO update uses."""
    x = fact_features(EP, EP.questions[0])
    a = np.array([1.0, 0.0, 1.0, 0.0])
    w = np.array([-1.0, 0.5, 0.3, -0.2, 0.1])

    def logp(v):
        p = 1 / (1 + np.exp(-(x @ v)))
        return float(np.sum(a * np.log(p) + (1 - a) * np.log(1 - p)))

    p = 1 / (1 + np.exp(-(x @ w)))
    analytic = (a - p) @ x
    eps = 1e-6
    numeric = [(logp(w + eps * e) - logp(w - eps * e)) / (2 * eps) for e in np.eye(len(w))]
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8)


def test_legibility_is_monotone_in_the_budget_and_headings_win():
    ep = make_episode(seed=2)
    q = ep.questions[0]
    head = np.zeros(len(ep.facts), dtype=bool)
    head[list(q.evidence)] = True
    none = np.zeros_like(head)
    got_head = [legible(ep, head, q.evidence, b) for b in (1, 4, 16, 64, 1024)]
    got_none = [legible(ep, none, q.evidence, b) for b in (1, 4, 16, 64, 1024)]
    for got in (got_head, got_none):
        assert got == sorted(got)  # False ... True
    assert got_head[-1] and got_none[-1] and not got_head[0]
    assert sum(got_head) > sum(got_none)


def test_policy_checks_its_weights_and_rng():
    with pytest.raises(ValueError, match="weights"):
        LayoutPolicy((1.0, 2.0))
    with pytest.raises(TypeError, match="rng"):
        LayoutPolicy.zero().promote(EP, EP.questions[0], rng=1)


def test_grpo_training_is_deterministic_and_learns_to_promote_evidence():
    c, d = train_layout_policy(steps=5, seed=3), train_layout_policy(steps=5, seed=3)
    assert c.policy == d.policy and c.reward == d.reward and len(c.reward) == 5
    a = train_layout_policy(steps=60, seed=0)
    assert dict(zip(FEATURES, a.policy.weights))["names_subject"] > 1.0  # every question's first hop names it
    ratio = {}
    for name, pol in (("trained", a.policy), ("initial", LayoutPolicy.initial())):
        ev, rest = [], []
        for s in range(5):
            ep = make_episode(seed=500 + s)
            for q in ep.questions:
                p = pol.probabilities(ep, q)
                ev.append(p[q.evidence[0]])
                rest.extend(np.delete(p, list(q.evidence)))
        ratio[name] = np.mean(ev) / np.mean(rest)
    assert ratio["initial"] == pytest.approx(1.0)
    assert ratio["trained"] > 3.0
