"""The leaf reward of [P25] with its format punish, and leaf advantages broadcast to every step.

The authors' ``compute_leaf_nodes_rewards``: only the leaf (last) step of a trajectory is graded; a leaf that did
not end properly (no ``</think> answer <eos>``: a malformed step, a truncated one, or the step limit reached) gets
the format penalty (0 in the paper) whatever it says. The advantage of a trajectory is its leaf reward minus the
mean leaf reward of its group (the rollouts of one prompt), without GRPO's division by the group's standard
deviation (Dr.GRPO's form, :func:`icml26.common.rl.dr_grpo_advantages`), and every step of the trajectory is trained
with that same advantage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from icml26.common import validation
from icml26.common.rl import dr_grpo_advantages
from icml26.papers.accordion._format import FINAL, Step, tokens_of
from icml26.papers.accordion._trace import Trajectory

__all__ = ["broadcast_to_steps", "leaf_advantages", "leaf_reward", "leaf_rewards"]


def leaf_reward(leaf: Step, target: Sequence[int], *, format_penalty: float = 0.0,
                correct_reward: float = 1.0) -> float:
    """The reward of one [P25] leaf: ``correct_reward`` if it is a final step closed by ``<eos>`` whose answer equals
    ``target`` token for token, 0 if it ended properly with another answer, ``format_penalty`` if it did not end
    properly (the format punish; the paper's value is 0)."""
    if not isinstance(leaf, Step):
        raise TypeError(f"leaf must be a Step, got {type(leaf).__name__}")
    want = tokens_of(target, "target")
    pen = validation.real(format_penalty, "format_penalty")
    good = validation.real(correct_reward, "correct_reward")
    if leaf.kind != FINAL or not leaf.ended:
        return pen
    return good if leaf.answer == want else 0.0


def leaf_rewards(trajectories: Sequence[Trajectory], targets: Sequence[Sequence[int]], *, format_penalty: float = 0.0,
                 correct_reward: float = 1.0) -> np.ndarray:
    """:func:`leaf_reward` of each [P25] trajectory's leaf against its target answer, as a float64 array."""
    if isinstance(trajectories, (str, bytes)) or not isinstance(trajectories, Sequence) or not trajectories:
        raise ValueError("trajectories must be a non-empty sequence of Trajectory records")
    if len(targets) != len(trajectories):
        raise ValueError(f"targets must give one answer per trajectory: {len(targets)} for {len(trajectories)}")
    out = []
    for i, (t, y) in enumerate(zip(trajectories, targets)):
        if not isinstance(t, Trajectory):
            raise TypeError(f"trajectories[{i}] must be a Trajectory, got {type(t).__name__}")
        out.append(leaf_reward(t.leaf, y, format_penalty=format_penalty, correct_reward=correct_reward))
    return np.asarray(out, dtype=np.float64)


def leaf_advantages(rewards: Any, groups: Any = None) -> np.ndarray:
    """[P25] leaf advantages ``A_i = r_i − mean_{j ∈ g(i)} r_j`` (no std normalisation).

    Args:
        rewards: leaf rewards, ``(N,)`` with ``groups``, or ``(P, G)`` (one group per row) without.
        groups: ``(N,)`` integer group ids (the rollouts of one prompt share an id; groups may differ in size and
            be interleaved), or ``None``.

    Returns:
        float64 advantages of ``rewards``' shape; a group of one gets 0.
    """
    if groups is None:
        r = validation.real_array(rewards, "rewards", ndim=(1, 2))
        if r.shape[-1] == 0:
            raise ValueError("rewards: a group must hold at least one rollout")
        return np.asarray(dr_grpo_advantages(r), dtype=np.float64)
    r = validation.real_array(rewards, "rewards", ndim=1)
    g = validation.int_array(groups, "groups", ndim=1)
    if g.shape != r.shape:
        raise ValueError(f"groups must give one id per reward: shape {g.shape} for rewards {r.shape}")
    out = np.empty_like(r)
    for gid in np.unique(g):
        sel = g == gid
        out[sel] = dr_grpo_advantages(r[sel])
    return out


def broadcast_to_steps(advantages: Any, n_steps: Any) -> np.ndarray:
    """Each [P25] trajectory's advantage repeated for each of its ``n_steps`` step segments, concatenated in order
    (trajectory 0's steps first): every step node of a trajectory is trained with its leaf's advantage."""
    a = validation.real_array(advantages, "advantages", ndim=1)
    n = validation.int_array(n_steps, "n_steps", ndim=1)
    if n.shape != a.shape:
        raise ValueError(f"n_steps must give one count per advantage: shape {n.shape} for advantages {a.shape}")
    if int(n.min()) < 1:
        raise ValueError("n_steps: every trajectory has at least one step")
    return np.repeat(a, n)
