"""The dense test-time-training baseline of [P34]: the same self-supervised objective and schedule, but every
weight of the model is optimised (the kind of adaptation the paper's additive router vectors are meant to replace,
"preventing over-adaptation"). The weights are restored afterwards.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import torch
from torch import nn

from icml26.common.validation import int_at_least, positive_int, real
from icml26.papers.moe_tta._adapt import as_ids, context_ce
from icml26.papers.moe_tta._generate import greedy

__all__ = ["full_ttt", "generate_with_full_ttt", "restored"]


@contextlib.contextmanager
def restored(model: nn.Module) -> Iterator[None]:
    """Whatever happens to ``model``'s weights inside, they are put back afterwards (a copy of the state dict)."""
    saved = {k: v.detach().clone() for k, v in model.state_dict().items()}
    try:
        yield
    finally:
        model.load_state_dict(saved)


def full_ttt(model: nn.Module, ids: Any, *, steps: int, lr: float) -> list[float]:
    """[P34] baseline: ``steps`` Adam steps on every parameter, minimising the mean context CE of ``ids``.

    Changes ``model`` in place (use :func:`restored`); returns the objective before each step.
    """
    x = as_ids(ids, model, min_len=2)
    steps = int_at_least(steps, "steps", 0)
    lr = real(lr, "lr", lo=0.0, lo_open=True)
    params = list(model.parameters())
    flags = [p.requires_grad for p in params]
    was_training = model.training
    model.eval()
    for p in params:
        p.requires_grad_(True)
    opt = torch.optim.Adam(params, lr=lr)
    losses = []
    try:
        with torch.enable_grad():
            for _ in range(steps):
                loss = context_ce(model, x).mean()
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                losses.append(float(loss.detach()))
    finally:
        for p, f in zip(params, flags):
            p.requires_grad_(f)
            p.grad = None
        model.train(was_training)
    return losses


def generate_with_full_ttt(model: nn.Module, prompt: Any, *, max_new_tokens: int, refit_every: int, steps: int,
                           lr: float) -> torch.Tensor:
    """[P34] baseline: :func:`generate_with_rerouting`'s schedule (fit on the prompt, re-fit every ``refit_every``
    generated tokens) with :func:`full_ttt` as the fit; the weights are restored at the end."""
    x = as_ids(prompt, model, name="prompt", min_len=2)
    n_new = int_at_least(max_new_tokens, "max_new_tokens", 0)
    every = positive_int(refit_every, "refit_every")
    ids = x
    with restored(model):
        while True:
            full_ttt(model, ids, steps=steps, lr=lr)
            made = ids.shape[1] - x.shape[1]
            if made >= n_new:
                break
            ids = greedy(model, ids, min(every, n_new - made))
    return ids
