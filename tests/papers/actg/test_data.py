"""[P28] toy corpus, extractor and the stage-1 synthesizer against brute-force oracles."""

import itertools

import numpy as np
import pytest

from icml26.papers.actg import CorpusSchema, MSTSynth, extract_attributes, make_corpus, marginal_tv, rubric_reward
from icml26.papers.actg._corpus import PARENTS


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
    syn = MSTSynth(1e-3, s.cardinalities).fit(t, seed=0)
    names = s.names
    truth = {frozenset((names.index(c), names.index(p))) for c, p in PARENTS.items() if p is not None}
    assert {frozenset(e) for e in syn.tree_} == truth
    out = syn.sample(20000, seed=1)
    assert marginal_tv(out, t, cardinalities=s.cardinalities, order=2) < 0.03


def test_mst_noise_and_privacy_constants():
    syn = MSTSynth(2.0, (3, 4, 5))
    assert syn.sensitivity == pytest.approx(np.sqrt(3))
    assert syn.rho == pytest.approx(1 / 8)
    t = np.zeros((1000, 3), dtype=np.int64)
    syn.fit(t, seed=0)
    resid = np.concatenate([(v - np.pad(np.array([[1000.0]]), ((0, v.shape[0] - 1), (0, v.shape[1] - 1)))).ravel()
                            for v in syn.noisy_.values()])
    assert resid.std() == pytest.approx(2.0 * np.sqrt(3), rel=0.2)


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
