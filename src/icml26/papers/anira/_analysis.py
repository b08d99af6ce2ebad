"""The [P23] analyses of per-token compute: depth against difficulty, and what explains the depth decisions.

- :func:`depth_difficulty_rho`: Spearman's rank correlation between per-token depth and ground-truth difficulty
  (scipy); a constant depth tracks nothing and counts as 0.
- :func:`r_squared`: in-sample R^2 of a least-squares fit (with intercept, scikit-learn) of depth on a set of
  per-token features; a constant depth is explained by nothing and counts as 0.
- :func:`by_difficulty`: the mean of a per-token quantity at each difficulty.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from icml26.common.validation import real_array

__all__ = ["by_difficulty", "depth_difficulty_rho", "r_squared"]


def _pair(a: Any, name_a: str, b: Any, name_b: str) -> tuple[np.ndarray, np.ndarray]:
    u, v = real_array(a, name_a, ndim=1), real_array(b, name_b, ndim=1)
    if u.shape != v.shape:
        raise ValueError(f"{name_a} and {name_b} must have the same length, got {u.shape} and {v.shape}")
    if u.size < 2:
        raise ValueError(f"{name_a} must hold at least 2 tokens, got {u.size}")
    return u, v


def depth_difficulty_rho(depth: Any, difficulty: Any) -> float:
    """Spearman's rho between per-token ``depth`` and ``difficulty`` ([P23] "compute allocation aligned with task
    complexity"); 0.0 when either is constant (no ranking to follow)."""
    from scipy.stats import spearmanr

    d, k = _pair(depth, "depth", difficulty, "difficulty")
    if np.ptp(d) == 0 or np.ptp(k) == 0:
        return 0.0
    rho, _ = spearmanr(d, k)
    return float(rho)  # type: ignore[arg-type]


def r_squared(depth: Any, features: Any) -> float:
    """In-sample R^2 of ``depth`` (n,) regressed on ``features`` (n, k) by least squares with an intercept ([P23]
    "early decisions rely on static cues, online halting tracks execution state"); 0.0 for a constant depth."""
    from sklearn.linear_model import LinearRegression

    y = real_array(depth, "depth", ndim=1)
    X = real_array(features, "features", ndim=2)
    if X.shape[0] != y.size:
        raise ValueError(f"features must have one row per token ({y.size}), got {X.shape[0]}")
    if y.size < 2:
        raise ValueError(f"depth must hold at least 2 tokens, got {y.size}")
    if np.ptp(y) == 0:
        return 0.0
    fit = LinearRegression().fit(X, y)
    return float(fit.score(X, y))


def by_difficulty(values: Any, difficulty: Any) -> dict[int, float]:
    """Mean of ``values`` at each integer ``difficulty`` ([P23] figures: depth and accuracy per difficulty)."""
    v, k = _pair(values, "values", difficulty, "difficulty")
    if np.any(k != np.round(k)):
        raise ValueError("difficulty must hold integers")
    return {int(level): float(v[k == level].mean()) for level in np.unique(k)}
