"""The local losses of [P09]: feature-level alignment (prototype InfoNCE, Gromov-Wasserstein between class
geometries) and decision-level alignment (distillation towards the global logit prototypes).

Symbols (our reconstruction from the abstract): z ∈ R^{n×d_s} projected features (L2-normalised inside the losses),
g ∈ R^{C×d_s} global feature prototypes, D_k / D_g class-distance matrices of a client's and the global prototypes,
L ∈ R^{C×C} global logit prototypes (row c: the aggregated logits of class c), τ the contrastive temperature, T the
distillation temperature.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import Tensor
from torch.nn import functional as F

from icml26.common.validation import real
from icml26.papers.mfedpba._tensors import as_labels, as_tensor

__all__ = ["class_distances", "gw_alignment", "logit_distillation", "proto_infonce"]


def _present(present: Any, n_classes: int) -> Tensor:
    if present is None:
        return torch.ones(n_classes, dtype=torch.bool)
    if isinstance(present, Tensor):
        p = present.detach().cpu().numpy()
    else:
        p = np.asarray(present)
    if p.dtype != np.bool_ or p.shape != (n_classes,):
        raise ValueError(f"present must be a bool array of shape ({n_classes},), got {p.dtype} {p.shape}")
    return torch.from_numpy(p.copy())


def proto_infonce(z: Any, y: Any, prototypes: Any, *, tau: float = 0.1, present: Any = None) -> Tensor:
    """Prototype-contrastive loss of [P09] (feature level; our reconstruction of "contrastive learning").

    Eq. (ours): ℓ = −(1/n) Σ_i log [ exp(s(z_i, g_{y_i})/τ) / Σ_{c present} exp(s(z_i, g_c)/τ) ], s = cosine
    similarity: each feature is pulled to its class's global prototype and pushed from the other classes'.
    Samples whose class has no global prototype (``present[y_i]`` False) are left out; with none left the loss is 0.

    Args:
        z: (n, d) features (a tensor keeps its gradient).
        y: (n,) class labels in [0, C).
        prototypes: (C, d) global prototypes g.
        tau: temperature τ > 0.
        present: optional (C,) bool mask of the classes that have a prototype.
    """
    zt = as_tensor(z, "z", ndim=2)
    g = as_tensor(prototypes, "prototypes", ndim=2, shape=(None, zt.shape[1])).to(zt.dtype)
    labels = as_labels(y, "y", n=zt.shape[0], n_classes=g.shape[0])
    tau = real(tau, "tau", lo=0.0, lo_open=True)
    return infonce_unchecked(zt, labels, g, tau, _present(present, g.shape[0]))


def infonce_unchecked(z: Tensor, labels: Tensor, g: Tensor, tau: float, mask: Tensor) -> Tensor:
    """:func:`proto_infonce` on checked tensors (the training loop's hot path)."""
    keep = mask[labels]
    if not bool(keep.any()):
        return z.sum() * 0.0
    s = F.normalize(z[keep], dim=1) @ F.normalize(g, dim=1).T / tau
    s = s.masked_fill(~mask[None, :], float("-inf"))
    return F.cross_entropy(s, labels[keep])


def class_distances(prototypes: Any) -> Tensor:
    """D[c, c'] = ‖g_c − g_c'‖₂ between the rows of ``prototypes`` (C, d): the intra-space geometry GW compares
    ([P09], feature level); differentiable."""
    g = as_tensor(prototypes, "prototypes", ndim=2)
    return torch.cdist(g, g)


def _square(d: Any, name: str) -> Tensor:
    t = as_tensor(d, name, ndim=2)
    if t.shape[0] != t.shape[1]:
        raise ValueError(f"{name} must be a square distance matrix, got shape {tuple(t.shape)}")
    if bool((t.detach() < 0).any()):
        raise ValueError(f"{name} must be non-negative (a distance matrix)")
    return t


def gw_alignment(d_client: Any, d_global: Any, *, p: Any = None, q: Any = None) -> Tensor:
    """Gromov-Wasserstein discrepancy between two class geometries, via POT (``ot.gromov.gromov_wasserstein2``,
    square loss, torch backend: the value carries gradients to ``d_client`` and ``d_global``).

    Implements the feature-level GW term of [P09] (as we reconstruct it): GW(D_k, D_g) = min_{T ∈ Π(p, q)}
    Σ_{i,j,k,l} (D_k[i,k] − D_g[j,l])² T_ij T_kl. It compares the two spaces only through their internal distances,
    so it is defined between spaces of different dimension, is 0 for identical geometries and invariant to a
    relabelling of the points. POT's solver is a conditional-gradient local method from the product coupling; the
    gradient is the envelope-theorem one at the plan it returns.

    Args:
        d_client: (n, n) distance matrix D_k.
        d_global: (m, m) distance matrix D_g.
        p: (n,) marginal on the client side (default uniform).
        q: (m,) marginal on the global side (default uniform).
    """
    c1 = _square(d_client, "d_client")
    c2 = _square(d_global, "d_global").to(c1.dtype)
    pw = _marginal(p, "p", c1.shape[0], c1.dtype)
    qw = _marginal(q, "q", c2.shape[0], c1.dtype)
    if c1.shape[0] == 1 and c2.shape[0] == 1:
        return (c1 - c2).sum() * 0.0  # one point each: the only coupling costs 0
    return gw_unchecked(c1, c2, pw, qw)


def gw_unchecked(c1: Tensor, c2: Tensor, p: Tensor | None = None, q: Tensor | None = None) -> Tensor:
    """:func:`gw_alignment` on checked tensors (the training loop's hot path; uniform marginals by default)."""
    import ot

    value: Tensor = ot.gromov.gromov_wasserstein2(c1, c2, p, q, loss_fun="square_loss")  # type: ignore[assignment]
    return value


def _marginal(w: Any, name: str, n: int, dtype: torch.dtype) -> Tensor:
    if w is None:
        return torch.full((n,), 1.0 / n, dtype=dtype)
    t = as_tensor(w, name, ndim=1, shape=(n,)).detach().to(dtype)
    if bool((t < 0).any()) or abs(float(t.sum()) - 1.0) > 1e-6:
        raise ValueError(f"{name} must be a probability vector of length {n} (non-negative, summing to 1)")
    return t


def logit_distillation(logits: Any, y: Any, global_logits: Any, *, temperature: float = 2.0,
                       present: Any = None) -> Tensor:
    """Decision-level alignment of [P09] (our reconstruction): T² · KL(softmax(L_{y_i}/T) ‖ softmax(z_i/T)), the
    mean over the samples whose class has a global logit prototype (row ``y_i`` of ``global_logits``, (C, C)).

    Logits are C-dimensional whatever the client's architecture ("naturally aligned"), so no projection is needed.
    """
    zt = as_tensor(logits, "logits", ndim=2)
    n_classes = zt.shape[1]
    lg = as_tensor(global_logits, "global_logits", ndim=2, shape=(n_classes, n_classes)).detach().to(zt.dtype)
    labels = as_labels(y, "y", n=zt.shape[0], n_classes=n_classes)
    t = real(temperature, "temperature", lo=0.0, lo_open=True)
    return distill_unchecked(zt, labels, lg, t, _present(present, n_classes))


def distill_unchecked(logits: Tensor, labels: Tensor, global_logits: Tensor, t: float, mask: Tensor) -> Tensor:
    """:func:`logit_distillation` on checked tensors (the training loop's hot path)."""
    keep = mask[labels]
    if not bool(keep.any()):
        return logits.sum() * 0.0
    target = F.softmax(global_logits[labels[keep]] / t, dim=1)
    log_student = F.log_softmax(logits[keep] / t, dim=1)
    return F.kl_div(log_student, target, reduction="batchmean") * t * t
