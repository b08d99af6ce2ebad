"""Reinforcement-learning pieces shared by the papers: pure functions on numpy arrays or torch tensors.

- Advantages without a critic: :func:`grpo_advantages` (GRPO: group mean and std), :func:`dr_grpo_advantages`
  (Dr.GRPO: group mean only), :func:`reinforce_advantages` (REINFORCE with a baseline). Groups on the last axis.
- Returns with a critic: :func:`discounted_returns`, :func:`gae` (time-major ``(T,)`` or ``(T, B)``).
- Losses (torch): :func:`ppo_clip_loss` (clipped surrogate, optional KL penalty to a reference policy, token masks
  and the GRPO / DAPO / Dr.GRPO aggregations), :func:`kl_penalty`, :func:`reinforce_loss`.
- Derivative-free search: :func:`ars_candidates` and :func:`ars_update` (ARS V1-t); the caller draws the directions
  with its own ``np.random.Generator``.
- :func:`batched_rollout`: ``B`` episodes in lock-step over a batched ``step`` function.

Nothing here draws random numbers on its own, touches a global RNG or imports torch before a loss is called.
"""

from icml26.common.rl._advantages import dr_grpo_advantages, grpo_advantages, reinforce_advantages
from icml26.common.rl._ars import ars_candidates, ars_update
from icml26.common.rl._losses import (
    AGGREGATES,
    KL_ESTIMATORS,
    PolicyLoss,
    kl_penalty,
    ppo_clip_loss,
    reinforce_loss,
)
from icml26.common.rl._returns import discounted_returns, gae
from icml26.common.rl._rollout import Rollout, batched_rollout

__all__ = [
    "AGGREGATES",
    "KL_ESTIMATORS",
    "PolicyLoss",
    "Rollout",
    "ars_candidates",
    "ars_update",
    "batched_rollout",
    "discounted_returns",
    "dr_grpo_advantages",
    "gae",
    "grpo_advantages",
    "kl_penalty",
    "ppo_clip_loss",
    "reinforce_advantages",
    "reinforce_loss",
]
