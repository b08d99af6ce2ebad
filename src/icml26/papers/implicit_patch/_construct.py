"""[P06]'s construction: the effect of a context on a transformer, written as token-dependent rank-1 patches of the
MLP weights plus a scale (and, for LayerNorm, bias) patch of the norm after the MLP; the multi-layer algorithm.

Every block of :class:`~icml26.common.nn.TinyGPT` is read as ``y = base + P(extra + MLP(v))``: ``v`` the MLP input,
``P`` the norm after the MLP (Gemma's post-FFW norm, a post-LN block's second norm) or the identity, ``base`` and
``extra`` whatever the block adds around it (the attention output and the skip path). With context ``C`` the block
gives ``y_C``; on the query alone (inputs ``x₀``) it has ``base₀, extra₀, v₀``. The patch makes the block on ``x₀``
output ``y_C`` exactly, per query position:

* input controllability — each MLP input matrix (``w_in``, ``w_gate``, an MoE router and the selected experts'
  input matrices) gets ``ΔW = W (v_C − v₀) v₀ᵀ / ‖v₀‖²``, so ``(W + ΔW) v₀ = W v_C``: the hidden state is ``h_C``;
* output controllability — the output matrix gets ``ΔW_out = (m* − W_out h_C) h_Cᵀ / ‖h_C‖²`` with ``m*`` the MLP
  output that yields ``y_C``; behind a norm ``P``, ``m*`` comes from inverting ``P`` up to a scalar, which the norm's
  scale patch ``γ → s γ`` (RMSNorm) or scale and bias patch ``γ → s γ, β → β + c γ`` (LayerNorm) absorbs.

Across layers ([P06]'s constructive proof): run the model once with the context, keep the residual stream at the
query positions after every block; layer ℓ's patches are computed from layer ℓ−1's with-context residuals run through
layer ℓ's attention *without* the context, since by induction the patched model reproduces them exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from icml26.common.nn import MLP, Block, MoE, RMSNorm, TinyGPT, blocks_of, experts_of
from icml26.common.validation import int_at_least
from icml26.papers.implicit_patch._patches import (
    NormPatch,
    Patches,
    RankOnePatch,
    apply_patches,
    real_tensor,
)

__all__ = ["context_patches", "layer_patches", "patched_generate", "patched_logits", "with_context_logits"]

Ids = Tensor | np.ndarray | Sequence[int]


@dataclass(frozen=True)
class _Site:
    """A block read as ``y = base + P(extra + MLP(v))`` (tensors (T, d); ``post`` is P, ``None`` for identity)."""

    base: Tensor
    extra: Tensor
    v: Tensor
    post: nn.Module | None
    post_name: str | None


def _mlp_site(block: Block, x: Tensor, pos: Tensor) -> _Site:
    """Decompose :meth:`Block.forward` around its MLP (same operations, same order)."""
    cfg = block.cfg
    if cfg.parallel:  # y = x + P(attn(N(x)) + mlp(N(x)))
        h = block.norm1(x)
        a = block.attn(h, pos)
        if block.post_norm1 is None:
            return _Site(x[0] + a[0], torch.zeros_like(a[0]), h[0], None, None)
        return _Site(x[0], a[0], h[0], block.post_norm1, "post_norm1")
    if cfg.norm_position == "post":  # u = N1(x + attn(x)); y = N2(u + mlp(u))
        u = block.norm1(x + block.attn(x, pos))
        return _Site(torch.zeros_like(u[0]), u[0], u[0], block.norm2, "norm2")
    a = block.attn(block.norm1(x), pos)  # pre / sandwich: u = x + P1(attn(N1(x))); y = u + P2(mlp(N2(u)))
    u = x + (block.post_norm1(a) if block.post_norm1 is not None else a)
    name = "post_norm2" if block.post_norm2 is not None else None
    if block.norm2 is None:
        raise ValueError("a sequential block needs norm2")
    return _Site(u[0], torch.zeros_like(u[0]), block.norm2(u)[0], block.post_norm2, name)


def _hidden(mlp: MLP, v: Tensor) -> Tensor:
    """The MLP hidden state h (before ``w_out``)."""
    if mlp.w_gate is not None:
        return mlp.act(mlp.w_gate(v)) * mlp.w_in(v)
    return mlp.act(mlp.w_in(v))


def _sq_norm(x: Tensor, what: str) -> Tensor:
    n2 = x.pow(2).sum(-1)
    if not bool((n2 > 0).all()):
        raise ValueError(f"{what} is zero at some query position: no rank-1 patch can act on it")
    return n2


def _input_patch(lin: nn.Linear, v_c: Tensor, v_0: Tensor, mask: Tensor | None = None) -> RankOnePatch:
    """Input controllability: ``ΔW = W (v_C − v₀) v₀ᵀ / ‖v₀‖²``, so that ``(W + ΔW) v₀ = W v_C`` (rank 1)."""
    u = (v_c - v_0) @ lin.weight.T / _sq_norm(v_0, "the MLP input v0")[:, None]
    v = v_0.clone()
    if mask is not None:
        u, v = u * mask[:, None], v * mask[:, None]
    return RankOnePatch(u, v)


def _invert_norm(norm: nn.Module, target: Tensor, z_ref: Tensor) -> tuple[Tensor, NormPatch]:
    """Output controllability through a norm: return ``z*`` and the patch (s, Δβ) with ``N_{sγ, β+Δβ}(z*) = target``.

    RMSNorm ``γ ⊙ z / sqrt(ms(z) + ε)``: ``z* = λ target ⊘ γ``, ``s = sqrt(ms(z*) + ε) / λ``.
    LayerNorm ``γ ⊙ (z − z̄) / sqrt(var z + ε) + β``: ``w = (target − β) ⊘ γ``, ``c = mean w``, ``z* = λ (w − c) + z̄_ref``,
    ``s = sqrt(var z* + ε) / λ``, ``Δβ = c γ``. ``λ`` = the norm's denominator at ``z_ref`` (the pre-norm input the
    unpatched output matrix gives): with an empty context the patch is then the identity.
    """
    if not isinstance(norm, (RMSNorm, nn.LayerNorm)):
        raise TypeError(f"unsupported norm {type(norm).__name__}: expected RMSNorm or LayerNorm")
    gamma = norm.weight
    if not bool((gamma != 0).all()):
        raise ValueError("the norm after the MLP has a zero scale entry: its output cannot be steered there")
    if isinstance(norm, RMSNorm):
        lam = torch.sqrt(z_ref.pow(2).mean(-1) + norm.eps)
        z = lam[:, None] * (target / gamma)
        s = torch.sqrt(z.pow(2).mean(-1) + norm.eps) / lam
        return z, NormPatch(s)
    beta = norm.bias if norm.bias is not None else torch.zeros_like(gamma)
    w = (target - beta) / gamma
    c = w.mean(-1)
    lam = torch.sqrt(z_ref.var(-1, unbiased=False) + norm.eps)
    z = lam[:, None] * (w - c[:, None]) + z_ref.mean(-1, keepdim=True)
    s = torch.sqrt(z.var(-1, unbiased=False) + norm.eps) / lam
    return z, NormPatch(s, c[:, None] * gamma)


def _states(x: object, name: str, block: Block) -> Tensor:
    """Block inputs (1, positions, d_model) in the block's dtype."""
    t = real_tensor(x, name, ndim=3)
    d = block.cfg.d_model
    if t.shape[0] != 1 or t.shape[2] != d:
        raise ValueError(f"{name} must have shape (1, positions, {d}), got {tuple(t.shape)}")
    return t.to(block.attn.q.weight.dtype)


def _check_layer(block: object, x_context: object, x_query: object, n_context: object, prefix: object
                 ) -> tuple[Block, Tensor, Tensor, int]:
    if not isinstance(block, Block):
        raise TypeError(f"block must be an icml26.common.nn.Block, got {type(block).__name__}")
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a str, got {type(prefix).__name__}")
    xc, xq = _states(x_context, "x_context", block), _states(x_query, "x_query", block)
    n = int_at_least(n_context, "n_context", 0)
    if xc.shape[1] != n + xq.shape[1]:
        raise ValueError(f"n_context must be the number of context positions, x_context length {xc.shape[1]} − "
                         f"x_query length {xq.shape[1]} = {xc.shape[1] - xq.shape[1]}, got {n}")
    return block, xc, xq, n


def layer_patches(
    block: Block, x_context: Tensor, x_query: Tensor, *, n_context: int, prefix: str = ""
) -> tuple[dict[str, RankOnePatch], dict[str, NormPatch], Tensor]:
    """Patches of one block (Thm. for the Gemma-style block and the general input/output-controllability theorem of
    [P06]): after them, ``block`` on ``x_query`` alone outputs what it outputs at the query positions of
    ``x_context``.

    Args:
        block: a TinyGPT block.
        x_context: (1, n_context + T, d) block input with the context (``r^{ℓ−1}_C``).
        x_query: (1, T, d) block input of the query-alone run (the patched model's, = ``r^{ℓ−1}_C`` from layer 2 on).
        n_context: the number of context positions at the front of ``x_context``.
        prefix: module path of ``block`` inside the model, prepended to the returned keys.

    Returns ``(weight patches, norm patches, y_C)`` with ``y_C`` (1, T, d) the block's with-context output at the
    query positions. Raises ``TypeError``/``ValueError`` naming the argument for a non-block, hidden states that are
    not finite real (1, positions, d_model) arrays, or ``n_context`` other than their difference in length.
    """
    block, x_context, x_query, n_context = _check_layer(block, x_context, x_query, n_context, prefix)
    T = x_query.shape[1]
    pos_c = torch.arange(x_context.shape[1])
    pos_0 = torch.arange(T)
    y_c = block(x_context, pos_c)[:, n_context:]
    sc = _mlp_site(block, x_context, pos_c)
    s0 = _mlp_site(block, x_query, pos_0)
    v_c = sc.v[n_context:]
    mlp = block.mlp
    p = f"{prefix}mlp."
    weights: dict[str, RankOnePatch] = {}
    if isinstance(mlp, MoE):
        logits_c = mlp.router(v_c)
        idx = logits_c.topk(mlp.top_k, dim=-1).indices  # the experts the context run selects
        gates = mlp.gates(v_c)
        weights[p + "router"] = _input_patch(mlp.router, v_c, s0.v)
        m_now = mlp(v_c)
        for e, ex in enumerate(experts_of(mlp)):
            sel = (idx == e).any(-1).to(v_c.dtype)
            weights[f"{p}experts.{e}.w_in"] = _input_patch(ex.w_in, v_c, s0.v, sel)
            if ex.w_gate is not None:
                weights[f"{p}experts.{e}.w_gate"] = _input_patch(ex.w_gate, v_c, s0.v, sel)
    else:
        dense = experts_of(mlp)[0]
        weights[p + "w_in"] = _input_patch(dense.w_in, v_c, s0.v)
        if dense.w_gate is not None:
            weights[p + "w_gate"] = _input_patch(dense.w_gate, v_c, s0.v)
        m_now = mlp(v_c)
    # the target output: y_C = base₀ + P(extra₀ + m*)
    norms: dict[str, NormPatch] = {}
    if s0.post is None:
        m_star = y_c[0] - s0.base - s0.extra
    else:
        z_star, npatch = _invert_norm(s0.post, y_c[0] - s0.base, s0.extra + m_now)
        norms[prefix + str(s0.post_name)] = npatch
        m_star = z_star - s0.extra
    if isinstance(mlp, MoE):  # steer the top-1 expert's output matrix (its gate is > 0)
        top = idx[:, 0]
        for e, ex in enumerate(experts_of(mlp)):
            h = _hidden(ex, v_c)
            sel = (top == e).to(v_c.dtype)
            g = torch.where(sel > 0, gates[:, e], torch.ones_like(sel))
            n2 = torch.where(sel > 0, h.pow(2).sum(-1), torch.ones_like(sel))
            if not bool((n2 > 0).all()):
                raise ValueError("an expert's hidden state h_C is zero: no rank-1 patch can act on it")
            u = (m_star - m_now) / (g * n2)[:, None] * sel[:, None]
            weights[f"{p}experts.{e}.w_out"] = RankOnePatch(u, h * sel[:, None])
    else:
        h = _hidden(experts_of(mlp)[0], v_c)
        u = (m_star - m_now) / _sq_norm(h, "the MLP hidden state h_C")[:, None]
        weights[p + "w_out"] = RankOnePatch(u, h)
    return weights, norms, y_c


def _ids(x: Ids, name: str, vocab: int, *, allow_empty: bool) -> Tensor:
    if isinstance(x, np.ndarray):
        if x.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integer token ids, got numpy dtype {x.dtype}")
        x = torch.from_numpy(x.astype(np.int64))
    if isinstance(x, (str, bytes)) or not isinstance(x, (Tensor, Sequence)):
        raise TypeError(f"{name} must be a 1-D tensor, numpy array or sequence of token ids, got {type(x).__name__}")
    t = x if isinstance(x, Tensor) else torch.as_tensor(list(x)) if len(x) else torch.empty(0, dtype=torch.long)
    if t.dtype.is_floating_point or t.dtype == torch.bool or t.is_complex():
        raise TypeError(f"{name} must hold integer token ids, got dtype {t.dtype}")
    if t.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of token ids, got shape {tuple(t.shape)}")
    if t.numel() == 0 and not allow_empty:
        raise ValueError(f"{name} must hold at least one token")
    if t.numel() and (int(t.min()) < 0 or int(t.max()) >= vocab):
        raise ValueError(f"{name} has token ids outside the model's vocabulary [0, {vocab})")
    return t.long()


def _check(model: TinyGPT, context_ids: Ids, query_ids: Ids, *, extra: int = 0) -> tuple[Tensor, Tensor]:
    if not isinstance(model, TinyGPT):
        raise TypeError(f"model must be an icml26.common.nn.TinyGPT, got {type(model).__name__}")
    bad = [n for n, p in model.named_parameters() if not bool(torch.isfinite(p).all())]
    if bad:
        raise ValueError(f"model has non-finite weights in {bad[:3]}")
    V, W = model.cfg.vocab_size, model.cfg.block_size
    c = _ids(context_ids, "context_ids", V, allow_empty=True)
    q = _ids(query_ids, "query_ids", V, allow_empty=False)
    if c.numel() + q.numel() + extra > W:
        raise ValueError(
            f"context_ids ({c.numel()}) + query_ids ({q.numel()})" + (f" + {extra} generated" if extra else "")
            + f" tokens exceed the model's window block_size={W}"
        )
    return c, q


def _embed(model: TinyGPT, ids: Tensor) -> Tensor:
    """TinyGPT's input embedding of ``ids`` at positions 0..T−1, (1, T, d) (as in :meth:`TinyGPT.hidden`)."""
    T = ids.shape[0]
    x = model.wte(ids[None])
    if model.wpe is not None:
        x = x + model.wpe(torch.arange(T))
    elif model.cfg.pos == "sinusoidal":
        table = model.sin_table
        if not isinstance(table, Tensor):
            raise TypeError("a sinusoidal TinyGPT keeps its position table in sin_table")
        x = x + table[:T].to(x.dtype)
    return x


@torch.no_grad()
def context_patches(model: TinyGPT, context_ids: Ids, query_ids: Ids) -> Patches:
    """Implements [P06]'s multi-layer algorithm: the patches ``ΔW(C, x)`` with ``T_W(C, x) = T_{W+ΔW}(x)``.

    Symbols: ``C`` = ``context_ids`` (may be empty), ``x`` = ``query_ids`` (T ≥ 1 tokens). For every block ℓ and query
    position t: a rank-1 patch of each MLP input matrix and of the output matrix, and a scale (LayerNorm: scale and
    bias) patch of the norm after the MLP where the block has one. Under :func:`apply_patches`, ``model(query)``
    then gives the logits ``model(context + query)`` has at the query positions (exact up to rounding).

    Raises ``TypeError``/``ValueError`` naming the argument for a non-TinyGPT model, non-finite weights, token ids
    outside the vocabulary, an empty query, or ``len(C) + T > block_size``.
    """
    c, q = _check(model, context_ids, query_ids)
    x_ctx = _embed(model, torch.cat([c, q]))
    x_q = _embed(model, q)
    weights: dict[str, RankOnePatch] = {}
    norms: dict[str, NormPatch] = {}
    for i, block in enumerate(blocks_of(model)):
        w, nrm, y_c = layer_patches(block, x_ctx, x_q, n_context=c.numel(), prefix=f"blocks.{i}.")
        weights.update(w)
        norms.update(nrm)
        x_ctx = block(x_ctx, torch.arange(x_ctx.shape[1]))
        x_q = y_c  # by induction, the patched model's residual stream equals r^ℓ_C at the query positions
    return Patches(weights, norms, n_query=q.numel(), n_context=c.numel())


@torch.no_grad()
def with_context_logits(model: TinyGPT, context_ids: Ids, query_ids: Ids) -> Tensor:
    """(T, V) logits of ``model`` on ``context + query`` at the query positions (the left side of [P06]'s identity)."""
    c, q = _check(model, context_ids, query_ids)
    return model(torch.cat([c, q])[None])[0, c.numel():]


@torch.no_grad()
def patched_logits(model: TinyGPT, context_ids: Ids, query_ids: Ids, *, patches: Patches | None = None) -> Tensor:
    """(T, V) logits of the patched model on the query alone (the right side of [P06]'s identity). ``patches``
    defaults to :func:`context_patches` of the pair; pass modified ones (e.g. ``.without_norms()``) for controls."""
    c, q = _check(model, context_ids, query_ids)
    if patches is None:
        patches = context_patches(model, c, q)
    if patches.n_query != q.numel():
        raise ValueError(f"patches cover {patches.n_query} query positions, query_ids has {q.numel()}")
    with apply_patches(model, patches):
        return model(q[None])[0]


@torch.no_grad()
def patched_generate(model: TinyGPT, context_ids: Ids, query_ids: Ids, *, max_new_tokens: int) -> Tensor:
    """Greedy decoding from the query alone with per-step patches ([P06]: the patches are token-dependent, so they
    are recomputed for the grown query at every step). Returns the ``max_new_tokens`` new token ids (1-D); they equal
    ``model.generate(context + query)``'s as long as ``len(C) + T + max_new_tokens − 1 <= block_size``."""
    return _generate(model, context_ids, query_ids, max_new_tokens=max_new_tokens, gaps=False)[0]


def _generate(model: TinyGPT, context_ids: Ids, query_ids: Ids, *, max_new_tokens: int, gaps: bool
              ) -> tuple[Tensor, list[float]]:
    """:func:`patched_generate`, plus (``gaps``) the per-step max |patched − with-context| next-token logit gap on
    the same grown query (the with-context logits come from the run that computes the patches' targets)."""
    max_new_tokens = int_at_least(max_new_tokens, "max_new_tokens", 0)
    c, q = _check(model, context_ids, query_ids, extra=max(0, max_new_tokens - 1))
    out: list[int] = []
    gap: list[float] = []
    with torch.no_grad():
        for _ in range(max_new_tokens):
            patched = patched_logits(model, c, q)[-1]
            if gaps:
                gap.append(float((model(torch.cat([c, q])[None])[0, -1] - patched).abs().max()))
            nxt = int(patched.argmax())
            out.append(nxt)
            q = torch.cat([q, torch.tensor([nxt])])
    return torch.tensor(out, dtype=torch.long), gap
