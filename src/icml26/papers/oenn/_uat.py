"""Universal approximation as a trend ([P12] (iii)): fit a fixed random continuous equivariant target with OENNs
of growing width (our test problem).

The target is a random three-layer OENN with ``tanh_gate`` nonlinearities (a different nonlinearity from the
fitted models' ``gate``), on the complete equivariant basis of a sheaf, in float64, its output scaled to unit
variance. The fitted models are two-layer OENNs (one hidden layer of the given width) on the same basis, trained with
:func:`icml26.common.train.train` (AdamW, cosine schedule, minibatches from a seeded generator). Errors are
normalised: NMSE = mean squared error / mean squared target.
"""

from __future__ import annotations

from typing import Any

import torch

from icml26.common.train import train
from icml26.papers.oenn._basis import equivariant_basis
from icml26.papers.oenn._cases import build_case
from icml26.papers.oenn._layers import OENN
from icml26.papers.oenn._operators import OperatorStack

__all__ = ["basis_operators", "fit_width", "make_target"]


def basis_operators(case: str, seed: int) -> OperatorStack:
    """The complete equivariant basis of ``case`` (with gauge) as row-normalised operators."""
    poset, sheaf = build_case(case, seed)
    b = equivariant_basis(poset, sheaf, gauge=True)
    return OperatorStack.from_dense([f"b{i}" for i in range(len(b))], b.matrices, sheaf.cell_of_row,
                                    range(poset.n_cells)).normalized()


def make_target(ops: OperatorStack, *, hidden: int, seed: int) -> OENN:
    """The random target map: a 3-layer ``tanh_gate`` OENN with weights ×2 (a visibly nonlinear map)."""
    net = OENN(ops, 1, hidden, 1, layers=3, nonlinearity="tanh_gate", seed=seed, dtype=torch.float64)
    with torch.no_grad():
        for p in net.parameters():
            if p.dim() == 3:  # the channel weights W_k of each layer (biases stay 0)
                p.mul_(2.0)
    return net


def _mse(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.mean((model(x) - y) ** 2)


def fit_width(task: tuple[Any, ...]) -> dict[str, Any]:
    """Train one OENN of the given width (0: one linear layer) on the target of ``seed``; train and test NMSE."""
    case, width, seed, n_train, n_test, steps, lr, target_hidden = task
    ops = basis_operators(case, seed)
    target = make_target(ops, hidden=target_hidden, seed=10_000 + seed)
    g = torch.Generator().manual_seed(20_000 + seed)
    x = torch.randn(n_train + n_test, ops.dim, 1, generator=g, dtype=torch.float64)
    with torch.no_grad():
        y = target(x)
    y = y / y.std()
    x32, y32 = x.float(), y.float()
    xtr, ytr, xte, yte = x32[:n_train], y32[:n_train], x32[n_train:], y32[n_train:]
    model = OENN(ops, 1, max(width, 1), 1, layers=2 if width else 1, nonlinearity="gate", seed=30_000 + seed,
                 dtype=torch.float32)  # width 0: the best linear equivariant map (a reference)
    res = train(model, [xtr, ytr], _mse, steps=steps, lr=lr, batch_size=128, seed=seed, grad_clip=1.0,
                eval_every=max(1, steps // 10), lr_schedule="cosine")
    with torch.no_grad():
        tr = float(_mse(model, xtr, ytr) / torch.mean(ytr ** 2))
        te = float(_mse(model, xte, yte) / torch.mean(yte ** 2))
    return {"case": case, "width": width, "seed": seed, "train_nmse": tr, "test_nmse": te, "steps": res.steps,
            "operators": len(ops), "params": sum(p.numel() for p in model.parameters())}
