"""LISTA (Gregor & LeCun 2010): ISTA for sparse coding unrolled into L layers with untied learned weights.

The cheap sanity task of [P07]'s predecessor line (descending unrolled networks, notes §4): each layer is one
learned proximal-gradient step z_l = soft(W_l y + S_l z_{l−1}, θ_l), started at z_0 = 0 and initialised at ISTA
with the known dictionary A (W = Aᵀ/c, S = I − AᵀA/c, θ = α/c, c = ‖A‖₂²).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn

from icml26.common.validation import positive_int, real, real_array
from icml26.papers.descent_tf._layers import LayerwiseModel

__all__ = ["LISTA"]


class _Step(nn.Module):
    """One LISTA layer: (z, y) -> soft(y Wᵀ + z Sᵀ, θ)."""

    def __init__(self, W: Tensor, S: Tensor, theta: float) -> None:
        super().__init__()
        self.W = nn.Parameter(W.clone())
        self.S = nn.Parameter(S.clone())
        self.theta = nn.Parameter(torch.tensor(theta, dtype=W.dtype))

    def forward(self, z: Tensor, y: Tensor) -> Tensor:
        v = y @ self.W.T + z @ self.S.T
        return torch.sign(v) * torch.relu(v.abs() - self.theta)


class LISTA(LayerwiseModel):
    """[P07] unrolled sparse coding (predecessor line): L LISTA layers from the known dictionary A (m × n).

    ``layer_states(y)`` for measurements y (B, m) gives [z_0 = 0, z_1, ..., z_L], each (B, n); ``sparsity`` is the
    ℓ1 weight α of the ISTA the layers start from.
    """

    input_ndim = 2

    def __init__(self, dictionary: np.ndarray, *, n_layers: int, sparsity: float = 0.05) -> None:
        super().__init__()
        A = real_array(dictionary, "dictionary", ndim=2)
        L = positive_int(n_layers, "n_layers")
        alpha = real(sparsity, "sparsity", lo=0.0)
        c = float(np.linalg.norm(A, 2) ** 2)
        if not c > 0:
            raise ValueError("dictionary must not be all zeros")
        At = torch.tensor(A.T, dtype=torch.float32)
        W = At / c
        S = torch.eye(A.shape[1]) - At @ At.T / c
        self.m, self.n = A.shape
        self.steps = nn.ModuleList(_Step(W, S, alpha / c) for _ in range(L))

    def layer_modules(self) -> list[nn.Module]:
        """The L LISTA layers."""
        return list(self.steps)

    def layer_states(self, x: Tensor) -> list[Tensor]:
        """[z_0 = 0, z_1, ..., z_L] for measurements ``x`` = y (B, m) ([P07] §2 states)."""
        if x.shape[-1] != self.m:
            raise ValueError(f"x must hold measurements of length {self.m}, got shape {tuple(x.shape)}")
        z = torch.zeros(x.shape[0], self.n, dtype=x.dtype)
        states = [z]
        for step in self.steps:
            z = step(z, x)
            states.append(z)
        return states
