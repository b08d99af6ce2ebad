"""W4A4KV4 fake quantisation of a whole model, [P11] §2: every linear layer's weight and input, and the attention's
post-RoPE keys and values (the KV cache), for transformers Llama-class models and :class:`~icml26.common.nn.TinyGPT`.

- Linear layers (all but the output head): the module's ``forward`` is replaced, on the instance, by
  ``F.linear(fq_act(x), fq_w(W), b)``: the latent full-precision weight stays the parameter (QAT updates it through the
  straight-through estimator; without gradients the quantised weight is computed once per weight version).
- Keys and values: for transformers models an attention function registered with transformers'
  ``AttentionInterface`` quantises ``key``/``value`` (after RoPE, i.e. what the KV cache stores) and hands them to the
  model's own implementation (sdpa or eager); for TinyGPT the attention's forward is replaced by the same computation
  with the quantisers between RoPE and the scores. A Q-FIT shift ``m`` ([P11] §2, Q-FIT) is subtracted from the keys
  before they are quantised: softmax is invariant to it, so without quantisation the output is unchanged.

:func:`quantize_model` returns a :class:`QuantizedModel` handle; ``remove()`` (or leaving its ``with`` block) restores
the model exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26.papers.reqat._fakequant import FP4Scheme, fake_quant, resolve_scheme

__all__ = ["QuantizedModel", "attention_layers", "quantize_model"]

_ATTN_NAME = "reqat_fp4kv"


def _is_hf(model: nn.Module) -> bool:
    return hasattr(model, "config") and hasattr(getattr(model, "config"), "_attn_implementation")


def attention_layers(model: nn.Module) -> list[nn.Module]:
    """The self-attention modules of ``model`` in layer order ([P11]: where the KV cache lives): those with
    ``q_proj``/``k_proj``/``v_proj`` (transformers) or ``q``/``k``/``v`` linears and ``n_head`` (TinyGPT)."""
    out = []
    for _, m in model.named_modules():
        hf = all(isinstance(getattr(m, a, None), nn.Linear) for a in ("q_proj", "k_proj", "v_proj"))
        tiny = all(isinstance(getattr(m, a, None), nn.Linear) for a in ("q", "k", "v")) and hasattr(m, "n_head")
        if hf or tiny:
            out.append(m)
    return out


class _LinearForward:
    """``F.linear(fq(x), fq(W), b)`` for one ``nn.Linear`` (set as the instance's ``forward``)."""

    def __init__(self, lin: nn.Linear, scheme: FP4Scheme, weights: bool, activations: bool) -> None:
        self.lin, self.scheme, self.weights, self.activations = lin, scheme, weights, activations
        self._key: tuple[int, int] | None = None
        self._wq: Tensor | None = None

    def _weight(self) -> Tensor:
        w = self.lin.weight
        if not self.weights:
            return w
        if torch.is_grad_enabled() and w.requires_grad:
            return fake_quant(w, self.scheme, kind="weight")
        key = (w.data_ptr(), w._version)
        if self._key != key or self._wq is None:  # inference: quantise once per weight version
            with torch.no_grad():
                self._wq = fake_quant(w, self.scheme, kind="weight")
            self._key = key
        return self._wq

    def __call__(self, x: Tensor) -> Tensor:
        if self.activations:
            x = fake_quant(x, self.scheme, kind="activation")
        return F.linear(x, self._weight(), self.lin.bias)


@dataclass
class _KV:
    """What an attention layer quantises: its keys (minus ``shift``) and values."""

    scheme: FP4Scheme
    quantise: bool
    shift: Tensor | None
    inner: str = "sdpa"

    def keys(self, k: Tensor) -> Tensor:  # (B, H_kv, T, d)
        if self.shift is not None:
            k = k - self.shift.to(k.dtype)[None, :, None, :]
        return fake_quant(k, self.scheme, kind="kv") if self.quantise else k

    def values(self, v: Tensor) -> Tensor:
        return fake_quant(v, self.scheme, kind="kv") if self.quantise else v


def _hf_attention(module: nn.Module, query: Tensor, key: Tensor, value: Tensor, attention_mask: Tensor | None,
                  **kwargs: Any) -> tuple[Tensor, Tensor | None]:
    """The registered transformers attention function: quantise K/V, then the model's own implementation."""
    from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS
    from transformers.models.llama.modeling_llama import eager_attention_forward

    kv: _KV | None = getattr(module, "_reqat_kv", None)
    inner = "sdpa" if kv is None else kv.inner
    if kv is not None:
        key, value = kv.keys(key), kv.values(value)
    fn = eager_attention_forward if inner == "eager" else ALL_ATTENTION_FUNCTIONS[inner]
    return fn(module, query, key, value, attention_mask, **kwargs)


def _register(inner: str) -> str:
    """The attention (and mask) function names for ``inner``, registered with transformers once."""
    from transformers import AttentionInterface
    from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, AttentionMaskInterface

    name = f"{_ATTN_NAME}_{inner}"
    if name not in AttentionInterface._global_mapping:
        AttentionInterface.register(name, _hf_attention)
        AttentionMaskInterface.register(name, ALL_MASK_ATTENTION_FUNCTIONS[inner])
    return name


class _TinyAttentionForward:
    """TinyGPT's attention with the KV quantisers between RoPE and the scores (same arithmetic otherwise)."""

    def __init__(self, attn: nn.Module, kv: _KV) -> None:
        self.attn, self.kv = attn, kv

    def __call__(self, x: Tensor, positions: Tensor) -> Tensor:
        from icml26.common.nn import apply_rope

        a: Any = self.attn
        B, T, D = x.shape
        h = int(a.n_head)
        q, k, v = (m(x).view(B, T, h, D // h).transpose(1, 2) for m in (a.q, a.k, a.v))
        if a.rope:
            q, k = apply_rope(q, positions), apply_rope(k, positions)
        k, v = self.kv.keys(k), self.kv.values(v)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(D // h)
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        return a.o((att @ v).transpose(1, 2).reshape(B, T, D))


@dataclass
class QuantizedModel:
    """A model under [P11] W4A4KV4 fake quantisation (:func:`quantize_model`); ``remove()`` undoes it."""

    model: nn.Module
    scheme: FP4Scheme
    linears: list[str] = field(default_factory=list)
    attentions: int = 0
    _undo: list[Callable[[], None]] = field(default_factory=list, repr=False)

    def remove(self) -> None:
        """Restore the model as it was (forwards, attention implementation); idempotent."""
        while self._undo:
            self._undo.pop()()

    def __enter__(self) -> QuantizedModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _output_head(model: nn.Module) -> nn.Module | None:
    get = getattr(model, "get_output_embeddings", None)
    head = get() if callable(get) else getattr(model, "lm_head", None)
    return head if isinstance(head, nn.Module) else None


def _set_forward(m: nn.Module, fwd: Callable[..., Any], undo: list[Callable[[], None]]) -> None:
    if "forward" in m.__dict__:
        raise ValueError(f"{type(m).__name__} is already quantised: remove() the first quantize_model first")
    m.__dict__["forward"] = fwd
    undo.append(lambda: m.__dict__.pop("forward", None))


def _check_flags(weights: object, activations: object, kv: object) -> None:
    for name, v in (("weights", weights), ("activations", activations), ("kv", kv)):
        if not isinstance(v, bool):
            raise TypeError(f"{name} must be a bool, got {type(v).__name__} {v!r}")


def _shifts(k_shift: Sequence[Tensor] | None, n: int) -> list[Tensor | None]:
    if k_shift is None:
        return [None] * n
    shifts = list(k_shift)
    if len(shifts) != n:
        raise ValueError(f"k_shift must hold one tensor per attention layer ({n}), got {len(shifts)}")
    return [s.detach().clone() for s in shifts]


def quantize_model(model: nn.Module, scheme: str | FP4Scheme, *, weights: bool, activations: bool, kv: bool,
                   k_shift: Sequence[Tensor] | None = None) -> QuantizedModel:
    """Fake-quantise ``model`` in place: W4A4KV4 of [P11] §2 (any subset of the three).

    Args:
        model: a transformers Llama-class causal LM (``q_proj``/``k_proj``/``v_proj`` attentions) or a TinyGPT.
        scheme: ``"nvfp4"``, ``"mxfp4"``, ``"none"`` (identity) or an :class:`~icml26.papers.reqat.FP4Scheme`.
        weights: quantise every linear weight except the output head's (E2M1).
        activations: quantise every such linear layer's input (E2M1, NVFP4 global scale per token).
        kv: quantise the post-RoPE keys and the values (``scheme.kv_element``, E1M2), per token and head.
        k_shift: Q-FIT's key shifts ``m``, one (n_kv_heads, head_dim) tensor per attention layer
            (:func:`~icml26.papers.reqat.qfit`), subtracted from the keys before quantisation.

    Returns:
        A :class:`QuantizedModel`; the model's parameters are untouched (QAT trains them through the STE).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch nn.Module, got {type(model).__name__}")
    s = resolve_scheme(scheme)
    _check_flags(weights, activations, kv)
    attns = attention_layers(model)
    if (kv or k_shift is not None) and not attns:
        raise ValueError("model has no attention layers with q/k/v projections: kv quantisation needs them")
    shifts = _shifts(k_shift, len(attns))
    handle = QuantizedModel(model, s)
    try:
        head = _output_head(model)
        if weights or activations:
            for name, m in model.named_modules():
                if isinstance(m, nn.Linear) and m is not head:
                    _set_forward(m, _LinearForward(m, s, weights, activations), handle._undo)
                    handle.linears.append(name)
        if kv or k_shift is not None:
            _hook_attention(model, attns, s, kv, shifts, handle)
    except BaseException:
        handle.remove()
        raise
    return handle


def _hook_attention(model: nn.Module, attns: list[nn.Module], s: FP4Scheme, kv: bool, shifts: list[Tensor | None],
                    handle: QuantizedModel) -> None:
    if _is_hf(model):
        cfg = getattr(model, "config")
        inner = cfg._attn_implementation or "sdpa"
        if inner.startswith(_ATTN_NAME):
            raise ValueError("model is already quantised: remove() the first quantize_model first")
        if inner not in ("sdpa", "eager"):
            raise ValueError(f"attention implementation {inner!r}: KV quantisation supports 'sdpa' and 'eager'")
        cfg._attn_implementation = _register(inner)
        handle._undo.append(lambda: setattr(cfg, "_attn_implementation", inner))
        for a, sh in zip(attns, shifts):
            a.__dict__["_reqat_kv"] = _KV(s, kv, sh, inner)
            handle._undo.append(lambda a=a: a.__dict__.pop("_reqat_kv", None))
    else:
        for a, sh in zip(attns, shifts):
            _set_forward(a, _TinyAttentionForward(a, _KV(s, kv, sh)), handle._undo)
    handle.attentions = len(attns)
