"""An independent check of [P06]'s rank-1 statement: solve every patched matrix's update afresh from the
with-context activations, *replace* the stored factors by these solutions, and test the logits.

Per query position ``t`` and matrix ``W`` (bias ``b``) with input ``x₀_t`` in the query-alone run (the solved
patches of the layers below applied), the minimum-Frobenius-norm solution of ``(W + ΔW) x₀_t + b = y*_t`` is
``ΔW*_t = (y*_t − W x₀_t − b) x₀_tᵀ / ‖x₀_t‖²`` — one column, so rank ≤ 1 *by construction*: rank alone is no
evidence. What can fail is whether hitting these targets makes the patched model reproduce the with-context logits.
The targets come from the run *with* the context, never from a patched run:

* MLP input matrices (``w_in``, ``w_gate``, an MoE router, every expert's inputs): ``y* = W v_C + b``, their own
  with-context outputs (input controllability);
* the output matrix: ``y* = m*``, the MLP output that gives the with-context block output ``y_C``, from inverting
  the norm after the MLP at ``y_C − base₀`` (output controllability; MoE: the top-1 expert's ``w_out``, scaled by
  1/gate). The norm's scale/bias patch is taken as given (``norms``, default: the construction's); a target out of
  the (patched) norm's range is a ``ValueError`` naming the block and the positions.

The equations are our reconstruction of the abstract (see the package docstring), written here a second time from
the defining equations rather than from :mod:`_construct`'s closed forms.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch
from torch import Tensor, nn

from icml26.common.nn import MoE, RMSNorm, TinyGPT, blocks_of, experts_of
from icml26.papers.implicit_patch._construct import (
    Ids,
    _check,
    _embed,
    _mlp_site,
    context_patches,
)
from icml26.papers.implicit_patch._patches import (
    NormPatch,
    Patches,
    RankOnePatch,
    apply_patches,
)

__all__ = ["solved_patches"]


def _input_names(mlp: nn.Module, prefix: str) -> list[str]:
    """Module paths of the MLP's input matrices (router and every expert's ``w_in``/``w_gate`` for an MoE)."""
    mlps = experts_of(mlp)
    tags = [f"experts.{e}." for e in range(len(mlps))] if isinstance(mlp, MoE) else [""]
    out = [f"{prefix}router"] if isinstance(mlp, MoE) else []
    for tag, m in zip(tags, mlps):
        out += [f"{prefix}{tag}w_in"] + ([f"{prefix}{tag}w_gate"] if m.w_gate is not None else [])
    return out


def _solve(lin: nn.Linear, x0: Tensor, target: Tensor) -> RankOnePatch:
    """Minimum-norm ``ΔW_t`` with ``(W + ΔW_t) x₀_t + b = target_t``: ``r_t x₀_tᵀ / ‖x₀_t‖²``, ``r = target − lin(x₀)``."""
    n2 = x0.pow(2).sum(-1)
    if bool((n2 == 0).any()):
        raise ValueError("an input of a patched matrix is zero at some query position: no update can act on it")
    return RankOnePatch((target - lin(x0)) / n2[:, None], x0.clone())


def _reach(norm: nn.Module, patch: NormPatch | None, target: Tensor, z_ref: Tensor) -> Tensor:
    """A pre-norm input ``z`` with ``norm_patched(z) = target`` (rows), NaN where none exists.

    RMSNorm ``sγ ⊙ z / sqrt(ms z + ε)``: ``z = α w``, ``w = target ⊘ (sγ)``, ``α² ms w + ε = α²`` ⇒
    ``α = sqrt(ε / (1 − ms w))`` (needs ``ms w < 1``). LayerNorm ``sγ ⊙ (z − z̄)/sqrt(var z + ε) + β + Δβ``:
    ``w = (target − β − Δβ) ⊘ (sγ)`` centred, ``α = sqrt(ε / (1 − var w))``, mean of ``z`` free (that of ``z_ref``).
    """
    if not isinstance(norm, (RMSNorm, nn.LayerNorm)):
        raise TypeError(f"unsupported norm {type(norm).__name__}: expected RMSNorm or LayerNorm")
    T = target.shape[0]
    s = patch.scale if patch is not None else torch.ones(T, dtype=target.dtype)
    gs = s[:, None] * norm.weight
    if isinstance(norm, RMSNorm):
        w = target / gs
        gap = 1 - w.pow(2).mean(-1)
        mean = torch.zeros(T, 1, dtype=target.dtype)
    else:
        beta = norm.bias if norm.bias is not None else 0.0
        shift = patch.shift if patch is not None and patch.shift is not None else 0.0
        w = (target - beta - shift) / gs
        w = w - w.mean(-1, keepdim=True)  # a mean left in w is out of reach; the logits will show it
        gap = 1 - w.pow(2).mean(-1)
        mean = z_ref.mean(-1, keepdim=True)
    alpha = torch.where(gap > 0, torch.sqrt(norm.eps / gap.clamp_min(1e-300)), torch.full_like(gap, torch.nan))
    return alpha[:, None] * w + mean


def _keep(rec: dict[str, tuple[Tensor, Tensor]], name: str) -> Callable[[nn.Module, tuple[Any, ...], Any], None]:
    def hook(_module: nn.Module, inputs: tuple[Any, ...], output: Any) -> None:
        rec[name] = (inputs[0], output)

    return hook


def _linear(root: nn.Module, name: str) -> nn.Linear:
    mod = root.get_submodule(name)
    if not isinstance(mod, nn.Linear):
        raise TypeError(f"{name!r} must be an nn.Linear, got {type(mod).__name__}")
    return mod


def _record(mods: Mapping[str, nn.Module], run: Callable[[], object]) -> dict[str, tuple[Tensor, Tensor]]:
    """(input, output) of each module during ``run()`` (its last call)."""
    rec: dict[str, tuple[Tensor, Tensor]] = {}
    handles = [m.register_forward_hook(_keep(rec, n)) for n, m in mods.items()]
    try:
        run()
    finally:
        for h in handles:
            h.remove()
    return rec


def _mlp_io(mlp: nn.Module, v: Tensor, outs: Mapping[str, nn.Module]) -> tuple[dict[str, tuple[Tensor, Tensor]], Tensor]:
    """``mlp(v)`` and the (input, output) of its output matrices ``outs`` in that call."""
    box: dict[str, Tensor] = {}
    rec = _record(outs, lambda: box.__setitem__("m", mlp(v)))
    return rec, box["m"]


@torch.no_grad()
def solved_patches(model: TinyGPT, context_ids: Ids, query_ids: Ids, *,
                   norms: Mapping[str, NormPatch] | None = None) -> Patches:
    """Rank-1 updates of every MLP matrix solved from the with-context activations (module docstring), layer by
    layer on the query-alone run they produce. Pass the result to :func:`patched_logits` to test [P06]'s claim
    that such per-token rank-1 patches (plus the norm patch) carry the whole context.

    Args:
        model: the TinyGPT, as for :func:`context_patches`.
        context_ids: the context ``C`` (may be empty).
        query_ids: the query ``x`` (at least one token).
        norms: norm patches to use (default: those of :func:`context_patches`; ``{}`` for none).

    Raises ``ValueError``/``TypeError`` as :func:`context_patches` does, and ``TypeError`` for ``norms`` not mapping
    to NormPatch.
    """
    c, q = _check(model, context_ids, query_ids)
    n_c, T = c.numel(), q.numel()
    if norms is None:
        norms = context_patches(model, c, q).norms
    if not isinstance(norms, Mapping) or not all(isinstance(v, NormPatch) for v in norms.values()):
        raise TypeError(f"norms must be a mapping of module path -> NormPatch, got {type(norms).__name__}")
    blocks = blocks_of(model)
    inputs = [n for i, b in enumerate(blocks) for n in _input_names(b.mlp, f"blocks.{i}.mlp.")]
    watch = {n: model.get_submodule(n) for n in inputs} | {f"blocks.{i}": b for i, b in enumerate(blocks)}
    ctx = {n: o[0, n_c:] for n, (_i, o) in _record(watch, lambda: model(torch.cat([c, q])[None])).items()}
    x, pos = _embed(model, q), torch.arange(T)
    weights: dict[str, RankOnePatch] = {}
    for i, block in enumerate(blocks):
        pre, mlp = f"blocks.{i}.", block.mlp
        site = _mlp_site(block, x, pos)
        layer = {n: _solve(_linear(model, n), site.v, ctx[n]) for n in _input_names(mlp, pre + "mlp.")}
        outs = {n: _linear(mlp, n) for n in ([f"experts.{e}.w_out" for e in range(len(experts_of(mlp)))]
                                             if isinstance(mlp, MoE) else ["w_out"])}
        with apply_patches(model, Patches(layer, {}, T, n_c)):  # the hidden states the solved inputs give
            rec, m_cur = _mlp_io(mlp, site.v, outs)
            gates = mlp.gates(site.v) if isinstance(mlp, MoE) else None
        tau = ctx[f"blocks.{i}"] - site.base  # y_C − base₀ = P(extra₀ + m*)
        if site.post is None:
            m_star = tau - site.extra
        else:
            m_star = _reach(site.post, norms.get(pre + str(site.post_name)), tau, site.extra + m_cur) - site.extra
            bad = torch.isnan(m_star).any(-1).nonzero().flatten().tolist()
            if bad:
                raise ValueError(f"norms: the with-context output of block {i} is out of reach of its patched "
                                 f"{site.post_name} at query positions {bad}")
        for n, mod in outs.items():
            h0, o = rec[n]
            if gates is None:
                target = m_star
            else:  # MoE output Σ_e g_e o_e: move the top-1 expert's output by (m* − m)/g
                e = int(n.split(".")[1])
                top = gates.argmax(-1) == e
                g = torch.where(top, gates[:, e], torch.ones_like(gates[:, e]))
                target = torch.where(top[:, None], o + (m_star - m_cur) / g[:, None], o)
            layer[f"{pre}mlp.{n}"] = _solve(mod, h0, target)
        weights.update(layer)
        mine = {k: v for k, v in norms.items() if k.startswith(pre)}
        with apply_patches(model, Patches(layer, mine, T, n_c)):
            x = block(x, pos)
    return Patches(weights, dict(norms), T, n_c)
