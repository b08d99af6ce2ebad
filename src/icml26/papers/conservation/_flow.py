"""Gradient flow and its discretisation: the rate ``⟨∇h, −∇L⟩`` of a quantity ``h`` and its drift under SGD.

[P04] Sec. 3: ``h`` is conserved iff ``⟨∇h(θ), ∇L_D(θ)⟩ = 0`` for every data set; then ``h`` is constant along
gradient flow, and SGD with step ``τ`` moves it only by the curvature term, ``O(τ²)`` per step, ``O(τ² k)`` after ``k``
steps (paper Fig. 2), whereas a generic quantity moves ``O(τ)`` per step.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from icml26.common import validation
from icml26.common.nn import TinyGPT
from icml26.papers.conservation._groups import _real_tensor

__all__ = ["markov_batches", "relative_drift", "sgd_drift", "flow_rates"]

Quantities = Callable[[TinyGPT], dict[str, Tensor]]


def markov_batches(
    *, vocab_size: int, seq_len: int, batch_size: int, n_batches: int, seed: int, concentration: float = 0.3
) -> list[tuple[Tensor, Tensor]]:
    """``n_batches`` (inputs, next-token targets) pairs of shape ``(batch_size, seq_len)`` from a random Markov chain
    (transition rows ~ Dirichlet(``concentration``)), all drawn from ``seed``. Synthetic stand-in for the
    language-model data of the SGD-drift experiment of [P04] Fig. 2."""
    vocab_size = validation.positive_int(vocab_size, "vocab_size")
    seq_len = validation.positive_int(seq_len, "seq_len")
    batch_size = validation.positive_int(batch_size, "batch_size")
    n_batches = validation.positive_int(n_batches, "n_batches")
    concentration = validation.real(concentration, "concentration", lo=0.0, lo_open=True)
    g = np.random.default_rng(validation.seed(seed))
    P = g.dirichlet(np.full(vocab_size, concentration), size=vocab_size)
    cdf = np.cumsum(P, axis=1)
    seqs = np.empty((n_batches * batch_size, seq_len + 1), dtype=np.int64)
    seqs[:, 0] = g.integers(0, vocab_size, size=seqs.shape[0])
    for t in range(seq_len):
        u = g.random(seqs.shape[0])
        seqs[:, t + 1] = np.minimum((cdf[seqs[:, t]] < u[:, None]).sum(1), vocab_size - 1)
    x = torch.from_numpy(seqs).view(n_batches, batch_size, seq_len + 1)
    return [(x[i, :, :-1], x[i, :, 1:]) for i in range(n_batches)]


def _check_model(model: object) -> None:
    if not isinstance(model, TinyGPT):
        raise TypeError(f"model must be a TinyGPT, got {type(model).__name__}")


def relative_drift(h0: Tensor, h1: Tensor) -> float:
    """``‖h1 − h0‖ / ‖h0‖`` (Frobenius), the drift measure of [P04] Fig. 2 (tensors or array-likes of finite reals)."""
    h0, h1 = _real_tensor(h0, "h0"), _real_tensor(h1, "h1")
    if h0.shape != h1.shape:
        raise ValueError(f"h0 and h1 must have the same shape, got {tuple(h0.shape)} and {tuple(h1.shape)}")
    den = float(h0.norm())
    if den == 0.0:
        raise ValueError("h0 is zero: relative drift undefined")
    return float((h1 - h0).norm()) / den


def _check_tokens(model: TinyGPT, t: object, name: str, dtypes: tuple[torch.dtype, ...]) -> None:
    """``t`` must be a 2-D (batch, seq_len) tensor of token ids of one of ``dtypes``, in the model's vocabulary and window
    (what ``TinyGPT.loss`` needs: embedding indices are int64/int32, cross-entropy targets int64)."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of token ids, got {type(t).__name__}")
    if t.dtype not in dtypes:
        raise TypeError(f"{name} must hold integer token ids of dtype {' or '.join(map(str, dtypes))}, got {t.dtype}")
    if t.ndim != 2 or t.numel() == 0:
        raise ValueError(f"{name} must be a non-empty 2-D (batch, seq_len) tensor, got shape {tuple(t.shape)}")
    if t.shape[1] > model.cfg.block_size:
        raise ValueError(f"{name} has seq_len {t.shape[1]} > the model's block_size={model.cfg.block_size}")
    lo, hi = int(t.min()), int(t.max())
    if lo < 0 or hi >= model.cfg.vocab_size:
        raise ValueError(f"{name} token ids must lie in [0, {model.cfg.vocab_size}), got range [{lo}, {hi}]")


def _check_batch(model: TinyGPT, x: object, y: object, x_name: str, y_name: str) -> None:
    _check_tokens(model, x, x_name, (torch.int64, torch.int32))
    _check_tokens(model, y, y_name, (torch.int64,))


def _check_batches(model: TinyGPT, batches: list[tuple[Tensor, Tensor]]) -> None:
    if not isinstance(batches, (list, tuple)) or not batches:
        raise ValueError("batches must be a non-empty list of (inputs, targets)")
    for i, b in enumerate(batches):
        if not isinstance(b, (list, tuple)) or len(b) != 2:
            raise ValueError(f"batches[{i}] must be an (inputs, targets) pair, got {type(b).__name__}")
        x, y = b
        if isinstance(x, Tensor) and isinstance(y, Tensor) and x.shape != y.shape:
            raise ValueError(f"batches: inputs {tuple(x.shape)} and targets {tuple(y.shape)} differ in shape")
        _check_batch(model, x, y, f"batches[{i}] inputs", f"batches[{i}] targets")


def sgd_drift(
    model: TinyGPT,
    batches: list[tuple[Tensor, Tensor]],
    quantities: Quantities,
    *,
    lr: float,
    steps: int,
    record_at: tuple[int, ...] | None = None,
) -> dict[str, list[float]]:
    """Run ``steps`` plain SGD steps ``θ ← θ − τ ∇L_B(θ)`` on ``model`` **in place** (batch ``B`` = ``batches[k mod
    n]``) and return, per quantity, its relative drift from ``θ_0`` at each step in ``record_at`` (default: the last).

    Symbols: ``τ`` = ``lr``, ``k`` = ``steps``. Deterministic (no sampling inside). Each batch is an ``(inputs,
    targets)`` pair of equal-shape 2-D ``(batch, seq_len)`` token-id tensors (inputs int64/int32, targets int64,
    ids in ``[0, vocab_size)``, ``seq_len <= block_size``), as :func:`markov_batches` makes.

    The drift measurement of [P04] Fig. 2: ``O(τ² k)`` for a conservation law, ``O(τ)`` per step for a generic quantity.
    """
    lr = validation.real(lr, "lr", lo=0.0, lo_open=True)
    steps = validation.positive_int(steps, "steps")
    _check_model(model)
    _check_batches(model, batches)
    record = tuple(record_at) if record_at is not None else (steps,)
    if any(not 1 <= r <= steps for r in record):
        raise ValueError(f"record_at must lie in [1, steps={steps}], got {record}")
    params = [p for p in model.parameters() if p.requires_grad]
    with torch.no_grad():
        h0 = {k: v.detach().clone() for k, v in quantities(model).items()}
    out: dict[str, list[float]] = {k: [] for k in h0}
    for k in range(1, steps + 1):
        x, y = batches[(k - 1) % len(batches)]
        model.zero_grad(set_to_none=True)
        model.loss(x, y).backward()
        with torch.no_grad():
            for p in params:
                if p.grad is not None:
                    p.sub_(lr * p.grad)
        if k in record:
            with torch.no_grad():
                for name, h in quantities(model).items():
                    out[name].append(relative_drift(h0[name], h))
    model.zero_grad(set_to_none=True)
    return out


def flow_rates(
    model: TinyGPT, x: Tensor, y: Tensor, quantities: Quantities, *, n_probes: int = 8, seed: int = 0
) -> dict[str, float]:
    """Normalised gradient-flow rate ``‖Dh[∇L]‖ / rms_i ‖Dh[s_i ⊙ ∇L]‖`` of every quantity at the current ``θ``.

    Implements the conservation criterion of [P04] Sec. 3 (``⟨∇h_j, ∇L⟩ = 0`` for every component ``j``): 0 for a
    law (round-off, ~1e-15 in float64), of order 1e-2..1 for a generic quantity. The reference directions
    ``s_i ⊙ ∇L`` flip the sign of every gradient entry at random (``s_i`` Rademacher, ``n_probes`` of them drawn from
    ``seed``): same magnitudes on the same parameters, but no longer a gradient. ``Dh[v]`` (a Jacobian-vector product)
    comes from double backward through ``quantities``. ``∇L`` is the gradient of the mean next-token loss on
    ``(x, y)``. The model is not modified.
    """
    _check_model(model)
    if isinstance(x, Tensor) and isinstance(y, Tensor) and x.shape != y.shape:
        raise ValueError(f"x and y must have the same shape, got {tuple(x.shape)} and {tuple(y.shape)}")
    _check_batch(model, x, y, "x", "y")
    n_probes = validation.positive_int(n_probes, "n_probes")
    seed = validation.seed(seed)
    params = [p for p in model.parameters() if p.requires_grad]
    model.zero_grad(set_to_none=True)
    model.loss(x, y).backward()
    grads = [p.grad.detach().clone() if p.grad is not None else torch.zeros_like(p) for p in params]
    model.zero_grad(set_to_none=True)
    gnorm = float(torch.stack([t.pow(2).sum() for t in grads]).sum().sqrt())
    if gnorm == 0.0:
        raise ValueError("the loss gradient is zero at this point: rates are undefined")

    def directional(v: list[Tensor]) -> dict[str, Tensor]:
        # J v by double backward: w(u) = J^T u is linear in u, so d<w(u), v>/du = J v (exact up to round-off)
        out = {}
        for k, h in quantities(model).items():
            u = torch.zeros_like(h, requires_grad=True)
            w = torch.autograd.grad((u * h).sum(), params, create_graph=True, allow_unused=True)
            dot = sum(((wi * vi).sum() for wi, vi in zip(w, v) if wi is not None), torch.zeros((), dtype=h.dtype))
            out[k] = torch.autograd.grad(dot, u, allow_unused=True)[0] if dot.requires_grad else torch.zeros_like(h)
            out[k] = out[k] if out[k] is not None else torch.zeros_like(h)
        return out

    g = torch.Generator().manual_seed(seed)
    along = directional(grads)
    ref_sq: dict[str, float] = {k: 0.0 for k in along}
    for _ in range(n_probes):
        flips = [t * (2 * torch.randint(0, 2, t.shape, generator=g) - 1).to(t) for t in grads]
        for k, d in directional(flips).items():
            ref_sq[k] += float(d.pow(2).sum()) / n_probes
    return {k: float(along[k].norm()) / max(np.sqrt(ref_sq[k]), 1e-300) for k in along}
