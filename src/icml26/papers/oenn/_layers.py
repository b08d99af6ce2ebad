"""OENN layers and networks in torch ([P12] (ii): "build OENN layers"; our construction).

A layer maps a batch of signals X ∈ R^{B × dim × C_in} (``dim`` = Σ_σ d_σ, stalks stacked) to
ρ(Σ_k A_k X W_k) with A_k fixed order-equivariant operators (an :class:`~._operators.OperatorStack`: the local
relation operators, or a complete :class:`~._basis.EquivariantBasis`) and W_k ∈ R^{C_in × C_out} learned channel
mixing. The symmetries act on the stalk index only, so every such linear part commutes with them; the nonlinearity
must too: ``gate`` (x·sigmoid(‖x‖ + b) per cell and channel) and ``tanh_gate`` are gauge-equivariant, ``relu``
(coordinate-wise with a bias) only commutes with pure relabellings (no gauge). ``residual`` gives X + ρ(...).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor, nn

from icml26.common import validation as v
from icml26.papers.oenn._operators import OperatorStack

__all__ = ["NONLINEARITIES", "OENN", "OENNLayer"]

NONLINEARITIES = ("gate", "tanh_gate", "relu", "identity")
_EPS = 1e-12


def _sparse_cat(ops: OperatorStack, dtype: torch.dtype) -> Tensor:
    """[A_1 | ... | A_K] as one ``(dim, K·dim)`` torch tensor (sparse COO when sparse enough, else dense)."""
    n, k = ops.dim, len(ops)
    rows, cols, vals = [], [], []
    for i, m in enumerate(ops.matrices):
        coo = m.tocoo()
        rows.append(coo.row)
        cols.append(coo.col + i * n)
        vals.append(coo.data)
    r, c, x = (np.concatenate(a) if a else np.zeros(0) for a in (rows, cols, vals))
    idx = torch.as_tensor(np.vstack([r, c]).astype(np.int64))
    t = torch.sparse_coo_tensor(idx, torch.as_tensor(x, dtype=dtype), (n, k * n), check_invariants=True).coalesce()
    return t.to_dense() if x.size > 0.1 * n * k * n else t


def check_signal(x: Tensor, dim: int, channels: int, name: str = "x") -> tuple[Tensor, bool]:
    """``x`` as ``(B, dim, channels)`` (an unbatched ``(dim, channels)`` gets a batch axis); whether it was added."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    if not torch.is_floating_point(x):
        raise TypeError(f"{name} must be a floating-point tensor, got {x.dtype}")
    squeeze = x.dim() == 2
    if squeeze:
        x = x.unsqueeze(0)
    if x.dim() != 3 or x.shape[1] != dim or x.shape[2] != channels:
        raise ValueError(f"{name} must have shape (batch, {dim}, {channels}) or ({dim}, {channels}), got {tuple(x.shape)}")
    return x, squeeze


class OENNLayer(nn.Module):
    """One order-equivariant layer X ↦ ρ(Σ_k A_k X W_k) (+ X if ``residual``) ([P12] (ii); module docstring).

    Args:
        operators: the fixed order-equivariant operators A_k.
        in_channels, out_channels: C_in, C_out.
        nonlinearity: one of :data:`NONLINEARITIES`.
        residual: add the input (needs ``in_channels == out_channels``).
        seed: initialisation seed (W_k ~ N(0, 1 / (K · C_in)), biases 0).
        dtype: parameter and operator dtype (float64 for exact equivariance checks).
    """

    ops: Tensor
    cell_of_row: Tensor

    def __init__(self, operators: OperatorStack, in_channels: int, out_channels: int, *,
                 nonlinearity: str = "gate", residual: bool = False, seed: int,
                 dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        if not isinstance(operators, OperatorStack) or len(operators) == 0:
            raise TypeError("operators must be a non-empty OperatorStack")
        self.in_channels = v.positive_int(in_channels, "in_channels")
        self.out_channels = v.positive_int(out_channels, "out_channels")
        self.nonlinearity = v.choice(nonlinearity, "nonlinearity", NONLINEARITIES)
        if not isinstance(residual, bool):
            raise TypeError(f"residual must be a bool, got {type(residual).__name__}")
        if residual and in_channels != out_channels:
            raise ValueError("residual needs in_channels == out_channels")
        self.residual = residual
        self.dim, self.n_ops, self.n_cells = operators.dim, len(operators), operators.n_cells
        gen = torch.Generator().manual_seed(v.seed(seed))
        w = torch.randn(self.n_ops, in_channels, out_channels, generator=gen, dtype=dtype)
        self.weight = nn.Parameter(w / float(np.sqrt(self.n_ops * in_channels)))
        self.bias = nn.Parameter(torch.zeros(out_channels, dtype=dtype))
        self.register_buffer("ops", _sparse_cat(operators, dtype))
        self.register_buffer("cell_of_row", torch.as_tensor(operators.cell_of_row, dtype=torch.int64))

    def linear(self, x: Tensor) -> Tensor:
        """Σ_k A_k X W_k for X of shape ``(B, dim, C_in)``."""
        b = x.shape[0]
        xw = torch.einsum("bnc,kcd->knbd", x, self.weight).reshape(self.n_ops * self.dim, b * self.out_channels)
        y = (torch.sparse.mm(self.ops, xw) if self.ops.is_sparse else self.ops @ xw)
        return y.reshape(self.dim, b, self.out_channels).permute(1, 0, 2)

    def activate(self, y: Tensor) -> Tensor:
        """The nonlinearity ρ (per cell and channel norms for the gated ones)."""
        if self.nonlinearity == "identity":
            return y
        if self.nonlinearity == "relu":
            return torch.relu(y + self.bias)
        sq = torch.zeros(y.shape[0], self.n_cells, y.shape[2], dtype=y.dtype, device=y.device)
        sq = sq.index_add(1, self.cell_of_row, y * y)
        norm = torch.sqrt(sq + _EPS)[:, self.cell_of_row, :]
        gate = torch.sigmoid(norm + self.bias) if self.nonlinearity == "gate" else torch.tanh(norm + self.bias)
        return y * gate

    def forward(self, x: Tensor) -> Tensor:
        """X ↦ ρ(Σ_k A_k X W_k) (+ X); ``x`` is ``(B, dim, C_in)`` or ``(dim, C_in)``."""
        x, squeeze = check_signal(x, self.dim, self.in_channels)
        y = self.activate(self.linear(x))
        if self.residual:
            y = x + y
        return y[0] if squeeze else y


class OENN(nn.Module):
    """An order-equivariant network: a stack of :class:`OENNLayer` ([P12] (ii)-(iii): the networks the UAT is about).

    ``layers`` layers map in → hidden → ... → out; the last one is linear (``identity``) unless ``residual``, where
    every layer is X + ρ(Σ_k A_k X W_k) with in = hidden = out channels (sheaf diffusion's form).
    """

    def __init__(self, operators: OperatorStack, in_channels: int, hidden_channels: int, out_channels: int, *,
                 layers: int = 2, nonlinearity: str = "gate", residual: bool = False, seed: int,
                 dtype: torch.dtype = torch.float32) -> None:
        super().__init__()
        layers = v.positive_int(layers, "layers")
        sizes = [v.positive_int(in_channels, "in_channels"), *([v.positive_int(hidden_channels, "hidden_channels")]
                                                               * (layers - 1)), v.positive_int(out_channels, "out_channels")]
        seed = v.seed(seed)
        mods: list[OENNLayer] = []
        for i in range(layers):
            last = i == layers - 1
            act = nonlinearity if (residual or not last) else "identity"
            mods.append(OENNLayer(operators, sizes[i], sizes[i + 1], nonlinearity=act, residual=residual,
                                  seed=seed + i, dtype=dtype))
        self.layers = nn.ModuleList(mods)
        self.dim = operators.dim

    def forward(self, x: Tensor) -> Tensor:
        """``(B, dim, C_in)`` (or ``(dim, C_in)``) -> ``(B, dim, C_out)``."""
        for layer in self.layers:
            x = layer(x)
        return x

