"""The pieces of MST (McKenna, Miklau & Sheldon 2021) that [P28]'s stage 1 runs: the private choice of a spanning tree
by the exponential mechanism, and the estimation of a tree graphical model from noisy marginals (Private-PGM).

Estimation minimises Σ_c ||N̂·μ_c − y_c||² / (2 s_c²) over the marginals μ of a tree-structured model, c over the
measured 1-way and 2-way marginals (noise std s_c), by entropic mirror descent on the model's log-potentials with
an Armijo step search, as Private-PGM does; on a tree, sum-product message passing gives the exact marginals, and
the local polytope is the marginal polytope, so the optimum is the least-squares fit over all joint distributions.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

Edge = tuple[int, int]


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of ``v`` onto the probability simplex (sort-based, Held et al. 1974)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, len(v) + 1)
    r = int(np.nonzero(u - css / k > 0)[0][-1])
    return np.maximum(v - css[r] / (r + 1), 0.0)


def select_edges(scores: dict[Edge, float], n_nodes: int, *, epsilon: float, sensitivity: float,
                 g: np.random.Generator) -> list[Edge]:
    """MST's tree selection: ``n_nodes − 1`` rounds, each choosing, among the pairs that join two components of the
    edges chosen so far, one pair by the exponential mechanism (P ∝ exp(ε·score / (2·sensitivity)))."""
    comp = list(range(n_nodes))
    edges: list[Edge] = []
    for _ in range(n_nodes - 1):
        cand = [e for e in sorted(scores) if comp[e[0]] != comp[e[1]]]
        s = np.array([scores[e] for e in cand]) * (epsilon / (2.0 * sensitivity))
        p = np.exp(s - s.max())
        pick = cand[int(g.choice(len(cand), p=p / p.sum()))]
        old, new = comp[pick[1]], comp[pick[0]]
        comp = [new if c == old else c for c in comp]
        edges.append(pick)
    return edges


def orient(edges: list[Edge], n_nodes: int, root: int = 0) -> list[Edge]:
    """The tree's edges as (parent, child), in breadth-first order from ``root``."""
    adj: dict[int, list[int]] = {i: [] for i in range(n_nodes)}
    for i, j in edges:
        adj[i].append(j)
        adj[j].append(i)
    seen, queue, out = {root}, [root], []
    while queue:
        p = queue.pop(0)
        for c in sorted(adj[p]):
            if c not in seen:
                seen.add(c)
                queue.append(c)
                out.append((p, c))
    if len(seen) != n_nodes:
        raise ValueError("edges must form a spanning tree")
    return out


def _edge_potential(theta: dict[Edge, np.ndarray], p: int, c: int) -> np.ndarray:
    return theta[(p, c)] if (p, c) in theta else theta[(c, p)].T


def tree_marginals(theta_nodes: list[np.ndarray], theta_edges: dict[Edge, np.ndarray], tree: list[Edge]
                   ) -> tuple[list[np.ndarray], dict[Edge, np.ndarray]]:
    """Exact marginals of p(x) ∝ exp(Σ_i θ_i(x_i) + Σ_e θ_e(x_e)) on a tree given as (parent, child) edges in
    breadth-first order (sum-product in log space). Edge marginals are keyed and shaped like ``theta_edges``."""
    children: dict[int, list[int]] = {i: [] for i in range(len(theta_nodes))}
    for p, c in tree:
        children[p].append(c)
    up: dict[int, np.ndarray] = {}
    inner = [t.copy() for t in theta_nodes]  # θ_i plus the messages from i's children
    for p, c in reversed(tree):
        for k in children[c]:
            inner[c] = inner[c] + up[k]
        up[c] = logsumexp(_edge_potential(theta_edges, p, c) + inner[c][None, :], axis=1)
    root = tree[0][0] if tree else 0
    for k in children[root]:
        inner[root] = inner[root] + up[k]
    full = {root: inner[root]}  # θ_i plus all incoming messages
    for p, c in tree:
        down = logsumexp(_edge_potential(theta_edges, p, c) + (full[p] - up[c])[:, None], axis=0)
        full[c] = inner[c] + down
    nodes = [np.exp(full[i] - logsumexp(full[i])) for i in range(len(theta_nodes))]
    edges: dict[Edge, np.ndarray] = {}
    for p, c in tree:
        lg = (full[p] - up[c])[:, None] + _edge_potential(theta_edges, p, c) + inner[c][None, :]
        m = np.exp(lg - logsumexp(lg))
        edges[(p, c) if (p, c) in theta_edges else (c, p)] = m if (p, c) in theta_edges else m.T
    return nodes, edges


def estimate_total(measurements: dict[tuple[int, ...], tuple[np.ndarray, float]]) -> float:
    """Private-PGM's estimate of the number of rows: the inverse-variance weighted mean of the measurements' sums."""
    w = {c: 1.0 / (y.size * s * s) for c, (y, s) in measurements.items()}
    est = sum(w[c] * float(y.sum()) for c, (y, _) in measurements.items()) / sum(w.values())
    return max(1.0, est)


def _loss(nodes: list[np.ndarray], edges: dict[Edge, np.ndarray], meas: dict[tuple[int, ...], tuple[np.ndarray, float]]
          ) -> tuple[float, dict[tuple[int, ...], np.ndarray]]:
    loss, grad = 0.0, {}
    for c, (y, t) in meas.items():
        mu = nodes[c[0]] if len(c) == 1 else edges[(c[0], c[1])]
        r = (mu - y) / (t * t)
        loss += 0.5 * float(((mu - y) ** 2).sum()) / (t * t)
        grad[c] = r
    return loss, grad


def fit_tree_model(measurements: dict[tuple[int, ...], tuple[np.ndarray, float]], tree: list[Edge],
                   cards: tuple[int, ...], *, iters: int) -> tuple[list[np.ndarray], dict[Edge, np.ndarray], float]:
    """Private-PGM on a tree: the node and edge marginals (probabilities) of the tree model that minimise the
    weighted squared error to the noisy marginals ``measurements`` (clique -> (noisy counts, noise std)), the
    number of rows fixed at its estimate; returns them and that estimate."""
    total = estimate_total(measurements)
    meas = {c: (y / total, s / total) for c, (y, s) in measurements.items()}
    th_n = [np.zeros(k) for k in cards]
    th_e = {(min(p, c), max(p, c)): np.zeros((cards[min(p, c)], cards[max(p, c)])) for p, c in tree}
    for c in meas:
        if len(c) == 2 and c not in th_e:
            raise ValueError(f"measured clique {c} is not an edge of the tree")
    nodes, edges = tree_marginals(th_n, th_e, tree)
    loss, grad = _loss(nodes, edges, meas)
    eta = 1.0 / sum(1.0 / (t * t) for _, t in meas.values())
    for _ in range(iters):
        while True:
            n_th = [t - eta * grad[(i,)] if (i,) in grad else t for i, t in enumerate(th_n)]
            e_th = {e: t - eta * grad[e] if e in grad else t for e, t in th_e.items()}
            n2, e2 = tree_marginals(n_th, e_th, tree)
            loss2, grad2 = _loss(n2, e2, meas)
            decrease = sum(float((grad[c] * ((nodes[c[0]] - n2[c[0]]) if len(c) == 1 else
                                             (edges[(c[0], c[1])] - e2[(c[0], c[1])]))).sum()) for c in grad)
            if loss - loss2 >= 0.5 * decrease or eta < 1e-300:
                break
            eta *= 0.5
        th_n, th_e, nodes, edges, loss, grad = n_th, e_th, n2, e2, loss2, grad2
        eta *= 1.5
    return nodes, edges, total
