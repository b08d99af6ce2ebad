"""Fusion trees, their networks and the evolutionary search: a hand-run forward pass, the genetic operators'
invariants, determinism, elitism, and any number of views."""

import numpy as np
import pytest
import torch

from icml26.papers.emvc_purify import (
    OPS,
    EvolutionaryFusion,
    FusionNet,
    MultiViewClassifier,
    random_tree,
    train_fusion,
    tree_str,
)
from icml26.papers.emvc_purify._trees import check_tree, crossover, mutate, tree_depth, tree_views


def _views(n: int = 90, widths=(4, 3), seed: int = 0):
    g = np.random.default_rng(seed)
    y = np.arange(n) % 3
    return [g.normal(size=(n, w)) + 2 * (k + 1) * y[:, None] * (k % 2 * 2 - 1) for k, w in enumerate(widths)], y


def test_forward_pass_by_hand() -> None:
    tree = ("cat", ("mul", 0, 1), ("max", 1, ("avg", 0, ("add", 1, 1))))
    net = FusionNet(tree, [4, 3], 3, width=5).double()
    x = [torch.randn(6, 4, dtype=torch.float64), torch.randn(6, 3, dtype=torch.float64)]
    e = [torch.relu(enc(x[v])) for enc, v in zip(net.encoders, [0, 1, 1, 0, 1, 1])]  # leaves in postfix order
    right = torch.maximum(e[2], 0.5 * (e[3] + (e[4] + e[5])))
    fused = torch.relu(net.mixers[0](torch.cat([e[0] * e[1], right], dim=1)))
    torch.testing.assert_close(net(x), net.head(fused), rtol=0, atol=1e-12)
    assert len(net.encoders) == 6 and len(net.mixers) == 1


def test_tree_text_depth_and_checks() -> None:
    t = ("cat", 0, ("max", 1, 2))
    assert tree_str(t) == "cat(v0, max(v1, v2))" and tree_str(t, ("a", "b", "c")) == "cat(a, max(b, c))"
    assert tree_depth(t) == 2 and tree_depth(1) == 0 and tree_views(t) == {0, 1, 2}
    assert check_tree(("add", np.int64(0), 1), 2) == ("add", 0, 1)
    for bad, err in [(("sub", 0, 1), ValueError), (("add", 0, 5), ValueError), ((0, 1), TypeError),
                     (True, TypeError), ("v0", TypeError)]:
        with pytest.raises(err, match="tree"):
            check_tree(bad, 3)


def test_genetic_operators_keep_trees_valid_and_within_depth() -> None:
    rng = np.random.default_rng(0)
    seen_ops = set()
    for _ in range(300):
        a, b = (random_tree(4, max_depth=3, rng=rng) for _ in range(2))
        c1, c2 = crossover(a, b, rng=rng, max_depth=3)
        m = mutate(c1, 4, rng=rng, max_depth=3)
        for t in (a, b, c1, c2, m):
            assert check_tree(t, 4) == t and tree_depth(t) <= 3
            if not isinstance(t, int):
                seen_ops.add(t[0])
    assert seen_ops == set(OPS)
    # crossover preserves the multiset of subtrees: the leaves of both children are the leaves of both parents
    a, b = ("add", 0, ("mul", 1, 2)), ("cat", 3, 3)
    c1, c2 = crossover(a, b, rng=np.random.default_rng(1), max_depth=4)
    leaves = lambda t: [t] if isinstance(t, int) else leaves(t[1]) + leaves(t[2])  # noqa: E731
    assert sorted(leaves(c1) + leaves(c2)) == sorted(leaves(a) + leaves(b))


def test_train_fusion_is_deterministic_and_keeps_the_global_rng() -> None:
    views, y = _views()
    state = torch.random.get_rng_state()
    a = train_fusion(("cat", 0, 1), views, y, width=8, epochs=30, seed=4)
    b = train_fusion(("cat", 0, 1), views, y, width=8, epochs=30, seed=4)
    assert torch.equal(state, torch.random.get_rng_state())
    np.testing.assert_array_equal(a.predict(views), b.predict(views))
    for p, q in zip(a.net.parameters(), b.net.parameters()):
        assert torch.equal(p, q)
    assert a.score(views, y) > 0.8


@pytest.mark.parametrize("widths", [(5,), (4, 3), (2, 3, 4, 2, 6)])
def test_search_runs_on_any_number_of_views_and_is_deterministic(widths) -> None:
    views, y = _views(widths=widths)
    tr, va = np.arange(60), np.arange(60, 90)
    args = ([v[tr] for v in views], y[tr], [v[va] for v in views], y[va])
    kw = {"population": 5, "generations": 2, "width": 8, "epochs": 20, "seed": 1}
    a = EvolutionaryFusion(**kw).fit(*args)
    b = EvolutionaryFusion(**kw).fit(*args)
    assert a.fitness_ == b.fitness_ and a.best_tree_ == b.best_tree_
    assert a.best_fitness_ == max(a.fitness_.values())
    bests = [h["best"] for h in a.history_]
    assert len(bests) == 3 and all(x <= y for x, y in zip(bests, bests[1:]))  # elitism: the best never drops
    assert a.n_evaluations_ <= 5 + 2 * 5 and all(tree_views(t) <= set(range(len(widths))) for t in a.fitness_)
    assert a.score(args[2], args[3]) == pytest.approx(np.mean(a.predict(args[2]) == args[3]))
    assert a.score(args[2], args[3]) == a.best_fitness_  # the best model is the one whose fitness was measured


def test_fitness_follows_the_validation_labels() -> None:
    views, y = _views()
    tr, va = np.arange(60), np.arange(60, 90)
    wrong = (y[va] + 1) % 3
    kw = {"population": 3, "generations": 0, "width": 8, "epochs": 30, "seed": 0}
    good = EvolutionaryFusion(**kw).fit([v[tr] for v in views], y[tr], [v[va] for v in views], y[va])
    bad = EvolutionaryFusion(**kw).fit([v[tr] for v in views], y[tr], [v[va] for v in views], wrong)
    assert set(good.fitness_) == set(bad.fitness_)
    assert all(bad.fitness_[t] < good.fitness_[t] for t in good.fitness_)


def test_classifier_learns_and_refuses_other_views() -> None:
    views, y = _views()
    clf = MultiViewClassifier(hidden=8, epochs=60, seed=0).fit(views, y)
    assert clf.score(views, y) > 0.9 and clf.features(views).shape == (90, 8) and clf.logits(views).shape == (90, 3)
    with pytest.raises(ValueError, match="views must hold 2 views"):
        clf.predict(views[:1])
    with pytest.raises(ValueError, match="widths"):
        clf.predict([views[0][:, :2], views[1]])
    with pytest.raises(ValueError, match="not fitted"):
        MultiViewClassifier(seed=0).predict(views)
