"""The capacity sweep of [P01] (model sizes × dataset sizes, trained to saturation), the bits-per-parameter fit and
the loss-threshold membership-inference evaluation."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from torch import nn

from icml26.common.stats import Estimate
from icml26.common.validation import choice, int_at_least, positive_int, real, real_array
from icml26.common.validation import seed as check_seed
from icml26.papers.capacity._code import (
    MarkovChain,
    Reference,
    UniformReference,
    _check_model,
    as_sequences,
    code_lengths,
    unintended_memorization,
)
from icml26.papers.capacity._train import TrainConfig, fit_to_plateau, make_model

__all__ = [
    "BitsPerParamFit",
    "CapacitySweep",
    "MembershipInference",
    "SweepPoint",
    "capacity_sweep",
    "fit_bits_per_param",
    "membership_inference",
    "run_point",
]

DATA_KINDS = ("uniform", "markov")


@dataclass(frozen=True)
class MembershipInference:
    """Loss-threshold membership inference (Sec. 6 of [P01]): ``auc`` (ROC AUC of −code length, members vs
    non-members; chance 0.5) and ``f1`` of predicting "member" for the better-coded half of the pooled sequences
    (median threshold; chance 0.5)."""

    auc: float
    f1: float
    n_members: int
    n_non_members: int


def membership_inference(model: Any, members: object, non_members: object) -> MembershipInference:
    """The loss-based membership-inference attack of Sec. 6 of [P01]: score every sequence by −H(x | θ̂) (its code
    length under ``model`` θ̂, i.e. its loss) and measure how well the score separates the training sequences
    ``members`` from fresh sequences ``non_members`` of the same distribution (AUC; F1 at the median threshold)."""
    V = model.vocab_size if isinstance(model, Reference) and not isinstance(model, nn.Module) else _check_model(model)
    h_in = code_lengths(model, as_sequences(members, vocab_size=V, name="members"))
    h_out = code_lengths(model, as_sequences(non_members, vocab_size=V, name="non_members"))
    s_in, s_out = -h_in, -h_out
    # AUC = P(score_member > score_non_member) + ½ P(tie)  (Mann-Whitney U / (n_in n_out))
    pooled = np.concatenate([s_in, s_out])
    order = pooled.argsort(kind="mergesort")
    ranks = np.empty(pooled.size)
    sorted_vals = pooled[order]
    _, first, counts = np.unique(sorted_vals, return_index=True, return_counts=True)
    avg = first + (counts - 1) / 2.0 + 1.0
    ranks[order] = np.repeat(avg, counts)
    u = ranks[: s_in.size].sum() - s_in.size * (s_in.size + 1) / 2.0
    auc = float(u / (s_in.size * s_out.size))
    thr = np.median(pooled)
    tp = float((s_in > thr).sum())
    fp = float((s_out > thr).sum())
    fn = float(s_in.size - tp)
    f1 = 2 * tp / (2 * tp + fp + fn) if tp > 0 else 0.0
    return MembershipInference(auc=auc, f1=float(f1), n_members=int(s_in.size), n_non_members=int(s_out.size))


@dataclass(frozen=True, kw_only=True)
class SweepPoint:
    """One training run of a sweep: a (n_layer, d_model) GPT trained on ``n_sequences`` sequences of ``data``
    (one point of the capacity sweep of [P01])."""

    n_layer: int
    d_model: int
    n_sequences: int
    seed: int
    vocab_size: int = 16
    seq_len: int = 16
    data: str = "uniform"
    concentration: float = 0.1
    n_head: int = 2
    train: TrainConfig = field(default_factory=TrainConfig)

    def __post_init__(self) -> None:
        for name in ("n_layer", "d_model", "n_sequences", "seq_len", "n_head"):
            positive_int(getattr(self, name), name)
        check_seed(self.seed)
        int_at_least(self.vocab_size, "vocab_size", 2)
        choice(self.data, "data", DATA_KINDS)
        real(self.concentration, "concentration", lo=0.0, lo_open=True)
        if self.d_model % self.n_head:
            raise ValueError(f"d_model={self.d_model} must be divisible by n_head={self.n_head}")
        if not isinstance(self.train, TrainConfig):
            raise TypeError(f"train must be a TrainConfig, got {type(self.train).__name__}")


def _data_seed(p: SweepPoint, stream: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([p.seed, p.n_sequences, stream, DATA_KINDS.index(p.data)])


def run_point(p: SweepPoint) -> dict[str, Any]:
    """Train one model of the capacity sweep of [P01] to its plateau and measure it (a top-level function:
    ``ctx.map`` may ship it to a Ray worker). Returns a row: parameters, dataset bits, memorisation (train and, for
    Markov data, held-out), the membership-inference AUC/F1 and the training length. Everything is derived from
    ``p.seed``."""
    if not isinstance(p, SweepPoint):
        raise TypeError(f"p must be a SweepPoint, got {type(p).__name__}")
    V, S, N = p.vocab_size, p.seq_len, p.n_sequences
    if p.data == "uniform":
        ref: Any = UniformReference(V)
        draw = lambda n, s: np.random.default_rng(s).integers(0, V, size=(n, S))  # noqa: E731
    else:
        ref = MarkovChain.random(V, concentration=p.concentration, seed=np.random.default_rng([p.seed, 7]))
        draw = lambda n, s: ref.sample(n, S, seed=np.random.default_rng(s))  # noqa: E731
    train_x = draw(N, _data_seed(p, 0))
    test_x = draw(N, _data_seed(p, 1))
    model = make_model(p.n_layer, p.d_model, vocab_size=V, seq_len=S, n_head=p.n_head, seed=p.seed)
    res = fit_to_plateau(model, train_x, config=p.train, seed=p.seed)
    mem_train = unintended_memorization(model, train_x, ref)
    mem_test = unintended_memorization(model, test_x, ref)
    h_ref_train = ref.code_lengths(train_x)
    h_test = code_lengths(model, test_x)
    mia = membership_inference(model, train_x, test_x)
    n_params = model.n_params()
    return {
        "n_layer": p.n_layer, "d_model": p.d_model, "n_params": n_params, "n_sequences": N, "seed": p.seed,
        "data": p.data, "dataset_bits": float(h_ref_train.sum()),
        "mem_bits": float(mem_train.sum()), "mem_bits_heldout": float(mem_test.sum()),
        "bits_per_param": float(mem_train.sum()) / n_params,
        "test_bits_per_token": float(h_test.mean()) / S, "ref_bits_per_token": float(ref.code_lengths(test_x).mean()) / S,
        "mia_auc": mia.auc, "mia_f1": mia.f1,
        "steps": res.steps, "saturated": bool(res.stopped_early),
        "final_train_bits_per_token": (res.evals[-1][1] / math.log(2.0)) if res.evals else float("nan"),
    }


@dataclass(frozen=True)
class BitsPerParamFit:
    """capacity ≈ α · params (a line through the origin): ``alpha`` (bits/param) with a bootstrap CI over the points,
    ``r2`` of that line (1 − SS_res / SS_tot, SS_tot about the mean capacity), and the log-log ``slope``
    (1 = proportional). The fit behind the α ≈ 3.6 bits/param of Sec. 5 of [P01]."""

    alpha: Estimate
    r2: float
    slope: float


def fit_bits_per_param(n_params: Sequence[float], capacity_bits: Sequence[float], *, n_boot: int = 2000,
                       seed: int = 0) -> BitsPerParamFit:
    """Fit capacity = α·P through the origin (Sec. 5 of [P01]: "capacity ≈ 3.6 bits per parameter"), least squares
    α = Σ P·C / Σ P², a percentile bootstrap CI resampling the (P, C) points, the R² of the fit and the log-log slope
    of C on P (needs points at >= 2 distinct sizes for the slope; NaN otherwise)."""
    n_boot = positive_int(n_boot, "n_boot")
    P = real_array(n_params, "n_params", ndim=1)
    C = real_array(capacity_bits, "capacity_bits", ndim=1)
    if P.shape != C.shape:
        raise ValueError(f"n_params and capacity_bits must be of equal length, got {P.size} and {C.size}")
    if np.any(P <= 0):
        raise ValueError(f"n_params must be positive, got min {P.min():g}")
    alpha = float(P @ C / (P @ P))
    g = np.random.default_rng(check_seed(seed))
    idx = g.integers(0, P.size, size=(n_boot, P.size))
    boots = (P[idx] * C[idx]).sum(1) / (P[idx] ** 2).sum(1)
    lo, hi = (float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))) if P.size > 1 else (alpha, alpha)
    ss_res = float(((C - alpha * P) ** 2).sum())
    ss_tot = float(((C - C.mean()) ** 2).sum())
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else float("nan")
    if np.unique(P).size >= 2 and np.all(C > 0):
        slope = float(np.polyfit(np.log(P), np.log(C), 1)[0])
    else:
        slope = float("nan")
    return BitsPerParamFit(alpha=Estimate(alpha, lo, hi), r2=r2, slope=slope)


@dataclass
class CapacitySweep:
    """The rows of :func:`capacity_sweep` (one per trained model) and the derived plateaus and fit (the capacity
    sweep of Sec. 5 of [P01])."""

    rows: list[dict[str, Any]]

    def plateaus(self) -> list[dict[str, Any]]:
        """Per (model size, seed): the capacity = max over dataset sizes of mem(D), and whether the two largest
        dataset sizes agree within 15 % (mem(N_max) / mem(N_prev)), the saturation check of Sec. 5 of [P01]."""
        out = []
        keys = sorted({(r["n_layer"], r["d_model"], r["seed"]) for r in self.rows})
        for L, d, s in keys:
            rs = sorted((r for r in self.rows if (r["n_layer"], r["d_model"], r["seed"]) == (L, d, s)),
                        key=lambda r: r["n_sequences"])
            mems = [r["mem_bits"] for r in rs]
            ratio = mems[-1] / mems[-2] if len(mems) >= 2 and mems[-2] > 0 else float("nan")
            out.append({"n_layer": L, "d_model": d, "seed": s, "n_params": rs[0]["n_params"],
                        "capacity_bits": max(mems), "last_ratio": ratio,
                        "all_trained_to_plateau": all(r["saturated"] for r in rs)})
        return out

    def fit(self, *, seed: int = 0) -> BitsPerParamFit:
        """α bits/param through the origin over every (size, seed) plateau (:func:`fit_bits_per_param`)."""
        pl = self.plateaus()
        return fit_bits_per_param([p["n_params"] for p in pl], [p["capacity_bits"] for p in pl], seed=seed)


def _dataset_sizes(ns: object) -> list[int]:
    """Dataset sizes as positive Python ints (a 1-D, non-empty integer sequence)."""
    a = np.asarray(ns) if not isinstance(ns, (str, bytes)) else np.asarray([ns])
    if a.dtype.kind not in "iu":
        raise TypeError(f"dataset_sizes must hold integer numbers of sequences, got dtype {a.dtype}")
    if a.ndim != 1 or a.size == 0 or np.any(a < 1):
        raise ValueError(f"dataset_sizes must be a non-empty 1-D sequence of ints >= 1, got {a.tolist()}")
    return [int(n) for n in a]


def capacity_sweep(
    model_sizes: Sequence[tuple[int, int]],
    dataset_sizes: Sequence[int] | Mapping[tuple[int, int], Sequence[int]],
    *,
    seeds: Sequence[int] = (0,),
    vocab_size: int = 16,
    seq_len: int = 16,
    data: str = "uniform",
    concentration: float = 0.1,
    n_head: int = 2,
    train: TrainConfig = TrainConfig(),
    mapper: Callable[[Callable[[Any], Any], list[Any]], list[Any]] | None = None,
) -> CapacitySweep:
    """Train a GPT of every size in ``model_sizes`` ((n_layer, d_model) pairs) on every dataset size N in
    ``dataset_sizes`` (one list for all sizes, or a list per size), for every seed, each to its plateau, and measure
    memorisation (Sec. 5 of [P01]: with ``data="uniform"`` random tokens, mem(D) plateaus at the capacity; with
    ``data="markov"`` a random order-1 chain with Dirichlet(``concentration``) rows is the exact reference).
    ``mapper(fn, items)`` (e.g. ``ctx.map``) may fan the points out; the default runs them one after another."""
    if not model_sizes:
        raise ValueError("model_sizes must name at least one (n_layer, d_model) pair")
    data = choice(data, "data", DATA_KINDS)
    seeds = tuple(check_seed(s, "seeds") for s in seeds)
    if not seeds:
        raise ValueError("seeds must hold at least one seed")
    vocab_size, seq_len = int_at_least(vocab_size, "vocab_size", 2), positive_int(seq_len, "seq_len")
    concentration, n_head = real(concentration, "concentration", lo=0.0, lo_open=True), positive_int(n_head, "n_head")
    points = []
    for size in model_sizes:
        L, d = (positive_int(v, "model_sizes") for v in size)
        if d % n_head:
            raise ValueError(f"model_sizes: need d_model divisible by n_head={n_head}, got {size}")
        ns = dataset_sizes[(L, d)] if isinstance(dataset_sizes, Mapping) else dataset_sizes
        for n in _dataset_sizes(ns):
            points.extend(SweepPoint(n_layer=L, d_model=d, n_sequences=n, seed=s, vocab_size=vocab_size,
                                     seq_len=seq_len, data=data, concentration=concentration, n_head=n_head,
                                     train=train) for s in seeds)
    rows = (mapper or (lambda f, xs: [f(x) for x in xs]))(run_point, points)
    return CapacitySweep(rows=list(rows))

