"""A fusion tree as a network, and its training: the fitness evaluation of [P08]'s evolutionary search.

Each leaf reads its view through its own encoder ReLU(W x_v) of width ``width``; ``add``/``mul``/``max``/``avg``
combine two children element-wise, ``cat`` concatenates them and maps back with ReLU(W [a, b]); a linear head on
the root gives the logits. Training is full-batch Adam on the cross-entropy; the initialisation is seeded by
(``seed``, the tree), so one tree with one seed is always the same network and only the labels change a fitness.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import torch
from numpy.typing import ArrayLike
from torch import Tensor, nn

from icml26.common.validation import int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.emvc_purify._net import Standardizer, init_linear_, train_full_batch
from icml26.papers.emvc_purify._trees import Tree, check_tree, tree_str
from icml26.papers.emvc_purify._validate import check_labels, check_views, check_views_like

__all__ = ["FusionModel", "FusionNet", "tree_seed", "train_fusion"]


def tree_seed(tree: Tree, seed: int) -> int:
    """The initialisation seed of ``tree`` under run seed ``seed`` (stable across processes: CRC-32 of the text)."""
    return zlib.crc32(f"{seed}:{tree_str(tree)}".encode())


class FusionNet(nn.Module):
    """The network of one fusion tree ([P08]'s individual): view encoders, fusion operators, a linear head.

    The tree is compiled to a postfix program run on a stack, so any tree shape costs one pass.
    """

    def __init__(self, tree: Tree, widths: Sequence[int], n_classes: int, *, width: int) -> None:
        super().__init__()
        self.tree = tree
        self.program: list[tuple[str, int]] = []
        self.encoders = nn.ModuleList()
        self.mixers = nn.ModuleList()

        def emit(t: Tree) -> None:
            if isinstance(t, int):
                self.encoders.append(nn.Linear(widths[t], width))
                self.program.append(("leaf", t))
                return
            emit(t[1])
            emit(t[2])
            if t[0] == "cat":
                self.mixers.append(nn.Linear(2 * width, width))
            self.program.append((t[0], -1))

        emit(tree)
        self.head = nn.Linear(width, n_classes)

    def fused(self, xs: list[Tensor]) -> Tensor:
        """The root's fused representation."""
        stack: list[Tensor] = []
        enc, mix = iter(self.encoders), iter(self.mixers)
        for op, view in self.program:
            if op == "leaf":
                stack.append(torch.relu(next(enc)(xs[view])))
                continue
            b, a = stack.pop(), stack.pop()
            if op == "add":
                stack.append(a + b)
            elif op == "mul":
                stack.append(a * b)
            elif op == "max":
                stack.append(torch.maximum(a, b))
            elif op == "avg":
                stack.append(0.5 * (a + b))
            else:
                stack.append(torch.relu(next(mix)(torch.cat([a, b], dim=1))))
        return stack[0]

    def forward(self, xs: list[Tensor]) -> Tensor:
        """Logits."""
        return self.head(self.fused(xs))


def fit_tree_tensors(tree: Tree, xs: list[Tensor], y: Tensor, *, n_classes: int, width: int, epochs: int,
                     lr: float, weight_decay: float, seed: int) -> FusionNet:
    """Train the network of ``tree`` on standardised tensors (no checks; the inner loop of the search)."""
    with torch.random.fork_rng(devices=[]):
        net = FusionNet(tree, [x.shape[1] for x in xs], n_classes, width=width)
    init_linear_(net, torch.Generator().manual_seed(tree_seed(tree, seed)))
    train_full_batch(net, xs, y, epochs=epochs, lr=lr, weight_decay=weight_decay)
    return net


def accuracy(net: nn.Module, xs: list[Tensor], y: np.ndarray) -> float:
    """Accuracy of ``net`` on tensors ``xs`` against labels ``y``."""
    with torch.no_grad():
        return float(np.mean(net(xs).argmax(dim=1).numpy() == y))


class FusionModel:
    """A trained fusion tree with its input standardisation: ``predict``/``score`` on raw views ([P08])."""

    def __init__(self, net: FusionNet, scaler: Standardizer, widths: list[int]) -> None:
        self.net = net
        self.scaler = scaler
        self.widths = widths
        self.tree = net.tree

    def predict(self, views: Sequence[ArrayLike]) -> np.ndarray:
        """(n,) predicted classes."""
        with torch.no_grad():
            return self.net(self.scaler(check_views_like(views, self.widths))).argmax(dim=1).numpy()

    def score(self, views: Sequence[ArrayLike], labels: ArrayLike) -> float:
        """Accuracy against ``labels``."""
        pred = self.predict(views)
        return float(np.mean(pred == check_labels(labels, n=pred.shape[0])))


def train_fusion(tree: Tree, views: Sequence[ArrayLike], labels: ArrayLike, *, n_classes: int | None = None,
                 width: int = 32, epochs: int = 100, lr: float = 1e-2, weight_decay: float = 1e-4,
                 seed: int) -> FusionModel:
    """Train one fusion tree on (views, labels): the training half of [P08]'s fitness evaluation.

    Args:
        tree: a fusion tree over ``len(views)`` views (see :mod:`._trees`).
        views: V arrays of shape (n, d_v).
        labels: (n,) labels (noisy or purified: whatever the search is given).
        n_classes: number of classes (default max(labels) + 1).
        width: fused width (the authors' code uses 128 on its larger data).
        epochs: full-batch Adam steps.
        lr: Adam's learning rate.
        weight_decay: Adam's L2 penalty.
        seed: with the tree, seeds the initialisation.

    Returns:
        A :class:`FusionModel`.
    """
    vs = check_views(views)
    t = check_tree(tree, len(vs))
    y = check_labels(labels, n=vs[0].shape[0])
    c = int(y.max()) + 1 if n_classes is None else int_at_least(n_classes, "n_classes", 2)
    if y.max() >= c:
        raise ValueError(f"labels must be < n_classes = {c}, got max {y.max()}")
    scaler = Standardizer(vs)
    net = fit_tree_tensors(t, scaler(vs), torch.as_tensor(y), n_classes=c, width=positive_int(width, "width"),
                           epochs=int_at_least(epochs, "epochs", 0), lr=real(lr, "lr", lo=0.0, lo_open=True),
                           weight_decay=real(weight_decay, "weight_decay", lo=0.0), seed=check_seed(seed))
    return FusionModel(net, scaler, [v.shape[1] for v in vs])
