"""Continuous rerouting during generation ([P34] Fig. 1b): fit δ on the prompt, generate with it, re-fit on the
grown context every ``refit_every`` generated tokens, until ``max_new_tokens``.

Each sequence of a batch gets its own δ and its own layer selection (the paper adapts per prompt). Between fits
the model generates greedily with its own ``generate`` (transformers: KV cache; TinyGPT: full recompute), the
biased routers in place; after a re-fit the context is processed again, since its routing has changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor, nn

from icml26.common.validation import choice, int_at_least, positive_int, real
from icml26.papers.moe_tta._adapt import BY, adapt, as_ids, select_layers
from icml26.papers.moe_tta._routers import RouterBias, moe_layers

__all__ = ["ReroutedGeneration", "generate_with_rerouting", "greedy"]


@dataclass
class ReroutedGeneration:
    """[P34] the output of :func:`generate_with_rerouting`: token ids (prompt and continuation), the layers that
    carried δ per sequence, the number of fits (prefill included) and the objective of each fit's steps."""

    ids: Tensor
    layers: list[list[int]]
    fits: int = 0
    losses: list[list[float]] = field(default_factory=list)


def _is_tinygpt(model: nn.Module) -> bool:
    return isinstance(getattr(model, "blocks", None), nn.ModuleList)


@torch.no_grad()
def greedy(model: nn.Module, ids: Tensor, n: int, *, eos_token_id: int | None = None) -> Tensor:
    """[P34] ``n`` greedy tokens after ``ids`` (B, T) with the model's own generation (attached hooks apply)."""
    gen: Any = getattr(model, "generate")
    if _is_tinygpt(model):
        return gen(ids, max_new_tokens=n)
    pad = eos_token_id if eos_token_id is not None else getattr(model.config, "pad_token_id", None)
    out = gen(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, min_new_tokens=0,
                         do_sample=False, num_beams=1, pad_token_id=0 if pad is None else pad,
                         eos_token_id=eos_token_id)
    return out[:, : ids.shape[1] + n]


def generate_with_rerouting(model: nn.Module, prompt: Any, *, max_new_tokens: int, refit_every: int = 32,
                            steps: int = 10, lr: float = 0.1, l2: float = 1e-3, k: int | None = None,
                            by: str = "entropy", eos_token_id: int | None = None) -> ReroutedGeneration:
    """[P34] Fig. 1b, the two alternating phases: A (fit δ on the context, model frozen) and B (generate
    ``refit_every`` tokens with the adapted router), starting with A on the prompt.

    ``k``: the number of high-confidence layers (:func:`select_layers` on the prompt, ``by``); ``None`` takes half
    of the MoE layers, rounded up (our default; the paper's count per model is not in its abstract). Generation stops
    after ``max_new_tokens`` or once every sequence has produced ``eos_token_id``. ``refit_every`` = 32 and the fit's
    defaults are the notes' protocol. The model's weights are never changed; the hooks are removed at the end.
    """
    x = as_ids(prompt, model, name="prompt", min_len=2)
    n_new = int_at_least(max_new_tokens, "max_new_tokens", 0)
    every = positive_int(refit_every, "refit_every")
    steps = int_at_least(steps, "steps", 0)
    lr = real(lr, "lr", lo=0.0, lo_open=True)
    l2 = real(l2, "l2", lo=0.0)
    by = choice(by, "by", BY)
    n_moe = len(moe_layers(model))
    k = math.ceil(n_moe / 2) if k is None else positive_int(k, "k", hi=n_moe)
    if eos_token_id is not None:
        eos_token_id = int_at_least(eos_token_id, "eos_token_id", 0)
    sel = select_layers(model, x, k=k, by=by, per_sample=True)
    assert isinstance(sel[0], list)
    layers: list[list[int]] = [list(s) for s in sel]  # type: ignore[arg-type]
    union = sorted({i for s in layers for i in s})
    mask = torch.tensor([[float(i in s) for i in union] for s in layers])
    bias = RouterBias(model, layers=union, batch=x.shape[0], mask=mask)
    out = ReroutedGeneration(ids=x, layers=layers)
    done = torch.zeros(x.shape[0], dtype=torch.bool, device=x.device)
    try:
        while True:
            res = adapt(model, out.ids, bias=bias, steps=steps, lr=lr, l2=l2)
            out.fits += 1
            out.losses.append(res.losses)
            made = out.ids.shape[1] - x.shape[1]
            if made >= n_new:
                break
            want = min(every, n_new - made)
            new = greedy(model, out.ids, want, eos_token_id=eos_token_id)
            tail = new[:, out.ids.shape[1]:]
            out.ids = new
            if tail.shape[1] < want:  # the model's own generation config stopped every sequence (its EOS)
                break
            if eos_token_id is not None:
                done |= (tail == eos_token_id).any(dim=1)
                if bool(done.all()):
                    break
            if out.ids.shape[1] - x.shape[1] >= n_new:
                break
    finally:
        bias.remove()
    return out
