"""The multi-view network [P08] purifies with: one encoder per view, a fusion layer, a linear head.

``MultiViewClassifier`` (scikit-learn style: ``fit`` returns self, learned attributes end in ``_``) trains
encoders x_v -> ReLU(W_v x_v) (width ``hidden``), a fusion layer h = ReLU(W_f [e_1, ..., e_V]) and a head
logits = W h + b with full-batch Adam on the cross-entropy. ``features`` gives the penultimate h, the input of the
last linear layer whose per-sample gradients [P08] inspects. Inputs are standardised with the training views'
mean and standard deviation. Initialisation draws from a ``torch.Generator`` seeded by ``seed`` (the global RNG is
left as it was).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch
from numpy.typing import ArrayLike
from torch import Tensor, nn

from icml26.common.validation import int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.emvc_purify._validate import check_labels, check_views, check_views_like

__all__ = ["MultiViewClassifier", "Standardizer", "init_linear_", "train_full_batch"]


class Standardizer:
    """Per-view, per-column standardisation fitted on training views (constant columns are left unscaled)."""

    def __init__(self, views: Sequence[np.ndarray]) -> None:
        self.mean = [v.mean(axis=0) for v in views]
        self.std = [np.where(v.std(axis=0) > 1e-12, v.std(axis=0), 1.0) for v in views]

    def __call__(self, views: Sequence[np.ndarray]) -> list[Tensor]:
        """The standardised views as float32 tensors."""
        return [torch.as_tensor((v - m) / s, dtype=torch.float32) for v, m, s in zip(views, self.mean, self.std)]


def init_linear_(module: nn.Module, gen: torch.Generator) -> None:
    """Re-initialise every ``nn.Linear`` of ``module`` as torch does (U(±1/√fan_in)), drawing from ``gen``."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.Linear):
                bound = 1.0 / math.sqrt(m.in_features)
                m.weight.copy_((torch.rand(m.weight.shape, generator=gen) * 2 - 1) * bound)
                if m.bias is not None:
                    m.bias.copy_((torch.rand(m.bias.shape, generator=gen) * 2 - 1) * bound)


def train_full_batch(model: nn.Module, xs: list[Tensor], y: Tensor, *, epochs: int, lr: float,
                     weight_decay: float) -> None:
    """Full-batch Adam on the mean cross-entropy of ``model(xs)`` against ``y`` for ``epochs`` steps."""
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    model.train()
    for _ in range(epochs):
        loss = nn.functional.cross_entropy(model(xs), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    model.eval()


class _Net(nn.Module):
    def __init__(self, widths: Sequence[int], n_classes: int, hidden: int) -> None:
        super().__init__()
        self.encoders = nn.ModuleList([nn.Linear(d, hidden) for d in widths])
        self.fuse = nn.Linear(hidden * len(widths), hidden)
        self.head = nn.Linear(hidden, n_classes)

    def features(self, xs: list[Tensor]) -> Tensor:
        return torch.relu(self.fuse(torch.cat([torch.relu(e(x)) for e, x in zip(self.encoders, xs)], dim=1)))

    def forward(self, xs: list[Tensor]) -> Tensor:
        return self.head(self.features(xs))


class MultiViewClassifier:
    """Per-view encoders, a fusion layer and a linear head, trained full-batch (the classifier of [P08]'s pipeline).

    [P08] purifies with a deep network (ResNet-34 on CIFAR-N, per-view branches in its multi-view code); this is
    the small stand-in (reconstruction): the last linear layer and its input h are what the purification reads.

    Args (keyword-only):
        hidden: width of every encoder and of h.
        epochs: full-batch Adam steps.
        lr: Adam learning rate.
        weight_decay: Adam's L2 penalty.
        seed: seeds the initialisation.

    Attributes (after ``fit``): ``n_classes_``, ``widths_``, ``net_`` (the torch module), ``scaler_``.
    """

    def __init__(self, *, hidden: int = 64, epochs: int = 150, lr: float = 1e-2, weight_decay: float = 1e-4,
                 seed: int) -> None:
        self.hidden = hidden
        self.epochs = epochs
        self.lr = lr
        self.weight_decay = weight_decay
        self.seed = seed

    def fit(self, views: Sequence[ArrayLike], labels: ArrayLike, *, n_classes: int | None = None
            ) -> MultiViewClassifier:
        """Train on the views and labels; ``n_classes`` defaults to max(labels) + 1. Returns self."""
        hidden = positive_int(self.hidden, "hidden")
        epochs = int_at_least(self.epochs, "epochs", 0)
        lr = real(self.lr, "lr", lo=0.0, lo_open=True)
        wd = real(self.weight_decay, "weight_decay", lo=0.0)
        seed = check_seed(self.seed)
        vs = check_views(views)
        y = check_labels(labels, n=vs[0].shape[0])
        c = int(y.max()) + 1 if n_classes is None else int_at_least(n_classes, "n_classes", 2)
        if y.max() >= c:
            raise ValueError(f"labels must be < n_classes = {c}, got max {y.max()}")
        self.n_classes_ = c
        self.widths_ = [v.shape[1] for v in vs]
        self.scaler_ = Standardizer(vs)
        with torch.random.fork_rng(devices=[]):
            net = _Net(self.widths_, c, hidden)
        init_linear_(net, torch.Generator().manual_seed(seed))
        train_full_batch(net, self.scaler_(vs), torch.as_tensor(y), epochs=epochs, lr=lr, weight_decay=wd)
        self.net_ = net
        return self

    def _inputs(self, views: Sequence[ArrayLike]) -> list[Tensor]:
        if not hasattr(self, "net_"):
            raise ValueError("this MultiViewClassifier is not fitted yet: call fit(views, labels) first")
        return self.scaler_(check_views_like(views, self.widths_))

    def features(self, views: Sequence[ArrayLike]) -> np.ndarray:
        """(n, hidden) penultimate features h (the last layer's input), float64."""
        xs = self._inputs(views)
        with torch.no_grad():
            return self.net_.features(xs).double().numpy()

    def logits(self, views: Sequence[ArrayLike]) -> np.ndarray:
        """(n, n_classes) logits, float64."""
        xs = self._inputs(views)
        with torch.no_grad():
            return self.net_(xs).double().numpy()

    def predict(self, views: Sequence[ArrayLike]) -> np.ndarray:
        """(n,) predicted classes."""
        return self.logits(views).argmax(axis=1)

    def score(self, views: Sequence[ArrayLike], labels: ArrayLike) -> float:
        """Accuracy against ``labels``."""
        pred = self.predict(views)
        return float(np.mean(pred == check_labels(labels, n=pred.shape[0])))
