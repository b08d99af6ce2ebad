"""In-context routing optimisation of [P34] (Fig. 1a, §Method): layer selection by routing confidence and the
self-supervised fit of δ on the context, with every model weight frozen.

The objective (the notes' reading of "self-supervised loss from existing context"): the mean next-token
cross-entropy of the context itself (prompt and everything generated so far) plus λ‖δ‖², minimised over δ only by
Adam for a few steps. With one δ per sequence (``per_sample=True``) the batch objective is the sum of the
per-sequence objectives, so each δ_b gets exactly its own sequence's gradient and Adam (elementwise) runs the B
fits independently in one batched pass.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26.common.validation import choice, int_array, int_at_least, positive_int, real
from icml26.papers.moe_tta._routers import RouterBias, moe_layers

__all__ = ["AdaptResult", "adapt", "as_ids", "context_ce", "logits_of", "routing_stats", "select_layers"]

BY = ("entropy", "topk_mass")


def _vocab(model: nn.Module) -> int | None:
    cfg = getattr(model, "config", None) or getattr(model, "cfg", None)
    v = getattr(cfg, "vocab_size", None)
    return int(v) if isinstance(v, int) else None


def as_ids(ids: Any, model: nn.Module, *, name: str = "ids", min_len: int = 1) -> Tensor:
    """[P34] token ids as a (batch, time) int64 tensor, checked against ``model``'s vocabulary."""
    if isinstance(ids, Tensor):
        if ids.dtype.is_floating_point or ids.dtype.is_complex or ids.dtype == torch.bool:
            raise TypeError(f"{name} must hold integer token ids, got dtype {ids.dtype}")
        ids = ids.detach().cpu().numpy()
    arr = int_array(ids, name, ndim=(1, 2))
    arr = arr[None, :] if arr.ndim == 1 else arr
    if arr.shape[1] < min_len:
        raise ValueError(f"{name} must hold at least {min_len} tokens per sequence, got {arr.shape[1]}")
    vocab = _vocab(model)
    if arr.min() < 0 or (vocab is not None and arr.max() >= vocab):
        raise ValueError(f"{name}: token ids must lie in [0, {vocab}), got [{arr.min()}, {arr.max()}]")
    dev = next(model.parameters()).device
    return torch.as_tensor(arr, dtype=torch.long, device=dev)


def logits_of(model: nn.Module, ids: Tensor) -> Tensor:
    """[P34] next-token logits (B, T, V) of a TinyGPT or a transformers causal LM (no cache, no router outputs)."""
    if isinstance(getattr(model, "blocks", None), nn.ModuleList):
        return model(ids)
    kw: dict[str, Any] = {"input_ids": ids, "use_cache": False}
    if "output_router_logits" in inspect.signature(model.forward).parameters:
        kw["output_router_logits"] = False
    return model(**kw).logits


def context_ce(model: nn.Module, ids: Tensor) -> Tensor:
    """[P34] the self-supervised loss: mean next-token cross-entropy of each sequence of ``ids`` (B,), in nats."""
    lg = logits_of(model, ids)[:, :-1]
    lg = lg if lg.dtype == torch.float64 else lg.float()  # half-precision models: the loss in float32
    tgt = ids[:, 1:]
    ce = F.cross_entropy(lg.reshape(-1, lg.shape[-1]), tgt.reshape(-1), reduction="none")
    return ce.view(tgt.shape).mean(dim=1)


@torch.no_grad()
def routing_stats(model: nn.Module, ids: Any, *, per_sample: bool = False) -> dict[str, np.ndarray]:
    """[P34] routing confidence per MoE layer on ``ids``: mean entropy of softmax(router logits) and mean top-k mass.

    Returns ``{"layers": (L,), "entropy": (L,), "topk_mass": (L,)}``, or (B, L) per sequence with ``per_sample``;
    the router logits are taken as the model routes now (with any attached :class:`RouterBias`).
    """
    layers = moe_layers(model)
    x = as_ids(ids, model)
    b = x.shape[0]
    seen: dict[int, Tensor] = {}

    def capture(j: int) -> Any:
        def hook(_mod: nn.Module, _args: Any, out: Any) -> None:
            lg = out[0] if isinstance(out, tuple) else out
            seen[j] = lg.detach().float().reshape(b, -1, lg.shape[-1])
        return hook

    handles = [layer.router.register_forward_hook(capture(j)) for j, layer in enumerate(layers)]
    try:
        logits_of(model, x)
    finally:
        for h in handles:
            h.remove()
    ent, mass = [], []
    for j, layer in enumerate(layers):
        p = torch.softmax(seen[j], dim=-1)
        ent.append(torch.special.entr(p).sum(-1).mean(-1))
        mass.append(p.topk(layer.top_k, dim=-1).values.sum(-1).mean(-1))
    e, m = torch.stack(ent, -1).double().numpy(), torch.stack(mass, -1).double().numpy()
    if not per_sample:
        e, m = e.mean(0), m.mean(0)
    return {"layers": np.array([layer.index for layer in layers]), "entropy": e, "topk_mass": m}


def select_layers(model: nn.Module, ids: Any, *, k: int, by: str = "entropy",
                  per_sample: bool = False) -> list[int] | list[list[int]]:
    """[P34] Fig. 1a: the k MoE layers of highest routing confidence on the context ``ids``.

    ``by="entropy"``: the lowest mean routing entropy; ``by="topk_mass"``: the highest mean top-k probability
    mass. Ties go to the lower layer; the result is in increasing layer order (one list per sequence with
    ``per_sample``). Which confidence measure the paper uses is not in its abstract: both are offered.
    """
    by = choice(by, "by", BY)
    n = len(moe_layers(model))
    k = positive_int(k, "k", hi=n)
    st = routing_stats(model, ids, per_sample=per_sample)
    score = st["entropy"] if by == "entropy" else -st["topk_mass"]
    idx = st["layers"]

    def pick(s: np.ndarray) -> list[int]:
        order = np.lexsort((idx, s))  # by score, then by layer index
        return sorted(int(idx[i]) for i in order[:k])

    return [pick(s) for s in score] if per_sample else pick(score)


@contextlib.contextmanager
def frozen(model: nn.Module) -> Iterator[None]:
    """Every parameter of ``model`` without gradients, and eval mode, for the duration (restored after)."""
    flags = [(p, p.requires_grad) for p in model.parameters()]
    was_training = model.training
    for p, _ in flags:
        p.requires_grad_(False)
    model.eval()
    try:
        yield
    finally:
        for p, f in flags:
            p.requires_grad_(f)
        model.train(was_training)


@dataclass
class AdaptResult:
    """[P34] what :func:`adapt` did: the (attached) bias and the objective before each Adam step."""

    bias: RouterBias
    losses: list[float] = field(default_factory=list)
    ce_start: list[float] = field(default_factory=list)  # context CE per sequence before the first step


def _bias_for(model: nn.Module, x: Tensor, layers: Any, per_sample: bool) -> RouterBias:
    if layers is None or not per_sample or not (len(layers) and isinstance(layers[0], (list, tuple, np.ndarray))):
        return RouterBias(model, layers=layers, batch=x.shape[0] if per_sample else None)
    if len(layers) != x.shape[0]:
        raise ValueError(f"layers: {len(layers)} per-sequence selections for a batch of {x.shape[0]}")
    union = sorted({int(i) for sel in layers for i in int_array(sel, "layers", ndim=1)})
    mask = torch.tensor([[float(i in {int(v) for v in sel}) for i in union] for sel in layers])
    return RouterBias(model, layers=union, batch=x.shape[0], mask=mask)


def adapt(model: nn.Module, ids: Any, *, layers: Sequence[int] | Sequence[Sequence[int]] | None = None,
          steps: int = 10, lr: float = 0.1, l2: float = 1e-3, bias: RouterBias | None = None,
          per_sample: bool = False) -> AdaptResult:
    """[P34] §Method, phase A: minimise CE(context | δ) + λ‖δ‖² over δ only, for ``steps`` Adam steps.

    ``layers``: the biased MoE layers (``None``: all; with ``per_sample``, one list per sequence is allowed);
    ``bias``: an existing :class:`RouterBias` to continue from (its δ warm-starts the fit, as in the paper's periodic
    re-adaptation) instead of a new one. Every model weight is frozen during the fit; the returned bias is attached.
    Defaults (10 steps, lr 0.1, λ = 1e-3) are the notes' protocol, not numbers from the paper.
    """
    x = as_ids(ids, model, min_len=2)
    steps = int_at_least(steps, "steps", 0)
    lr = real(lr, "lr", lo=0.0, lo_open=True)
    l2 = real(l2, "l2", lo=0.0)
    if bias is None:
        bias = _bias_for(model, x, layers, per_sample)
    elif not isinstance(bias, RouterBias) or bias.model is not model:
        raise TypeError("bias must be a RouterBias built on this model")
    elif bias.batch is not None and bias.batch != x.shape[0]:
        raise ValueError(f"ids: batch {x.shape[0]} differs from the bias batch {bias.batch}")
    bias.attach()
    res = AdaptResult(bias)
    opt = torch.optim.Adam([bias.delta], lr=lr)
    with frozen(model), torch.enable_grad():
        for step in range(steps):
            ce = context_ce(model, x)
            obj = (ce + l2 * bias.sq_norm()).sum() if bias.batch is not None else ce.mean() + l2 * bias.sq_norm()
            if step == 0:
                res.ce_start = ce.detach().double().tolist()
            opt.zero_grad(set_to_none=True)
            obj.backward()
            opt.step()
            res.losses.append(float(obj.detach()))
    return res
