"""Deterministic first-order methods as pure ``init/update`` pairs with explicit state (numpy, float64).

Every method is a :class:`GradientMethod`: ``state = method.init(theta0)`` and
``theta, state = method.update(grad, state, theta)``. Nothing is modified in place. Symbols of [P26]:
θ ↔ ``theta``, ∇f(θ_k) = g_k ↔ ``grad``, η ↔ ``lr``, β1 ↔ ``beta1``, β2 ↔ ``beta2``, ε ↔ ``eps``.

The adaptive methods default to ``eps = 0``: the losses studied here reach 1e-40 and below, so any fixed ε (torch
uses 1e-8) eventually dominates √v and turns the method back into gradient descent. Where a coordinate has
v = 0 (and hence g = 0) the step in that coordinate is 0. Limit: the second moments hold g², so RMSProp, Adam,
AMSGrad and AdaGrad need 1e-154 ≲ |g| ≲ 1e154 (below, g² underflows and the step in that coordinate is 0);
sign GD and normalised GD work for any finite g.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from icml26.common.validation import paired_vectors, real, real_array

__all__ = [
    "GradientMethod",
    "OptState",
    "adagrad",
    "adam",
    "amsgrad",
    "gd",
    "heavy_ball",
    "normalized_gd",
    "rmsprop",
    "sign_gd",
]


class OptState(NamedTuple):
    """Explicit state of the optimisers of [P26] (fields a method does not use are ``None``).

    Attributes:
        count: iterations taken so far, k.
        m: first-moment / momentum buffer (Adam, AMSGrad, heavy-ball).
        v: second-moment buffer (RMSProp, Adam, AMSGrad) or the sum of squares (AdaGrad).
        v_max: running maximum of ``v`` (AMSGrad).
    """

    count: int
    m: np.ndarray | None = None
    v: np.ndarray | None = None
    v_max: np.ndarray | None = None


class GradientMethod(NamedTuple):
    """A pair of pure functions, ``init(theta) -> OptState`` and ``update(grad, state, theta) -> (theta, state)``:
    one of the optimisers [P26] compares (sign GD, RMSProp, Adam and the GD / heavy-ball / AdaGrad / AMSGrad
    baselines)."""

    name: str
    init: Callable[[np.ndarray], OptState]
    update: Callable[[np.ndarray, OptState, np.ndarray], tuple[np.ndarray, OptState]]
    hyper: dict[str, Any]


def _as_vector(x: Any, name: str) -> np.ndarray:
    return real_array(x, name, ndim=1)


def _check_pair(grad: Any, theta: Any) -> tuple[np.ndarray, np.ndarray]:
    return paired_vectors(grad, "grad", theta, "theta")


def _check_lr(lr: float) -> float:
    return real(lr, "lr", lo=0.0, lo_open=True)


def _check_beta(beta: float, name: str) -> float:
    return real(beta, name, lo=0.0, hi=1.0, hi_open=True)


def _check_eps(eps: float) -> float:
    return real(eps, "eps", lo=0.0)


def _check_flag(x: object, name: str) -> bool:
    if not isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(x).__name__} {x!r}")
    return bool(x)


def _scaled(num: np.ndarray, root_v: np.ndarray, eps: float) -> np.ndarray:
    """Num / (√v + ε), with 0 where the denominator is 0 (then num is 0 too)."""
    den = root_v + eps
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _check_state(state: Any, *fields: str) -> tuple[np.ndarray, ...]:
    """Check that ``state`` is an :class:`OptState` holding ``fields``; return those buffers."""
    if not isinstance(state, OptState):
        raise TypeError(f"state must be an OptState from this method's init, got {type(state).__name__}")
    out = []
    for f in fields:
        buf = getattr(state, f)
        if buf is None:
            raise ValueError(f"state.{f} is missing: was state made by another method's init?")
        out.append(buf)
    return tuple(out)


def _stateless(name: str, eta: float, direction: Callable[[np.ndarray], np.ndarray]) -> GradientMethod:
    """A method without buffers: θ_{k+1} = θ_k − η direction(∇f(θ_k))."""

    def init(theta: np.ndarray) -> OptState:
        _as_vector(theta, "theta")
        return OptState(count=0)

    def update(grad: np.ndarray, state: OptState, theta: np.ndarray) -> tuple[np.ndarray, OptState]:
        g, t = _check_pair(grad, theta)
        _check_state(state)
        return t - eta * direction(g), OptState(count=state.count + 1)

    return GradientMethod(name, init, update, {"lr": eta})


def _identity(g: np.ndarray) -> np.ndarray:
    return g


def _unit_l2(g: np.ndarray) -> np.ndarray:
    """G / ‖g‖_2 (0 for g = 0), scaled by max |g_i| first: ‖g‖² underflows for |g| < 1e-154."""
    big = float(np.max(np.abs(g)))
    if big == 0.0:
        return np.zeros_like(g)
    u = g / big
    return u / np.linalg.norm(u)


def gd(*, lr: float) -> GradientMethod:
    """Gradient descent, θ_{k+1} = θ_k − η ∇f(θ_k) (the ℓ2 baseline of [P26], Θ(1/k) on separable data)."""
    return _stateless("gd", _check_lr(lr), _identity)


def heavy_ball(*, lr: float, momentum: float) -> GradientMethod:
    """Polyak heavy-ball, θ_{k+1} = θ_k − η g_k + β (θ_k − θ_{k−1}), written as m ← β m + g, θ ← θ − η m.

    A lower-bound baseline of [P26] (Ω(1/ε) on the lower-bound instance). Symbols: β ↔ ``momentum``.
    Equal to ``torch.optim.SGD(lr=η, momentum=β)``.
    """
    eta, beta = _check_lr(lr), _check_beta(momentum, "momentum")

    def init(theta: np.ndarray) -> OptState:
        return OptState(count=0, m=np.zeros_like(_as_vector(theta, "theta")))

    def update(grad: np.ndarray, state: OptState, theta: np.ndarray) -> tuple[np.ndarray, OptState]:
        g, t = _check_pair(grad, theta)
        (m_prev,) = _check_state(state, "m")
        m = beta * m_prev + g
        return t - eta * m, OptState(count=state.count + 1, m=m)

    return GradientMethod("heavy_ball", init, update, {"lr": eta, "momentum": beta})


def sign_gd(*, lr: float) -> GradientMethod:
    """Sign GD, θ_{k+1} = θ_k − η sign(∇f(θ_k)): normalised steepest descent in the ℓ∞ norm ([P26], Sec. on
    steepest descent; linear on separable logistic regression and softmax PG)."""
    return _stateless("sign_gd", _check_lr(lr), np.sign)


def normalized_gd(*, lr: float) -> GradientMethod:
    """Normalised GD, θ_{k+1} = θ_k − η ∇f/‖∇f‖_2: normalised steepest descent in the ℓ2 norm ([P26])."""
    return _stateless("normalized_gd", _check_lr(lr), _unit_l2)


def rmsprop(*, lr: float, beta2: float, eps: float = 0.0) -> GradientMethod:
    """Deterministic diagonal RMSProp of [P26]: v ← β2 v + (1−β2) g², θ ← θ − η g / (√v + ε), v_0 = 0.

    Equal to ``torch.optim.RMSprop(lr=η, alpha=β2, eps=ε)``. Linear rates need β2 well below 1 (≲ 0.9 here).
    """
    eta, b2, e = _check_lr(lr), _check_beta(beta2, "beta2"), _check_eps(eps)

    def init(theta: np.ndarray) -> OptState:
        return OptState(count=0, v=np.zeros_like(_as_vector(theta, "theta")))

    def update(grad: np.ndarray, state: OptState, theta: np.ndarray) -> tuple[np.ndarray, OptState]:
        g, t = _check_pair(grad, theta)
        (v_prev,) = _check_state(state, "v")
        # v_{k+1} = β2 v_k + (1 − β2) g_k²
        v = b2 * v_prev + (1.0 - b2) * g * g
        return t - eta * _scaled(g, np.sqrt(v), e), OptState(count=state.count + 1, v=v)

    return GradientMethod("rmsprop", init, update, {"lr": eta, "beta2": b2, "eps": e})


def adam(*, lr: float, beta1: float, beta2: float, eps: float = 0.0, bias_correction: bool = False) -> GradientMethod:
    """Deterministic diagonal Adam of [P26]: m ← β1 m + (1−β1) g, v ← β2 v + (1−β2) g², θ ← θ − η m / (√v + ε).

    With ``bias_correction=True`` m and v are divided by 1−β1^k and 1−β2^k (``torch.optim.Adam``).
    """
    eta, b1, b2, e = _check_lr(lr), _check_beta(beta1, "beta1"), _check_beta(beta2, "beta2"), _check_eps(eps)
    return _adam_like("adam", eta, b1, b2, e, _check_flag(bias_correction, "bias_correction"), amsgrad=False)


def amsgrad(*, lr: float, beta1: float, beta2: float, eps: float = 0.0, bias_correction: bool = False) -> GradientMethod:
    """AMSGrad: Adam with the running maximum v̂ ← max(v̂, v) in the denominator (a lower-bound baseline of [P26]).

    With ``bias_correction=True`` it equals ``torch.optim.Adam(amsgrad=True)``.
    """
    eta, b1, b2, e = _check_lr(lr), _check_beta(beta1, "beta1"), _check_beta(beta2, "beta2"), _check_eps(eps)
    return _adam_like("amsgrad", eta, b1, b2, e, _check_flag(bias_correction, "bias_correction"), amsgrad=True)


def _adam_like(name: str, eta: float, b1: float, b2: float, e: float, bc: bool, *, amsgrad: bool) -> GradientMethod:
    def init(theta: np.ndarray) -> OptState:
        z = np.zeros_like(_as_vector(theta, "theta"))
        return OptState(count=0, m=z, v=z.copy(), v_max=z.copy() if amsgrad else None)

    def update(grad: np.ndarray, state: OptState, theta: np.ndarray) -> tuple[np.ndarray, OptState]:
        g, t = _check_pair(grad, theta)
        m_prev, v_prev, *rest = _check_state(state, "m", "v", *(("v_max",) if amsgrad else ()))
        k = state.count + 1
        # m_{k+1} = β1 m_k + (1 − β1) g_k ;  v_{k+1} = β2 v_k + (1 − β2) g_k²
        m = b1 * m_prev + (1.0 - b1) * g
        v = b2 * v_prev + (1.0 - b2) * g * g
        v_max = np.maximum(rest[0], v) if amsgrad else None
        denom_v = v if v_max is None else v_max
        c1 = 1.0 - b1**k if bc else 1.0
        c2 = 1.0 - b2**k if bc else 1.0
        step = _scaled(m / c1, np.sqrt(denom_v / c2), e)
        return t - eta * step, OptState(count=k, m=m, v=v, v_max=v_max)

    return GradientMethod(name, init, update, {"lr": eta, "beta1": b1, "beta2": b2, "eps": e, "bias_correction": bc})


def adagrad(*, lr: float, eps: float = 0.0) -> GradientMethod:
    """Diagonal AdaGrad: G ← G + g², θ ← θ − η g / (√G + ε) (a lower-bound baseline of [P26]).

    Equal to ``torch.optim.Adagrad(lr=η, eps=ε)``.
    """
    eta, e = _check_lr(lr), _check_eps(eps)

    def init(theta: np.ndarray) -> OptState:
        return OptState(count=0, v=np.zeros_like(_as_vector(theta, "theta")))

    def update(grad: np.ndarray, state: OptState, theta: np.ndarray) -> tuple[np.ndarray, OptState]:
        g, t = _check_pair(grad, theta)
        (v_prev,) = _check_state(state, "v")
        v = v_prev + g * g
        return t - eta * _scaled(g, np.sqrt(v), e), OptState(count=state.count + 1, v=v)

    return GradientMethod("adagrad", init, update, {"lr": eta, "eps": e})
