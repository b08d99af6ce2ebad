"""The test objectives of [P26]: losses whose curvature is affine in the loss value (float64, log-domain losses).

Each objective has ``loss(θ)``, ``log_loss(θ)`` (log f, exact far below 1e-300), ``grad(θ)``, ``hess_vec(θ, v)``
and ``dim``; its infimum is f* = 0 (approached, not attained).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import expit

from icml26.common.validation import int_at_least, positive_int, real, real_array
from icml26.common.validation import seed as check_seed

__all__ = [
    "LogisticRegression",
    "SoftmaxBandit",
    "TwoLayerNet",
    "log_softplus_neg",
    "lower_bound_instance",
    "make_separable_data",
]


def log_softplus_neg(m: np.ndarray) -> np.ndarray:
    """log(log(1 + e^{−m})), accurate for any finite margin m (the log of the logistic loss at margin m): a helper
    for the logistic-loss objectives of [P26] (logistic regression, the two-layer net). Elementwise, any shape."""
    return _log_softplus_neg(real_array(m, "m", allow_empty=True))


def _log_softplus_neg(m: np.ndarray) -> np.ndarray:
    # for m > 30: log(1 + x) = x (1 − x/2 + x²/3 − …) with x = e^{−m}, so the log is −m + log1p(−x/2 + x²/3)
    x = np.exp(-np.maximum(m, 30.0))
    tail = -m + np.log1p(-x / 2.0 + x * x / 3.0)
    head = np.log(np.logaddexp(0.0, -np.minimum(m, 30.0)))
    return np.where(m > 30.0, tail, head)


def _lse(x: np.ndarray) -> float:
    """Log Σ exp(x) for a non-empty 1-D array (a lean logsumexp for the inner loops)."""
    mx = float(np.max(x))
    if not np.isfinite(mx):
        return mx
    return mx + float(np.log(np.sum(np.exp(x - mx))))


def _theta(theta: Any, dim: int, name: str = "theta") -> np.ndarray:
    return real_array(theta, name, shape=(dim,))


def _data(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    X = real_array(X, "X", ndim=2)
    if X.shape[1] == 0:
        raise ValueError(f"X must have at least one feature, got shape {X.shape}")
    y = real_array(y, "y", shape=(X.shape[0],))
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("y must hold labels in {-1, +1}")
    return X, y


def _generator(x: Any) -> np.random.Generator:
    """A reproducible Generator: ``seed`` must be an int >= 0 or a ``np.random.Generator`` (``None`` is refused)."""
    if isinstance(x, np.random.Generator):
        return x
    return np.random.default_rng(check_seed(x, "seed"))


def make_separable_data(n: int, d: int, *, margin: float, seed: int | np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Linearly separable data (X, y) with ℓ2 margin ≥ ``margin`` w.r.t. a random unit separator through 0 (the
    separable data of [P26]'s logistic-regression and two-layer-net results).

    x_i ~ N(0, I_d / d) (so ‖x_i‖ ≈ 1), y_i = sign(uᵀx_i), then x_i ← x_i + margin · y_i · u.
    """
    n, d = positive_int(n, "n"), positive_int(d, "d")
    margin = real(margin, "margin", lo=0.0, lo_open=True)
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
        """Log f(θ), computed in the log domain."""
        return float(_lse(_log_softplus_neg(self.margins(theta))) - np.log(self.Z.shape[0]))

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
        r = real_array(rewards, "rewards", ndim=1)
        if r.size < 2:
            raise ValueError(f"rewards must hold at least 2 arms, got shape {r.shape}")
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
        """Log f(θ) = logsumexp_a (log π_a + log(r* − r_a)) over the sub-optimal arms."""
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
        if int_at_least(width, "width", 2) % 2:
            raise ValueError(f"width must be an even int >= 2, got {width!r}")
        alpha = real(alpha, "alpha", lo=0.0, hi=1.0, lo_open=True)
        init_scale = real(init_scale, "init_scale", lo=0.0)
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
        """Log f(W), in the log domain."""
        m = self._parts(theta)[2]
        return float(_lse(_log_softplus_neg(m)) - np.log(m.size))

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
