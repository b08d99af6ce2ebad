"""The public solver :func:`hankel_complete` and its result type :class:`HankelResult`."""

from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from icml26.common.seeding import rng as make_rng
from icml26.papers.hankel._baselines import FIHT, AsymmetricGD
from icml26.papers.hankel._init import spectral_init, takagi_factor
from icml26.papers.hankel._ops import HankelOps
from icml26.papers.hankel._symmetric import SymmetricGD

__all__ = ["METHODS", "HankelResult", "hankel_complete"]

#: method name -> default step size η (FIHT has none: its gradient step in x is the unit step on p⁻¹ P_Ω).
METHODS: dict[str, float | None] = {"jpgd": 0.5, "shgd": 0.5, "pgd": 0.5, "scaledgd": 0.5, "fiht": None}
_SYMMETRIC = ("jpgd", "shgd")


@dataclass(frozen=True)
class HankelResult:
    """The outcome of :func:`hankel_complete` (the JPGD of [P03] or one of its baselines).

    Attributes:
        x: (n,) complex128 completed signal.
        iterations: iterations taken.
        converged: True when the stopping rule was met within ``max_iter`` (False also when the iterates blew up).
        history: (iterations,) relative change ‖x_{t+1} − x_t‖ / ‖x_t‖ per iteration.
        errors: (iterations,) relative error ‖x_t − x_true‖ / ‖x_true‖ when ``x_true`` was given, else ``None``.
        method: the method used.
        seconds: wall-clock time of the solve (initialisation included).
    """

    x: np.ndarray
    iterations: int
    converged: bool
    history: np.ndarray
    errors: np.ndarray | None
    method: str
    seconds: float


def _as_signal(name: str, value: ArrayLike) -> np.ndarray:
    a = np.asarray(value)
    if a.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got shape {a.shape}")
    if not (np.issubdtype(a.dtype, np.number) and not np.issubdtype(a.dtype, np.bool_)):
        raise ValueError(f"{name} must hold real or complex numbers, got dtype {a.dtype}")
    return a.astype(np.complex128)


def _positive_real(name: str, value: object) -> float:
    """A finite real number > 0 (Python or NumPy; bool is rejected) as float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {type(value).__name__}")
    if not (math.isfinite(float(value)) and float(value) > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def _validate(y, mask, rank, method, tol, max_iter, x_true, eta):  # noqa: ANN001, ANN202 - private helper
    y = _as_signal("y", y)
    n = y.size
    if n < 3:
        raise ValueError(f"y must have length >= 3, got {n}")
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise ValueError(f"mask must be a bool array, got dtype {m.dtype}")
    if m.shape != (n,):
        raise ValueError(f"mask must have the shape of y ({n},), got {m.shape}")
    if not m.any():
        raise ValueError("mask has no observed entries")
    if not np.all(np.isfinite(y[m])):
        raise ValueError("y has NaN or inf among the observed entries (mask == True)")
    if not np.any(y[m]):
        raise ValueError("y is zero at every observed entry (mask == True): no rank >= 1 signal to recover")
    if method not in METHODS:
        raise ValueError(f"method must be one of {sorted(METHODS)}, got {method!r}")
    n1 = n // 2 + 1
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)):
        raise ValueError(f"rank must be an int, got {type(rank).__name__}")
    if not 1 <= rank < n1:
        raise ValueError(f"rank must satisfy 1 <= rank < n1 = {n1} (n = {n}), got {rank}")
    if method in _SYMMETRIC and n % 2 == 0:
        raise ValueError(f"y must have odd length for method {method!r} (square Hankel lift), got {n}")
    tol = _positive_real("tol", tol)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be an int >= 1, got {max_iter!r}")
    if x_true is not None:
        x_true = _as_signal("x_true", x_true)
        if x_true.shape != (n,) or not np.all(np.isfinite(x_true)) or not np.any(x_true):
            raise ValueError(f"x_true must be a finite, nonzero array of shape ({n},)")
    if eta is not None:
        eta = _positive_real("eta", eta)
    return y, m, int(rank), tol, x_true, eta


def _solver(method: str, ops: HankelOps, init: Any, y0: np.ndarray, m: np.ndarray, p: float,
            eta: float | None) -> Any:
    """The solver object of ``method`` from the shared spectral start."""
    step = METHODS[method] if eta is None else float(eta)
    if method != "fiht" and step is None:  # pragma: no cover - every gradient method has a default step
        raise ValueError(f"method {method!r} needs a step size eta")
    if method in _SYMMETRIC:
        return SymmetricGD(ops, takagi_factor(init), y0, m, p, eta=float(step or 0.0), sigma1=float(init.s[0]),
                           preconditioned=method == "jpgd")
    if method == "fiht":
        return FIHT(ops, init, y0, m, p)
    return AsymmetricGD(ops, init, y0, m, p, eta=float(step or 0.0), scaled=method == "scaledgd")


def _iterate(solver: Any, xt: np.ndarray | None, *, tol: float, max_iter: int
             ) -> tuple[np.ndarray, list[float], list[float], bool]:
    """Run ``solver`` until the relative change (or, with ``xt``, the relative error) falls below ``tol``."""
    x = solver.x
    xt_norm = float(np.linalg.norm(xt)) if xt is not None else 1.0
    history: list[float] = []
    errors: list[float] = []
    with np.errstate(all="ignore"):  # a diverging baseline must end as converged=False, not a warning storm
        for _ in range(max_iter):
            x_new = solver.step()
            change = float(np.linalg.norm(x_new - x)) / max(float(np.linalg.norm(x)), 1e-300)
            history.append(change)
            x = x_new
            if not math.isfinite(change):
                break
            if xt is not None:
                errors.append(float(np.linalg.norm(x - xt)) / xt_norm)
                if errors[-1] < tol:
                    return x, history, errors, True
            elif change < tol:
                return x, history, errors, True
    return x, history, errors, False


def hankel_complete(
    y: ArrayLike,
    mask: ArrayLike,
    *,
    rank: int,
    method: str = "jpgd",
    tol: float = 1e-10,
    max_iter: int = 2000,
    seed: int | np.random.Generator,
    eta: float | None = None,
    x_true: ArrayLike | None = None,
) -> HankelResult:
    """Complete a spectrally sparse signal from the samples ``y[mask]`` (low-rank Hankel matrix completion).

    Implements [P03]'s method as we reconstruct it from the abstract (``method="jpgd"``: Jacobi-preconditioned
    gradient descent on H(x) ≈ Z Zᵀ through the generator x = H†(Z Zᵀ), step Z⁺ = Z − η ∇f(Z) (Zᵀ Z̄)⁻¹ / 2) and its
    baselines ``"shgd"``, ``"pgd"``, ``"scaledgd"``, ``"fiht"``. Symbols: y ↔ ``y``, Ω ↔ ``mask``, r ↔ ``rank``, η ↔
    ``eta``, p = |Ω|/n. Every method starts from the same spectral initialisation (a randomized truncated SVD of H(p⁻¹
    P_Ω y), seeded by ``seed``) and costs O(r n log n) per iteration (FFT products; no n1 × n2 matrix is formed).

    Args:
        y: (n,) real or complex samples; entries outside ``mask`` are ignored (they may be NaN).
        mask: (n,) bool array, True where y is observed.
        rank: model order r, 1 <= r < n1 = n // 2 + 1.
        method: "jpgd" (default), "shgd", "pgd", "scaledgd" or "fiht". "jpgd" and "shgd" need odd n.
        tol: stop when the relative change (or, with ``x_true``, the relative error) falls below ``tol``.
        max_iter: iteration cap.
        seed: seed of the randomized SVD in the initialisation (required: an int >= 0 or a numpy Generator).
        eta: step size η (default 0.5; SHGD and PGD use η/σ₁; ignored by FIHT).
        x_true: optional ground truth (experiments): the stopping rule then uses ‖x_t − x_true‖/‖x_true‖ < tol.

    Returns:
        A :class:`HankelResult`; its ``x`` is complex128 whatever the input dtype (complex64 or float32 included).

    Raises:
        ValueError: naming the argument, for a length mismatch, a non-bool mask, no observed entries, NaN/inf among the
            observed entries, y zero at every observed entry, a rank outside [1, n1), an unknown method, or a bad
            tol/max_iter/eta/x_true (tol and eta: real numbers > 0, NumPy floats included, bool rejected).
    """
    if seed is None:
        raise TypeError("seed must be an int >= 0 or a numpy Generator (None would draw fresh entropy: not reproducible)")
    y, m, rank, tol, xt, eta = _validate(y, mask, rank, method, tol, max_iter, x_true, eta)
    t0 = time.perf_counter()
    ops = HankelOps(y.size)
    p = float(m.sum()) / y.size
    y0 = np.where(m, y, 0.0)
    init = spectral_init(ops, y0 / p, rank=rank, rng=make_rng(seed))
    solver = _solver(method, ops, init, y0, m, p, eta)
    x, history, errors, converged = _iterate(solver, xt, tol=tol, max_iter=max_iter)
    return HankelResult(
        x=x,
        iterations=len(history),
        converged=converged,
        history=np.asarray(history),
        errors=np.asarray(errors) if xt is not None else None,
        method=method,
        seconds=time.perf_counter() - t0,
    )
