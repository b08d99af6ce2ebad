"""The primal-dual trainer of [P07]: layerwise descent constraints on a stack's readout losses.

Derived from the abstract and the constrained-learning line it builds on (notes §2): with per-layer losses
ℓ_l = E[ℓ(D(z_l), y)], l = 0..L, the problem is

    min_θ ℓ_L   s.t.   ℓ_l ≤ (1 − ε) ℓ_{l−1} + u_l,   l = 1..L,

with slacks u_l ≥ 0 priced by a resilience cost (ρ/2)·u_l² (resilient constrained learning). One stochastic step on a
minibatch (losses ℓ̂):

    𝓛 = ℓ̂_L + Σ_l λ_l (ℓ̂_l − (1 − ε) ℓ̂_{l−1} − u_l)            (the Lagrangian)
    θ ← θ − η_θ ∇_θ 𝓛                                           (primal: Adam or SGD)
    λ_l ← [λ_l + η_λ (ℓ̂_l − (1 − ε) ℓ̂_{l−1} − u_l)]₊           (dual ascent, on the batch's constraint values)
    u_l ← [u_l − η_u (ρ u_l − λ_l)]₊                             (slack descent, with the updated λ; only with ρ)

Without ``resilience`` the slacks stay 0 (hard constraints). The baselines share the loop: ``erm`` minimises ℓ̂_L,
``deep_supervision`` the mean of ℓ̂_1..ℓ̂_L; λ is then not updated.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from icml26.common.validation import choice, int_array, positive_int, real, real_array
from icml26.common.validation import seed as check_seed

__all__ = ["METHODS", "DescentConstrainedTrainer", "TrainHistory", "as_batch"]

METHODS = ("constrained", "erm", "deep_supervision")
OPTIMIZERS = ("adam", "sgd")


def as_batch(x: Any, name: str, *, dtype: torch.dtype = torch.float32, ndim: int | None = None) -> Tensor:
    """``x`` (a tensor or an array) as a tensor: integers kept (token ids, labels), reals cast to ``dtype``; NaN/inf,
    complex, strings, bools and empty input refused naming ``name``. Input checks of the [P07] trainer."""
    if isinstance(x, Tensor):
        if x.is_complex() or x.dtype == torch.bool:
            raise TypeError(f"{name} must hold real numbers or integers, got dtype {x.dtype}")
        if x.numel() == 0:
            raise ValueError(f"{name} must not be empty, got shape {tuple(x.shape)}")
        if x.is_floating_point():
            if not bool(torch.isfinite(x).all()):
                raise ValueError(f"{name} must be finite (got NaN or inf)")
            x = x.to(dtype)
        t = x.detach()
    else:
        kind = np.asarray(x).dtype.kind if not isinstance(x, (str, bytes)) else "U"
        a = int_array(x, name) if kind in "iu" else real_array(x, name)
        t = torch.from_numpy(np.ascontiguousarray(a))
        t = t if kind in "iu" else t.to(dtype)
    if ndim is not None and t.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional for this model, got shape {tuple(t.shape)}")
    return t


@dataclass
class TrainHistory:
    """Per epoch of :meth:`DescentConstrainedTrainer.fit`: the mean train loss of every layer, the objective, and
    λ and u at the epoch's end ([P07]: training curves and dual trajectories)."""

    layer_losses: list[list[float]] = field(default_factory=list)
    objective: list[float] = field(default_factory=list)
    lambdas: list[list[float]] = field(default_factory=list)
    slacks: list[list[float]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"layer_losses": self.layer_losses, "objective": self.objective, "lambdas": self.lambdas,
                "slacks": self.slacks}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainHistory:
        """Inverse of :meth:`to_dict`."""
        return cls(**{k: list(d[k]) for k in ("layer_losses", "objective", "lambdas", "slacks")})


def _readouts(readout: nn.Module | Sequence[nn.Module], L: int) -> list[nn.Module]:
    if isinstance(readout, nn.Module) and not isinstance(readout, nn.ModuleList):
        return [readout] * (L + 1)
    heads = list(readout) if isinstance(readout, (nn.ModuleList, list, tuple)) else None
    if heads is None or not all(isinstance(h, nn.Module) for h in heads):
        raise TypeError("readout must be an nn.Module (shared D) or a sequence of L + 1 modules (one per state)")
    if len(heads) != L + 1:
        raise ValueError(f"readout: {len(heads)} readouts for {L + 1} states z_0..z_{L} (the model has {L} layers)")
    return heads


class DescentConstrainedTrainer:
    """[P07] primal-dual training with layerwise descent constraints (module docstring; derived, notes §2).

    Args:
        model: a :class:`LayerwiseModel` (or any module with ``layer_states(x) -> [z_0..z_L]`` and ``n_layers``).
        readout: the shared readout D applied to every state, or L + 1 readouts (one per state, as per-layer heads).
        loss: ``loss(prediction, target) -> (B,)`` per-sample losses.
        method: ``"constrained"`` (the paper's scheme), ``"erm"`` (last layer only) or ``"deep_supervision"``.
        epsilon: ε, the required relative decrease per layer, in [0, 1).
        dual_lr: η_λ; ``dual_init`` the starting λ (with ``dual_lr=0`` a fixed-penalty baseline).
        resilience: ρ > 0 of the slack cost (ρ/2)u²; ``None`` keeps u = 0 (hard constraints). ``slack_lr``: η_u.
        lr, optimizer, weight_decay, grad_clip: the primal step (Adam(W) or plain SGD).
        seed: the minibatch order of :meth:`fit`.
    """

    def __init__(self, model: nn.Module, readout: nn.Module | Sequence[nn.Module],
                 loss: Callable[[Tensor, Tensor], Tensor], *, method: str = "constrained", epsilon: float = 0.05,
                 dual_lr: float = 0.05, dual_init: float = 0.0, resilience: float | None = None,
                 slack_lr: float = 0.05, lr: float = 1e-3, optimizer: str = "adam", weight_decay: float = 0.0,
                 grad_clip: float | None = 1.0, seed: int) -> None:
        if not (isinstance(model, nn.Module) and callable(getattr(model, "layer_states", None))):
            raise TypeError(f"model must be an nn.Module with layer_states(x), got {type(model).__name__}")
        L = getattr(model, "n_layers", None)
        if isinstance(L, bool) or not isinstance(L, int) or L < 1:
            raise TypeError(f"model must expose n_layers (an int >= 1), got {L!r}")
        if not callable(loss):
            raise TypeError(f"loss must be callable (prediction, target) -> per-sample losses, got {type(loss).__name__}")
        self.model, self.loss, self.n_layers = model, loss, L
        self.readouts = _readouts(readout, L)
        self.method = choice(method, "method", METHODS)
        self.epsilon = real(epsilon, "epsilon", lo=0.0, hi=1.0, hi_open=True)
        self.dual_lr = real(dual_lr, "dual_lr", lo=0.0)
        self.resilience = None if resilience is None else real(resilience, "resilience", lo=0.0, lo_open=True)
        self.slack_lr = real(slack_lr, "slack_lr", lo=0.0)
        self.grad_clip = None if grad_clip is None else real(grad_clip, "grad_clip", lo=0.0, lo_open=True)
        lr = real(lr, "lr", lo=0.0, lo_open=True)
        wd = real(weight_decay, "weight_decay", lo=0.0)
        params = list({id(p): p for m in (model, *self.readouts) for p in m.parameters()}.values())
        if choice(optimizer, "optimizer", OPTIMIZERS) == "adam":
            self.opt: torch.optim.Optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=wd)
        else:
            self.opt = torch.optim.SGD(params, lr=lr, weight_decay=wd)
        self.params = params
        self.lambdas = torch.full((L,), real(dual_init, "dual_init", lo=0.0), dtype=torch.float64)
        self.slacks = torch.zeros(L, dtype=torch.float64)
        self.generator = torch.Generator().manual_seed(check_seed(seed))
        self.history = TrainHistory()
        self._dtype = next((p.dtype for p in params if p.is_floating_point()), torch.float32)

    def _inputs(self, x: Any, y: Any) -> tuple[Tensor, Tensor]:
        xt = as_batch(x, "x", dtype=self._dtype, ndim=getattr(self.model, "input_ndim", None))
        yt = as_batch(y, "y", dtype=self._dtype)
        if yt.shape[0] != xt.shape[0]:
            raise ValueError(f"y holds {yt.shape[0]} targets for {xt.shape[0]} inputs x")
        return xt, yt

    def layer_losses(self, x: Any, y: Any) -> Tensor:
        """ℓ̂_0..ℓ̂_L: the batch mean of ``loss(D_l(z_l), y)`` for every state ([P07] §2), with gradients."""
        xt, yt = self._inputs(x, y)
        states = list(self.model.layer_states(xt))  # type: ignore[operator]
        if len(states) != self.n_layers + 1:
            raise ValueError(f"model: layer_states gave {len(states)} states, expected L + 1 = {self.n_layers + 1}")
        out = []
        for head, z in zip(self.readouts, states):
            pred = head(z)
            try:
                per = self.loss(pred, yt)
            except (RuntimeError, IndexError, ValueError) as exc:
                raise ValueError(f"readout: its output {tuple(pred.shape)} does not fit the targets y "
                                 f"{tuple(yt.shape)} under loss: {exc}") from exc
            if per.shape != (xt.shape[0],):
                raise ValueError(f"loss must return one loss per sample, shape ({xt.shape[0]},), got {tuple(per.shape)}")
            out.append(per.mean())
        return torch.stack(out)

    def constraint_values(self, losses: Tensor) -> Tensor:
        """g_l = ℓ_l − (1 − ε) ℓ_{l−1} − u_l, l = 1..L (≤ 0: satisfied), from per-layer losses (L + 1,) ([P07] §2)."""
        d = losses.detach().to(torch.float64)
        return d[1:] - (1.0 - self.epsilon) * d[:-1] - self.slacks

    def objective(self, losses: Tensor) -> Tensor:
        """The primal objective: the Lagrangian 𝓛 for ``constrained``, ℓ̂_L for ``erm``, mean ℓ̂_1..ℓ̂_L for
        ``deep_supervision`` ([P07] §2; λ and u enter as constants)."""
        if self.method == "erm":
            return losses[-1]
        if self.method == "deep_supervision":
            return losses[1:].mean()
        lam = self.lambdas.to(losses.dtype)
        slack = self.slacks.to(losses.dtype)
        return losses[-1] + (lam * (losses[1:] - (1.0 - self.epsilon) * losses[:-1] - slack)).sum()

    def dual_update(self, losses: Tensor) -> None:
        """λ ← [λ + η_λ g]₊, then (with ρ) u ← [u − η_u (ρ u − λ)]₊ ([P07] §2; g from :meth:`constraint_values`)."""
        g = self.constraint_values(losses)
        self.lambdas = torch.clamp(self.lambdas + self.dual_lr * g, min=0.0)
        if self.resilience is not None:
            self.slacks = torch.clamp(self.slacks - self.slack_lr * (self.resilience * self.slacks - self.lambdas),
                                      min=0.0)

    def step(self, x: Any, y: Any) -> Tensor:
        """One primal-dual step on the batch (x, y) ([P07] §2); returns the batch's per-layer losses (detached)."""
        losses = self.layer_losses(x, y)
        obj = self.objective(losses)
        if not bool(torch.isfinite(obj)):
            raise FloatingPointError(f"the objective is {float(obj.detach())}: lower lr (lr = {self.opt.param_groups[0]['lr']})")
        self.opt.zero_grad(set_to_none=True)
        obj.backward()  # type: ignore[no-untyped-call]
        if self.grad_clip is not None:
            nn.utils.clip_grad_norm_(self.params, self.grad_clip)
        self.opt.step()
        if self.method == "constrained":
            self.dual_update(losses)
        return losses.detach()

    def _train_mode(self, on: bool) -> None:
        for m in (self.model, *self.readouts):
            m.train(on)

    def fit(self, x: Any, y: Any, *, epochs: int, batch_size: int) -> TrainHistory:
        """``epochs`` passes over (x, y) in minibatches drawn from the trainer's seed ([P07] §2); appends to
        and returns :attr:`history`."""
        xt, yt = self._inputs(x, y)
        epochs, bs = positive_int(epochs, "epochs"), positive_int(batch_size, "batch_size")
        n = xt.shape[0]
        self._train_mode(True)
        try:
            for _ in range(epochs):
                perm = torch.randperm(n, generator=self.generator)
                sums, objs, count = torch.zeros(self.n_layers + 1, dtype=torch.float64), 0.0, 0
                for i in range(0, n, bs):
                    idx = perm[i:i + bs]
                    losses = self.step(xt[idx], yt[idx])
                    sums += losses.to(torch.float64) * len(idx)
                    objs += float(self.objective(losses)) * len(idx)
                    count += len(idx)
                self.history.layer_losses.append((sums / count).tolist())
                self.history.objective.append(objs / count)
                self.history.lambdas.append(self.lambdas.tolist())
                self.history.slacks.append(self.slacks.tolist())
        finally:
            self._train_mode(False)
        return self.history

    @torch.no_grad()
    def evaluate(self, x: Any, y: Any, *, batch_size: int = 512) -> np.ndarray:
        """Per-layer mean losses ℓ_0..ℓ_L over the whole set (x, y), without gradients ([P07]: the per-layer curve)."""
        xt, yt = self._inputs(x, y)
        bs = positive_int(batch_size, "batch_size")
        self._train_mode(False)
        total = torch.zeros(self.n_layers + 1, dtype=torch.float64)
        for i in range(0, xt.shape[0], bs):
            total += self.layer_losses(xt[i:i + bs], yt[i:i + bs]).to(torch.float64) * len(xt[i:i + bs])
        return (total / xt.shape[0]).numpy()

    @torch.no_grad()
    def predict(self, x: Any, *, batch_size: int = 512) -> Tensor:
        """D_L(z_L) for every input, in batches ([P07]: the model's output)."""
        xt = as_batch(x, "x", dtype=self._dtype, ndim=getattr(self.model, "input_ndim", None))
        bs = positive_int(batch_size, "batch_size")
        self._train_mode(False)
        outs = [self.readouts[-1](self.model.layer_states(xt[i:i + bs])[-1])  # type: ignore[operator]
                for i in range(0, xt.shape[0], bs)]
        return torch.cat(outs)
