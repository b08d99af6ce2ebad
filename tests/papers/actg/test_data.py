"""[P28] toy corpus, extractor and the stage-1 synthesizer (MST) against brute-force oracles."""

import itertools

import numpy as np
import pytest
from scipy.optimize import nnls

from icml26.papers.actg import (
    CorpusSchema,
    MSTSynth,
    extract_attributes,
    make_corpus,
    marginal_tv,
    mst_parameters,
    rubric_reward,
)
from icml26.papers.actg._corpus import PARENTS
from icml26.papers.actg._pgm import orient, project_simplex, select_edges, tree_marginals


def test_extractor_recovers_every_named_field():
    s = CorpusSchema(p_mention=1.0)
    table, texts = make_corpus(s, 200, seed=1)
    assert all((extract_attributes(t) == r).all() for t, r in zip(texts, table))
    assert all(rubric_reward(t, r) == 1.0 for t, r in zip(texts[:20], table[:20]))
    _, vague = make_corpus(CorpusSchema(p_mention=0.0), 20, seed=1)
    assert all((extract_attributes(t) == -1).all() for t in vague)
    assert rubric_reward("we study mice .", np.array([0, 1, 0, 0, 0])) == pytest.approx(0.2)


def test_sampling_matches_exact_joint():
    s = CorpusSchema()
    joint = s.joint()
    assert joint.sum() == pytest.approx(1.0)
    t = s.sample_table(40000, seed=0)
    for i, j in [(0, 1), (2, 3), (1, 4)]:
        emp = np.zeros(joint.shape[i:i + 1] + joint.shape[j:j + 1])
        np.add.at(emp, (t[:, i], t[:, j]), 1.0)
        axes = tuple(k for k in range(joint.ndim) if k not in (i, j))
        assert 0.5 * np.abs(emp / len(t) - joint.sum(axis=axes)).sum() < 0.03


def test_mst_recovers_the_network_tree_with_little_noise():
    s = CorpusSchema()
    t = s.sample_table(20000, seed=2)
    syn = MSTSynth(1e6, s.cardinalities).fit(t, seed=0)
    names = s.names
    truth = {frozenset((names.index(c), names.index(p))) for c, p in PARENTS.items() if p is not None}
    assert {frozenset(e) for e in syn.edges_} == truth
    assert {frozenset(e) for e in syn.tree_} == truth and syn.tree_[0][0] == 0
    out = syn.sample(20000, seed=1)
    assert marginal_tv(out, t, cardinalities=s.cardinalities, order=2) < 0.03


def _spanning_trees(d):
    pairs = list(itertools.combinations(range(d), 2))
    for es in itertools.combinations(pairs, d - 1):
        try:
            orient(list(es), d)
        except ValueError:
            continue
        yield es


def test_selection_is_the_max_spanning_tree_without_noise_and_the_exponential_mechanism_with_it():
    g = np.random.default_rng(0)
    scores = {e: float(g.uniform(0, 10)) for e in itertools.combinations(range(4), 2)}
    best = max(_spanning_trees(4), key=lambda es: sum(scores[e] for e in es))
    assert set(select_edges(scores, 4, epsilon=1e6, sensitivity=1.0, g=g)) == set(best)
    # 3 nodes: P(tree {a, b}) = Σ over the two orders of P(first) · P(second | first), exact
    sc = {(0, 1): 1.0, (0, 2): 2.5, (1, 2): 0.0}
    eps = 1.2
    w = {e: np.exp(eps * v / 2) for e, v in sc.items()}
    exact = {}
    for es in _spanning_trees(3):
        a, b = es
        exact[frozenset(es)] = sum(w[x] / sum(w.values()) * w[y] / (sum(w.values()) - w[x])
                                   for x, y in ((a, b), (b, a)))
    draws = [frozenset(select_edges(sc, 3, epsilon=eps, sensitivity=1.0, g=g)) for _ in range(6000)]
    for tree, p in exact.items():
        assert np.mean([d == tree for d in draws]) == pytest.approx(p, abs=0.02)


def test_selection_scores_brute_force():
    g = np.random.default_rng(1)
    cards = (2, 3, 2)
    t = np.stack([g.integers(0, k, 40) for k in cards], 1)
    syn = MSTSynth(1.0, cards)
    one = {i: np.bincount(t[:, i], minlength=k) + g.normal(0, 2, k) for i, k in enumerate(cards)}
    sc = syn.selection_scores(t, one)
    n1 = syn.noise[0]
    w = [1 / (k * n1 * n1) for k in cards]
    total = sum(wi * one[i].sum() for i, wi in enumerate(w)) / sum(w)
    for i, j in itertools.combinations(range(3), 2):
        pi, pj = (project_simplex(one[k] / total) for k in (i, j))
        ref = sum(abs(np.sum((t[:, i] == a) & (t[:, j] == b)) - total * pi[a] * pj[b])
                  for a in range(cards[i]) for b in range(cards[j]))
        assert sc[(i, j)] == pytest.approx(ref)


def test_tree_marginals_match_the_brute_force_joint():
    g = np.random.default_rng(2)
    cards, tree = (2, 3, 2, 3), [(0, 1), (0, 2), (1, 3)]
    th_n = [g.normal(size=k) for k in cards]
    th_e = {(0, 1): g.normal(size=(2, 3)), (0, 2): g.normal(size=(2, 2)), (1, 3): g.normal(size=(3, 3))}
    logp = np.zeros(cards)
    for x in itertools.product(*[range(k) for k in cards]):
        logp[x] = sum(th_n[i][x[i]] for i in range(4)) + sum(v[x[i], x[j]] for (i, j), v in th_e.items())
    joint = np.exp(logp - logp.max())
    joint /= joint.sum()
    nodes, edges = tree_marginals(th_n, th_e, tree)
    for i in range(4):
        assert nodes[i] == pytest.approx(joint.sum(axis=tuple(k for k in range(4) if k != i)))
    for (i, j), m in edges.items():
        assert m == pytest.approx(joint.sum(axis=tuple(k for k in range(4) if k not in (i, j))))


def test_mst_fit_is_the_least_squares_fit_over_all_joints():
    g = np.random.default_rng(0)
    cards = (2, 3, 2)
    t = np.stack([g.integers(0, k, 60) for k in cards], 1)
    syn = MSTSynth(0.5, cards).fit(t, seed=3)
    s1, s2 = syn.noise
    cells = list(itertools.product(*[range(k) for k in cards]))
    a_rows, b = [], []
    for c, y in syn.noisy_.items():
        s = s1 if len(c) == 1 else s2
        for idx in itertools.product(*[range(cards[i]) for i in c]):
            a_rows.append([float(all(cell[i] == v for i, v in zip(c, idx))) / s for cell in cells])
            b.append(y[idx] / s)
    big = 1e4  # the number of rows fixed at the model's estimate
    x, _ = nnls(np.vstack([a_rows, big * np.ones(len(cells))]), np.concatenate([b, [big * syn.total_]]))
    joint = x.reshape(cards) / x.sum()
    fitted = {(i,): syn.node_marginals_[i] for i in range(3)} | syn.edge_marginals_
    assert set(fitted) == set(syn.noisy_)
    for c, m in fitted.items():
        assert m == pytest.approx(joint.sum(axis=tuple(k for k in range(3) if k not in c)), abs=1e-6)
    for (i, j), m in syn.edge_marginals_.items():  # a consistent model: edges sum to their nodes
        assert m.sum(1) == pytest.approx(syn.node_marginals_[i]) and m.sum(0) == pytest.approx(syn.node_marginals_[j])


def test_mst_noise_and_privacy_constants():
    rho, d = 0.3, 3
    syn = MSTSynth(rho, (3, 4, 5))
    sigma, eps = mst_parameters(rho=rho, n_attributes=d)
    assert 2 * 1 / (2 * sigma**2) + (d - 1) * eps**2 / 8 == pytest.approx(rho)  # ρ/3 per mechanism
    assert syn.noise == pytest.approx((sigma * np.sqrt(3), sigma * np.sqrt(2)))
    assert syn.em_epsilon == eps
    t = np.zeros((1000, 3), dtype=np.int64)
    resid: dict[int, list[float]] = {1: [], 2: []}
    for s in range(40):
        fit = MSTSynth(rho, (3, 4, 5), iters=1).fit(t, seed=s)
        assert len(fit.edges_) == 2 and set(fit.noisy_) == {(0,), (1,), (2,), *fit.edges_}
        for c, v in fit.noisy_.items():
            resid[len(c)] += list((v - np.where(np.indices(v.shape).sum(0) == 0, 1000.0, 0.0)).ravel())
    assert np.std(resid[1]) == pytest.approx(syn.noise[0], rel=0.1)
    assert np.std(resid[2]) == pytest.approx(syn.noise[1], rel=0.1)


def test_marginal_tv_brute_force():
    g = np.random.default_rng(0)
    a, b = g.integers(0, 3, size=(50, 3)), g.integers(0, 3, size=(70, 3))
    a[0, 1] = -1
    for order in (1, 2):
        ref = []
        for cols in itertools.combinations(range(3), order):
            keys = set(map(tuple, a[:, cols])) | set(map(tuple, b[:, cols]))
            pa = {k: np.mean([tuple(r) == k for r in a[:, cols]]) for k in keys}
            pb = {k: np.mean([tuple(r) == k for r in b[:, cols]]) for k in keys}
            ref.append(0.5 * sum(abs(pa[k] - pb[k]) for k in keys))
        assert marginal_tv(a, b, cardinalities=(3, 3, 3), order=order) == pytest.approx(np.mean(ref))
    assert marginal_tv(a, a, cardinalities=(3, 3, 3)) == 0.0
