"""Topological sort with known depths ([P23] T3, our instance), and the static and execution-state features of each
node that the decision-timing analysis regresses depth on."""

from __future__ import annotations

import numpy as np

from icml26.common.validation import int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.anira._tasks import TokenTask, pad_rows

__all__ = ["STATE_FEATURES", "STATIC_FEATURES", "kahn_rounds", "topological_levels"]

#: what a node shows before any computation: its in- and out-degree and the size of its graph
STATIC_FEATURES = ("in_degree", "out_degree", "n_nodes")
#: where Kahn's algorithm is when it removes the node: the round, the frontier's size in that round, the children
#: it enables for the next round, the nodes not yet removed
STATE_FEATURES = ("round", "frontier", "enabled", "remaining")


def kahn_rounds(parents: list[list[int]]) -> np.ndarray:
    """Round of each node in Kahn's algorithm run in rounds ([P23] T3): the first round (index 0) removes every node
    without parents, round ``r`` every node whose parents were all removed before ``r``. ``parents[v]`` lists
    ``v``'s parents; a cycle is a ValueError."""
    n = len(parents)
    indeg = np.array([len(p) for p in parents])
    children: list[list[int]] = [[] for _ in range(n)]
    for v, ps in enumerate(parents):
        for u in ps:
            children[u].append(v)
    rounds = np.full(n, -1, dtype=np.int64)
    frontier, r = [v for v in range(n) if indeg[v] == 0], 0
    while frontier:
        nxt = []
        for v in frontier:
            rounds[v] = r
            for c in children[v]:
                indeg[c] -= 1
                if indeg[c] == 0:
                    nxt.append(c)
        frontier, r = nxt, r + 1
    if (rounds < 0).any():
        raise ValueError("parents: the graph has a cycle")
    return rounds


def _features(parents: list[list[int]], rounds: np.ndarray) -> dict[str, np.ndarray]:
    n = len(parents)
    out_deg = np.zeros(n)
    for ps in parents:
        for u in ps:
            out_deg[u] += 1
    enabled = np.zeros(n)
    for v, ps in enumerate(parents):
        for u in ps:
            if rounds[v] == rounds[u] + 1:
                enabled[u] += 1
    per_round = np.bincount(rounds, minlength=int(rounds.max()) + 1)
    return {"in_degree": np.array([len(p) for p in parents], dtype=float), "out_degree": out_deg,
            "n_nodes": np.full(n, float(n)), "round": rounds.astype(float), "frontier": per_round[rounds].astype(float),
            "enabled": enabled, "remaining": np.array([(rounds >= r).sum() for r in rounds], dtype=float)}


def _one_dag(g: np.random.Generator, n: int, max_parents: int, window: int, p_source: float, n_names: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    parents: list[list[int]] = [[]]
    for v in range(1, n):
        if g.random() < p_source:
            parents.append([])
            continue
        pool = np.arange(max(0, v - window), v)
        k = int(g.integers(1, min(max_parents, len(pool)) + 1))
        parents.append(sorted(int(u) for u in g.choice(pool, size=k, replace=False)))
    rounds = kahn_rounds(parents)
    feats = _features(parents, rounds)
    names = g.choice(n_names, size=n, replace=False)
    x = np.full((n, 1 + max_parents), -1, dtype=np.int64)
    for v, ps in enumerate(parents):
        x[v, 0] = names[v]
        x[v, 1:1 + len(ps)] = names[ps]
    order = g.permutation(n)
    return x[order], rounds[order], rounds[order], {k: f[order] for k, f in feats.items()}


def topological_levels(n_seqs: int, *, n_nodes: tuple[int, int] = (6, 10), max_parents: int = 2, window: int = 3,
                       p_source: float = 0.15, n_names: int = 32, n_classes: int = 16, seed: int) -> TokenTask:
    """Layered topological sort of random DAGs ([P23] T3, our instance): one token per node, fields
    ``(name, parent_1, ..., parent_P)`` (-1 where absent), target and difficulty the node's Kahn round.

    A DAG on ``n`` nodes (``n`` uniform in ``n_nodes``) is built in a hidden order: node 0 is a source, every later
    node is a source with probability ``p_source``, else takes ``1..max_parents`` distinct parents among the
    ``window`` nodes before it. Rounds reach up to ``n - 1``; ``n_classes`` bounds them (a larger round is a
    ValueError). ``features`` holds :data:`STATIC_FEATURES` and :data:`STATE_FEATURES`.
    """
    S, g = positive_int(n_seqs, "n_seqs"), np.random.default_rng(check_seed(seed))
    if not isinstance(n_nodes, tuple) or len(n_nodes) != 2:
        raise TypeError(f"n_nodes must be a (lo, hi) tuple of ints, got {n_nodes!r}")
    lo, hi = int_at_least(n_nodes[0], "n_nodes", 2), int_at_least(n_nodes[1], "n_nodes", 2)
    if lo > hi:
        raise ValueError(f"n_nodes must have lo <= hi, got {n_nodes!r}")
    P, w = positive_int(max_parents, "max_parents"), positive_int(window, "window")
    names, C = positive_int(n_names, "n_names"), positive_int(n_classes, "n_classes")
    ps = real(p_source, "p_source", lo=0.0, hi=1.0)
    if hi > names:
        raise ValueError(f"n_nodes: up to {hi} nodes need n_names >= {hi}, got {names}")
    rows = [_one_dag(g, int(g.integers(lo, hi + 1)), P, w, ps, names) for _ in range(S)]
    x, y, d, mask, feats = pad_rows(rows, 1 + P)
    if int(y.max()) >= C:
        raise ValueError(f"n_classes: a round of {int(y.max())} needs n_classes > {int(y.max())}, got {C}")
    return TokenTask("topo", x, y, d, mask, (names,) * (1 + P), C, feats)
