"""[P35] Token Channel Selection (TCS): training-free, per-forward-pass channel selection in the FFN.

In a block whose FFN computes fc2(act(fc1(x))), TCS keeps the ⌊C (1 − r)⌋ most important input channels of fc1
(ratio r1 of its C inputs dropped) and/or of fc2 (ratio r2 of the hidden units dropped), chosen afresh for every
forward pass from the activations entering that layer. A channel's importance mixes the class token's magnitude,
weighted up by ``cls_weight``, and the patches' magnitudes weighted by the class token's attention to them (mean
over heads): with x ∈ ℝ^{B×(1+P)×C}, ā_p the class-token attention to patch p (mean over heads and batch) and S a
random sample of the P patches (``sample_ratio``),

    I_c = cls_weight · mean_b |x_{b,0,c}| / (1 + P)  +  mean_{b, p∈S} |x_{b,p,c}| ā_p · P / (1 + P).

One selection serves the whole batch (the authors' choice); ``per_sample=True`` selects for each image apart. The
``mask`` mode zeroes the dropped inputs and keeps the shapes; the ``gather`` mode multiplies only the kept columns of
the weight (what saves time). Both compute the same numbers. The abstract of [P35] gives no formula: the score
follows the authors' released code; there the fc1 selection is made on the pre-norm residual stream and gates the
residual as well, which makes their masked and dense forms differ; here it is made on fc1's own input (after the
LayerNorm), the residual is untouched, and the masked and gathered forms agree exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from icml26.common.validation import choice, real, real_array
from icml26.common.validation import seed as check_seed
from icml26.papers.toast._arch import BlockView, use_eager_attention, vit_blocks
from icml26.papers.toast._scwp import keep_count

__all__ = ["MODES", "SelectedLinear", "ToastHandle", "apply_static_selection", "apply_toast", "channel_importance",
           "kept_channels"]

MODES: tuple[str, ...] = ("mask", "gather")


def _importance(x: Tensor, cls_attn: Tensor | None, cls_weight: float, sample_ratio: float, per_sample: bool,
                gen: torch.Generator) -> Tensor:
    b, n, _ = x.shape
    cls = x[:, 0, :].abs() * cls_weight
    if n == 1:
        return cls if per_sample else cls.mean(dim=0)
    p = n - 1
    m = max(1, int(p * sample_ratio))
    idx = torch.arange(1, n) if m >= p else 1 + torch.sort(torch.randperm(p, generator=gen)[:m]).values
    idx = idx.to(x.device)
    att = torch.full((b, n), 1.0 / n, dtype=x.dtype, device=x.device) if cls_attn is None else cls_attn.to(x.dtype)
    a = att[:, idx]  # (B, m)
    if per_sample:
        patch = (x[:, idx, :].abs() * a[:, :, None]).mean(dim=1)
        return cls / (1 + p) + patch * (p / (1 + p))
    patch = (x[:, idx, :].abs() * a.mean(dim=0)[None, :, None]).mean(dim=(0, 1))
    return cls.mean(dim=0) / (1 + p) + patch * (p / (1 + p))


def _as_generator(seed: int | torch.Generator) -> torch.Generator:
    if isinstance(seed, torch.Generator):
        return seed
    return torch.Generator().manual_seed(check_seed(seed))


def _tensor(x: Any, name: str, ndim: int | tuple[int, ...]) -> Tensor:
    if isinstance(x, Tensor):
        if x.dtype.is_complex:
            raise TypeError(f"{name} must hold real numbers, got dtype {x.dtype}")
        x = x.detach().cpu().numpy()
    return torch.from_numpy(np.ascontiguousarray(real_array(x, name, ndim=ndim, dtype=np.float32)))


def channel_importance(tokens: Any, cls_attn: Any | None = None, *, cls_weight: float = 2.0,
                       sample_ratio: float = 0.02, per_sample: bool = False, seed: int | torch.Generator) -> Tensor:
    """TCS channel importance ([P35] Token Channel Selection; the score of the authors' release).

    Args:
        tokens: (B, 1+P, C) activations entering an FFN projection, class token first.
        cls_attn: (B, 1+P) class-token attention row (mean over heads); ``None``: uniform 1/(1+P).
        cls_weight: weight of the class token's term (the authors' 2).
        sample_ratio: fraction of the P patches sampled for their term, in (0, 1] (the authors' 0.02; at least one).
        per_sample: one importance per image, (B, C), instead of one for the batch, (C,).
        seed: an int or a ``torch.Generator`` for the patch sample.
    """
    x = _tensor(tokens, "tokens", 3)
    b, n, _ = x.shape
    att = None
    if cls_attn is not None:
        att = _tensor(cls_attn, "cls_attn", 2)
        if tuple(att.shape) != (b, n):
            raise ValueError(f"cls_attn must have shape {(b, n)} (batch, tokens), got {tuple(att.shape)}")
    cw = real(cls_weight, "cls_weight", lo=0.0)
    sr = real(sample_ratio, "sample_ratio", lo=0.0, hi=1.0, lo_open=True)
    if not isinstance(per_sample, bool):
        raise TypeError(f"per_sample must be a bool, got {type(per_sample).__name__}")
    return _importance(x, att, cw, sr, per_sample, _as_generator(seed))


def kept_channels(importance: Any, ratio: float) -> Tensor:
    """Indices (ascending) of the ⌊C (1 − ratio)⌋ most important channels, at least one; ties to the lower index.
    ``importance`` (C,) gives (k,), (B, C) gives (B, k) ([P35] TCS)."""
    importance = _tensor(importance, "importance", (1, 2))
    r = real(ratio, "ratio", lo=0.0, hi=1.0, hi_open=True)
    return _kept(importance, r)


def _kept(importance: Tensor, ratio: float) -> Tensor:
    c = importance.shape[-1]
    k = min(c, max(1, keep_count(c, ratio)))
    return torch.sort(torch.argsort(importance, dim=-1, descending=True, stable=True)[..., :k], dim=-1).values


class _ClsAttention:
    """Forward hook on an attention module: keeps its class-token attention row, mean over heads, (B, N)."""

    def __init__(self) -> None:
        self.cls_attn: Tensor | None = None

    def __call__(self, module: nn.Module, inputs: Any, output: Any) -> None:
        probs = output[1] if isinstance(output, tuple) and len(output) > 1 else None
        if probs is None:
            raise RuntimeError("Token Channel Selection needs the attention probabilities; this attention returned none")
        self.cls_attn = probs.detach().mean(dim=1)[:, 0, :]


class SelectedLinear(nn.Module):
    """An ``nn.Linear`` whose input channels are selected per forward pass ([P35] TCS), or fixed (baselines).

    Holds the original layer's ``weight`` and ``bias`` parameters themselves (same names, same storage).
    ``last_kept`` is the selection of the latest call ((k,) or (B, k)).
    """

    def __init__(self, linear: nn.Linear, *, ratio: float, mode: str, source: _ClsAttention | None,
                 cls_weight: float, sample_ratio: float, per_sample: bool, generator: torch.Generator,
                 fixed: Tensor | None = None) -> None:
        super().__init__()
        self.weight = linear.weight
        self.bias = linear.bias
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.ratio, self.mode, self.source, self.fixed = ratio, mode, source, fixed
        self.cls_weight, self.sample_ratio, self.per_sample, self.generator = cls_weight, sample_ratio, per_sample, generator
        self.last_kept: Tensor | None = None

    def forward(self, x: Tensor) -> Tensor:
        if self.fixed is not None:
            kept = self.fixed
        else:
            attn = None if self.source is None else self.source.cls_attn
            imp = _importance(x.detach(), attn, self.cls_weight, self.sample_ratio, self.per_sample, self.generator)
            kept = _kept(imp, self.ratio)
        self.last_kept = kept
        if self.mode == "mask":
            m = torch.zeros(kept.shape[:-1] + (x.shape[-1],), dtype=x.dtype, device=x.device)
            m.scatter_(-1, kept, 1.0)
            return F.linear(x * (m if kept.ndim == 1 else m[:, None, :]), self.weight, self.bias)
        if kept.ndim == 1:
            return F.linear(x.index_select(-1, kept), self.weight.index_select(1, kept), self.bias)
        xs = torch.gather(x, 2, kept[:, None, :].expand(x.shape[0], x.shape[1], kept.shape[1]))
        out = torch.bmm(xs, self.weight.t()[kept])
        return out if self.bias is None else out + self.bias


@dataclass
class ToastHandle:
    """What :func:`apply_toast` (or :func:`apply_static_selection`) changed; ``remove()`` undoes it ([P35] TCS)."""

    model: nn.Module
    fc1_ratios: list[float]
    fc2_ratios: list[float]
    mode: str
    swapped: list[tuple[nn.Module, str, nn.Module]] = field(default_factory=list)
    hooks: list[Any] = field(default_factory=list)
    attn_was: str | None = None

    def remove(self) -> None:
        """Put the original layers back and detach the attention hooks."""
        for parent, name, original in self.swapped:
            setattr(parent, name, original)
        for h in self.hooks:
            h.remove()
        if self.attn_was is not None and self.attn_was != "eager":
            self.model.set_attn_implementation(self.attn_was)  # type: ignore[operator]
        self.swapped, self.hooks = [], []

    def __enter__(self) -> ToastHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _ratios(x: Any, name: str, depth: int) -> list[float]:
    if x is None:
        return [0.0] * depth
    a = real_array(x, name, ndim=1)
    if a.size != depth:
        raise ValueError(f"{name} needs one ratio per block ({depth}), got {a.size}")
    if np.any(a < 0) or np.any(a >= 1):
        raise ValueError(f"{name} must lie in [0, 1), got {a.tolist()}")
    return [float(v) for v in a]


def _blocks_for(model: nn.Module) -> list[BlockView]:
    blocks = vit_blocks(model)
    if any(isinstance(m, SelectedLinear) for m in model.modules()):
        raise ValueError("model already has a channel selection attached: remove() its handle first")
    return blocks


def apply_toast(model: nn.Module, fc1_ratios: Any, fc2_ratios: Any, *, cls_weight: float = 2.0,
                sample_ratio: float = 0.02, per_sample: bool = False, mode: str = "mask",
                seed: int | torch.Generator) -> ToastHandle:
    """Attach training-free Token Channel Selection to every FFN of a ViT ([P35] TCS), in place.

    Args:
        model: a transformers ViT (switched to ``eager`` attention, which returns the probabilities) or a PlainViT.
        fc1_ratios: per block, the fraction in [0, 1) of fc1's inputs dropped (``None``: none). The authors leave
            block 0 untouched and select in the last blocks.
        fc2_ratios: per block, the fraction in [0, 1) of the hidden units (fc2's inputs) dropped (``None``: none).
        cls_weight: weight of the class token's term of the importance (see :func:`channel_importance`).
        sample_ratio: fraction of the patches sampled for the importance (see :func:`channel_importance`).
        per_sample: select for each image apart instead of once per batch.
        mode: ``mask`` (zero the dropped inputs) or ``gather`` (multiply only the kept weight columns).
        seed: an int or a ``torch.Generator`` for the patch samples (one stream over all forward passes).

    Returns:
        A :class:`ToastHandle`; ``handle.remove()`` (or leaving a ``with`` block) restores the model.
    """
    blocks = _blocks_for(model)
    r1, r2 = _ratios(fc1_ratios, "fc1_ratios", len(blocks)), _ratios(fc2_ratios, "fc2_ratios", len(blocks))
    opts = {"cls_weight": real(cls_weight, "cls_weight", lo=0.0),
            "sample_ratio": real(sample_ratio, "sample_ratio", lo=0.0, hi=1.0, lo_open=True),
            "generator": _as_generator(seed)}
    if not isinstance(per_sample, bool):
        raise TypeError(f"per_sample must be a bool, got {type(per_sample).__name__}")
    h = ToastHandle(model, r1, r2, choice(mode, "mode", MODES))
    h.attn_was = use_eager_attention(model) if any(r1) or any(r2) else None
    for b in blocks:
        if r1[b.index] == 0 and r2[b.index] == 0:
            continue
        src = _ClsAttention()
        h.hooks.append(b.attn.module.register_forward_hook(src))
        for name, r in (("fc1", r1[b.index]), ("fc2", r2[b.index])):
            if r > 0:
                lin = getattr(b.mlp, name)
                h.swapped.append((b.mlp, name, lin))
                setattr(b.mlp, name, SelectedLinear(lin, ratio=r, mode=h.mode, source=src, per_sample=per_sample,
                                                    **opts))
    return h


def apply_static_selection(model: nn.Module, keep: Mapping[tuple[int, str], Sequence[int] | Tensor], *,
                           mode: str = "mask") -> ToastHandle:
    """Fixed channel subsets in place of TCS ([P35] baselines: random or weight-magnitude selection).

    ``keep[(block, "fc1" | "fc2")]`` lists the input channels kept by that layer for every input.
    """
    blocks = _blocks_for(model)
    h = ToastHandle(model, [0.0] * len(blocks), [0.0] * len(blocks), choice(mode, "mode", MODES))
    gen = torch.Generator().manual_seed(0)  # unused by fixed selections
    for (bi, name), idx in keep.items():
        if not (isinstance(bi, int) and 0 <= bi < len(blocks)) or name not in ("fc1", "fc2"):
            raise ValueError(f"keep keys are (block index < {len(blocks)}, 'fc1' | 'fc2'), got {(bi, name)!r}")
        lin = getattr(blocks[bi].mlp, name)
        kept = torch.sort(torch.as_tensor(idx, dtype=torch.long).flatten()).values
        if kept.numel() == 0 or kept.unique().numel() != kept.numel() or kept[0] < 0 or kept[-1] >= lin.in_features:
            raise ValueError(f"keep[{(bi, name)!r}] must list distinct channels in [0, {lin.in_features})")
        (h.fc1_ratios if name == "fc1" else h.fc2_ratios)[bi] = 1.0 - kept.numel() / lin.in_features
        h.swapped.append((blocks[bi].mlp, name, lin))
        setattr(blocks[bi].mlp, name, SelectedLinear(lin, ratio=0.0, mode=h.mode, source=None, cls_weight=0.0,
                                                     sample_ratio=1.0, per_sample=False, generator=gen, fixed=kept))
    return h
