"""Who runs at each iteration of the [P23] recurrent loop: one controller per depth policy.

A controller is made per forward call; the loop of :mod:`._model` asks it, at iteration ``t`` (0-based), which
tokens run (:meth:`select`), how a token's state changes given the block's output (:meth:`update`), lets it watch the
updated states (:meth:`observe`, where online halting decides) and finally reads the output out (:meth:`finish`).
Every update is a ``torch.where`` between the block's output and the old state, so a token that does not run keeps
its state bit for bit; it still serves as a key/value to the tokens that run, since the block reads all states.

- ``fixed``: every token runs ``depth`` iterations.
- ``early`` (ANIRA-E): a router on the prelude state picks a depth ``d_i`` in ``1..T`` before the loop
  (straight-through Gumbel-softmax in training, argmax in evaluation); cost: the router's expected depth.
- ``online`` (ANIRA-O): a halting unit on the current state decides after every iteration, by ACT's rule (output:
  ACT's weighted state, cost ``N + R``) or PonderNet's (output: the halting-weighted mixture of every step's
  prediction, cost ``KL(p || geometric prior)``).
- ``mod`` (Mixture-of-Depths, Raposo et al. 2024): at every iteration a router lets the top ``capacity`` share of
  tokens of each sequence run, scaled by the sigmoid of its score (its gradient path); no halting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from icml26.papers.anira._halting import (
    act_step,
    alive_from_depth,
    expected_depth,
    geometric_prior,
    ponder_kl,
    ponder_step,
    straight_through_depth,
)

__all__ = ["make_controller"]

Head = Callable[[Tensor], Tensor]


class _Fixed:
    def __init__(self, model: Any, mask: Tensor, depth: int) -> None:
        self.mask, self.depth = mask, depth

    def select(self, t: int, h: Tensor) -> Tensor:
        return self.mask if t < self.depth else torch.zeros_like(self.mask)

    def update(self, t: int, h: Tensor, h_new: Tensor, run: Tensor) -> Tensor:
        return torch.where(run[..., None], h_new, h)

    def observe(self, t: int, h: Tensor, run: Tensor) -> None:
        pass

    def done(self, t: int) -> bool:
        return t + 1 >= self.depth

    def finish(self, h: Tensor, head: Head) -> dict[str, Any]:
        return {"logits": head(h), "cost": torch.zeros(h.shape[:-1], dtype=h.dtype)}


class _Early(_Fixed):
    """ANIRA-E: the depth is fixed before the loop from the prelude state ``h^0``."""

    def __init__(self, model: Any, mask: Tensor, h0: Tensor, generator: torch.Generator | None) -> None:
        super().__init__(model, mask, model.cfg.max_depth)
        self.training = model.training
        logits = model.router(model.router_norm(h0))
        z, _ = straight_through_depth(logits, tau=model.cfg.tau, generator=generator if self.training else None)
        self.alive = alive_from_depth(z)  # (B, N, T): exactly 0/1 forward, straight-through backward
        self.choice = z.detach().argmax(-1) + 1
        self.cost = expected_depth(torch.softmax(logits, -1))
        self.last = int(self.choice[mask].max()) if bool(mask.any()) else 0

    def select(self, t: int, h: Tensor) -> Tensor:
        return self.mask & (self.alive[..., t].detach() > 0.5)

    def update(self, t: int, h: Tensor, h_new: Tensor, run: Tensor) -> Tensor:
        out = torch.where(run[..., None], h_new, h)
        if self.training:  # forward value + 0; gradient <dL/dh_t, h_new - h> to the depth choice
            a = self.alive[..., t] * self.mask
            out = out + (a - a.detach())[..., None] * (h_new - h)
        return out

    def done(self, t: int) -> bool:
        return not self.training and t + 1 >= self.last

    def finish(self, h: Tensor, head: Head) -> dict[str, Any]:
        return {"logits": head(h), "cost": self.cost}


class _Act(_Fixed):
    """ANIRA-O with ACT: halting unit ``p_t = sigmoid(w . h^t + b)`` after each iteration."""

    def __init__(self, model: Any, mask: Tensor, h0: Tensor) -> None:
        super().__init__(model, mask, model.cfg.max_depth)
        self.model, self.eps, self.T = model, model.cfg.eps, model.cfg.max_depth
        z = torch.zeros(mask.shape, dtype=h0.dtype)
        self.cum, self.n, self.rem = z, z, z
        self.active = mask.clone()
        self.acc = torch.zeros_like(h0)
        self.weights: list[Tensor] = []

    def select(self, t: int, h: Tensor) -> Tensor:
        return self.active

    def _unit(self, h: Tensor, run: Tensor) -> Tensor:
        p = torch.zeros(run.shape, dtype=h.dtype)
        if bool(run.any()):
            p = p.index_put((run,), torch.sigmoid(self.model.halt(self.model.halt_norm(h[run])).squeeze(-1)))
        return p

    def observe(self, t: int, h: Tensor, run: Tensor) -> None:
        p = self._unit(h, run)
        w, cum, go = act_step(p, self.cum, run, last=t == self.T - 1, eps=self.eps)
        self.rem = torch.where(run & ~go, 1.0 - self.cum, self.rem)
        self.n = torch.where(run, torch.full_like(self.n, t + 1), self.n)
        self.acc = self.acc + w[..., None] * h
        self.weights.append(w)
        self.cum, self.active = cum, go

    def done(self, t: int) -> bool:
        return not bool(self.active.any())

    def finish(self, h: Tensor, head: Head) -> dict[str, Any]:
        return {"logits": head(self.acc), "cost": self.n + self.rem, "halt": torch.stack(self.weights, 1)}


class _Ponder(_Act):
    """ANIRA-O with PonderNet: conditional halting ``lambda_t``; every step's prediction is kept."""

    def __init__(self, model: Any, mask: Tensor, h0: Tensor, head: Head) -> None:
        super().__init__(model, mask, h0)
        self.head = head
        self.survive = torch.ones(mask.shape, dtype=h0.dtype)
        self.step_logits: list[Tensor] = []

    def observe(self, t: int, h: Tensor, run: Tensor) -> None:
        lam = self._unit(h, run)
        pt, self.survive, self.cum, self.active = ponder_step(lam, self.survive, self.cum, run,
                                                              last=t == self.T - 1, eps=self.eps)
        self.n = torch.where(run, torch.full_like(self.n, t + 1), self.n)
        C = self.model.cfg.n_classes
        out = torch.zeros((*run.shape, C), dtype=h.dtype)
        if bool(run.any()):
            out = out.index_put((run,), self.head(h[run]))
        self.weights.append(pt)
        self.step_logits.append(out)

    def finish(self, h: Tensor, head: Head) -> dict[str, Any]:
        p = torch.stack(self.weights, 1)  # (B, t, N)
        steps = torch.stack(self.step_logits, 1)  # (B, t, N, C)
        mix = (p[..., None] * torch.softmax(steps, -1)).sum(1)
        prior = geometric_prior(self.model.cfg.prior, self.T, dtype=h.dtype)
        full = torch.zeros((*p.shape[::2], self.T), dtype=h.dtype)  # (B, N, T): zero after the last run step
        full[..., : p.shape[1]] = p.transpose(1, 2)
        return {"logits": torch.log(mix.clamp_min(1e-30)), "cost": ponder_kl(full, prior), "halt": p,
                "step_logits": steps}


class _MoD(_Fixed):
    """Mixture-of-Depths: top-``capacity`` tokens of each sequence run at every iteration."""

    def __init__(self, model: Any, mask: Tensor) -> None:
        super().__init__(model, mask, model.cfg.max_depth)
        self.model = model
        n = mask.sum(-1)
        self.k = torch.clamp(torch.round(model.cfg.capacity * n.to(torch.float64)).to(torch.long), min=1)
        self.gate = torch.zeros(mask.shape)

    def select(self, t: int, h: Tensor) -> Tensor:
        r = torch.full(self.mask.shape, float("-inf"), dtype=h.dtype)
        r = r.index_put((self.mask,), self.model.mod_router(self.model.router_norm(h[self.mask])).squeeze(-1))
        rank = torch.argsort(torch.argsort(-r, dim=-1, stable=True), dim=-1)
        self.gate = torch.sigmoid(r)
        return self.mask & (rank < self.k[:, None])

    def update(self, t: int, h: Tensor, h_new: Tensor, run: Tensor) -> Tensor:
        return torch.where(run[..., None], h + self.gate[..., None] * (h_new - h), h)


def make_controller(model: Any, mask: Tensor, h0: Tensor, generator: torch.Generator | None, head: Head) -> Any:
    """The controller of ``model.cfg.mode`` (and ``halting``) for one forward call ([P23] depth policies)."""
    cfg = model.cfg
    if cfg.mode == "fixed":
        return _Fixed(model, mask, cfg.depth or cfg.max_depth)
    if cfg.mode == "early":
        return _Early(model, mask, h0, generator)
    if cfg.mode == "mod":
        return _MoD(model, mask)
    return _Act(model, mask, h0) if cfg.halting == "act" else _Ponder(model, mask, h0, head)
