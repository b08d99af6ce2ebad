"""An independent check of [P06]'s rank-1 statement: the weight update each patched matrix *needs*, solved from
recorded activations rather than read off the stored factors ``(u, v)``.

For a patched ``nn.Linear`` ``W`` and a set ``G`` of query positions that share one update, record its inputs
``X₀`` (columns ``x₀_t``, t ∈ G) in the patched run on the query alone and the outputs ``Y*`` it must produce there.
The minimum-Frobenius-norm solution of ``(W + ΔW) X₀ = Y* − b`` is ``ΔW* = (Y* − W X₀ − b) X₀⁺`` (pseudo-inverse).
Its σ₂/σ₁ says whether a rank-1 update *can* do the job; its distance to the stored ``u_t v_tᵀ`` says whether the
construction found that update. Targets ``Y*``: for the MLP input matrices (``w_in``, ``w_gate``, router, experts'
inputs) the matrix's own outputs at the query positions of the run *with the context* (independent of the patch);
for the output matrices the outputs of the patched run (the MLP output that, through the patched norm, gives the
with-context block output; the equivalence claims check that this reproduces the logits).
With one position per group (the construction's token-dependent patches) ``ΔW*`` is rank 1; when two positions
must share one patch, ``X₀`` has two independent columns and ``ΔW*`` is rank 2 in general.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from icml26.common.nn import TinyGPT
from icml26.papers.implicit_patch._construct import Ids, _check, context_patches
from icml26.papers.implicit_patch._patches import Patches, apply_patches

__all__ = ["RequiredUpdate", "required_updates"]


@dataclass(frozen=True)
class RequiredUpdate:
    """The dense update one patched matrix needs at a group of query positions.

    Attributes:
        module: module path of the matrix (e.g. ``"blocks.0.mlp.w_in"``).
        positions: the query positions that share the update (one for [P06]'s token-dependent patches).
        sigma_ratio: σ₂/σ₁ of ``ΔW*`` (0 for a rank-1 matrix; 0 also when ``ΔW* = 0``).
        rel_disagreement: ``‖ΔW* − u_t v_tᵀ‖_F / ‖ΔW*‖_F`` with ``t`` the group's first position (absolute when
            ``ΔW* = 0``).
    """

    module: str
    positions: tuple[int, ...]
    sigma_ratio: float
    rel_disagreement: float


def _record(model: nn.Module, names: Sequence[str], run: Callable[[], object]) -> dict[str, tuple[Tensor, Tensor]]:
    """(input, output) of each named module during ``run()`` (last call; batch 1 → (T, features))."""
    rec: dict[str, tuple[Tensor, Tensor]] = {}
    handles = []
    for n in names:
        def hook(m: nn.Module, inp: tuple[Tensor, ...], out: Tensor, n: str = n) -> None:
            rec[n] = (inp[0][0].detach().clone(), out[0].detach().clone())
        handles.append(model.get_submodule(n).register_forward_hook(hook))
    try:
        run()
    finally:
        for h in handles:
            h.remove()
    return rec


@torch.no_grad()
def required_updates(
    model: TinyGPT, context_ids: Ids, query_ids: Ids, *, patches: Patches | None = None,
    groups: Sequence[Sequence[int]] | None = None,
) -> list[RequiredUpdate]:
    """σ₂/σ₁ of the minimum-norm dense update each patched matrix needs, and its agreement with the stored factors
    (the rank-1 statement of [P06]'s abstract, checked from activations; see the module docstring).

    Args:
        model, context_ids, query_ids: as for :func:`context_patches` (``C``, ``x``).
        patches: the patches to check (default: :func:`context_patches` of the pair).
        groups: query positions that must share one update (default: each position alone, as in [P06]).
            Groups whose stored patch is zero at every position (unselected MoE experts) are skipped.

    Raises ``ValueError`` for a group naming a position outside the query, on top of :func:`context_patches`'s checks.
    """
    c, q = _check(model, context_ids, query_ids)
    T, n_c = q.numel(), c.numel()
    if patches is None:
        patches = context_patches(model, c, q)
    if groups is None:
        groups = [(t,) for t in range(T)]
    groups = [tuple(int(t) for t in g) for g in groups]
    if any(not g or min(g) < 0 or max(g) >= T for g in groups):
        raise ValueError(f"groups must be non-empty lists of query positions in [0, {T}), got {groups}")
    names = list(patches.weights)
    rec_c = _record(model, names, lambda: model(torch.cat([c, q])[None]))
    with apply_patches(model, patches):
        rec_p = _record(model, names, lambda: model(q[None]))
    out: list[RequiredUpdate] = []
    for name in names:
        lin, p = model.get_submodule(name), patches.weights[name]
        x0, y_patched = rec_p[name]
        y_star = y_patched if name.endswith("w_out") else rec_c[name][1][n_c:]
        resid = y_star - nn.functional.linear(x0, lin.weight, lin.bias)  # (T, out)
        for g in groups:
            if all(p.is_zero(t) for t in g):
                continue
            idx = list(g)
            dw = resid[idx].T @ torch.linalg.pinv(x0[idx].T)  # (out, |G|) @ (|G|, in)
            s = torch.linalg.svdvals(dw)
            stored = p.dense(g[0])
            scale = float(torch.linalg.norm(dw))
            ratio = float(s[1] / s[0]) if len(s) > 1 and float(s[0]) > 0 else 0.0
            dis = float(torch.linalg.norm(dw - stored)) / (scale if scale > 0 else 1.0)
            out.append(RequiredUpdate(name, g, ratio, dis))
    return out
