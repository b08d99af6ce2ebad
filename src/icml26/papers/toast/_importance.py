"""Head-dimension importance of [P35]'s Structured Coupled Weight Pruning (SCWP).

For head h of a block, write its rows of the projections as Q_h, K_h, V_h ∈ ℝ^{d×C} and its columns of the output
projection, transposed, as O_hᵀ ∈ ℝ^{d×C} (d = head dimension, C = width). Dimension i of the head enters the
attention logits only through the product q_i k_i, and the output only through v_i O_{:,i}: SCWP removes Q/K rows
together and V rows with O columns together, scoring each pair on its concatenation

    W_QK = [Q_h | K_h],  W_VO = [V_h | O_hᵀ]  ∈ ℝ^{d×2C},

so that a dimension is kept only when it matters to both halves. The row scores:

- ``gm``: ‖w_i − m‖₂, the distance of row i to the coordinate-wise (lower) median m of the rows: rows near the
  median are the most replaceable by the others (the paper's criterion);
- ``l1``: ‖w_i‖₁ and ``l2``: ‖w_i‖₂ (magnitude baselines).

The couplings (``coupled`` is the paper's; the rest are ablations): ``average`` scores each matrix and averages
within the pair, ``q_only``/``k_only`` score one side of each pair (Q and V / K and Oᵀ), and ``independent`` scores
and prunes Q, K, V and Oᵀ each on its own (no tie between the two sides: ours, the uncoupled reference).

The abstract of [P35] gives no formulas: the pair construction, the median-distance score and the ablations follow
the authors' released code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor

from icml26.common.validation import choice, real_array

__all__ = ["COUPLINGS", "SCORES", "HeadScores", "head_importance", "row_scores"]

SCORES: tuple[str, ...] = ("gm", "l1", "l2")
COUPLINGS: tuple[str, ...] = ("coupled", "average", "q_only", "k_only", "independent")
#: couplings whose Q/K (and V/O) masks are the same: the only ones a pruned model can be re-packed densely from
TIED: tuple[str, ...] = ("coupled", "average", "q_only", "k_only")


@dataclass(frozen=True)
class HeadScores:
    """Importance of each of a head's d dimensions for Q, K, V and O ([P35] SCWP; larger = keep).

    Under a tied coupling ``q`` equals ``k`` and ``v`` equals ``o``: the pair is kept or pruned together.
    """

    q: Tensor
    k: Tensor
    v: Tensor
    o: Tensor

    @property
    def tied(self) -> bool:
        """Whether the Q/K and V/O scores coincide (masks built from them prune the pairs together)."""
        return bool(torch.equal(self.q, self.k) and torch.equal(self.v, self.o))


def _lower_median(w: Tensor) -> Tensor:
    """Column-wise lower median (the ⌊(n−1)/2⌋-th order statistic, as ``torch.median`` defines it)."""
    return torch.sort(w, dim=0).values[(w.shape[0] - 1) // 2]


def _gm(w: Tensor) -> Tensor:
    return torch.linalg.vector_norm(w - _lower_median(w), dim=1)


def _l1(w: Tensor) -> Tensor:
    return w.abs().sum(dim=1)


def _l2(w: Tensor) -> Tensor:
    return torch.linalg.vector_norm(w, dim=1)


_SCORE_FNS: dict[str, Callable[[Tensor], Tensor]] = {"gm": _gm, "l1": _l1, "l2": _l2}


def row_scores(w: Tensor, score: str) -> Tensor:
    """Row scores of a (d, D) matrix under ``score`` ∈ :data:`SCORES` ([P35] SCWP criterion)."""
    return _SCORE_FNS[choice(score, "score", SCORES)](w)


def _matrix(x: Any, name: str) -> Tensor:
    if isinstance(x, Tensor):
        if x.dtype.is_complex:
            raise TypeError(f"{name} must hold real numbers, got dtype {x.dtype}")
        x = x.detach().cpu().to(torch.float64).numpy()
    a = real_array(x, name, ndim=2)
    if a.shape[1] == 0:
        raise ValueError(f"{name} must not be empty, got shape {a.shape}")
    return torch.from_numpy(np.ascontiguousarray(a))


def head_importance(q: Any, k: Any, v: Any, o_t: Any, *, score: str = "gm", coupling: str = "coupled") -> HeadScores:
    """Importance of one head's dimensions for SCWP ([P35], coupled head-wise structured pruning of MHSA).

    Args:
        q: the head's rows of the query projection, (d, C).
        k: the head's rows of the key projection, (d, C).
        v: the head's rows of the value projection, (d, C).
        o_t: the head's columns of the output projection, transposed, (d, C).
        score: ``gm`` (distance to the coordinate-wise median, the paper's), ``l1`` or ``l2``.
        coupling: ``coupled`` (score [Q|K] and [V|Oᵀ], the paper's), ``average``, ``q_only``, ``k_only`` or
            ``independent`` (see the module docstring).

    Returns:
        :class:`HeadScores` with four (d,) float64 tensors.
    """
    mats = {n: _matrix(x, n) for n, x in (("q", q), ("k", k), ("v", v), ("o_t", o_t))}
    shape = mats["q"].shape
    for n, m in mats.items():
        if m.shape != shape:
            raise ValueError(f"{n} must have the shape of q {tuple(shape)}, got {tuple(m.shape)}")
    s = choice(score, "score", SCORES)
    c = choice(coupling, "coupling", COUPLINGS)
    fq, fk, fv, fo = (row_scores(mats[n], s) for n in ("q", "k", "v", "o_t"))
    if c == "coupled":
        qk = row_scores(torch.cat([mats["q"], mats["k"]], dim=1), s)
        vo = row_scores(torch.cat([mats["v"], mats["o_t"]], dim=1), s)
    elif c == "average":
        qk, vo = (fq + fk) / 2, (fv + fo) / 2
    elif c == "q_only":
        qk, vo = fq, fv
    elif c == "k_only":
        qk, vo = fk, fo
    else:
        return HeadScores(fq, fk, fv, fo)
    return HeadScores(qk, qk, vo, vo)
