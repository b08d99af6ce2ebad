"""Reward and advantage transforms over one group of sampled trajectories (vanilla, entropy heuristics, DS).

Notation of [P32]: a prompt x, a group of G trajectories τ_i = y_i ~ π_old(·|x) with verifier rewards r̂_i (correct iff
r̂_i > 0) and sequence log-probabilities ℓ_i = log π(y_i|x) under a reference policy (π_base in the theory, π_old in
the GRPO implementation).

Every transform here is A_i − α_i ℓ_i with α_i = α₊ on correct and α₋ on incorrect trajectories:

    vanilla                      α₊ = 0,    α₋ = 0
    entropy bonus (all)          α₊ = γ,    α₋ = γ      (−ℓ_i rewards rare trajectories: pushes towards uniform)
    entropy minimisation (all)   α₊ = −γ,   α₋ = −γ     (pushes towards the mode)
    differential smoothing       α₊ = γ_p,  α₋ = −γ_n   (Eq. 4 / Eq. 6: smooth the correct, sharpen the incorrect)
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from icml26.common import validation
from icml26.common.rl import dr_grpo_advantages, grpo_advantages

__all__ = [
    "KINDS",
    "AdvantageTransform",
    "differential_smoothing",
    "differential_smoothing_reward",
    "entropy_bonus",
    "entropy_minimization",
    "smoothed_advantages",
    "vanilla",
]

KINDS = ("vanilla", "entropy_bonus", "entropy_min", "ds")


def _as_group(x: object, name: str) -> np.ndarray:
    a = validation.real_array(x, name, ndim=(1, 2))
    if a.shape[-1] == 0:
        raise ValueError(f"{name} must be a non-empty group (1-D, or 2-D with one group per row), got shape {a.shape}")
    return a


def _group_pair(rewards: object, logp: object, name: str = "logp") -> tuple[np.ndarray, np.ndarray]:
    r = _as_group(rewards, "rewards")
    lp = _as_group(logp, name)
    if r.shape != lp.shape:
        raise ValueError(f"rewards and {name} must have the same shape, got {r.shape} and {lp.shape}")
    if np.any(lp > 1e-9):
        raise ValueError(f"{name} holds log-probabilities, which must be <= 0")
    return r, lp


def _gamma(x: object, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not np.isfinite(float(x)):
        raise TypeError(f"{name} must be a finite real number, got {x!r}")
    return float(x)


def smoothed_advantages(
    rewards: object,
    logp: object,
    *,
    coef_correct: float,
    coef_incorrect: float,
    normalize: bool = True,
    eps: float = 1e-6,
) -> np.ndarray:
    """A_i − α_i ℓ_i with α_i = ``coef_correct`` if r̂_i > 0 else ``coef_incorrect`` (the family of Eq. 6 of [P32]).

    Args:
        rewards: r̂_i, shape (G,) or (P, G) (one group per row).
        logp: ℓ_i = log π_ref(y_i|x) (sequence log-probability, summed over tokens), same shape, <= 0.
        coef_correct: α₊.
        coef_incorrect: α₋.
        normalize: GRPO's group-normalised A_i (:func:`icml26.common.rl.grpo_advantages`, population std + ``eps``);
            ``False``: the group mean only (:func:`icml26.common.rl.dr_grpo_advantages`).
        eps: added to the group's std (> 0).

    Float32 input is computed and returned in float64.
    """
    r, lp = _group_pair(rewards, logp)
    a_p, a_n = _gamma(coef_correct, "coef_correct"), _gamma(coef_incorrect, "coef_incorrect")
    a = grpo_advantages(r, eps=eps) if normalize else dr_grpo_advantages(r)
    return a - np.where(r > 0, a_p, a_n) * lp


def differential_smoothing_reward(rewards: object, logp_base: object, *, gamma_p: float, gamma_n: float) -> np.ndarray:
    """Implements Eq. (4) of [P32]: r_DS(τ) = r̂(τ) − γ_p log π_base(τ) if r̂(τ) > 0, else r̂(τ) + γ_n log π_base(τ).

    ``rewards`` = r̂, ``logp_base`` = log π_base(τ) (<= 0), ``gamma_p`` = γ_p >= 0, ``gamma_n`` = γ_n >= 0.
    Float32 input is computed and returned in float64.
    """
    r, lp = _group_pair(rewards, logp_base, "logp_base")
    gp, gn = _gamma(gamma_p, "gamma_p"), _gamma(gamma_n, "gamma_n")
    if gp < 0 or gn < 0:
        raise ValueError(f"gamma_p and gamma_n must be >= 0, got {gp}, {gn}")
    return np.where(r > 0, r - gp * lp, r + gn * lp)


@dataclass(frozen=True, kw_only=True)
class AdvantageTransform:
    """A named advantage transform over a group: ``t(rewards, logp) -> advantages`` (see the module table): DS of
    [P32]'s Eq. (6) and the vanilla / entropy-heuristic baselines it is compared with. Calling it with float32 input
    computes and returns float64.

    Attributes:
        kind: ``"vanilla"``, ``"entropy_bonus"``, ``"entropy_min"`` or ``"ds"`` (differential smoothing, Eq. 6).
        gamma_p: γ_p for ``ds``; γ for the entropy heuristics.
        gamma_n: γ_n for ``ds`` (unused otherwise).
        normalize: divide by the group's reward std (GRPO).
    """

    kind: str = "vanilla"
    gamma_p: float = 0.0
    gamma_n: float = 0.0
    normalize: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        for name in ("gamma_p", "gamma_n"):
            v = _gamma(getattr(self, name), name)
            if v < 0:
                raise ValueError(f"{name} must be >= 0 (the sign is set by kind), got {v}")

    @property
    def coefficients(self) -> tuple[float, float]:
        """(α₊, α₋): the multipliers of −ℓ on correct and incorrect trajectories."""
        if self.kind == "vanilla":
            return 0.0, 0.0
        if self.kind == "entropy_bonus":
            return self.gamma_p, self.gamma_p
        if self.kind == "entropy_min":
            return -self.gamma_p, -self.gamma_p
        return self.gamma_p, -self.gamma_n

    @property
    def label(self) -> str:
        """A short display name, e.g. ``ds(0.05,0.05)``."""
        if self.kind == "vanilla":
            return "vanilla"
        if self.kind == "ds":
            return f"ds({self.gamma_p:g},{self.gamma_n:g})"
        return f"{self.kind}({self.gamma_p:g})"

    def __call__(self, rewards: object, logp: object) -> np.ndarray:
        a_p, a_n = self.coefficients
        return smoothed_advantages(rewards, logp, coef_correct=a_p, coef_incorrect=a_n, normalize=self.normalize)


def vanilla(*, normalize: bool = True) -> AdvantageTransform:
    """Plain GRPO advantages (no reward modification): the vanilla-RL baseline of [P32]."""
    return AdvantageTransform(kind="vanilla", normalize=normalize)


def entropy_bonus(*, gamma: float, normalize: bool = True) -> AdvantageTransform:
    """Entropy bonus on every trajectory: A_i − γ ℓ_i (the heuristic [P32] analyses)."""
    return AdvantageTransform(kind="entropy_bonus", gamma_p=gamma, normalize=normalize)


def entropy_minimization(*, gamma: float, normalize: bool = True) -> AdvantageTransform:
    """Entropy minimisation on every trajectory: A_i + γ ℓ_i (the opposite heuristic [P32] analyses)."""
    return AdvantageTransform(kind="entropy_min", gamma_p=gamma, normalize=normalize)


def differential_smoothing(*, gamma_p: float, gamma_n: float, normalize: bool = True) -> AdvantageTransform:
    """Implements Eq. (6) of [P32]: A_i − γ_p ℓ_i on correct, A_i + γ_n ℓ_i on incorrect trajectories."""
    return AdvantageTransform(kind="ds", gamma_p=gamma_p, gamma_n=gamma_n, normalize=normalize)
