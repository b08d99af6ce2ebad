"""Dynamic sparse training as [P37] runs it: SET (magnitude prune + random regrow) at a uniform per-layer density,
with the optimiser's moments masked (the authors' training code: a uniform random initial mask, an update every
``update_every`` steps, a prune rate decayed by a cosine, regrown weights starting at zero).

Use::

    masker = SETMasker(model, density=0.5, update_every=50, prune_rate=0.3, total_steps=T, generator=g)
    opt = torch.optim.Adam(model.parameters(), lr)
    for step in range(T):
        loss.backward(); masker.mask_grads(); opt.step(); masker.step(opt)

``step`` updates the topology when due and then zeroes the weights and Adam's ``exp_avg``/``exp_avg_sq`` (and SGD's
``momentum_buffer``) outside the mask, so an inactive weight neither moves nor carries a moment into its regrowth.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from icml26.common.validation import choice, int_at_least, real

__all__ = ["SETMasker", "sparsifiable"]

_STATE_KEYS = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq", "momentum_buffer")


def sparsifiable(model: nn.Module) -> list[str]:
    """[P37] the weights DST sparsifies by default: every ``nn.Linear`` weight except the LM head and any weight
    shared with an ``nn.Embedding`` (the paper keeps embeddings dense)."""
    emb = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    names = []
    for mod_name, mod in model.named_modules():
        if isinstance(mod, nn.Linear) and id(mod.weight) not in emb and mod_name.split(".")[-1] != "lm_head":
            names.append(f"{mod_name}.weight" if mod_name else "weight")
    return names


class SETMasker:
    """[P37] SET dynamic sparse training (module docstring): each named weight keeps exactly
    ``round(density·numel)`` non-zeros from a uniform random initial mask; every ``update_every`` optimiser steps
    (until ``total_steps``) a fraction ``prune_rate_t`` of each layer's active weights with the smallest magnitude
    is pruned and as many inactive positions are regrown uniformly at random (weights at zero), where
    ``prune_rate_t = prune_rate·(1 + cos(π t/total_steps))/2`` (``schedule="cosine"``) or ``prune_rate``
    (``"constant"``). Randomness comes only from ``generator``. ``density = 1`` leaves the model dense and
    untouched (then training equals dense training exactly)."""

    def __init__(self, model: nn.Module, *, density: float, update_every: int, prune_rate: float, total_steps: int,
                 generator: torch.Generator, schedule: str = "cosine", names: Sequence[str] | None = None) -> None:
        if not isinstance(model, nn.Module):
            raise TypeError(f"model must be a torch nn.Module, got {type(model).__name__}")
        if not isinstance(generator, torch.Generator):
            raise TypeError(f"generator must be a torch.Generator (an explicit seed), got {type(generator).__name__}")
        self.density = real(density, "density", lo=0.0, hi=1.0, lo_open=True)
        self.update_every = int_at_least(update_every, "update_every", 1)
        self.prune_rate = real(prune_rate, "prune_rate", lo=0.0, hi=1.0)
        self.total_steps = int_at_least(total_steps, "total_steps", 1)
        self.schedule = choice(schedule, "schedule", ("cosine", "constant"))
        self.generator = generator
        params = dict(model.named_parameters())
        chosen = sparsifiable(model) if names is None else list(names)
        unknown = [n for n in chosen if n not in params]
        if unknown:
            raise ValueError(f"names lists parameters the model does not have: {unknown}")
        self.params: dict[str, nn.Parameter] = {n: params[n] for n in chosen}
        self.masks: dict[str, Tensor] = {}
        self.steps = 0
        self.updates = 0
        self.frozen_topology = False
        if self.density < 1.0:
            for n, p in self.params.items():
                self.masks[n] = self._random_mask(p)
            self.apply()

    def _random_mask(self, p: Tensor) -> Tensor:
        k = round(self.density * p.numel())
        mask = torch.zeros(p.numel(), dtype=torch.bool)
        mask[torch.randperm(p.numel(), generator=self.generator)[:k]] = True
        return mask.view_as(p)

    def current_prune_rate(self) -> float:
        """The prune fraction at the current step (cosine or constant schedule)."""
        if self.schedule == "constant":
            return self.prune_rate
        t = min(self.steps, self.total_steps) / self.total_steps
        return self.prune_rate * 0.5 * (1.0 + math.cos(math.pi * t))

    @torch.no_grad()
    def apply(self, optimizer: torch.optim.Optimizer | None = None) -> None:
        """Zero every masked weight and, given ``optimizer``, its moments there."""
        for n, mask in self.masks.items():
            p = self.params[n]
            p.mul_(mask)
            if optimizer is not None:
                state = optimizer.state.get(p, {})
                for key in _STATE_KEYS:
                    buf = state.get(key)
                    if isinstance(buf, Tensor) and buf.shape == p.shape:
                        buf.mul_(mask)

    @torch.no_grad()
    def mask_grads(self) -> None:
        """Zero the gradients of masked weights (call between ``backward`` and ``optimizer.step``)."""
        for n, mask in self.masks.items():
            g = self.params[n].grad
            if g is not None:
                g.mul_(mask)

    @torch.no_grad()
    def update_topology(self) -> int:
        """One SET update: per layer prune the ``k = int(rate·active)`` smallest-magnitude active weights, then
        regrow ``k`` positions drawn uniformly from all inactive ones (the just-pruned included, as in the authors'
        code), at zero; returns the number of regrown weights."""
        rate, moved = self.current_prune_rate(), 0
        for n, mask in self.masks.items():
            p, flat = self.params[n].view(-1), mask.view(-1)
            active = flat.nonzero().view(-1)
            k = int(rate * active.numel())
            if k == 0:
                continue
            drop = active[torch.topk(p[active].abs(), k, largest=False).indices]
            flat[drop] = False
            p[drop] = 0.0
            inactive = (~flat).nonzero().view(-1)
            grow = inactive[torch.randperm(inactive.numel(), generator=self.generator)[:k]]
            flat[grow] = True
            p[grow] = 0.0
            moved += k
        self.updates += 1
        return moved

    def step(self, optimizer: torch.optim.Optimizer | None = None) -> None:
        """After ``optimizer.step()``: count the step, update the topology when due, re-apply the masks."""
        self.steps += 1
        due = self.steps % self.update_every == 0 and self.steps < self.total_steps
        if self.masks and due and not self.frozen_topology:
            self.update_topology()
        self.apply(optimizer)

    def active_counts(self) -> dict[str, int]:
        """Non-zero mask entries per sparsified weight (all entries when dense)."""
        if not self.masks:
            return {n: p.numel() for n, p in self.params.items()}
        return {n: int(m.sum()) for n, m in self.masks.items()}

    def frozen(self, model: nn.Module) -> SETMasker:
        """A masker for ``model`` (a copy of this masker's model, e.g. a training branch) holding these masks
        fixed: it masks gradients, weights and moments but never updates the topology."""
        params = dict(model.named_parameters())
        missing = [n for n in self.params if n not in params]
        if missing:
            raise ValueError(f"model lacks the sparsified parameters {missing}")
        twin = object.__new__(SETMasker)
        twin.__dict__.update(self.__dict__)
        twin.params = {n: params[n] for n in self.params}
        twin.masks = {n: m.clone() for n, m in self.masks.items()}
        twin.frozen_topology = True
        return twin
