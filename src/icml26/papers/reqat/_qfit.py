"""Q-FIT, the quantisation-friendly initialisation of [P11] (§2 of the notes, "Q-FIT"): per attention layer,

    Q̃ = R(Q_pre ⊙ s),   K̃ = R(K_pre ⊘ s) − m,   s = s0^α_s,   m = α_m · mean_t R(K_pre ⊘ s),

with R the rotary embedding and s0_r = max(max_t |K_pre,r|, max_t |K_pre,r'|) over the two channels (r, r') that RoPE
rotates together (so s commutes with R: s_r = s_r'). (α_s, α_m) is picked on a grid over [0, 1]² to minimise the mean
squared error between the full-precision and the KV4 attention logits Q̃ K̃ᵀ / √d (causal positions) on calibration
sequences. s is folded into W_Q and W_K (Q·K is unchanged), m is subtracted from the keys before the KV cache
quantiser (softmax is invariant to it): without quantisation the model computes exactly what it did.

The pairs are (r, r + d/2) for transformers' rotate-half RoPE and (2i, 2i + 1) for TinyGPT's interleaved RoPE.
MXFP4's extra block-Hadamard rotation of the paper is not implemented (see the card).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

from icml26.common.validation import int_at_least
from icml26.papers.reqat._fakequant import FP4Scheme, _quantize, resolve_scheme
from icml26.papers.reqat._formats import FORMATS
from icml26.papers.reqat._model import _is_hf, attention_layers

__all__ = ["QFitResult", "kv_score_error", "qfit"]


@dataclass
class _Layer:
    """One attention layer's calibration tensors: pre-RoPE Q (B, Hq, T, d) and K (B, Hkv, T, d) and its RoPE."""

    q: Tensor
    k: Tensor
    half: bool  # rotate-half pairs (transformers) or interleaved pairs (TinyGPT)
    cos: Tensor | None = None  # (T, d) for rotate-half
    sin: Tensor | None = None

    def rope(self, x: Tensor) -> Tensor:
        if self.half:
            assert self.cos is not None and self.sin is not None
            d = x.shape[-1] // 2
            rot = torch.cat((-x[..., d:], x[..., :d]), dim=-1)
            return x * self.cos + rot * self.sin
        from icml26.common.nn import apply_rope

        return apply_rope(x, torch.arange(x.shape[-2]))


@dataclass
class QFitResult:
    """What :func:`qfit` chose per layer ([P11] Q-FIT): (α_s, α_m), the folded scales s (Hkv, d), the key shifts m
    (Hkv, d) for :func:`~icml26.papers.reqat.quantize_model`'s ``k_shift``, and the calibration logit MSE before
    (α = 0) and after."""

    alphas: list[tuple[float, float]] = field(default_factory=list)
    scales: list[Tensor] = field(default_factory=list)
    shifts: list[Tensor] = field(default_factory=list)
    mse_before: list[float] = field(default_factory=list)
    mse_after: list[float] = field(default_factory=list)


def _dims(model: nn.Module, attn: nn.Module) -> tuple[int, int, int]:
    """(query heads, key/value heads, head dim) of one attention layer."""
    if _is_hf(model):
        cfg = getattr(model, "config")
        hd = int(getattr(attn, "head_dim"))
        return int(cfg.num_attention_heads), int(cfg.num_key_value_heads), hd
    h = int(getattr(attn, "n_head"))
    return h, h, int(getattr(attn, "q").out_features) // h


def _rotary(model: nn.Module, T: int) -> tuple[Tensor, Tensor]:
    """cos, sin (T, d) of a transformers model's own rotary embedding at positions 0..T-1."""
    rot = next((m for _, m in model.named_modules() if type(m).__name__.endswith("RotaryEmbedding")), None)
    if rot is None:
        raise ValueError("model has no rotary embedding module: Q-FIT needs RoPE")
    pos = torch.arange(T)[None]
    cos, sin = rot(torch.zeros(1, T, 1), pos)
    return cos[0].float(), sin[0].float()


@torch.no_grad()
def capture(model: nn.Module, ids: Tensor) -> tuple[list[_Layer], object]:
    """Run ``model`` on ``ids``; every attention layer's pre-RoPE Q and K (float32) and the model's output."""
    attns = attention_layers(model)
    if not attns:
        raise ValueError("model has no attention layers with q/k/v projections")
    hf = _is_hf(model)
    got: dict[int, dict[str, Tensor]] = {i: {} for i in range(len(attns))}
    hooks = []
    for i, a in enumerate(attns):
        for key, lin in (("q", getattr(a, "q_proj" if hf else "q")), ("k", getattr(a, "k_proj" if hf else "k"))):
            hooks.append(lin.register_forward_hook(
                lambda _m, _inp, out, i=i, key=key: got[i].__setitem__(key, out.detach().float())))
    try:
        output = model(ids)
    finally:
        for h in hooks:
            h.remove()
    B, T = ids.shape
    cos, sin = _rotary(model, T) if hf else (None, None)
    layers = []
    for i, a in enumerate(attns):
        hq, hkv, d = _dims(model, a)
        q = got[i]["q"].view(B, T, hq, d).transpose(1, 2)
        k = got[i]["k"].view(B, T, hkv, d).transpose(1, 2)
        layers.append(_Layer(q, k, hf, cos, sin))
    return layers, output


def _pair_max(s0: Tensor, half: bool) -> Tensor:
    """Max over the two channels RoPE rotates together, written back to both (Hkv, d)."""
    d = s0.shape[-1]
    if half:
        m = torch.maximum(s0[..., : d // 2], s0[..., d // 2:])
        return torch.cat((m, m), dim=-1)
    m = torch.maximum(s0[..., 0::2], s0[..., 1::2])
    return m.repeat_interleave(2, dim=-1)


def _logit_mse(q: Tensor, k: Tensor, scheme: FP4Scheme) -> Tensor:
    """Per sequence (B,), the mean squared error of the causal logits q kᵀ/√d when k goes through the KV quantiser
    (GQA-aware)."""
    B, hq, T, d = q.shape
    hkv = k.shape[1]
    err = _quantize(k, scheme, FORMATS[scheme.kv_element], per_row=True) - k
    qg = q.reshape(B, hkv, (hq // hkv) * T, d)
    e = (qg @ err.transpose(-2, -1)).reshape(B, hkv, hq // hkv, T, T) / d ** 0.5
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return (e[..., causal] ** 2).mean(dim=(1, 2, 3))


def _transform(layer: _Layer, s: Tensor, alpha_m: float) -> tuple[Tensor, Tensor, Tensor]:
    """(Q̃, K̃ − m, m) for scales s (Hkv, d) and mean-shift weight α_m."""
    g = layer.q.shape[1] // layer.k.shape[1]
    qt = layer.rope(layer.q * s.repeat_interleave(g, dim=0)[None, :, None, :])
    kt = layer.rope(layer.k / s[None, :, None, :])
    m = alpha_m * kt.mean(dim=(0, 2))
    return qt, kt - m[None, :, None, :], m


def _search(layer: _Layer, scheme: FP4Scheme, alphas: Tensor) -> tuple[float, float, Tensor, Tensor, float, float]:
    """The grid search of one layer: (α_s, α_m, s, m, MSE at α = 0, best MSE)."""
    s0 = _pair_max(layer.k.abs().amax(dim=(0, 2)), layer.half).clamp(min=1e-6)
    best: tuple[float, float, float] | None = None
    before = float("nan")
    for a_s in alphas.tolist():
        s = s0 ** a_s
        qt, kt, _ = _transform(layer, s, 0.0)
        mean = kt.mean(dim=(0, 2))
        for a_m in alphas.tolist():
            mse = float(_logit_mse(qt, kt - a_m * mean[None, :, None, :], scheme).mean())
            if a_s == 0.0 and a_m == 0.0:
                before = mse
            if best is None or mse < best[2]:
                best = (a_s, a_m, mse)
    assert best is not None
    a_s, a_m, mse = best
    s = s0 ** a_s
    _, _, m = _transform(layer, s, a_m)
    return a_s, a_m, s, m, before, mse


@torch.no_grad()
def _fold(model: nn.Module, attn: nn.Module, s: Tensor) -> None:
    """W_Q rows ⊙ s (per query head, through its key/value head), W_K rows ⊘ s; biases alike."""
    hf = _is_hf(model)
    wq, wk = getattr(attn, "q_proj" if hf else "q"), getattr(attn, "k_proj" if hf else "k")
    hq, hkv, d = _dims(model, attn)
    sq = s.repeat_interleave(hq // hkv, dim=0).reshape(-1)
    sk = s.reshape(-1)
    for lin, f in ((wq, sq), (wk, 1.0 / sk)):
        lin.weight.mul_(f.to(lin.weight.dtype)[:, None])
        if lin.bias is not None:
            lin.bias.mul_(f.to(lin.bias.dtype))


def _ids(ids: object, name: str) -> Tensor:
    if not isinstance(ids, Tensor) or ids.dtype not in (torch.int64, torch.int32) or ids.ndim != 2:
        raise TypeError(f"{name} must be a 2-D integer torch tensor (batch, time), got {type(ids).__name__}")
    if ids.numel() == 0:
        raise ValueError(f"{name} must not be empty")
    return ids.long()


def qfit(model: nn.Module, calib_ids: Tensor, *, scheme: str | FP4Scheme = "nvfp4", grid: int = 20,
         fold: bool = True) -> QFitResult:
    """Q-FIT of [P11] (§2): calibrate (α_s, α_m) per layer on ``calib_ids`` and fold s into W_Q/W_K (in place).

    Args:
        model: a transformers Llama-class model or a rotary TinyGPT, unquantised (full-precision Q and K).
        calib_ids: (batch, time) token ids of calibration sequences (equal length, no padding).
        scheme: the KV4 format whose error is minimised (``scheme.kv_element`` with its block scaling).
        grid: points per axis of the (α_s, α_m) grid on [0, 1] (the paper's 20 × 20).
        fold: fold the scales into the weights (``False``: only report what would be chosen).

    Returns:
        A :class:`QFitResult`; pass ``result.shifts`` as ``k_shift`` to
        :func:`~icml26.papers.reqat.quantize_model`.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch nn.Module, got {type(model).__name__}")
    ids = _ids(calib_ids, "calib_ids")
    s = resolve_scheme(scheme)
    if not s.quantises:
        raise ValueError("scheme must quantise the KV cache (got 'none')")
    n = int_at_least(grid, "grid", 2)
    if not isinstance(fold, bool):
        raise TypeError(f"fold must be a bool, got {type(fold).__name__}")
    layers, _ = capture(model, ids)
    alphas = torch.linspace(0.0, 1.0, n)
    out = QFitResult()
    for attn, layer in zip(attention_layers(model), layers):
        a_s, a_m, sc, m, before, after = _search(layer, s, alphas)
        out.alphas.append((a_s, a_m))
        out.scales.append(sc)
        out.shifts.append(m)
        out.mse_before.append(before)
        out.mse_after.append(after)
        if fold:
            _fold(model, attn, sc)
    return out


def layer_errors(layers: Sequence[_Layer], scheme: FP4Scheme, k_shift: Sequence[Tensor] | None) -> Tensor:
    """(B, n_layers) KV4 logit MSE per sequence and layer of captured layers (keys minus ``k_shift``)."""
    if k_shift is not None and len(k_shift) != len(layers):
        raise ValueError(f"k_shift must hold one tensor per attention layer ({len(layers)}), got {len(k_shift)}")
    cols = []
    for i, layer in enumerate(layers):
        q, k = layer.rope(layer.q), layer.rope(layer.k)
        if k_shift is not None:
            k = k - k_shift[i].float()[None, :, None, :]
        cols.append(_logit_mse(q, k, scheme))
    return torch.stack(cols, dim=1)


@torch.no_grad()
def kv_score_error(model: nn.Module, ids: Tensor, *, scheme: str | FP4Scheme = "nvfp4",
                   k_shift: Sequence[Tensor] | None = None) -> list[float]:
    """Per attention layer, the MSE of the causal logits Q Kᵀ/√d when the post-RoPE keys (minus ``k_shift``, as
    :func:`qfit` returns it) go through the KV4 quantiser ([P11] Q-FIT's objective), averaged over ``ids``."""
    s = resolve_scheme(scheme)
    if not s.quantises:
        raise ValueError("scheme must quantise the KV cache (got 'none')")
    layers, _ = capture(model, _ids(ids, "ids"))
    return layer_errors(layers, s, k_shift).mean(0).tolist()
