"""Advantages without a critic: group-relative (GRPO, Dr.GRPO) and batch-baselined returns (REINFORCE).

All three work on the last axis and accept numpy arrays or torch tensors (the result is of the same kind).
"""

from __future__ import annotations

from typing import Any

from icml26.common import validation
from icml26.common.rl._arrays import as_float, is_tensor, same_shape

__all__ = ["dr_grpo_advantages", "grpo_advantages", "reinforce_advantages"]


def _centred(r: Any) -> Any:
    if is_tensor(r):
        return r - r.mean(dim=-1, keepdim=True)
    return r - r.mean(axis=-1, keepdims=True)


def grpo_advantages(rewards: Any, *, eps: float = 1e-6, ddof: int = 0) -> Any:
    """Group-relative advantages of GRPO (Shao et al. 2024, DeepSeekMath, Eq. 3 "outcome supervision"):
    ``A_i = (r_i - mean_j r_j) / (std_j r_j + eps)`` within each group.

    Args:
        rewards: one group per row on the last axis: ``(G,)``, ``(P, G)`` or more leading axes; numpy (float64) or
            a torch tensor (its dtype).
        eps: added to the group's standard deviation (> 0): a group whose rewards are all equal gets ``A = 0``.
        ddof: delta degrees of freedom of the standard deviation: 0 (population, the default) or 1 (the sample
            standard deviation, as TRL's and verl's GRPO use).

    Returns:
        The advantages, of ``rewards``' shape and kind.
    """
    r = as_float(rewards, "rewards")
    eps = validation.real(eps, "eps", lo=0.0, lo_open=True)
    ddof = validation.int_at_least(ddof, "ddof", 0, hi=1)
    if r.shape[-1] <= ddof:
        raise ValueError(f"rewards: groups of size {r.shape[-1]} have no standard deviation with ddof={ddof}")
    if is_tensor(r):
        return _centred(r) / (r.std(dim=-1, keepdim=True, correction=ddof) + eps)
    return _centred(r) / (r.std(axis=-1, keepdims=True, ddof=ddof) + eps)


def dr_grpo_advantages(rewards: Any) -> Any:
    """Dr.GRPO's group-relative advantages (Liu et al. 2025, "Understanding R1-Zero-like training", Sec. 3.2):
    ``A_i = r_i - mean_j r_j`` within each group, without GRPO's division by the group's standard deviation.

    ``rewards`` as in :func:`grpo_advantages` (one group per row on the last axis, numpy or torch).
    """
    return _centred(as_float(rewards, "rewards"))


def reinforce_advantages(returns: Any, *, baseline: Any = "mean") -> Any:
    """The weights of REINFORCE with a baseline (Williams 1992, Sec. 4): ``G_i - b``.

    Args:
        returns: episode returns ``G``, the batch on the last axis (numpy or torch).
        baseline: ``"mean"`` (the batch's mean return, the variance-reducing baseline that keeps the estimate
            unbiased up to O(1/B)), ``"none"`` (plain REINFORCE) or per-episode baselines of ``returns``' shape and
            kind (e.g. a value estimate).

    Returns:
        ``G - b``, of ``returns``' shape and kind.
    """
    g = as_float(returns, "returns")
    if isinstance(baseline, str):
        baseline = validation.choice(baseline, "baseline", ("mean", "none"))
        return _centred(g) if baseline == "mean" else g
    b = as_float(baseline, "baseline")
    same_shape(g, b, ("returns", "baseline"))
    return g - b
