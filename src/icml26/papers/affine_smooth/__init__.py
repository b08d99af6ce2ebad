"""[P26] Convergence of Steepest Descent and Adam under Non-Uniform Smoothness

Also titled "On the Convergence of Steepest Descent and Adaptive Gradient Methods under Non-Uniform Smoothness".

What: objectives whose curvature is affine in the objective value, ‖∇²f(θ)‖ ≤ H0 + H1 f(θ) ((H0, H1)-smoothness),
plus gradient domination ‖∇f‖_* ≥ μ (f − f*). Under them, normalised steepest descent (sign GD in ℓ∞) and
deterministic diagonal RMSProp/Adam with constant hyper-parameters converge linearly where GD, heavy-ball,
AdaGrad and AMSGrad need Ω(1/ε) iterations.

API (numpy, float64):
  * methods as pure ``init/update`` pairs: :func:`gd`, :func:`heavy_ball`, :func:`sign_gd`, :func:`normalized_gd`,
    :func:`rmsprop`, :func:`adam`, :func:`amsgrad`, :func:`adagrad`; :class:`PureMethodOptimizer` /
    :func:`torch_optimizer` wrap them as ``torch.optim.Optimizer`` (torch imported only when those are used);
  * objectives: :class:`LogisticRegression` (+ :func:`make_separable_data`), :class:`SoftmaxBandit` (softmax PG),
    :class:`TwoLayerNet`, :func:`lower_bound_instance`; each with ``loss``, ``log_loss``, ``grad``, ``hess_vec``;
  * :func:`run_method`, :func:`linear_rate`, :func:`iterations_to_eps`, :func:`estimate_affine_smoothness`.

Claims (words, bars and basis in paper.toml; measured in ``_checks*.py``, judged in ``_rules.py``):
  1. ``sign_gd_logistic`` — sign GD linear and faster than GD on separable logistic regression (Abstract).
  2. ``sign_gd_softmax_pg`` — the same for softmax policy gradient (Abstract).
  3. ``adaptive_two_layer`` — RMSProp/Adam linear on a two-layer net with constant η, β1, β2 (Abstract).
  4. ``lower_bound`` — Ω(1/ε) for GD, heavy-ball, AdaGrad, AMSGrad vs O(log 1/ε) for RMSProp/Adam (Abstract).
  5. ``affine_smoothness`` — the assumption itself: ‖∇²f‖ falls like f along trajectories (Abstract).
All five are on basis ``reconstruction``: the paper gives theorems only, and the instances and steps are ours.

Implementation details / deviations:
  1. The paper ships no code; every instance here is our reconstruction from the abstract. The 1-D lower-bound
     instance f(θ) = log(1 + e^{−θ}) and the two-layer class (fixed second layer ±1/m, leaky-ReLU with slope 0.2,
     first layer trained) are our choices; the paper's own constructions may differ.
  2. Adaptive methods use ε = 0 and no bias correction by default (the deterministic variants analysed); with
     ε = 1e-8 they fall back to GD once √v < ε. ``bias_correction=True`` matches ``torch.optim.Adam``.
  3. Linear rates need β2 well below 1: the claims pin β2 = 0.9 and report β2 = 0.999 (torch's default), which
     looks sublinear over thousands of steps. Sign GD uses a small constant step (0.05).
  4. Losses are tracked in the log domain (``log_loss``), exact far below 1e-300; runs stop at f < 1e-260.
  5. Smoothness is measured in the ℓ2 operator norm (power iteration), not the ℓ∞→ℓ1 norm of the sign-GD analysis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from icml26.papers.affine_smooth._analysis import (
    AffineSmoothnessFit,
    Objective,
    Trajectory,
    estimate_affine_smoothness,
    hessian_norm,
    iterations_to_eps,
    linear_rate,
    run_method,
)
from icml26.papers.affine_smooth._optim import (
    GradientMethod,
    OptState,
    adagrad,
    adam,
    amsgrad,
    gd,
    heavy_ball,
    normalized_gd,
    rmsprop,
    sign_gd,
)
from icml26.papers.affine_smooth._problems import (
    LogisticRegression,
    SoftmaxBandit,
    TwoLayerNet,
    log_softplus_neg,
    lower_bound_instance,
    make_separable_data,
)

if TYPE_CHECKING:  # pragma: no cover - the torch wrappers are imported lazily (__getattr__ below)
    from icml26.papers.affine_smooth._torch import PureMethodOptimizer, torch_optimizer

__all__ = [
    "AffineSmoothnessFit",
    "GradientMethod",
    "LogisticRegression",
    "Objective",
    "OptState",
    "PureMethodOptimizer",
    "SoftmaxBandit",
    "Trajectory",
    "TwoLayerNet",
    "adagrad",
    "adam",
    "amsgrad",
    "estimate_affine_smoothness",
    "gd",
    "heavy_ball",
    "hessian_norm",
    "iterations_to_eps",
    "linear_rate",
    "log_softplus_neg",
    "lower_bound_instance",
    "make_separable_data",
    "normalized_gd",
    "rmsprop",
    "run_method",
    "sign_gd",
    "torch_optimizer",
]

_TORCH_NAMES = ("PureMethodOptimizer", "torch_optimizer")


def __getattr__(name: str) -> Any:
    """Import the torch wrappers lazily, so that ``import icml26.papers.affine_smooth`` does not import torch."""
    if name in _TORCH_NAMES:
        from icml26.papers.affine_smooth import _torch

        return getattr(_torch, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
