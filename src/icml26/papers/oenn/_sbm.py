"""Heterophilic stochastic-block-model node classification ([P12]'s graph/sheaf illustration; our test problem).

Two equal classes; an edge joins two nodes of the same class with probability p_in and of different classes with
p_out, chosen so that the expected edge homophily p_in / (p_in + p_out) and the mean degree are as asked (networkx's
``stochastic_block_model``). Node features are x_v = ± (signal) u + N(0, I) with a random unit direction u, the sign
given by the class: a weak signal that the graph can amplify only by reading neighbours as the *other* class.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np
import torch
from torch import Tensor, nn

from icml26.common import validation as v

__all__ = ["NodeTask", "edge_homophily", "heterophilic_sbm", "train_node_classifier"]


@dataclass(frozen=True, eq=False)
class NodeTask:
    """One node-classification problem ([P12] illustration, our generator).

    Attributes:
        graph: the networkx graph (nodes 0..n-1).
        features: ``(n, n_features)`` float32 tensor.
        labels: ``(n,)`` int64 tensor.
        train, val, test: boolean masks.
        homophily: the measured edge homophily (share of edges within a class).
    """

    graph: nx.Graph
    features: Tensor
    labels: Tensor
    train: Tensor
    val: Tensor
    test: Tensor
    homophily: float


def edge_homophily(graph: nx.Graph, labels: np.ndarray) -> float:
    """The share of edges whose endpoints have the same label ([P12] setting: homophily of a labelled graph)."""
    if not isinstance(graph, nx.Graph):
        raise TypeError(f"graph must be a networkx.Graph, got {type(graph).__name__}")
    lab = v.real_array(labels, "labels", ndim=1)
    n = graph.number_of_nodes()
    if lab.shape[0] != n or sorted(graph.nodes()) != list(range(n)):
        raise ValueError(f"labels must have one entry per node of a graph on nodes 0..n-1 (n = {n}), got {lab.shape[0]}")
    if graph.number_of_edges() == 0:
        raise ValueError("graph has no edges: homophily is undefined")
    same = [lab[a] == lab[b] for a, b in graph.edges()]
    return float(np.mean(same))


def heterophilic_sbm(n_nodes: int, *, homophily: float, mean_degree: float, n_features: int, signal: float,
                     seed: int, split: tuple[float, float] = (0.5, 0.25)) -> NodeTask:
    """A two-class SBM with the expected edge homophily and mean degree asked for ([P12] claim 4; module docstring).

    Args:
        n_nodes: number of nodes (even; two equal classes).
        homophily: expected share of within-class edges, in (0, 1).
        mean_degree: expected degree, > 0 and < n_nodes / 2.
        n_features: feature dimension.
        signal: class-mean separation along u (0: features carry no label information).
        seed: the seed of the graph, the features and the split.
        split: fractions of nodes for training and validation (the rest is the test set).
    """
    n = v.int_at_least(n_nodes, "n_nodes", 4)
    if n % 2:
        raise ValueError(f"n_nodes must be even (two equal classes), got {n}")
    h = v.real(homophily, "homophily", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    k = v.real(mean_degree, "mean_degree", lo=0.0, hi=n / 2, lo_open=True, hi_open=True)
    f = v.positive_int(n_features, "n_features")
    sig = v.real(signal, "signal", lo=0.0)
    s = v.seed(seed)
    fr = v.real_array(split, "split", shape=(2,))
    if np.any(fr <= 0) or fr.sum() >= 1:
        raise ValueError(f"split must be two positive fractions summing to < 1, got {tuple(fr)}")
    half = n // 2
    p_in, p_out = 2 * h * k / n, 2 * (1 - h) * k / n
    graph = nx.stochastic_block_model([half, half], [[p_in, p_out], [p_out, p_in]], seed=s)
    graph = nx.Graph(graph)  # drop the block-model's partition attribute
    labels = np.repeat([0, 1], half)
    g = np.random.default_rng(s + 1)
    u = g.standard_normal(f)
    u /= np.linalg.norm(u)
    x = g.standard_normal((n, f)) + sig * np.where(labels[:, None] == 0, 1.0, -1.0) * u
    order = g.permutation(n)
    n_tr, n_va = int(round(fr[0] * n)), int(round(fr[1] * n))
    masks = [np.zeros(n, dtype=bool) for _ in range(3)]
    masks[0][order[:n_tr]] = True
    masks[1][order[n_tr:n_tr + n_va]] = True
    masks[2][order[n_tr + n_va:]] = True
    return NodeTask(graph=graph, features=torch.as_tensor(x, dtype=torch.float32),
                    labels=torch.as_tensor(labels, dtype=torch.int64), train=torch.as_tensor(masks[0]),
                    val=torch.as_tensor(masks[1]), test=torch.as_tensor(masks[2]),
                    homophily=edge_homophily(graph, labels) if graph.number_of_edges() else float("nan"))


def train_node_classifier(model: nn.Module, task: NodeTask, *, epochs: int, lr: float, weight_decay: float
                          ) -> dict[str, float]:
    """Full-batch Adam on the training nodes; the test accuracy at the epoch of best validation accuracy.

    ``model(features) -> (n, classes)`` logits. Returns ``{"test_acc", "val_acc", "train_acc", "best_epoch"}``
    ([P12] illustration; a standard transductive protocol). Deterministic: full batch, no dropout, the model
    carries its own seeded initialisation.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    epochs = v.positive_int(epochs, "epochs")
    lr = v.real(lr, "lr", lo=0.0, lo_open=True)
    weight_decay = v.real(weight_decay, "weight_decay", lo=0.0)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    best = {"val_acc": -1.0, "test_acc": float("nan"), "train_acc": float("nan"), "best_epoch": 0.0}
    y = task.labels
    for epoch in range(1, epochs + 1):
        model.train()
        opt.zero_grad(set_to_none=True)
        logits = model(task.features)
        loss = nn.functional.cross_entropy(logits[task.train], y[task.train])
        loss.backward()
        opt.step()
        model.eval()
        with torch.no_grad():
            pred = model(task.features).argmax(dim=1)
        acc = {k: float((pred[m] == y[m]).float().mean()) for k, m in
               (("train_acc", task.train), ("val_acc", task.val), ("test_acc", task.test))}
        if acc["val_acc"] > best["val_acc"]:
            best = {**acc, "best_epoch": float(epoch)}
    return best
