"""[P23] task generators: targets and difficulty labels against brute force (pointer resolution by walking the
pointers, addition by Python integers and a carry look-back found by trying both carry-ins, Kahn rounds against
networkx's topological generations, features recounted)."""

import numpy as np
import pytest

from icml26.papers.anira import addition, carry_lookback, kahn_rounds, pointer_chasing, topological_levels


def _resolve(fields: np.ndarray, n_values: int) -> tuple[list[int], list[int]]:
    """Walk every variable's pointers to a value: (values, hops), without the generator's chain bookkeeping."""
    bound = {int(name): int(op) for name, op in fields}
    values, hops = [], []
    for name, _ in fields:
        op, k = bound[int(name)], 0
        while op >= n_values:
            op, k = bound[op - n_values], k + 1
            assert k <= len(fields), "pointer cycle"
        values.append(op)
        hops.append(k)
    return values, hops


def test_pointer_targets_and_hops_against_walking_the_pointers():
    t = pointer_chasing(200, n_vars=(3, 11), max_hops=4, n_names=16, n_values=6, seed=7)
    assert t.vocab_sizes == (16, 22) and t.n_classes == 6
    seen_hops = set()
    for i in range(200):
        n = int(t.mask[i].sum())
        assert 3 <= n <= 11 and not t.mask[i, n:].any() and (t.x[i, n:] == -1).all()
        names = t.x[i, :n, 0]
        assert len(set(names.tolist())) == n  # distinct variables
        values, hops = _resolve(t.x[i, :n], 6)
        assert values == t.y[i, :n].tolist() and hops == t.difficulty[i, :n].tolist()
        seen_hops |= set(hops)
    assert seen_hops == {0, 1, 2, 3, 4}  # chains up to max_hops + 1 variables occur


def test_pointer_order_is_shuffled_and_seeded():
    a, b = pointer_chasing(50, seed=1), pointer_chasing(50, seed=1)
    assert np.array_equal(a.x, b.x) and not np.array_equal(a.x, pointer_chasing(50, seed=2).x)
    first_is_root = np.mean(a.difficulty[:, 0] == 0)
    assert first_is_root < 0.9  # roots are not always first


def _lookback_brute(a, b, i):
    """Fewest lower positions m whose digits decide the carry into i, for either carry into position i - m."""
    if i == 0:
        return 0
    for m in range(1, i + 1):
        outs = set()
        for cin in ((0,) if i - m == 0 else (0, 1)):
            c = cin
            for j in range(i - m, i):
                c = (a[j] + b[j] + c) // 10
            outs.add(c)
        if len(outs) == 1:
            return m
    raise AssertionError("unreachable")


def test_addition_sums_and_carry_lookback_against_brute_force():
    t = addition(300, digits=(1, 9), p_propagate=0.5, seed=3)
    for i in range(300):
        n = int(t.mask[i].sum())
        a, b = t.x[i, :n, 0], t.x[i, :n, 1]
        assert a[-1] == b[-1] == 0  # the carry-out position
        num = lambda d: int("".join(map(str, d[::-1])))  # noqa: E731
        total = num(a) + num(b)
        assert [int(c) for c in str(total).zfill(n)[::-1]] == t.y[i, :n].tolist()
        assert t.difficulty[i, :n].tolist() == [_lookback_brute(a, b, k) for k in range(n)]
    assert t.difficulty.max() >= 4  # long carry chains occur at p_propagate = 0.5


def test_carry_lookback_by_hand():
    # digits 0+0, 9+0 (a carry passes), 5+4 (passes), 7+8 (generates), carry-out: position 2 looks at 1 then 0,
    # position 3 at 2, 1 and 0, position 4 only at 3 (which generates)
    assert carry_lookback(np.array([0, 9, 5, 7, 0]), np.array([0, 0, 4, 8, 0])).tolist() == [0, 1, 2, 3, 1]


def test_topological_rounds_against_networkx():
    nx = pytest.importorskip("networkx")
    t = topological_levels(150, n_nodes=(2, 12), max_parents=3, window=4, n_names=24, n_classes=12, seed=5)
    for i in range(150):
        n = int(t.mask[i].sum())
        x = t.x[i, :n]
        g = nx.DiGraph()
        g.add_nodes_from(x[:, 0].tolist())
        g.add_edges_from((int(p), int(v)) for v, *ps in x for p in ps if p >= 0)
        assert nx.is_directed_acyclic_graph(g)
        level = {v: r for r, gen in enumerate(nx.topological_generations(g)) for v in gen}
        assert [level[int(v)] for v in x[:, 0]] == t.y[i, :n].tolist() == t.difficulty[i, :n].tolist()
        f = {k: v[i, :n] for k, v in t.features.items()}
        assert f["in_degree"].tolist() == [g.in_degree(int(v)) for v in x[:, 0]]
        assert f["out_degree"].tolist() == [g.out_degree(int(v)) for v in x[:, 0]]
        assert (f["n_nodes"] == n).all()
        rounds = t.y[i, :n]
        assert f["frontier"].tolist() == [int((rounds == r).sum()) for r in rounds]
        assert f["remaining"].tolist() == [int((rounds >= r).sum()) for r in rounds]
        enabled = [sum(level[c] == level[int(v)] + 1 for c in g.successors(int(v))) for v in x[:, 0]]
        assert f["enabled"].tolist() == enabled


def test_kahn_rounds_refuses_a_cycle_and_bounds_classes():
    assert kahn_rounds([[], [0], [0, 1], []]).tolist() == [0, 1, 2, 0]
    with pytest.raises(ValueError, match="cycle"):
        kahn_rounds([[1], [0]])
    with pytest.raises(ValueError, match="n_classes"):
        topological_levels(20, n_nodes=(10, 10), max_parents=1, window=1, p_source=0.0, n_names=10, n_classes=5,
                           seed=0)


def test_generators_refuse_bad_sizes():
    with pytest.raises(ValueError, match="n_vars"):
        pointer_chasing(3, n_vars=(5, 40), n_names=32, seed=0)
    with pytest.raises(ValueError, match="n_vars"):
        pointer_chasing(3, n_vars=(6, 4), seed=0)
    with pytest.raises(ValueError, match="p_propagate"):
        addition(3, p_propagate=1.5, seed=0)
    with pytest.raises(TypeError, match="seed"):
        topological_levels(3, seed=None)  # type: ignore[arg-type]
