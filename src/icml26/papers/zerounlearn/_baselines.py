"""The baselines [P27] compares with, on the same layers' down-projections and the same forget prompts: gradient
ascent on the true answers, fine-tuning to EOS, MEMIT-to-EOS and an AlphaEdit-style null-space edit to EOS.

Equal budget: the gradient methods take as many Adam steps as one value search of :func:`compute_z` (``steps``,
the paper: 25) on the same parameters; MEMIT and AlphaEdit run the one value search that ZeroUnlearn runs first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import torch

from icml26.common.validation import positive_int, real
from icml26.papers.zerounlearn._algebra import alphaedit_delta, memit_delta, null_space_projector
from icml26.papers.zerounlearn._edit import (
    UnlearnResult,
    _check_prompts_named,
    _common,
    _search_kw,
    neutral_values,
    spread_targets,
)
from icml26.papers.zerounlearn._model import Stack, check_layers, down_proj, frozen, pad_rows
from icml26.papers.zerounlearn._prompts import Prompts, target_ids
from icml26.papers.zerounlearn._stats import RetainStats
from icml26.papers.zerounlearn._z import ZResult

__all__ = ["alphaedit_eos", "finetune_eos", "gradient_ascent", "memit_eos"]


def _additive(model: Any, forget: Prompts, *, layers: Sequence[int], retain_stats: RetainStats, target: str | None,
              kw: dict[str, Any], method: str, update: Callable[..., torch.Tensor], z_new: ZResult | None
              ) -> UnlearnResult:
    forget, lays = _common(model, forget, layers, retain_stats)
    t0 = time.perf_counter()
    out = UnlearnResult(method, lays, {lay: down_proj(model, lay).weight.detach().clone() for lay in lays},
                        kw["steps"])
    z_new = neutral_values(model, forget, lays, target, kw, z_new)
    out.searches, out.passes = 1, z_new.passes
    for i, lay in enumerate(lays):
        w = down_proj(model, lay).weight
        k, _, r = spread_targets(model, forget, lays, i, z_new)
        delta = update(r, k, lay)
        with torch.no_grad():
            w.add_(delta.to(w.dtype))
        out.matrices[lay] = delta
    out.seconds = time.perf_counter() - t0
    return out


def memit_eos(model: Any, forget: Prompts, *, layers: Sequence[int], retain_stats: RetainStats,
              target: str | None = None, steps: int = 25, lr: float = 0.1, clamp: float = 0.75, kl: float = 0.0625,
              weight_decay: float = 0.5, retain_weight: float = 15000.0, z_new: ZResult | None = None
              ) -> UnlearnResult:
    """MEMIT with the neutral target (the [P27] baseline "MEMIT"): W ← W + Rᵀ K (λ_w C + Kᵀ K)⁻¹ per layer, R the
    spread residuals toward z_new, C = E_retain[k kᵀ], λ_w = ``retain_weight`` (MEMIT's 15000). ``z_new``: the
    neutral-value search already run for this forget set (as :func:`zero_unlearn` takes it), else run here."""
    kw = _search_kw(steps, lr, clamp, kl, weight_decay)
    wr = real(retain_weight, "retain_weight", lo=0.0)
    return _additive(model, forget, layers=layers, retain_stats=retain_stats, target=target, kw=kw, method="memit",
                     update=lambda r, k, lay: memit_delta(r, k, retain_stats.kk[lay], weight=wr), z_new=z_new)


def alphaedit_eos(model: Any, forget: Prompts, *, layers: Sequence[int], retain_stats: RetainStats,
                  target: str | None = None, steps: int = 25, lr: float = 0.1, clamp: float = 0.75,
                  kl: float = 0.0625, weight_decay: float = 0.5, null_threshold: float = 0.02, l2: float = 10.0,
                  z_new: ZResult | None = None) -> UnlearnResult:
    """AlphaEdit with the neutral target (the [P27] baseline "AlphaEdit"): W ← W + Rᵀ K P (Kᵀ K P + α I)⁻¹, P the
    projector onto the eigenvectors of E_retain[k kᵀ] below ``null_threshold`` (its 2e-2), α = ``l2`` (its 10).
    ``z_new``: as in :func:`memit_eos`."""
    kw = _search_kw(steps, lr, clamp, kl, weight_decay)
    thr, l2 = real(null_threshold, "null_threshold", lo=0.0), real(l2, "l2", lo=0.0, lo_open=True)
    return _additive(model, forget, layers=layers, retain_stats=retain_stats, target=target, kw=kw,
                     method="alphaedit", update=lambda r, k, lay: alphaedit_delta(
                         r, k, null_space_projector(retain_stats.kk[lay], threshold=thr), l2=l2), z_new=z_new)


def _gradient(model: Any, forget: Any, *, layers: Sequence[int], steps: Any, lr: Any, target: Any, ascent: bool,
              method: str, on_step: Callable[[int], bool] | None) -> UnlearnResult:
    forget = _check_prompts_named(forget)
    lays = check_layers(model, layers)
    steps, lr = positive_int(steps, "steps"), real(lr, "lr", lo=0.0, lo_open=True)
    if on_step is not None and not callable(on_step):
        raise TypeError("on_step must be a callable taking the step number, or None")
    t0 = time.perf_counter()
    tgt = target_ids(forget.tokenizer, target, len(forget))
    rows, pred = [], []
    for j, r in enumerate(forget.plain):
        rows.append(r.ids + tgt[r.fact][:-1])
        pred.extend((j, len(r.ids) - 1 + k, t) for k, t in enumerate(tgt[r.fact]))
    ids, mask = pad_rows(rows, forget.pad_id)
    p = torch.tensor(pred, dtype=torch.long)
    params = [down_proj(model, lay).weight for lay in lays]
    out = UnlearnResult(method, lays, {lay: w.detach().clone() for lay, w in zip(lays, params)}, steps, searches=1)
    with frozen(model, *params):
        stack = Stack(model, ids, mask, lays[0])  # nothing below the first edited layer changes
        opt = torch.optim.Adam(params, lr=lr)
        for s in range(1, steps + 1):
            final = stack.run()
            logp = torch.log_softmax(stack.logits(final, p[:, 0], p[:, 1]).float(), dim=-1)
            nll = -logp.gather(1, p[:, 2:3]).mean()
            opt.zero_grad()
            (-nll if ascent else nll).backward()
            opt.step()
            out.passes += len(rows)
            if on_step is not None and on_step(s):
                break
    out.seconds = time.perf_counter() - t0
    return out


def gradient_ascent(model: Any, forget: Prompts, *, layers: Sequence[int], steps: int = 25, lr: float = 5e-3,
                    on_step: Callable[[int], bool] | None = None) -> UnlearnResult:
    """Gradient ascent (the [P27] baseline "GA"): ``steps`` Adam steps (lr ``lr``, the paper's 5e-3) that raise the
    NLL of each forget fact's true answer, on the down-projections of ``layers``. ``on_step(s)`` is called after
    step s; returning ``True`` stops."""
    return _gradient(model, forget, layers=layers, steps=steps, lr=lr,
                     target=[f.answer for f in _check_prompts_named(forget).facts], ascent=True, method="ga",
                     on_step=on_step)


def finetune_eos(model: Any, forget: Prompts, *, layers: Sequence[int], steps: int = 25, lr: float = 5e-4,
                 target: str | None = None, on_step: Callable[[int], bool] | None = None) -> UnlearnResult:
    """Fine-tuning to the neutral target (the [P27] baseline "FT"): ``steps`` Adam steps (the paper's lr 5e-4) that
    lower the NLL of ``target`` (default EOS) after each forget prompt, on the down-projections of ``layers``."""
    forget = _check_prompts_named(forget)
    return _gradient(model, forget, layers=layers, steps=steps, lr=lr, target=forget.eos if target is None else target,
                     ascent=False, method="ft", on_step=on_step)
