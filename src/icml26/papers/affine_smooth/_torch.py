"""Thin ``torch.optim.Optimizer`` wrapper around the pure methods of :mod:`._optim` (torch imported here only)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import torch

from icml26.common.validation import choice
from icml26.papers.affine_smooth import _optim
from icml26.papers.affine_smooth._optim import GradientMethod

__all__ = ["PureMethodOptimizer", "torch_optimizer"]

_FACTORIES: dict[str, Callable[..., GradientMethod]] = {
    "gd": _optim.gd, "heavy_ball": _optim.heavy_ball, "sign_gd": _optim.sign_gd, "normalized_gd": _optim.normalized_gd,
    "rmsprop": _optim.rmsprop, "adam": _optim.adam, "amsgrad": _optim.amsgrad, "adagrad": _optim.adagrad,
}


class PureMethodOptimizer(torch.optim.Optimizer):
    """Applies a pure :class:`GradientMethod` of [P26] to torch parameters.

    Each parameter tensor is treated as its own flattened vector θ (the methods are coordinate-wise, except
    ``normalized_gd``, which then normalises per tensor); its gradient is copied to float64 numpy, the pure
    ``update`` runs, and the result is copied back in the parameter's dtype. Parameters without a gradient are
    skipped. ``state[p]["pure"]`` holds the method's :class:`OptState`.
    """

    def __init__(self, params: Iterable[torch.Tensor] | Iterable[dict[str, Any]], method: GradientMethod) -> None:
        if not isinstance(method, GradientMethod):
            raise TypeError(f"method must be a GradientMethod, got {type(method).__name__}")
        super().__init__(params, {"method": method})

    @torch.no_grad()
    def step(self, closure: Callable[[], float] | None = None) -> float | None:  # type: ignore[override]
        """One update θ ← update(∇f(θ), state, θ) for every parameter with a gradient."""
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            method: GradientMethod = group["method"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise ValueError("sparse gradients are not supported")
                theta = p.detach().cpu().to(torch.float64).reshape(-1).numpy()
                grad = p.grad.detach().cpu().to(torch.float64).reshape(-1).numpy()
                st = self.state[p]
                if "pure" not in st:
                    st["pure"] = method.init(theta)
                new, st["pure"] = method.update(grad, st["pure"], theta)
                p.copy_(torch.from_numpy(np.ascontiguousarray(new)).reshape(p.shape).to(dtype=p.dtype, device=p.device))
        return loss


def torch_optimizer(params: Iterable[torch.Tensor] | Iterable[dict[str, Any]], name: str, **hyper: Any) -> PureMethodOptimizer:
    """``torch_optimizer(model.parameters(), "rmsprop", lr=0.05, beta2=0.9)``: a :class:`PureMethodOptimizer` for the
    method ``name`` (one of gd, heavy_ball, sign_gd, normalized_gd, rmsprop, adam, amsgrad, adagrad) of [P26]."""
    return PureMethodOptimizer(params, _FACTORIES[choice(name, "name", sorted(_FACTORIES))](**hyper))
