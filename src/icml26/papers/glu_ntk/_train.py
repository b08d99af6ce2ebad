"""Data (synthetic Gaussian regression; scikit-learn's digits) and the small training loops of [P21]'s experiments.

Nothing is downloaded: the Gaussian task is synthesised from a seed and ``sklearn.datasets.load_digits`` ships with
scikit-learn. Every random draw (data, initialisation, mini-batch order) comes from an explicit seed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn

from icml26.common.validation import positive_int, real
from icml26.common.validation import seed as check_seed

__all__ = [
    "ClassifierHistory",
    "RegressionTask",
    "digits_split",
    "gaussian_regression_task",
    "train_classifier",
    "train_regression",
]


def _pos_int(name: str, v: object) -> int:
    return positive_int(v, name)


def _pos_float(name: str, v: object) -> float:
    return real(v, name, lo=0.0, lo_open=True)


def _check_in_dim(model: nn.Module, d: int, what: str) -> None:
    """ValueError if ``model`` declares an ``in_dim`` that differs from the data's feature count ``d``."""
    in_dim = getattr(model, "in_dim", None)
    if in_dim is not None and d != in_dim:
        raise ValueError(f"{what} has d={d} features but the model expects in_dim={in_dim}")


def _seed(v: object) -> int:
    """An explicit integer seed >= 0 (no ``None``: every draw must be reproducible)."""
    return check_seed(v)


@dataclass(frozen=True)
class RegressionTask:
    """A regression data set: inputs ``X`` (N, d) and targets ``y`` (N,), finite floating tensors (the data of [P21]'s
    NTK and training-dynamics experiments).

    Raises:
        TypeError: ``X`` or ``y`` is not a floating-point tensor.
        ValueError: ``X`` is not 2-D, ``y`` is not of shape (N,), or either holds NaN / inf.
    """

    X: Tensor
    y: Tensor

    def __post_init__(self) -> None:
        for name, t in (("X", self.X), ("y", self.y)):
            if not isinstance(t, Tensor) or not t.dtype.is_floating_point:
                raise TypeError(f"{name} must be a floating-point torch.Tensor, got {type(t).__name__}"
                                + (f" of dtype {t.dtype}" if isinstance(t, Tensor) else ""))
        if self.X.ndim != 2:
            raise ValueError(f"X must be 2-D (N, d), got shape {tuple(self.X.shape)}")
        if self.y.shape != (self.X.shape[0],):
            raise ValueError(f"y must have shape (N,) = ({self.X.shape[0]},) to match X, got {tuple(self.y.shape)}")
        for name, t in (("X", self.X), ("y", self.y)):
            if not bool(torch.isfinite(t).all()):
                raise ValueError(f"{name} must be finite, got {int((~torch.isfinite(t)).sum())} NaN/inf entries")


def gaussian_regression_task(n: int, d: int, *, noise: float = 0.1, seed: int) -> RegressionTask:
    """The synthetic task of [P21]'s experiments (authors' code): x ~ N(0, I_d), y = wᵀx + noise·ε with
    w ~ N(0, I_d / d), ε ~ N(0, 1)."""
    _pos_int("n", n)
    _pos_int("d", d)
    noise = real(noise, "noise", lo=0.0)
    g = torch.Generator().manual_seed(_seed(seed))
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    w = torch.randn(d, generator=g, dtype=torch.float64) / math.sqrt(d)
    y = X @ w + noise * torch.randn(n, generator=g, dtype=torch.float64)
    return RegressionTask(X=X, y=y)


def train_regression(
    model: nn.Module,
    task: RegressionTask,
    *,
    lr: float,
    epochs: int,
    batch_size: int,
    seed: int,
    zero_output: bool = True,
) -> np.ndarray:
    """Mini-batch SGD on ½·mean (f(x) − y)²; returns the full-data loss before and after each epoch (the trained
    setting of [P21]'s training-dynamics and loss-crossing experiments).

    ``zero_output=True`` trains f(x) = z_θ(x) − z_θ₀(x) (the frozen initial output subtracted, the authors'
    ``ZeroOutput``), so both models start from the same loss ½·mean y². The model is trained in place.

    Returns:
        losses of shape ``(epochs + 1,)``.

    Raises:
        TypeError: ``task`` is not a :class:`RegressionTask` (which rejects NaN/inf and mismatched shapes) or ``seed``
            is not an int.
        ValueError: a non-positive ``lr`` / ``epochs`` / ``batch_size``, a model whose ``in_dim`` differs from the
            task's d, or a model with more than one output.
    """
    lr = _pos_float("lr", lr)
    epochs, batch_size = _pos_int("epochs", epochs), _pos_int("batch_size", batch_size)
    seed = _seed(seed)
    if not isinstance(task, RegressionTask):  # its __post_init__ has checked shapes and finiteness
        raise TypeError(f"task must be a RegressionTask, got {type(task).__name__}")
    X, y = task.X, task.y
    _check_in_dim(model, X.shape[1], "task")
    dtype = next(model.parameters()).dtype
    X, y = X.to(dtype), y.to(dtype)
    with torch.no_grad():
        out = model(X)
    if out.numel() != y.numel():
        raise ValueError(f"model must output one value per sample (out_dim=1), got output shape {tuple(out.shape)}")
    z0 = out.reshape(-1).clone() if zero_output else torch.zeros_like(y)
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.SGD(model.parameters(), lr=lr)

    def full_loss() -> float:
        with torch.no_grad():
            return float(0.5 * ((model(X).reshape(-1) - z0 - y) ** 2).mean())

    losses = [full_loss()]
    n = X.shape[0]
    for _ in range(epochs):
        perm = torch.randperm(n, generator=g)
        for s in range(0, n, batch_size):
            idx = perm[s : s + batch_size]
            opt.zero_grad(set_to_none=True)
            loss = 0.5 * ((model(X[idx]).reshape(-1) - z0[idx] - y[idx]) ** 2).mean()
            loss.backward()
            opt.step()
        losses.append(full_loss())
    return np.asarray(losses)


def digits_split(
    *, test_fraction: float = 0.5, n_max: int | None = None, seed: int
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """scikit-learn's bundled 8×8 digits (1797 × 64, 10 classes), scaled to [0, 1], stratified split by ``seed``.

    Returns ``(X_train, y_train, X_test, y_test)`` (float64 inputs, int64 labels). ``n_max`` keeps a stratified subset.
    Our download-free stand-in for the image data of [P21]'s generalisation-gap experiments.
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    test_fraction = real(test_fraction, "test_fraction", lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    seed = _seed(seed)
    X, y = load_digits(return_X_y=True)
    if n_max is not None:
        _pos_int("n_max", n_max)
        if n_max < X.shape[0]:
            X, _, y, _ = train_test_split(X, y, train_size=n_max, stratify=y, random_state=int(seed))
    X = np.asarray(X, dtype=np.float64)
    Xtr, Xte, ytr, yte = train_test_split(X / 16.0, y, test_size=test_fraction, stratify=y, random_state=int(seed))
    t = lambda a, dt: torch.as_tensor(np.ascontiguousarray(a), dtype=dt)
    return t(Xtr, torch.float64), t(ytr, torch.int64), t(Xte, torch.float64), t(yte, torch.int64)


@dataclass(frozen=True)
class ClassifierHistory:
    """Per-epoch cross-entropy (nats) and accuracy on the train and test sets; index 0 = at initialisation (the
    history of our scaled-down runs for the generalisation-gap claim of [P21])."""

    train_loss: np.ndarray
    test_loss: np.ndarray
    train_acc: np.ndarray
    test_acc: np.ndarray

    def first_epoch_below(self, train_loss: float) -> int | None:
        """The first epoch whose train loss is <= ``train_loss`` (``None`` if never)."""
        hit = np.flatnonzero(self.train_loss <= train_loss)
        return int(hit[0]) if hit.size else None


def train_classifier(
    model: nn.Module,
    data: tuple[Tensor, Tensor, Tensor, Tensor],
    *,
    lr: float = 1e-3,
    weight_decay: float = 0.01,
    epochs: int,
    batch_size: int = 64,
    seed: int,
) -> ClassifierHistory:
    """AdamW on the cross-entropy of ``model``'s logits (the optimiser of the authors' gap runs); trained in place.
    Trains the models of our scaled-down runs for the generalisation-gap claim of [P21]."""
    lr, epochs, batch_size = _pos_float("lr", lr), _pos_int("epochs", epochs), _pos_int("batch_size", batch_size)
    weight_decay = real(weight_decay, "weight_decay", lo=0.0)
    Xtr, ytr, Xte, yte = data
    for name, Xs in (("X_train", Xtr), ("X_test", Xte)):
        _check_in_dim(model, Xs.shape[-1], name)
    dtype = next(model.parameters()).dtype
    Xtr, Xte = Xtr.to(dtype), Xte.to(dtype)
    g = torch.Generator().manual_seed(_seed(seed))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=float(weight_decay))
    ce = nn.functional.cross_entropy
    hist: dict[str, list[float]] = {"trl": [], "tel": [], "tra": [], "tea": []}

    def record() -> None:
        with torch.no_grad():
            for X, y, kl, ka in ((Xtr, ytr, "trl", "tra"), (Xte, yte, "tel", "tea")):
                logits = model(X)
                hist[kl].append(float(ce(logits, y)))
                hist[ka].append(float((logits.argmax(1) == y).double().mean()))

    record()
    n = Xtr.shape[0]
    for _ in range(epochs):
        perm = torch.randperm(n, generator=g)
        for s in range(0, n, batch_size):
            idx = perm[s : s + batch_size]
            opt.zero_grad(set_to_none=True)
            ce(model(Xtr[idx]), ytr[idx]).backward()
            opt.step()
        record()
    return ClassifierHistory(*(np.asarray(hist[k]) for k in ("trl", "tel", "tra", "tea")))
