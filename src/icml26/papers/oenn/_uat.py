"""Universal approximation as a trend ([P12] (iii)): fit a random continuous equivariant target with OENNs of growing
width (our test problem).

The target (per seed, float64) is f(x) = Σ_m B_m h(A_m x) with M random equivariant maps A_m, B_m (Gaussian
combinations of the complete basis of the sheaf) and a per-cell sign-flipping radial gate
h(z)_σ = z_σ · tanh(κ(‖z_σ‖²/s_σ² − c)), s_σ² = E‖z_σ‖²/d_σ for x ~ N(0, I). It is equivariant: the symmetries map
cells to cells with orthogonal blocks, which keep ‖z_σ‖ and s_σ. The offset c makes E[t·tanh(κ(t − c))] = 0 for
t ~ χ²_d; where the stalk covariance of z_σ is isotropic (the twisted C₆ sheaf: its global SO(2) gauge forces it),
Stein's lemma then gives E[∇f] = Σ_m B_m E[∇h] A_m = 0: the best linear map is 0 in expectation and the target is
entirely nonlinear. The claim measures that (``best_linear_nmse``) rather than trusting it.

The fitted models are two-layer OENNs (one hidden layer of the given width, ``gate`` nonlinearity) on the same
basis, trained full-batch with L-BFGS (strong Wolfe line search) from a seeded initialisation, in float32.
NMSE = mean squared error / mean squared target, on held-out inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch
from scipy import integrate, optimize

from icml26.common import validation as v
from icml26.papers.oenn._basis import equivariant_basis
from icml26.papers.oenn._cases import build_case
from icml26.papers.oenn._layers import OENN, OENNLayer
from icml26.papers.oenn._operators import OperatorStack

__all__ = ["GatedTarget", "basis_operators", "best_linear_nmse", "dense_forward", "fit_width", "gate_offset",
           "make_target"]


def basis_operators(case: str, seed: int) -> OperatorStack:
    """The complete equivariant basis of ``case`` (with gauge; [P12] (i), our derivation) as row-normalised operators."""
    poset, sheaf = build_case(case, seed)
    b = equivariant_basis(poset, sheaf, gauge=True)
    return OperatorStack.from_dense([f"b{i}" for i in range(len(b))], b.matrices, sheaf.cell_of_row,
                                    range(poset.n_cells)).normalized()


def gate_offset(gain: float, *, dof: int) -> float:
    """The c with E[t·tanh(gain·(t − c))] = 0 for t ~ χ²_dof: the radial gate of the [P12] target has no linear part."""
    gain = v.real(gain, "gain", lo=0.0, lo_open=True)
    dof = v.positive_int(dof, "dof")

    log_norm = -(dof / 2) * math.log(2.0) - math.lgamma(dof / 2)  # the χ²_dof density, written out

    def moment(c: float) -> float:
        def f(t: float) -> float:
            return t * math.tanh(gain * (t - c)) * math.exp(log_norm + (dof / 2 - 1) * math.log(t) - t / 2) if t else 0.0

        return float(integrate.quad(f, 0.0, c, limit=200)[0] + integrate.quad(f, c, np.inf, limit=200)[0])

    root = cast(float, optimize.brentq(moment, 0.0, 50.0 * dof, xtol=1e-12))
    return float(root)


@dataclass(frozen=True, eq=False)
class GatedTarget:
    """The [P12] approximation target f(x) = Σ_m B_m h(A_m x) (module docstring), on signals ``(N, dim)``.

    Attributes:
        inner, outer: ``(M, dim, dim)`` the equivariant maps A_m and B_m.
        scale: ``(M, dim)`` s_σ² of each row's cell for feature m.
        offset: ``(dim,)`` the gate offset c of each row's cell (by its stalk dimension).
        cell_of_row: ``(dim,)`` the cell of each row.
        gain: κ.
    """

    inner: np.ndarray
    outer: np.ndarray
    scale: np.ndarray
    offset: np.ndarray
    cell_of_row: np.ndarray
    gain: float

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """f(x) for ``x`` of shape ``(N, dim)``."""
        z = np.einsum("mij,nj->mni", self.inner, x)
        same_cell = (self.cell_of_row[:, None] == self.cell_of_row[None, :]).astype(float)
        t = (z * z) @ same_cell / self.scale[:, None, :]  # ‖z_σ‖² / s_σ² on every row of σ
        return np.einsum("mij,mnj->ni", self.outer, z * np.tanh(self.gain * (t - self.offset)))


def make_target(ops: OperatorStack, *, terms: int, gain: float, seed: int) -> GatedTarget:
    """A random [P12] target with ``terms`` gated features of gain ``gain`` on the span of ``ops`` (equivariant)."""
    if not isinstance(ops, OperatorStack) or len(ops) == 0:
        raise TypeError("ops must be a non-empty OperatorStack")
    terms = v.positive_int(terms, "terms")
    gain = v.real(gain, "gain", lo=0.0, lo_open=True)
    basis = ops.dense()
    rng = np.random.default_rng(v.seed(seed))
    inner = np.einsum("mk,kij->mij", rng.standard_normal((terms, len(ops))), basis)
    outer = np.einsum("mk,kij->mij", rng.standard_normal((terms, len(ops))), basis)
    cor = ops.cell_of_row
    dof = np.bincount(cor)
    row_sq = np.einsum("mij,mij->mi", inner, inner)  # E z_i² for x ~ N(0, I)
    cell_sq = np.stack([np.bincount(cor, weights=r, minlength=dof.size) for r in row_sq])
    scale = (cell_sq / dof)[:, cor]
    offsets = {int(d): gate_offset(gain, dof=int(d)) for d in np.unique(dof)}
    offset = np.array([offsets[int(dof[c])] for c in cor])
    return GatedTarget(inner=inner, outer=outer, scale=scale, offset=offset, cell_of_row=cor, gain=float(gain))


def best_linear_nmse(ops: OperatorStack, x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray,
                     y_test: np.ndarray) -> tuple[float, float]:
    """Train and test NMSE of the least-squares map Σ_k w_k A_k over ``ops`` ([P12] (i): every linear equivariant
    map, when ``ops`` is the complete basis); signals ``(N, dim)``."""
    basis = ops.dense()

    def feats(x: np.ndarray) -> np.ndarray:
        return np.einsum("kij,nj->nik", basis, x).reshape(-1, len(ops))

    w, *_ = np.linalg.lstsq(feats(x_train), y_train.reshape(-1), rcond=None)
    tr = float(np.mean((feats(x_train) @ w - y_train.reshape(-1)) ** 2) / np.mean(y_train ** 2))
    te = float(np.mean((feats(x_test) @ w - y_test.reshape(-1)) ** 2) / np.mean(y_test ** 2))
    return tr, te


def dense_forward(model: OENN, x: torch.Tensor) -> torch.Tensor:
    """``model(x)`` for a non-residual [P12] OENN, with each layer's Σ_k A_k X W_k formed as one dense
    ``(dim·C_out, dim·C_in)`` matrix (faster for a small dense basis; the same function up to round-off)."""
    b, n = x.shape[0], x.shape[1]
    for layer in cast("list[OENNLayer]", list(model.layers)):
        w = layer.weight
        mats = layer.ops.to_dense().reshape(n, w.shape[0], n).permute(1, 0, 2)
        lin = torch.einsum("kij,kcd->idjc", mats, w).reshape(n * w.shape[2], n * w.shape[1])
        x = layer.activate((x.reshape(b, -1) @ lin.T).reshape(b, n, w.shape[2]))
    return x


def _fit_lbfgs(model: OENN, x: torch.Tensor, y: torch.Tensor, *, iterations: int) -> int:
    """Full-batch L-BFGS on the mean squared error; the number of iterations taken."""
    opt = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=iterations, history_size=20,
                            line_search_fn="strong_wolfe", tolerance_grad=1e-9, tolerance_change=1e-12)

    def closure() -> torch.Tensor:
        opt.zero_grad(set_to_none=True)
        loss = torch.mean((dense_forward(model, x) - y) ** 2)
        loss.backward()
        return loss

    opt.step(closure)
    return int(opt.state[next(iter(model.parameters()))].get("n_iter", 0))


def fit_width(task: tuple[Any, ...]) -> dict[str, Any]:
    """One seed and width of the [P12] trend: train and test NMSE (width 0: the best linear equivariant map)."""
    ops, case, width, seed, n_train, n_test, iterations, terms, gain = task
    target = make_target(ops, terms=terms, gain=gain, seed=10_000 + seed)
    x = np.random.default_rng(20_000 + seed).standard_normal((n_train + n_test, ops.dim))
    y = target(x)
    y = y / y[:n_train].std()
    row = {"case": case, "width": width, "seed": seed, "operators": len(ops)}
    if width == 0:
        tr, te = best_linear_nmse(ops, x[:n_train], y[:n_train], x[n_train:], y[n_train:])
        return {**row, "train_nmse": tr, "test_nmse": te, "steps": 0, "params": len(ops)}
    xs, ys = (torch.as_tensor(a[..., None], dtype=torch.float32) for a in (x, y))
    xtr, ytr, xte, yte = xs[:n_train], ys[:n_train], xs[n_train:], ys[n_train:]
    model = OENN(ops, 1, width, 1, layers=2, nonlinearity="gate", seed=30_000 + seed, dtype=torch.float32)
    steps = _fit_lbfgs(model, xtr, ytr, iterations=iterations)
    with torch.no_grad():
        tr = float(torch.mean((dense_forward(model, xtr) - ytr) ** 2) / torch.mean(ytr ** 2))
        te = float(torch.mean((dense_forward(model, xte) - yte) ** 2) / torch.mean(yte ** 2))
    return {**row, "train_nmse": tr, "test_nmse": te, "steps": steps,
            "params": sum(p.numel() for p in model.parameters())}
