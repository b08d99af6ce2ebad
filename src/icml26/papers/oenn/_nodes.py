"""Node classifiers for claim 4: a sheaf-OENN on the face poset of a graph, GCN and an MLP ([P12] illustration).

``SheafOENNClassifier`` runs OENN layers on the face poset (vertex and edge cells, stalks R¹, C channels) with the
local relation operators of :mod:`._operators` (self, vertex→edge, edge→vertex, vertex adjacency through edges, edge
adjacency through vertices, and the degree terms), mean-aggregated. With ``learn_sheaf`` the restriction maps
F_{v≤e} = tanh(w·[x_v, x_u] + b) are predicted from the endpoint features (neural sheaf diffusion's idea, Bodnar et
al. 2022, here with O(1) stalks relaxed to [-1, 1]); without it the sheaf is constant and the model is message
passing on vertices and edges. Both are equivariant to relabelling the graph (the sheaf moves with the features).
``GCN`` is Kipf & Welling's two-layer graph convolution, Â = D̃^{-1/2}(A + I)D̃^{-1/2}. No model uses dropout.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import torch
from torch import Tensor, nn

from icml26.common import validation as v

__all__ = ["GCN", "MLP", "SheafOENNClassifier"]


def _dense(n_in: int, n_out: int, gen: torch.Generator) -> tuple[nn.Parameter, nn.Parameter]:
    """A weight ``(n_out, n_in)`` ~ U(±1/√n_in) and a zero bias, drawn from ``gen`` (no global RNG)."""
    bound = 1.0 / float(np.sqrt(n_in))
    w = (torch.rand(n_out, n_in, generator=gen) * 2 - 1) * bound
    return nn.Parameter(w), nn.Parameter(torch.zeros(n_out))


def _graph_arrays(graph: nx.Graph) -> tuple[int, np.ndarray]:
    if not isinstance(graph, nx.Graph) or graph.is_directed() or graph.is_multigraph():
        raise TypeError(f"graph must be an undirected simple networkx.Graph, got {type(graph).__name__}")
    n = graph.number_of_nodes()
    if sorted(graph.nodes()) != list(range(n)):
        raise ValueError("graph nodes must be 0..n-1 (use networkx.convert_node_labels_to_integers)")
    e = np.array([(a, b) for a, b in graph.edges() if a != b], dtype=np.int64).reshape(-1, 2)
    if e.shape[0] == 0:
        raise ValueError("graph must have at least one edge")
    return n, e


class MLP(nn.Module):
    """Two-layer perceptron on node features, graph ignored ([P12] claim 4 baseline)."""

    def __init__(self, n_features: int, n_classes: int, *, hidden: int, seed: int) -> None:
        super().__init__()
        gen = torch.Generator().manual_seed(v.seed(seed))
        self.w1, self.b1 = _dense(v.positive_int(n_features, "n_features"), v.positive_int(hidden, "hidden"), gen)
        self.w2, self.b2 = _dense(hidden, v.positive_int(n_classes, "n_classes"), gen)

    def forward(self, x: Tensor) -> Tensor:
        """``(n, n_features) -> (n, n_classes)`` logits."""
        return nn.functional.linear(torch.relu(nn.functional.linear(x, self.w1, self.b1)), self.w2, self.b2)


class GCN(nn.Module):
    """Kipf & Welling's two-layer GCN, logits = Â relu(Â X W₁ + b₁) W₂ + b₂ ([P12] claim 4 baseline)."""

    def __init__(self, graph: nx.Graph, n_features: int, n_classes: int, *, hidden: int, seed: int) -> None:
        super().__init__()
        n, e = _graph_arrays(graph)
        gen = torch.Generator().manual_seed(v.seed(seed))
        self.w1, self.b1 = _dense(v.positive_int(n_features, "n_features"), v.positive_int(hidden, "hidden"), gen)
        self.w2, self.b2 = _dense(hidden, v.positive_int(n_classes, "n_classes"), gen)
        rows = np.concatenate([e[:, 0], e[:, 1], np.arange(n)])
        cols = np.concatenate([e[:, 1], e[:, 0], np.arange(n)])
        deg = np.bincount(rows, minlength=n).astype(float)
        vals = 1.0 / np.sqrt(deg[rows] * deg[cols])
        a = torch.sparse_coo_tensor(torch.as_tensor(np.vstack([rows, cols])), torch.as_tensor(vals, dtype=torch.float32),
                                    (n, n), check_invariants=True).coalesce()
        self.register_buffer("a_hat", a)

    def forward(self, x: Tensor) -> Tensor:
        """``(n, n_features) -> (n, n_classes)`` logits."""
        h = torch.relu(torch.sparse.mm(self.a_hat, nn.functional.linear(x, self.w1)) + self.b1)
        return torch.sparse.mm(self.a_hat, nn.functional.linear(h, self.w2)) + self.b2


def _incidence_structure(n: int, e: np.ndarray) -> dict[str, np.ndarray]:
    """Index arrays of the face poset of a graph (vertices 0..n-1, edge i is cell n + i) for the relation operators.

    Incidence k is (vertex inc_v[k], edge cell inc_e[k], other endpoint inc_u[k]); ``partner[k]`` is the incidence
    of the other endpoint on the same edge; ``pairs`` lists incidences (k, k') at the same vertex on different edges.
    """
    m = e.shape[0]
    inc_v = np.concatenate([e[:, 0], e[:, 1]])
    inc_u = np.concatenate([e[:, 1], e[:, 0]])
    inc_e = np.concatenate([np.arange(m), np.arange(m)]) + n
    partner = np.concatenate([np.arange(m, 2 * m), np.arange(m)])
    by_vertex: list[list[int]] = [[] for _ in range(n)]
    for k, vert in enumerate(inc_v):
        by_vertex[int(vert)].append(k)
    pk, pj = [], []
    for ks in by_vertex:
        for a in ks:
            for b in ks:
                if a != b:
                    pk.append(a)
                    pj.append(b)
    return {"inc_v": inc_v, "inc_u": inc_u, "inc_e": inc_e, "partner": partner,
            "pair_k": np.array(pk, dtype=np.int64), "pair_j": np.array(pj, dtype=np.int64)}


class SheafOENNClassifier(nn.Module):
    """OENN on the face poset of a graph with a constant or learned O(1) sheaf ([P12] (ii); module docstring).

    Args:
        graph: undirected simple graph on nodes 0..n-1.
        n_features, n_classes: input and output sizes.
        hidden: channels C per stalk.
        layers: number of OENN layers (ReLU) between the input lift and the linear vertex readout.
        learn_sheaf: predict the restriction maps from the endpoint features (else the constant sheaf R¹).
        seed: initialisation seed.
    """

    inc_v: Tensor
    inc_u: Tensor
    inc_e: Tensor
    partner: Tensor
    pair_k: Tensor
    pair_j: Tensor

    def __init__(self, graph: nx.Graph, n_features: int, n_classes: int, *, hidden: int, layers: int = 2,
                 learn_sheaf: bool = True, seed: int) -> None:
        super().__init__()
        n, e = _graph_arrays(graph)
        if not isinstance(learn_sheaf, bool):
            raise TypeError(f"learn_sheaf must be a bool, got {type(learn_sheaf).__name__}")
        self.n, self.m, self.learn_sheaf = n, e.shape[0], learn_sheaf
        f, c = v.positive_int(n_features, "n_features"), v.positive_int(hidden, "hidden")
        gen = torch.Generator().manual_seed(v.seed(seed))
        for k, arr in _incidence_structure(n, e).items():
            self.register_buffer(k, torch.as_tensor(arr))
        self.w_in, self.b_in = _dense(f, c, gen)
        self.w_sheaf, self.b_sheaf = _dense(2 * f, 1, gen)
        with torch.no_grad():
            self.b_sheaf.fill_(1.0)  # start near the constant sheaf (maps ≈ 0.76)
        self.n_ops = 8
        self.weights = nn.ParameterList([nn.Parameter(torch.randn(self.n_ops, c, c, generator=gen) / np.sqrt(8 * c))
                                         for _ in range(v.positive_int(layers, "layers"))])
        self.biases = nn.ParameterList([nn.Parameter(torch.zeros(c)) for _ in range(layers)])
        self.w_out, self.b_out = _dense(c, v.positive_int(n_classes, "n_classes"), gen)

    def restriction_maps(self, x: Tensor) -> Tensor:
        """F_{v≤e} per incidence (``inc_v``, ``inc_e``): learned tanh(w·[x_v, x_u] + b), or ones."""
        if not self.learn_sheaf:
            return torch.ones(self.inc_v.shape[0], dtype=x.dtype)
        z = torch.cat([x[self.inc_v], x[self.inc_u]], dim=1)
        return torch.tanh(nn.functional.linear(z, self.w_sheaf, self.b_sheaf)).squeeze(1)

    def operators(self, s: Tensor) -> list[tuple[Tensor, Tensor, Tensor]]:
        """The 8 relation operators as (rows, cols, values), rows mean-normalised ([P12] (ii), :mod:`._operators`)."""
        n, m = self.n, self.m
        cells_v, cells_e = torch.arange(n), torch.arange(n, n + m)
        pk, pj = self.pair_k, self.pair_j
        raw = [
            (cells_v, cells_v, torch.ones(n, dtype=s.dtype)),              # self[0]
            (cells_e, cells_e, torch.ones(m, dtype=s.dtype)),              # self[1]
            (self.inc_e, self.inc_v, s),                                    # up[0->1]
            (self.inc_v, self.inc_e, s),                                    # down[1->0]
            (self.inc_v, self.inc_u, s * s[self.partner]),                  # coface_adj[0]
            (self.inc_v, self.inc_v, s * s),                                # coface_deg[0]
            (self.inc_e[pk], self.inc_e[pj], s[pk] * s[pj]),                # face_adj[1]
            (self.inc_e, self.inc_e, s * s),                                # face_deg[1]
        ]
        out = []
        for rows, cols, vals in raw:
            count = torch.zeros(n + m, dtype=s.dtype).index_add(0, rows, torch.ones_like(vals))
            out.append((rows, cols, vals / count[rows]))
        return out

    def forward(self, x: Tensor) -> Tensor:
        """``(n, n_features) -> (n, n_classes)`` logits (the vertex cells' readout)."""
        if x.dim() != 2 or x.shape[0] != self.n:
            raise ValueError(f"x must have shape ({self.n}, n_features), got {tuple(x.shape)}")
        ops = self.operators(self.restriction_maps(x))
        h = torch.zeros(self.n + self.m, self.w_in.shape[0], dtype=x.dtype)
        h = torch.cat([nn.functional.linear(x, self.w_in, self.b_in), h[self.n:]], dim=0)
        for w, b in zip(self.weights, self.biases):
            y = torch.zeros_like(h)
            for k, (rows, cols, vals) in enumerate(ops):
                y = y.index_add(0, rows, vals[:, None] * (h @ w[k])[cols])
            h = torch.relu(y + b)
        return nn.functional.linear(h[: self.n], self.w_out, self.b_out)
