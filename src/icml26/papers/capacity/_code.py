"""Code lengths and unintended memorisation (Sec. 2-3 of [P01]).

A model θ over sequences x = (x_1, ..., x_S) of tokens in [0, V) gives a code of length
H(x | θ) = −log2 p(x | θ) bits (arithmetic coding, up to 2 bits). Unintended memorisation of x by a trained model θ̂
with respect to a reference θ that captures what is *generalisable* is (Eq. of Def. 3.1 of [P01], with the
Kolmogorov terms replaced by code lengths)

    mem_U(x, θ̂, θ) = H(x | θ) − H(x | θ, θ̂) ≈ H(x | θ) − min(H(x | θ), H(x | θ̂)) = max(0, H(x | θ) − H(x | θ̂)),

and the memorisation of a dataset is the sum over its sequences.

Sequence convention (ours): a :class:`~icml26.common.nn.TinyGPT` used here has ``vocab_size = V + 1``; token ``V``
is a begin-of-sequence marker fed before x_1 (so x_1 is coded too), and its logit is dropped: every token is coded by
a softmax over the V data tokens only. A model with all-zero output logits therefore codes every sequence with
exactly S·log2 V bits, as the uniform reference does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from icml26.common.validation import int_array, int_at_least, positive_int, probability_vector, real, real_array
from icml26.common.validation import seed as check_seed

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.common.nn import TinyGPT

__all__ = [
    "MarkovChain",
    "Reference",
    "UniformReference",
    "as_sequences",
    "code_lengths",
    "memorization_bits",
    "unintended_memorization",
]

LN2 = math.log(2.0)


@runtime_checkable
class Reference(Protocol):
    """A reference model θ with exact code lengths: ``vocab_size`` V and ``code_lengths(x) -> bits per sequence``.

    The reference θ against which Def. 3.1 of [P01] measures unintended memorisation.
    """

    vocab_size: int

    def code_lengths(self, dataset: np.ndarray) -> np.ndarray: ...


def as_sequences(dataset: object, *, vocab_size: int, name: str = "dataset") -> np.ndarray:
    """Validate ``dataset`` as a non-empty (N, S) integer array of tokens in [0, vocab_size) and return it as int64
    numpy (a ``TypeError`` for floats, complex numbers, strings or bools; a ``ValueError`` for a wrong shape, no
    sequence, or an id out of range; both naming ``name``)."""
    if isinstance(dataset, Tensor):
        dataset = dataset.detach().cpu().numpy()
    arr = int_array(dataset, name, ndim=2)
    if arr.shape[1] < 1:
        raise ValueError(f"{name} must hold sequences of length >= 1, got shape {arr.shape}")
    if arr.min() < 0 or arr.max() >= vocab_size:
        raise ValueError(f"{name} token ids must lie in [0, {vocab_size}), got range [{arr.min()}, {arr.max()}]")
    return arr


def _generator(seed: int | np.random.Generator, name: str = "seed") -> np.random.Generator:
    """``seed`` itself if it is a numpy Generator, else a fresh one from an explicit int seed >= 0."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(check_seed(seed, name))


@dataclass(frozen=True)
class UniformReference:
    """The uniform distribution over [0, V)^S: H(x | θ) = S·log2 V for every x (the random-token setting of [P01])."""

    vocab_size: int

    def __post_init__(self) -> None:
        int_at_least(self.vocab_size, "vocab_size", 2)

    def code_lengths(self, dataset: np.ndarray) -> np.ndarray:
        """S·log2 V bits for each of the N sequences of ``dataset`` (N, S)."""
        x = as_sequences(dataset, vocab_size=self.vocab_size)
        return np.full(x.shape[0], x.shape[1] * math.log2(self.vocab_size))


@dataclass(frozen=True)
class MarkovChain:
    """An order-1 Markov chain over [0, V): x_1 ~ ``initial``, x_t | x_{t-1} ~ ``transition[x_{t-1}]``.

    Our exact-reference stand-in for the "generalisable" text distribution of [P01] (Sec. 6): its code lengths are
    exact, so mem_U against it is exact. ``initial`` (V,) and ``transition`` (V, V) must be finite, non-negative,
    rows summing to 1.
    """

    initial: np.ndarray
    transition: np.ndarray
    vocab_size: int = field(init=False)

    def __post_init__(self) -> None:
        P = real_array(self.transition, "transition", ndim=2)
        if P.shape[0] != P.shape[1] or P.shape[0] < 2:
            raise ValueError(f"transition must be a square (V, V) matrix with V >= 2, got shape {P.shape}")
        if np.any(P < 0) or not np.allclose(P.sum(-1), 1.0, atol=1e-9):
            raise ValueError("transition must be non-negative, with rows summing to 1")
        p0 = probability_vector(self.initial, "initial")
        if p0.shape != (P.shape[0],):
            raise ValueError(f"initial must have shape ({P.shape[0]},), got {p0.shape}")
        object.__setattr__(self, "initial", p0)
        object.__setattr__(self, "transition", P)
        object.__setattr__(self, "vocab_size", int(P.shape[0]))

    @classmethod
    def random(cls, vocab_size: int, *, concentration: float = 0.1, seed: int | np.random.Generator) -> MarkovChain:
        """Rows of the transition matrix drawn from Dirichlet(``concentration``·1); x_1 from the stationary law."""
        vocab_size = int_at_least(vocab_size, "vocab_size", 2)
        concentration = real(concentration, "concentration", lo=0.0, lo_open=True)
        g = _generator(seed)
        P = g.dirichlet(np.full(vocab_size, concentration), size=vocab_size)
        P = np.maximum(P, 1e-12)  # keep every transition codable (tiny Dirichlet draws underflow to 0)
        P /= P.sum(1, keepdims=True)
        return cls(stationary(P), P)

    def sample(self, n: int, seq_len: int, *, seed: int | np.random.Generator) -> np.ndarray:
        """``n`` independent sequences of length ``seq_len`` (an (n, seq_len) int64 array)."""
        n, seq_len = int_at_least(n, "n", 0), positive_int(seq_len, "seq_len")
        g = _generator(seed)
        cdf = np.cumsum(self.transition, axis=1)
        x = np.empty((n, seq_len), dtype=np.int64)
        x[:, 0] = np.minimum(np.searchsorted(np.cumsum(self.initial), g.random(n)), self.vocab_size - 1)
        for t in range(1, seq_len):
            u = g.random(n)
            x[:, t] = np.minimum((cdf[x[:, t - 1]] < u[:, None]).sum(1), self.vocab_size - 1)
        return x

    def code_lengths(self, dataset: np.ndarray) -> np.ndarray:
        """Exact −log2 p(x) = −log2 initial[x_1] − Σ_t log2 transition[x_{t-1}, x_t] per sequence."""
        x = as_sequences(dataset, vocab_size=self.vocab_size)
        bits = -np.log2(self.initial[x[:, 0]])
        if x.shape[1] > 1:
            bits = bits - np.log2(self.transition[x[:, :-1], x[:, 1:]]).sum(1)
        return bits

    def entropy_rate(self) -> float:
        """H = −Σ_i π_i Σ_j P_ij log2 P_ij bits/token under the stationary law π."""
        P = self.transition
        return float(-(stationary(P)[:, None] * P * np.log2(P)).sum())

    def expected_code_length(self, seq_len: int) -> float:
        """E[H(x | θ)] for sequences of length ``seq_len`` started from ``initial``."""
        P, p = self.transition, self.initial.copy()
        row_h = -(P * np.log2(P)).sum(1)
        total = float(-(p * np.log2(p)).sum())
        for _ in range(1, seq_len):
            total += float(p @ row_h)
            p = p @ P
        return total


def stationary(P: np.ndarray) -> np.ndarray:
    """The stationary distribution π = π P of a row-stochastic matrix (left eigenvector of eigenvalue 1)."""
    w, v = np.linalg.eig(P.T)
    pi = np.abs(np.real(v[:, np.argmin(np.abs(w - 1.0))]))
    return pi / pi.sum()


def _check_model(model: nn.Module) -> int:
    cfg = getattr(model, "cfg", None)
    if cfg is None or not hasattr(cfg, "vocab_size") or not hasattr(cfg, "block_size"):
        raise TypeError(f"model must be a TinyGPT (with .cfg.vocab_size and .cfg.block_size), got {type(model).__name__}")
    for name, p in model.named_parameters():
        if not torch.isfinite(p).all():
            raise ValueError(f"model has non-finite weights in {name!r}")
    return int(cfg.vocab_size) - 1  # V: the last id is the begin-of-sequence marker


def bos_inputs(x: Tensor, bos: int) -> Tensor:
    """The model inputs for targets ``x`` (N, S): (BOS, x_1, ..., x_{S-1})."""
    return torch.cat([torch.full_like(x[:, :1], bos), x[:, :-1]], dim=1)


def token_logprobs(model: TinyGPT, x: Tensor) -> Tensor:
    """The log-probabilities log p(x_t | x_<t, θ̂) in nats, (N, S), with the softmax restricted to the V data tokens (float64)."""
    V = model.cfg.vocab_size - 1
    logits = model(bos_inputs(x, V))[..., :V].double()
    return F.log_softmax(logits, dim=-1).gather(-1, x.unsqueeze(-1)).squeeze(-1)


def code_lengths(model: nn.Module | Reference, dataset: object, *, batch_size: int = 1024) -> np.ndarray:
    """H(x | θ) = −log2 p(x | θ) in bits for every sequence x of ``dataset`` (N, S) — the code length of Sec. 3 of [P01].

    ``model`` is a :class:`Reference` (exact code lengths) or a TinyGPT with ``vocab_size = V + 1`` (the last id is the
    begin-of-sequence marker, see the module docstring). Sequences longer than the model's window, token ids outside
    [0, V) and non-finite weights are rejected.
    """
    if isinstance(model, Reference) and not isinstance(model, nn.Module):
        return np.asarray(model.code_lengths(as_sequences(dataset, vocab_size=model.vocab_size)), dtype=float)
    V = _check_model(model)
    gpt = cast("TinyGPT", model)
    x = as_sequences(dataset, vocab_size=V)
    if x.shape[1] > gpt.cfg.block_size:
        raise ValueError(f"dataset sequences have length {x.shape[1]} > the model's window block_size={gpt.cfg.block_size}")
    batch_size = positive_int(batch_size, "batch_size")
    out = np.empty(x.shape[0])
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for i in range(0, x.shape[0], batch_size):
            xb = torch.from_numpy(x[i : i + batch_size])
            out[i : i + xb.shape[0]] = (-token_logprobs(gpt, xb).sum(1) / LN2).numpy()
    model.train(was_training)
    return out


def unintended_memorization(model: nn.Module, dataset: object, reference: nn.Module | Reference) -> np.ndarray:
    """mem_U(x, θ̂, θ) = max(0, H(x | θ) − H(x | θ̂)) bits for each sequence x (Def. 3.1 / Eq. (4) of [P01]).

    ``model`` is the trained θ̂, ``reference`` the θ holding what is generalisable (:class:`UniformReference` for
    random tokens: then mem_U is total memorisation; a :class:`MarkovChain` or a larger TinyGPT otherwise). Both
    must share the vocabulary size V.
    """
    V_model = _check_model(model) if isinstance(model, nn.Module) else None
    V_ref = reference.vocab_size if not isinstance(reference, nn.Module) else _check_model(reference)
    if V_model is None:
        raise TypeError(f"model must be a TinyGPT, got {type(model).__name__}")
    if V_model != V_ref:
        raise ValueError(f"vocab mismatch: model codes V={V_model} tokens (vocab_size-1), reference V={V_ref}")
    h_model = code_lengths(model, dataset)
    h_ref = code_lengths(reference, dataset)
    return np.maximum(0.0, h_ref - h_model)


def memorization_bits(model: nn.Module, dataset: object, reference: nn.Module | Reference) -> float:
    """mem(D) = Σ_{x ∈ D} mem_U(x, θ̂, θ) in bits: the unintended memorisation of ``dataset`` D by ``model`` θ̂
    (Sec. 3 of [P01]); with a :class:`UniformReference` this is the total memorisation whose plateau is the capacity."""
    return float(unintended_memorization(model, dataset, reference).sum())
