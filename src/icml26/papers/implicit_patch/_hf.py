"""[P06]'s construction on transformers' decoder LMs: Llama-class models (``LlamaForCausalLM``: pre-RMSNorm, SwiGLU,
RoPE; any decoder whose layers have ``post_attention_layernorm`` and a ``gate_proj``/``up_proj``/``down_proj`` MLP)
and Gemma-style sandwich-norm models (``Gemma3ForCausalLM``: a norm before and after both attention and MLP, GeGLU).

A Llama layer is ``u = x + attn(N₁(x))``, ``v = N₂(u)``, ``y = u + down(σ(gate(v)) ⊙ up(v))``: the block of
:mod:`._construct` with ``base = u``, no extra term and no norm after the MLP, so the patches are rank-1 changes of
``gate_proj`` and ``up_proj`` (input controllability: the hidden state becomes the with-context one) and of
``down_proj`` (output controllability: the layer outputs the with-context residual), one per query position. A
sandwich layer is ``y = u + P(down(…))`` with ``v = pre_feedforward_layernorm(u)`` and ``P`` the
``post_feedforward_layernorm``: the ``down_proj`` patch aims at ``m* = (y_C − u₀) / γ`` (γ: P's scale) and the
RMSNorm-scale patch ``γ → s_t γ`` of [P06]'s Gemma theorem absorbs the scalar that P's normalisation leaves.

The layers are never called by hand (their masks and rotary tables stay the model's business): forward hooks read
the with-context run, and the query-alone quantities come from one run of the query in which every layer is fed the
with-context residual stream at the query positions, which by induction ([P06]'s multi-layer algorithm) is what the
patched model feeds it. Cost: two forward passes. Gemma3's RMSNorm computes in float32 whatever the model's dtype,
so a float64 Gemma model reproduces the with-context logits to float32 rounding only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import torch
from torch import Tensor, nn

from icml26.common.validation import int_at_least
from icml26.papers.implicit_patch._construct import _ids

__all__ = ["hf_context_patches", "hf_patched_generate", "hf_patched_logits", "hf_with_context_logits"]

#: per layer index: {"gate_proj" | "up_proj" | "down_proj": (u (T, out), v (T, in))}: ΔW_t = u_t v_tᵀ; on a
#: sandwich layer also {"post_feedforward_layernorm": (s (T, 1), γ (d,))}: the norm's scale γ becomes s_t γ
HFPatches = dict[int, dict[str, tuple[Tensor, Tensor]]]

POST_NORM = "post_feedforward_layernorm"


def _norms(layer: Any) -> tuple[nn.Module, nn.Module | None]:
    """(the norm whose output is the MLP input, the norm after the MLP or None) of a checked layer."""
    if hasattr(layer, "pre_feedforward_layernorm"):
        return layer.pre_feedforward_layernorm, getattr(layer, POST_NORM)
    return layer.post_attention_layernorm, None


def _layers(model: Any) -> list[Any]:
    inner = getattr(model, "model", None)
    layers = getattr(inner, "layers", None)
    if not isinstance(model, nn.Module) or layers is None:
        raise TypeError(f"model must be a transformers causal LM with model.layers (e.g. LlamaForCausalLM), got "
                        f"{type(model).__name__}")
    for i, layer in enumerate(layers):
        mlp = getattr(layer, "mlp", None)
        if not all(hasattr(mlp, n) for n in ("gate_proj", "up_proj", "down_proj", "act_fn")) or not hasattr(
                layer, "post_attention_layernorm"):
            raise TypeError(f"layer {i} is neither a Llama-style nor a sandwich-norm block (post_attention_layernorm "
                            "and a gated gate_proj/up_proj/down_proj MLP)")
        if hasattr(layer, "pre_feedforward_layernorm") != hasattr(layer, POST_NORM):
            raise TypeError(f"layer {i} has only one of pre_feedforward_layernorm and post_feedforward_layernorm: "
                            "neither a Llama-style nor a sandwich-norm block")
    return list(layers)


def _check(model: Any, context_ids: Any, query_ids: Any) -> tuple[list[Any], Tensor, Tensor]:
    layers = _layers(model)
    vocab = int(model.get_input_embeddings().num_embeddings)
    return layers, _ids(context_ids, "context_ids", vocab, allow_empty=True), _ids(query_ids, "query_ids", vocab,
                                                                                  allow_empty=False)


def _first(out: Any) -> Tensor:
    return out[0] if isinstance(out, tuple) else out


@contextlib.contextmanager
def _hooks(pairs: list[tuple[Any, Any]]) -> Iterator[None]:
    handles = [m.register_forward_hook(f) for m, f in pairs]
    try:
        yield
    finally:
        for h in handles:
            h.remove()


@contextlib.contextmanager
def _applied(layers: Sequence[Any], patches: HFPatches) -> Iterator[None]:
    """Run with ``W + u_t v_tᵀ`` at query position t (only for an input of exactly the patches' length)."""

    def hook(uv: tuple[Tensor, Tensor]) -> Any:
        u, v = uv

        def add(_m: nn.Module, args: tuple[Tensor, ...], out: Tensor) -> Tensor:
            x = args[0]
            if x.shape[-2] != u.shape[0]:
                raise ValueError(f"the patches cover {u.shape[0]} query positions, the input has {x.shape[-2]}")
            return out + (x * v).sum(-1, keepdim=True) * u

        return add

    def rescale(s: Tensor) -> Any:
        def mul(_m: nn.Module, _args: tuple[Tensor, ...], out: Tensor) -> Tensor:
            if out.shape[-2] != s.shape[0]:
                raise ValueError(f"the patches cover {s.shape[0]} query positions, the input has {out.shape[-2]}")
            return out * s

        return mul

    pairs = [(getattr(layers[i], name), rescale(uv[0])) if name == POST_NORM else (getattr(layers[i].mlp, name), hook(uv))
             for i, per in patches.items() for name, uv in per.items()]
    with _hooks(pairs):
        yield


def _mlp_patches(mlp: Any, v_c: Tensor, v_0: Tensor, u_0: Tensor, y_c: Tensor,
                 post: nn.Module | None) -> dict[str, tuple[Tensor, Tensor]]:
    """Input controllability on gate/up, output controllability on down (the derivation in :mod:`._construct`);
    behind a norm ``post`` the down patch aims at ``m* = (y_C − u₀) / γ`` and the norm's scale patch fixes the rest."""
    n0 = v_0.pow(2).sum(-1, keepdim=True)
    if not bool((n0 > 0).all()):
        raise ValueError("the MLP input v0 is zero at some query position: no rank-1 patch can act on it")
    out = {name: ((v_c - v_0) @ getattr(mlp, name).weight.T / n0, v_0) for name in ("gate_proj", "up_proj")}
    h_c = mlp.act_fn(mlp.gate_proj(v_c)) * mlp.up_proj(v_c)
    nh = h_c.pow(2).sum(-1, keepdim=True)
    if not bool((nh > 0).all()):
        raise ValueError("the MLP hidden state h_C is zero at some query position: no rank-1 patch can act on it")
    target = y_c - u_0
    if post is None:
        out["down_proj"] = ((target - mlp.down_proj(h_c)) / nh, h_c)
        return out
    gamma = post(torch.ones_like(target[:1]))[0]  # the norm's scale, up to a positive factor
    if not bool((gamma != 0).all()):
        raise ValueError("the post-MLP norm has a zero scale entry: its output cannot be steered there")
    m_star = target / gamma
    out["down_proj"] = ((m_star - mlp.down_proj(h_c)) / nh, h_c)
    p = post(m_star)
    out[POST_NORM] = ((target * p).sum(-1, keepdim=True) / p.pow(2).sum(-1, keepdim=True), gamma)
    return out


def _replace_input(x: Tensor) -> Any:
    """A forward pre-hook that feeds a layer ``x`` instead of its input (positional or ``hidden_states=``)."""

    def pre(_m: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if args:
            return (x, *args[1:]), kwargs
        return args, {**kwargs, "hidden_states": x}

    return pre


@torch.no_grad()
def hf_context_patches(model: Any, context_ids: Any, query_ids: Any) -> HFPatches:
    """[P06]'s multi-layer algorithm on a transformers Llama-class or Gemma-style model: per layer and query position,
    rank-1 patches of ``gate_proj``, ``up_proj`` and ``down_proj`` (and on a sandwich layer the scale patch of its
    ``post_feedforward_layernorm``, [P06]'s Gemma theorem) such that the patched model on ``query_ids`` alone gives
    the logits the model gives at the query positions of ``context_ids + query_ids`` (exact up to rounding).

    Two forward passes: one with the context (every layer's input, MLP input and output at the query positions),
    one of the query alone in which every layer is fed the with-context residual stream at the query positions, which
    is what the patched model feeds it by induction.

    Returns ``{layer: {"gate_proj" | "up_proj" | "down_proj": (u, v)}}`` with ``ΔW_t = u[t] v[t]ᵀ``, plus
    ``"post_feedforward_layernorm": (s, γ)`` (scale γ → ``s[t] γ``) on sandwich layers. Raises ``TypeError``/
    ``ValueError`` naming the argument for a model of neither kind, ids outside the vocabulary or an empty query.
    """
    layers, c, q = _check(model, context_ids, query_ids)
    n = c.numel()
    xs: dict[int, Tensor] = {}  # layer inputs with context, at the query positions
    ys: dict[int, Tensor] = {}
    vs: dict[int, Tensor] = {}

    def keep(store: dict[int, Tensor], i: int, *, out: bool) -> Any:
        def hook(_m: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any = None) -> None:
            t = _first(result) if out else (args[0] if args else kwargs["hidden_states"])
            store[i] = t[0, n:].clone()

        return hook

    def keep_out(store: dict[int, Tensor], i: int) -> Any:
        def hook(_m: nn.Module, _args: tuple[Any, ...], result: Tensor) -> None:
            store[i] = result[0, n:].clone()

        return hook

    handles = []
    for i, ly in enumerate(layers):
        handles.append(ly.register_forward_pre_hook(keep(xs, i, out=False), with_kwargs=True))
        handles.append(ly.register_forward_hook(keep(ys, i, out=True), with_kwargs=True))
        handles.append(_norms(ly)[0].register_forward_hook(keep_out(vs, i)))
    try:
        model(input_ids=torch.cat([c, q])[None], use_cache=False)
    finally:
        for h in handles:
            h.remove()
    us0: dict[int, Tensor] = {}
    vs0: dict[int, Tensor] = {}

    def read(i: int) -> Any:
        def hook(_m: nn.Module, args: tuple[Tensor, ...], out: Tensor) -> None:
            us0[i], vs0[i] = args[0][0].clone(), out[0].clone()

        return hook

    handles = []
    for i, ly in enumerate(layers):
        if i > 0:  # layer 0 sees the query's own embeddings, which are the with-context ones at those positions
            handles.append(ly.register_forward_pre_hook(_replace_input(xs[i][None]), with_kwargs=True))
        handles.append(_norms(ly)[0].register_forward_hook(read(i)))
    try:
        model(input_ids=q[None], use_cache=False)
    finally:
        for h in handles:
            h.remove()
    return {i: _mlp_patches(ly.mlp, vs[i], vs0[i], us0[i], ys[i], _norms(ly)[1]) for i, ly in enumerate(layers)}


@torch.no_grad()
def hf_with_context_logits(model: Any, context_ids: Any, query_ids: Any) -> Tensor:
    """(T, V) logits of ``model`` on ``context + query`` at the query positions (the left side of [P06]'s identity)."""
    _, c, q = _check(model, context_ids, query_ids)
    return model(input_ids=torch.cat([c, q])[None], use_cache=False).logits[0, c.numel():]


@torch.no_grad()
def hf_patched_logits(model: Any, context_ids: Any, query_ids: Any, *, patches: HFPatches | None = None) -> Tensor:
    """(T, V) logits of the patched model on the query alone (the right side of [P06]'s identity); ``patches``
    defaults to :func:`hf_context_patches` of the pair (pass another pair's for a control)."""
    layers, c, q = _check(model, context_ids, query_ids)
    if patches is None:
        patches = hf_context_patches(model, c, q)
    with _applied(layers, patches):
        return model(input_ids=q[None], use_cache=False).logits[0]


@torch.no_grad()
def hf_patched_generate(model: Any, context_ids: Any, query_ids: Any, *, max_new_tokens: int) -> Tensor:
    """Greedy decoding from the query alone, the patches recomputed for the grown query at every step ([P06]: they
    are token-dependent). Returns the new token ids; they equal greedy decoding from ``context + query``."""
    steps = int_at_least(max_new_tokens, "max_new_tokens", 0)
    _, c, q = _check(model, context_ids, query_ids)
    out: list[int] = []
    for _ in range(steps):
        nxt = int(hf_patched_logits(model, c, q)[-1].argmax())
        out.append(nxt)
        q = torch.cat([q, torch.tensor([nxt])])
    return torch.tensor(out, dtype=torch.long)
