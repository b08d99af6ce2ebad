"""ZeroUnlearn [P27]: map each forget prompt to a neutral target state and remove its original representation, by a
multiplicative closed-form edit W ← D W of the MLP down-projection of a few consecutive layers; and its gradient
variant for larger forget sets."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from icml26.common.validation import positive_int, real
from icml26.papers.zerounlearn._algebra import closed_form_edit, null_space_basis, sensitive_projector
from icml26.papers.zerounlearn._model import check_layers, down_proj
from icml26.papers.zerounlearn._prompts import Prompts
from icml26.papers.zerounlearn._stats import RetainStats, forget_keys, residual_at
from icml26.papers.zerounlearn._z import ZResult, check_prompts, compute_z

__all__ = ["UnlearnResult", "zero_unlearn", "zero_unlearn_gd"]


@dataclass(eq=False)
class UnlearnResult:
    """What an unlearning method did to a model (edited in place) [P27].

    Attributes:
        method: its name. layers: the decoder layers whose down-projection changed.
        original: layer -> the down-projection weight before the edit (for :meth:`restore`).
        steps: the optimiser-step budget of each optimisation (a value search or the gradient method's own loop).
        searches: optimisations run (value searches for the editing methods, 1 for a gradient method).
        passes: prompt rows run forward and backward in all.
        seconds: wall-clock of the whole method.
        matrices: layer -> D (multiplicative methods) or ΔW (additive ones), float64.
    """

    method: str
    layers: tuple[int, ...]
    original: dict[int, Tensor]
    steps: int
    searches: int = 0
    passes: int = 0
    seconds: float = 0.0
    matrices: dict[int, Tensor] = field(default_factory=dict)

    def restore(self, model: Any) -> None:
        """Put the original down-projections back [P27: undo the edit]."""
        with torch.no_grad():
            for lay, w in self.original.items():
                down_proj(model, lay).weight.copy_(w)


def _common(model: Any, forget: Any, layers: Any, retain_stats: Any) -> tuple[Prompts, tuple[int, ...]]:
    forget = _check_prompts_named(forget)
    lays = check_layers(model, layers)
    if not isinstance(retain_stats, RetainStats):
        raise TypeError(f"retain_stats must be RetainStats (from retain_statistics), got {type(retain_stats).__name__}")
    missing = [lay for lay in lays if lay not in retain_stats.kk]
    if missing:
        raise ValueError(f"retain_stats has no moments for layers {missing} (it holds {list(retain_stats.layers)})")
    return forget, lays


def _check_prompts_named(forget: Any) -> Prompts:
    if isinstance(forget, Sequence) and not isinstance(forget, (str, Prompts)) and len(forget) == 0:
        raise ValueError("forget must not be empty: give at least one fact (make_prompts)")
    try:
        return check_prompts(forget)
    except TypeError:
        raise TypeError(f"forget must be Prompts (from make_prompts), got {type(forget).__name__}") from None


def _search_kw(steps: Any, lr: Any, clamp: Any, kl: Any, weight_decay: Any) -> dict[str, Any]:
    return {"steps": positive_int(steps, "steps"), "lr": real(lr, "lr", lo=0.0, lo_open=True),
            "clamp": real(clamp, "clamp", lo=0.0, lo_open=True), "kl": real(kl, "kl", lo=0.0),
            "weight_decay": real(weight_decay, "weight_decay", lo=0.0)}


def neutral_values(model: Any, forget: Prompts, lays: tuple[int, ...], target: str | None, kw: dict[str, Any],
                   given: Any = None) -> ZResult:
    """z_new: the last edited layer's residual stream that makes the model emit the neutral target (EOS); ``given``
    (a :class:`ZResult` of that search, one row per forget fact) is used as it is."""
    if given is None:
        return compute_z(model, forget, forget.eos if target is None else target, layer=lays[-1], site="block", **kw)
    if not isinstance(given, ZResult):
        raise TypeError(f"z_new must be a ZResult (from compute_z) or None, got {type(given).__name__}")
    d = down_proj(model, lays[-1]).weight.shape[0]
    if tuple(given.z.shape) != (len(forget), d):
        raise ValueError(f"z_new.z must have shape ({len(forget)}, {d}) (one row per forget fact), got "
                         f"{tuple(given.z.shape)}")
    return given


def spread_targets(model: Any, forget: Prompts, lays: tuple[int, ...], i: int, z_new: ZResult
                   ) -> tuple[Tensor, Tensor, Tensor]:
    """K_f, V_f and the residual R = (z_new − h^L) / (|L| − i) at layer ``lays[i]`` (MEMIT's spread of the
    residual over the remaining layers), float64."""
    k, v = forget_keys(model, forget, lays[i])
    h = residual_at(model, forget, lays[-1])
    return k, v, (z_new.z.double() - h) / (len(lays) - i)


def zero_unlearn(model: Any, forget: Prompts, *, layers: Sequence[int], retain_stats: RetainStats,
                 target: str | None = None, steps: int = 25, lr: float = 0.1, clamp: float = 0.75,
                 kl: float = 0.0625, weight_decay: float = 0.5, retain_weight: float = 15000.0,
                 forget_weight: float = 50.0, lam: float = 1.0, eps: float = 0.01, projector: bool = True,
                 z_new: ZResult | None = None) -> UnlearnResult:
    """ZeroUnlearn [P27] (Sec. 3): edit ``model`` in place so that it maps every forget prompt to a neutral state.

    1. z_new = :func:`compute_z` at the last edited layer's residual stream with ``target`` (default: EOS).
    2. For each layer l of ``layers`` in order (on the model as edited so far):
       Z_true = :func:`compute_z` at l's down-projection with the true answers; P = :func:`sensitive_projector`;
       K_f, V_f = the down-projection's input and output at each forget subject (context-averaged), and
       V_f' = V_f + (z_new − h^L) / (|L| − i);
       Σ_VK = λ_w E_retain[v kᵀ] + λ_f V_f'ᵀ K_f,  Σ_KK = λ_w E_retain[k kᵀ] + λ_f K_fᵀ K_f;
       W ← D W with D = :func:`closed_form_edit` (W, P, Σ_VK, Σ_KK, λ).
    Retained inputs keep W k up to the removal of their component along span(Z_true) (P W k); forget inputs are
    mapped to the neutral state with that component removed too (representational orthogonality).

    Args:
        model: a Llama-style transformers causal LM; its ``layers``' down-projections are replaced.
        forget: the forget set (:func:`make_prompts`, at least one fact).
        layers: consecutive middle decoder layers (the paper: 16-18 of Llama-3.2-3B's 28).
        retain_stats: :func:`retain_statistics` of the same model over a retain corpus, covering ``layers``.
        target: the neutral continuation (``None``: the tokenizer's EOS token).
        steps: Adam steps of both value searches (:func:`compute_z`; the paper: 25).
        lr: their learning rate (0.1).
        clamp: their bound ‖δ‖ <= clamp · ‖v‖ (0.75).
        kl: their KL weight (0.0625).
        weight_decay: their weight decay on ‖δ‖ / ‖v‖² (0.5).
        retain_weight: λ_w, the weight of the retain moments (15000).
        forget_weight: λ_f, the weight of the forget keys and targets (50).
        lam: λ, the pull of D W towards P W (1).
        eps: ε of P (0.01).
        projector: ``False`` gives the ablation without the orthogonal projection (P = I, no Z_true search).
        z_new: step 1's search, when already run on this unedited model for this forget set (:func:`compute_z` at
            ``layers[-1]``, ``site="block"``, the neutral target): reused, so that several edits share it.
    """
    forget, lays = _common(model, forget, layers, retain_stats)
    kw = _search_kw(steps, lr, clamp, kl, weight_decay)
    wr, wf = real(retain_weight, "retain_weight", lo=0.0), real(forget_weight, "forget_weight", lo=0.0)
    lam, eps = real(lam, "lam", lo=0.0), real(eps, "eps", lo=0.0)
    if not isinstance(projector, bool):
        raise TypeError(f"projector must be a bool, got {type(projector).__name__}")
    t0 = time.perf_counter()
    out = UnlearnResult("zerounlearn" if projector else "zerounlearn_no_op", lays,
                        {lay: down_proj(model, lay).weight.detach().clone() for lay in lays}, kw["steps"])
    z_new = neutral_values(model, forget, lays, target, kw, z_new)
    out.searches, out.passes = 1, z_new.passes
    answers = [f.answer for f in forget.facts]
    for i, lay in enumerate(lays):
        w = down_proj(model, lay).weight
        w64 = w.detach().double()
        if projector:
            z_true = compute_z(model, forget, answers, layer=lay, site="mlp", **kw)
            out.searches, out.passes = out.searches + 1, out.passes + z_true.passes
            p = sensitive_projector(z_true.z, eps=eps)
        else:
            p = torch.eye(w.shape[0], dtype=torch.float64)
        k, v, r = spread_targets(model, forget, lays, i, z_new)
        s_vk = wr * retain_stats.vk[lay] + wf * (v + r).T @ k
        s_kk = wr * retain_stats.kk[lay] + wf * k.T @ k
        d = closed_form_edit(w64, p, s_vk, s_kk, lam=lam)
        with torch.no_grad():
            w.copy_((d @ w64).to(w.dtype))
        out.matrices[lay] = d
    out.seconds = time.perf_counter() - t0
    return out


def _gd_delta(w: Tensor, k: Tensor, v: Tensor, vt: Tensor, u0: Tensor, *, steps: int, lr: float, align: float,
              norm: float) -> Tensor:
    """D̂ (d × m) minimising ‖Vᵀ(W + D̂P)K_fᵀ‖² + align ‖(W + D̂P)K_fᵀ − V_f'ᵀ‖² + norm ‖D̂P‖², P = U₀U₀ᵀ (Adam)."""
    pk = u0 @ (u0.T @ k.T)  # P K_fᵀ, m × n
    wk = w @ k.T
    dhat = torch.zeros_like(w, requires_grad=True)
    opt = torch.optim.Adam([dhat], lr=lr)
    for _ in range(steps):
        out = wk + dhat @ pk
        loss = (vt @ out).square().sum() + align * (out - v.T).square().sum() + norm * (dhat @ u0).square().sum()
        if float(loss.detach()) < 1e-8:
            break
        opt.zero_grad()
        loss.backward()
        opt.step()
    return (dhat.detach() @ u0) @ u0.T


def zero_unlearn_gd(model: Any, forget: Prompts, *, layers: Sequence[int], retain_stats: RetainStats,
                    target: str | None = None, steps: int = 25, lr: float = 0.1, clamp: float = 0.75,
                    kl: float = 0.0625, weight_decay: float = 0.5, gd_steps: int = 500, gd_lr: float = 1e-3,
                    null_threshold: float = 0.01, align_weight: float = 100.0, norm_weight: float = 0.1,
                    ) -> UnlearnResult:
    """ZeroUnlearn-GD [P27] (the gradient-based variant for multi-sample unlearning): per layer an additive update
    ΔW = D̂ P, P the projector onto the near-null space of the retain keys (eigenvalues of E[k kᵀ] below
    ``null_threshold``), with D̂ found by ``gd_steps`` Adam steps (``gd_lr``) on
        ‖V_T (W + ΔW) K_fᵀ‖² + ``align_weight`` ‖(W + ΔW) K_fᵀ − V_f'ᵀ‖² + ``norm_weight`` ‖ΔW‖²,
    V_T the sensitive directions (the orthonormal basis of Z_true) and V_f' the spread neutral targets as in
    :func:`zero_unlearn` (whose value-search arguments it shares). Weights as released with the paper's code.
    """
    forget, lays = _common(model, forget, layers, retain_stats)
    kw = _search_kw(steps, lr, clamp, kl, weight_decay)
    gd_steps, gd_lr = positive_int(gd_steps, "gd_steps"), real(gd_lr, "gd_lr", lo=0.0, lo_open=True)
    thr = real(null_threshold, "null_threshold", lo=0.0)
    align, norm = real(align_weight, "align_weight", lo=0.0), real(norm_weight, "norm_weight", lo=0.0)
    t0 = time.perf_counter()
    out = UnlearnResult("zerounlearn_gd", lays, {lay: down_proj(model, lay).weight.detach().clone() for lay in lays},
                        kw["steps"])
    z_new = neutral_values(model, forget, lays, target, kw)
    out.searches, out.passes = 1, z_new.passes
    answers = [f.answer for f in forget.facts]
    for i, lay in enumerate(lays):
        w = down_proj(model, lay).weight
        z_true = compute_z(model, forget, answers, layer=lay, site="mlp", **kw)
        out.searches, out.passes = out.searches + 1, out.passes + z_true.passes
        _, s, vh = torch.linalg.svd(z_true.z.double(), full_matrices=False)
        vt = vh[s > max(vh.shape) * torch.finfo(torch.float64).eps * float(s[0])]
        k, v, r = spread_targets(model, forget, lays, i, z_new)
        v = v + r
        u0 = null_space_basis(retain_stats.kk[lay], threshold=thr)
        delta = _gd_delta(w.detach().double(), k, v, vt, u0, steps=gd_steps, lr=gd_lr, align=align, norm=norm)
        with torch.no_grad():
            w.add_(delta.to(w.dtype))
        out.matrices[lay] = delta
    out.seconds = time.perf_counter() - t0
    return out
