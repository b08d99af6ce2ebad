"""A small deterministic training loop (AdamW, minibatches drawn from a seeded generator) with early stopping when
the monitored loss stops improving. Shared by the papers that train models here."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

__all__ = ["TrainResult", "train"]


@dataclass
class TrainResult:
    """What :func:`train` did: steps taken, the train loss per step, the monitored loss at each evaluation."""

    steps: int
    losses: list[float] = field(default_factory=list)
    evals: list[tuple[int, float]] = field(default_factory=list)
    stopped_early: bool = False

    @property
    def best(self) -> float:
        """The lowest monitored loss seen (``inf`` if never evaluated)."""
        return min((v for _, v in self.evals), default=math.inf)


def train(
    model: nn.Module,
    data: Sequence[Tensor],
    loss_fn: Callable[..., Tensor],
    *,
    steps: int,
    lr: float = 1e-3,
    batch_size: int = 32,
    weight_decay: float = 0.0,
    seed: int = 0,
    grad_clip: float | None = 1.0,
    eval_every: int = 50,
    eval_fn: Callable[[nn.Module], float] | None = None,
    patience: int | None = None,
    min_rel_improvement: float = 1e-3,
    min_delta: float = 0.0,
    lr_schedule: str = "constant",
) -> TrainResult:
    """Train ``model`` on ``data`` (tensors sharing their first dimension N) for at most ``steps`` AdamW steps.

    Each step draws ``batch_size`` rows (without replacement within the step) from a generator seeded with ``seed``
    and minimises ``loss_fn(model, *batch)``. Every ``eval_every`` steps ``eval_fn(model)`` (default: ``loss_fn`` on
    all of ``data``, without gradients) is recorded; with ``patience`` set, training stops once it has not improved
    by more than ``max(min_delta, min_rel_improvement * best)`` for ``patience`` evaluations in a row (a plateau). ``lr_schedule`` is
    ``"constant"`` or ``"cosine"`` (decay to lr/10 over ``steps``).
    """
    if not data:
        raise ValueError("data must hold at least one tensor")
    n = data[0].shape[0]
    if n == 0 or any(t.shape[0] != n for t in data):
        raise ValueError("data tensors must be non-empty and share their first dimension")
    if steps < 0 or batch_size < 1 or eval_every < 1 or not lr > 0:
        raise ValueError("steps >= 0, batch_size >= 1, eval_every >= 1 and lr > 0 are required")
    if lr_schedule not in ("constant", "cosine"):
        raise ValueError(f"lr_schedule must be 'constant' or 'cosine', got {lr_schedule!r}")
    if patience is not None and patience < 1:
        raise ValueError(f"patience must be >= 1, got {patience}")
    gen = torch.Generator().manual_seed(int(seed))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)

    def full_loss(m: nn.Module) -> float:
        with torch.no_grad():
            return float(loss_fn(m, *data))

    monitor = eval_fn or full_loss
    res = TrainResult(steps=0)
    best, stale = math.inf, 0
    bs = min(batch_size, n)
    model.train()
    for step in range(1, steps + 1):
        if lr_schedule == "cosine":
            for grp in opt.param_groups:
                grp["lr"] = lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (step - 1) / max(1, steps))))
        idx = torch.randperm(n, generator=gen)[:bs]
        loss = loss_fn(model, *(t[idx] for t in data))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if grad_clip is not None:
            nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        opt.step()
        res.losses.append(loss.item())
        res.steps = step
        if step % eval_every == 0 or step == steps:
            model.eval()
            v = monitor(model)
            model.train()
            res.evals.append((step, v))
            if not math.isfinite(best) or v < best - max(min_delta, min_rel_improvement * best):
                best, stale = v, 0
            else:
                stale += 1
                if patience is not None and stale >= patience:
                    res.stopped_early = True
                    break
    model.eval()
    return res
