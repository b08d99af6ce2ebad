"""The test objectives of [P26]: losses whose curvature is affine in the loss value (float64, log-domain losses).

Each objective has ``loss(θ)``, ``log_loss(θ)`` (log f, exact far below 1e-300), ``grad(θ)``, ``hess_vec(θ, v)``
and ``dim``; its infimum is f* = 0 (approached, not attained).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import expit

__all__ = [
    "LogisticRegression",
    "SoftmaxBandit",
    "TwoLayerNet",
    "log_softplus_neg",
    "lower_bound_instance",
    "make_separable_data",
]


def log_softplus_neg(m: np.ndarray) -> np.ndarray:
    """log(log(1 + e^{−m})), accurate for any margin m (the log of the logistic loss at margin m): a helper for the
    logistic-loss objectives of [P26] (logistic regression, the two-layer net)."""
    m = np.asarray(m, dtype=np.float64)
    # for m > 30: log(1 + x) = x (1 − x/2 + x²/3 − …) with x = e^{−m}, so the log is −m + log1p(−x/2 + x²/3)
    x = np.exp(-np.maximum(m, 30.0))
    tail = -m + np.log1p(-x / 2.0 + x * x / 3.0)
    head = np.log(np.logaddexp(0.0, -np.minimum(m, 30.0)))
    return np.where(m > 30.0, tail, head)


def _lse(x: np.ndarray) -> float:
    """log Σ exp(x) for a non-empty 1-D array (a lean logsumexp for the inner loops)."""
    mx = float(np.max(x))
    if not np.isfinite(mx):
        return mx
    return mx + float(np.log(np.sum(np.exp(x - mx))))


def _theta(theta: Any, dim: int, name: str = "theta") -> np.ndarray:
    arr = np.asarray(theta, dtype=np.float64)
    if arr.shape != (dim,):
        raise ValueError(f"{name} must have shape ({dim},), got {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite (got NaN or inf)")
    return arr


def _data(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array (n, d), got shape {X.shape}")
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},) to match X, got {y.shape}")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise ValueError("X and y must be finite (got NaN or inf)")
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("y must hold labels in {-1, +1}")
    return X, y


def _real(x: Any, name: str) -> float:
    """``x`` as a float; TypeError naming ``name`` unless it is a real number (bool excluded)."""
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__}")
    return float(x)


def _pos_int(x: Any, name: str) -> int:
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(x).__name__}")
    if x < 1:
        raise ValueError(f"{name} must be a positive int, got {x!r}")
    return int(x)


def _generator(seed: Any) -> np.random.Generator:
    """A reproducible Generator: ``seed`` must be an int or a ``np.random.Generator`` (``None`` is refused)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int or a numpy Generator (explicit, for reproducibility), got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed!r}")
    return np.random.default_rng(int(seed))


def make_separable_data(n: int, d: int, *, margin: float, seed: int | np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Linearly separable data (X, y) with ℓ2 margin ≥ ``margin`` w.r.t. a random unit separator through 0 (the
    separable data of [P26]'s logistic-regression and two-layer-net results).

    x_i ~ N(0, I_d / d) (so ‖x_i‖ ≈ 1), y_i = sign(uᵀx_i), then x_i ← x_i + margin · y_i · u.
    """
    n, d = _pos_int(n, "n"), _pos_int(d, "d")
    margin = _real(margin, "margin")
    if not (np.isfinite(margin) and margin > 0):
        raise ValueError(f"margin must be finite and > 0, got {margin!r}")
    g = _generator(seed)
    u = g.standard_normal(d)
    u /= np.linalg.norm(u)
    X = g.standard_normal((n, d)) / np.sqrt(d)
    y = np.where(X @ u >= 0, 1.0, -1.0)
    X = X + margin * y[:, None] * u[None, :]
    return X, y


class LogisticRegression:
    """f(θ) = (1/n) Σ_i log(1 + exp(−y_i x_iᵀθ)): (0, H1)-smooth with H1 = max_i ‖x_i‖² ([P26], logistic example).

    Symbols: x_i ↔ ``X[i]``, y_i ∈ {±1} ↔ ``y[i]``, θ ↔ ``theta`` (shape (d,)).
    """

    def __init__(self, X: Any, y: Any) -> None:
        self.X, self.y = _data(X, y)
        self.Z = self.y[:, None] * self.X  # rows y_i x_i
        self.dim = self.X.shape[1]
        self.theta0 = np.zeros(self.dim)

    def margins(self, theta: Any) -> np.ndarray:
        """m_i = y_i x_iᵀθ."""
        return self.Z @ _theta(theta, self.dim)

    def loss(self, theta: Any) -> float:
        """f(θ) (underflows to 0 below ~1e-308; use :meth:`log_loss` there)."""
        return float(np.mean(np.logaddexp(0.0, -self.margins(theta))))

    def log_loss(self, theta: Any) -> float:
        """log f(θ), computed in the log domain."""
        return float(_lse(log_softplus_neg(self.margins(theta))) - np.log(self.Z.shape[0]))

    def grad(self, theta: Any) -> np.ndarray:
        """∇f(θ) = −(1/n) Σ σ(−m_i) y_i x_i."""
        return -(expit(-self.margins(theta)) @ self.Z) / self.Z.shape[0]

    def hess_vec(self, theta: Any, v: Any) -> np.ndarray:
        """∇²f(θ) v = (1/n) Σ σ(m_i) σ(−m_i) (x_iᵀv) x_i."""
        m = self.margins(theta)
        v = _theta(v, self.dim, "v")
        w = expit(m) * expit(-m)
        return ((w * (self.Z @ v)) @ self.Z) / self.Z.shape[0]

    def smoothness_bound(self) -> float:
        """H1 = max_i ‖x_i‖_2² with H0 = 0: ‖∇²f(θ)‖_2 ≤ H1 f(θ) since σ(m)σ(−m) ≤ log(1 + e^{−m})."""
        return float(np.max(np.sum(self.X**2, axis=1)))


def lower_bound_instance() -> LogisticRegression:
    """The 1-D instance f(θ) = log(1 + e^{−θ}) ([P26] lower bound, our reconstruction): (0, 1)-smooth, |f'| ≥ f/2
    for θ ≥ 0; GD, heavy-ball, AdaGrad and AMSGrad need Ω(1/ε) steps, sign-type methods O(log 1/ε)."""
    return LogisticRegression(np.ones((1, 1)), np.ones(1))


class SoftmaxBandit:
    """Softmax policy gradient on a K-armed bandit: f(θ) = r* − π_θᵀ r with π_θ = softmax(θ) ([P26], after
    Mei et al. 2020). Symbols: r ↔ ``rewards`` (shape (K,)), θ ↔ ``theta`` (logits, shape (K,))."""

    def __init__(self, rewards: Any) -> None:
        r = np.asarray(rewards, dtype=np.float64)
        if r.ndim != 1 or r.size < 2:
            raise ValueError(f"rewards must be a 1-D array with at least 2 arms, got shape {r.shape}")
        if not np.all(np.isfinite(r)):
            raise ValueError("rewards must be finite (got NaN or inf)")
        if np.sum(r == r.max()) != 1:
            raise ValueError("rewards must have a unique best arm")
        self.r = r
        self.dim = r.size
        self.theta0 = np.zeros(self.dim)

    def policy(self, theta: Any) -> np.ndarray:
        """π_θ = softmax(θ)."""
        t = _theta(theta, self.dim)
        return np.exp(t - _lse(t))

    def loss(self, theta: Any) -> float:
        """f(θ) = Σ_a π_a (r* − r_a) (the sub-optimality gap, written without cancellation)."""
        return float(self.policy(theta) @ (self.r.max() - self.r))

    def log_loss(self, theta: Any) -> float:
        """log f(θ) = logsumexp_a (log π_a + log(r* − r_a)) over the sub-optimal arms."""
        t = _theta(theta, self.dim)
        gap = self.r.max() - self.r
        sub = gap > 0
        return float(_lse(t[sub] - _lse(t) + np.log(gap[sub])))

    def grad(self, theta: Any) -> np.ndarray:
        """∇f(θ) = −π ⊙ (r − πᵀr) = π ⊙ (gap − πᵀgap) with gap = r* − r."""
        pi = self.policy(theta)
        gap = self.r.max() - self.r
        return pi * (gap - pi @ gap)

    def hess_vec(self, theta: Any, v: Any) -> np.ndarray:
        """∇²f(θ) v = diag(g) v − g (πᵀv) − π (gᵀv), with g = ∇f(θ)."""
        v = _theta(v, self.dim, "v")
        pi = self.policy(theta)
        g = self.grad(theta)
        return g * v - g * (pi @ v) - pi * (g @ v)


class TwoLayerNet:
    """Two-layer net h(x) = Σ_j a_j φ(w_jᵀx) with fixed a_j = ±1/m and leaky-ReLU φ, logistic loss on (X, y):
    f(W) = (1/n) Σ_i log(1 + exp(−y_i h(x_i))) ([P26], the two-layer class; our choice of φ, see the card).

    Symbols: W ↔ ``theta.reshape(m, d)`` (first layer, trained), a ↔ ``a`` (second layer, fixed), α ↔ ``alpha``.
    """

    def __init__(self, X: Any, y: Any, *, width: int, alpha: float = 0.2, seed: int | np.random.Generator, init_scale: float = 0.1) -> None:
        self.X, self.y = _data(X, y)
        if _pos_int(width, "width") < 2 or width % 2:
            raise ValueError(f"width must be an even int >= 2, got {width!r}")
        alpha, init_scale = _real(alpha, "alpha"), _real(init_scale, "init_scale")
        if not (0.0 < alpha <= 1.0):
            raise ValueError(f"alpha must lie in (0, 1], got {alpha!r}")
        if not (np.isfinite(init_scale) and init_scale >= 0):
            raise ValueError(f"init_scale must be finite and >= 0, got {init_scale!r}")
        g = _generator(seed)
        self.width, self.alpha = int(width), alpha
        d = self.X.shape[1]
        self.a = np.repeat([1.0, -1.0], self.width // 2) / self.width
        self.dim = self.width * d
        self.theta0 = init_scale * g.standard_normal(self.dim) / np.sqrt(d)

    def _parts(self, theta: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        W = _theta(theta, self.dim).reshape(self.width, self.X.shape[1])
        pre = self.X @ W.T  # (n, m)
        slope = np.where(pre > 0, 1.0, self.alpha)
        margins = self.y * ((pre * slope) @ self.a)
        return W, slope, margins

    def loss(self, theta: Any) -> float:
        """f(W)."""
        return float(np.mean(np.logaddexp(0.0, -self._parts(theta)[2])))

    def log_loss(self, theta: Any) -> float:
        """log f(W), in the log domain."""
        m = self._parts(theta)[2]
        return float(_lse(log_softplus_neg(m)) - np.log(m.size))

    def grad(self, theta: Any) -> np.ndarray:
        """∇_W f = −(1/n) Σ_i σ(−m_i) y_i (a ⊙ φ'(W x_i)) x_iᵀ, flattened."""
        _, slope, m = self._parts(theta)
        c = -expit(-m) * self.y / m.size  # (n,)
        return (((slope * self.a[None, :]) * c[:, None]).T @ self.X).ravel()

    def hess_vec(self, theta: Any, v: Any) -> np.ndarray:
        """Generalised Hessian-vector product (φ'' = 0 off the kinks): (1/n) Σ σ(m)σ(−m) (J_iᵀv) J_i."""
        _, slope, m = self._parts(theta)
        V = _theta(v, self.dim, "v").reshape(self.width, self.X.shape[1])
        B = slope * self.a[None, :]  # (n, m): ∂h(x_i)/∂(w_j x_i)
        jv = np.sum(B * (self.X @ V.T), axis=1)  # J_i v (the y_i² = 1 drop out)
        w = expit(m) * expit(-m) * jv / m.size
        return ((B * w[:, None]).T @ self.X).ravel()
