"""The sparsity-aware data-constrained scaling law of [P37] (its form and fitted values from the authors' fitting
notebook, stages 1-4; the paper's equation numbers are not available here, so the parts are cited by name).

Symbols (the paper's, with the argument names used here):

- ``N_raw`` the raw parameter count of the architecture, ``s`` the density (fraction of non-zero weights; ``s = 1``
  is dense, sparsity is ``x = 1 - s``), ``N = s·N_raw`` the active parameters;
- ``U`` the unique tokens, ``D`` the tokens trained on (``D / U`` epochs), ``R_D = D/U - 1`` the repetitions;
- the law ``L = E + A·f(s) / N'^α + B / D'^β`` with ``A, B, E = exp(a), exp(b), exp(e)``, ``α = β`` in the fit and
  the density factor ``f(s) = s^ε + c·(1 - s)^μ``;
- effective data ``D' = U + U·R_D*(s)·(1 - exp(-R_D / R_D*(s)))`` and effective parameters
  ``N' = U_N + U_N·R_N*(s)·(1 - exp(-R_N / R_N*(s)))``, where ``U_N = min(N, N*(U))``, ``N*(U)`` is the
  compute-optimal active size for ``U`` tokens (the Chinchilla allocation of the one-epoch law, ``N*(U) = G(s)²·U``,
  ``G(s) = (α·A·f(s) / (β·B))^{1/(α+β)}``) and ``R_N = N / U_N - 1`` the excess parameters;
- the sparsity-dependent half-lives ``R_D*(s) = R_D*·(1 + λ_D·x + σ_D·x²)`` and ``R_N*(s) = R_N*·(1 + λ_N·x + σ_N·x²)``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from icml26.common.validation import real_array

__all__ = ["PAPER_PARAMS", "LawParams", "R_D_star", "R_N_star", "density_factor", "n_star_unique", "sparse_law"]


@dataclass(frozen=True, kw_only=True)
class LawParams:
    """The 14 constants of the [P37] law (module docstring): log-scales ``a, b, e``, exponents ``alpha, beta``, the
    density factor ``epsilon, mu, c``, the dense repetition half-lives ``r_n, r_d`` (R_N*, R_D*) and their
    sparsity terms ``lambda_n, sigma_n, lambda_d, sigma_d``."""

    a: float
    b: float
    e: float
    alpha: float
    beta: float
    epsilon: float
    mu: float
    c: float
    r_n: float
    r_d: float
    lambda_n: float
    sigma_n: float
    lambda_d: float
    sigma_d: float

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)) or not np.isfinite(v):
                raise ValueError(f"LawParams.{f.name} must be a finite real number, got {v!r}")
            object.__setattr__(self, f.name, float(v))
        for name in ("alpha", "beta", "r_n", "r_d"):
            if getattr(self, name) <= 0:
                raise ValueError(f"LawParams.{name} must be > 0, got {getattr(self, name)!r}")

    def to_dict(self) -> dict[str, float]:
        """The constants by name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def replace(self, **changes: float) -> LawParams:
        """A copy with some constants changed (unknown names are a ``ValueError``)."""
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise ValueError(f"unknown law constants {sorted(unknown)}")
        return LawParams(**{**self.to_dict(), **changes})


#: [P37] the fitted constants as the authors' fitting notebook prints them (stage 2: a, b, e, α = β, ε, μ, c on 232
#: one-epoch runs; stage 3: R_N*, R_D* on 63 dense multi-epoch runs; stage 4: the sparsity terms on 205 sparse
#: multi-epoch runs). σ are the notebook's −c21 and −c22 (its plot labels σ1 = −c22, σ2 = −c21).
PAPER_PARAMS = LawParams(
    a=5.240737178917673, b=6.103030891809012, e=0.8535501324918354,
    alpha=0.3268217718148829, beta=0.3268217718148829,
    epsilon=-0.009680437509279435, mu=0.8466179337054532, c=-0.2728893199074849,
    r_n=11.087637121468322, r_d=4.404748822323469,
    lambda_n=1.9039562899771467, sigma_n=-2.79909312658146,
    lambda_d=1.8213812238803706, sigma_d=-1.3653091691735397,
)


def _params(params: object) -> LawParams:
    if not isinstance(params, LawParams):
        raise TypeError(f"params must be a LawParams, got {type(params).__name__}")
    return params


def _reals(x: Any, name: str) -> np.ndarray:
    """A real scalar or 1-D array (booleans refused: ``True`` is not a size or a density)."""
    if isinstance(x, (bool, np.bool_)) or np.asarray(x).dtype == np.bool_:
        raise TypeError(f"{name} must be real numbers, got booleans")
    return real_array(x, name, ndim=(0, 1))


def positive(x: Any, name: str) -> np.ndarray:
    """``x`` as a positive real scalar or 1-D array (a ``ValueError``/``TypeError`` naming ``name`` otherwise)."""
    a = _reals(x, name)
    if np.any(a <= 0):
        raise ValueError(f"{name} must be > 0, got min {a.min():g}")
    return a


def _density(s: Any) -> np.ndarray:
    a = _reals(s, "s")
    if np.any(a <= 0) or np.any(a > 1):
        raise ValueError(f"s (the density, fraction of non-zero weights) must lie in (0, 1], got {a.min():g}..{a.max():g}")
    return a


def _out(x: np.ndarray) -> Any:
    return float(x) if x.ndim == 0 else x


def _f(s: np.ndarray, p: LawParams) -> np.ndarray:
    return s ** p.epsilon + p.c * (1.0 - s) ** p.mu


def _half_life(s: np.ndarray, dense: float, lam: float, sig: float) -> np.ndarray:
    x = 1.0 - s
    return dense * (1.0 + lam * x + sig * x * x)


def _n_star(U: np.ndarray, s: np.ndarray, p: LawParams) -> np.ndarray:
    """N*(U): the active size that is compute-optimal when ``U`` tokens are the one-epoch optimum (``G²·U``)."""
    g = (p.alpha * np.exp(p.a) * _f(s, p) / (p.beta * np.exp(p.b))) ** (1.0 / (p.alpha + p.beta))
    return g ** (1.0 + p.beta / p.alpha) * U ** (p.beta / p.alpha)


def density_factor(s: Any, *, params: LawParams = PAPER_PARAMS) -> Any:
    """[P37] density factor ``f(s) = s^ε + c·(1 - s)^μ`` (stage 2 of the fit) multiplying ``A`` in the parameter
    term; ``s`` the density in (0, 1] (scalar or 1-D). With the paper's constants ``f(0.5) ≈ 0.855``."""
    return _out(_f(_density(s), _params(params)))


def R_D_star(s: Any, *, params: LawParams = PAPER_PARAMS) -> Any:
    """[P37] data-repetition half-life ``R_D*(s) = R_D*·(1 + λ_D·x + σ_D·x²)``, ``x = 1 - s`` (stage 4): the number
    of repetitions over which repeated data keeps 1 - 1/e of its value. Paper's constants: 4.40 dense, about 6.91
    at s = 0.5 (derived by evaluation, not a number the paper states)."""
    p = _params(params)
    return _out(_half_life(_density(s), p.r_d, p.lambda_d, p.sigma_d))


def R_N_star(s: Any, *, params: LawParams = PAPER_PARAMS) -> Any:
    """[P37] excess-parameter half-life ``R_N*(s) = R_N*·(1 + λ_N·x + σ_N·x²)``, ``x = 1 - s`` (stage 4); 11.09 dense
    with the paper's constants."""
    p = _params(params)
    return _out(_half_life(_density(s), p.r_n, p.lambda_n, p.sigma_n))


def n_star_unique(U: Any, s: Any, *, params: LawParams = PAPER_PARAMS) -> Any:
    """[P37] ``N*(U)``: the compute-optimal active parameter count for ``U`` unique tokens at density ``s`` (the
    one-epoch allocation of stage 3, ``G(s)^{1+β/α}·U^{β/α}``); larger models count as excess parameters."""
    U_, s_ = np.broadcast_arrays(positive(U, "U"), _density(s))
    return _out(_n_star(U_, s_, _params(params)))


def _law(N: np.ndarray, s: np.ndarray, U: np.ndarray, D: np.ndarray, p: LawParams) -> np.ndarray:
    """The law on validated, broadcast arrays; ``N`` active parameters, ``U <= D``."""
    u_n = np.minimum(N, _n_star(U, s, p))
    r_n = np.maximum(N / u_n - 1.0, 0.0)
    r_d = np.maximum(D / U - 1.0, 0.0)
    hn = _half_life(s, p.r_n, p.lambda_n, p.sigma_n)
    hd = _half_life(s, p.r_d, p.lambda_d, p.sigma_d)
    n_eff = u_n + u_n * hn * (1.0 - np.exp(-r_n / hn))
    d_eff = U + U * hd * (1.0 - np.exp(-r_d / hd))
    return np.exp(p.e) + np.exp(p.a) * _f(s, p) / n_eff ** p.alpha + np.exp(p.b) / d_eff ** p.beta


def sparse_law(N_raw: Any, s: Any, U: Any, D: Any, *, params: LawParams = PAPER_PARAMS) -> Any:
    """[P37] predicted validation loss (nats/token) of a model of ``N_raw`` raw parameters at density ``s`` trained
    on ``D`` tokens drawn from ``U`` unique tokens (stages 2-4 of the paper's law, module docstring).

    Arguments are positive scalars or 1-D arrays that broadcast together; ``s`` in (0, 1]. The active size is
    ``N = s·N_raw``. When ``D < U`` (less than one epoch) only ``D`` unique tokens are seen, so ``U`` is taken as
    ``min(U, D)``. Returns a float for scalar input, else an array. With the paper's constants the 11 held-out runs
    of its notebook are reproduced to its printed 4 decimals (e.g. 2.8764 for 240M at s = 0.5, U = 5.2B, D = 41.6B).
    """
    p = _params(params)
    arrs = np.broadcast_arrays(positive(N_raw, "N_raw"), _density(s), positive(U, "U"), positive(D, "D"))
    n_raw, s_, u, d = (np.asarray(a, dtype=float) for a in arrs)
    return _out(_law(n_raw * s_, s_, np.minimum(u, d), d, p))
