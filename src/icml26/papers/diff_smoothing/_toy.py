"""The exact toy of [P32]: per-prompt softmax policies over N answers with a known correct set, trained by GRPO.

Each prompt x has a base policy π_base(·|x) (Zipf-skewed over a random order of the N answers) and a correct set C_x.
The policy is π_θ(·|x) = softmax(θ_x), initialised at θ_x = log π_base(·|x). Two update rules:

* ``"exact"``: the expected GRPO update in the infinite-group limit, A_i = (r̂_i − p)/(√(p(1−p)) + eps) with
  p = π_θ(C_x), shaped by a transform (A_i − α_i ℓ_i) and averaged over π_θ exactly:
  Δθ = η · π ⊙ (Ã − ⟨π, Ã⟩)  (softmax score ∇_θ log π_i = e_i − π).
* ``"sampled"``: G answers per prompt and step, group-normalised advantages, the score-function estimate
  (1/G) Σ_g Ã_g (e_{y_g} − π). One update per batch, so the PPO ratio is 1 and clipping never acts.

An optional reverse-KL penalty β·KL(π_θ ‖ π_base) adds −β π ⊙ (log(π/π_base) − KL) to both rules; with a fixed
reward vector its stationary point is π* ∝ π_base · exp(r̃/β) (tested in the test suite).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from icml26.common import validation
from icml26.papers.diff_smoothing._passk import (
    categorical_pass_at_k,
    check_correct,
    check_policy,
    correct_set_entropy,
    expected_distinct_correct,
    variant_pass_at_k,
)
from icml26.papers.diff_smoothing._transforms import AdvantageTransform, _gamma

__all__ = [
    "ToyRun",
    "ToyTasks",
    "expected_update",
    "kl_optimum",
    "make_toy_tasks",
    "sampled_update",
    "softmax",
    "toy_metrics",
    "train_toy",
]


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax (stable)."""
    z = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class ToyTasks:
    """P prompts: ``base_probs`` (P, N) = π_base(·|x), ``correct`` (P, N) boolean masks C_x (validated).

    The prompts of [P32]'s exact toy (the notes' tabular study); ``base_probs`` is stored as float64.
    """

    base_probs: np.ndarray
    correct: np.ndarray

    def __post_init__(self) -> None:
        p = check_policy(self.base_probs, "base_probs")
        if p.ndim != 2:
            raise ValueError(f"base_probs must be 2-D (prompts, answers), got shape {p.shape}")
        if np.any(p <= 0):
            raise ValueError("base_probs must be > 0 everywhere (log π_base must be finite)")
        c = check_correct(self.correct, p.shape)
        if np.any(c.sum(axis=1) == 0):
            raise ValueError("correct must mark at least one answer per prompt")
        object.__setattr__(self, "base_probs", p)
        object.__setattr__(self, "correct", c)

    @property
    def n_prompts(self) -> int:
        return self.base_probs.shape[0]


def make_toy_tasks(
    n_prompts: int,
    *,
    n_answers: int = 32,
    n_correct: tuple[int, int] = (3, 8),
    zipf: float = 1.1,
    seed: int | np.random.Generator = 0,
) -> ToyTasks:
    """Draw ``n_prompts`` prompts: π_base ∝ rank^(−``zipf``) over a random order of ``n_answers`` answers, and a
    uniformly random correct set of size U{``n_correct``} (the notes' tabular study of [P32]; sizes and skew are
    ours)."""
    n_prompts = validation.positive_int(n_prompts, "n_prompts", hi=10**6)
    n_answers = validation.positive_int(n_answers, "n_answers", hi=10**4)
    lo, hi = (validation.positive_int(v, "n_correct") for v in n_correct)
    if not 1 <= lo <= hi <= n_answers:
        raise ValueError(f"n_correct must satisfy 1 <= lo <= hi <= n_answers, got {n_correct}")
    zipf = validation.real(zipf, "zipf", lo=0.0)
    g = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(validation.seed(seed))
    w = np.arange(1, n_answers + 1, dtype=float) ** (-float(zipf))
    w /= w.sum()
    base = np.empty((n_prompts, n_answers))
    correct = np.zeros((n_prompts, n_answers), dtype=bool)
    for i in range(n_prompts):
        base[i] = w[g.permutation(n_answers)]
        correct[i, g.choice(n_answers, size=int(g.integers(lo, hi + 1)), replace=False)] = True
    return ToyTasks(base, correct)


def _kl_grad(pi: np.ndarray, log_base: np.ndarray, kl_coef: float) -> np.ndarray:
    lr_ = np.log(np.maximum(pi, 1e-300)) - log_base
    return -kl_coef * pi * (lr_ - np.sum(pi * lr_, axis=-1, keepdims=True))


def _ref_logp(logits: np.ndarray, log_base: np.ndarray, ref: str) -> np.ndarray:
    if ref == "old":
        z = logits - logits.max(axis=-1, keepdims=True)
        return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return log_base


def expected_update(
    logits: np.ndarray,
    tasks: ToyTasks,
    transform: AdvantageTransform,
    *,
    ref: str = "old",
    kl_coef: float = 0.0,
    eps: float = 1e-6,
) -> np.ndarray:
    """The exact expected GRPO direction for every prompt (infinite-group limit), shape (P, N).

    Implements Eq. (6) of [P32] in expectation: Ã_i = A_i − α_i log π_ref(i), A_i the population-normalised reward,
    α_i from ``transform``; ``ref`` = ``"old"`` (π_old = current policy, as in GRPO) or ``"base"`` (π_base, Eq. 4).
    """
    pi = softmax(logits)
    r = tasks.correct.astype(float)
    p = np.sum(pi * r, axis=-1, keepdims=True)
    a = r - p
    if transform.normalize:
        a = a / (np.sqrt(np.clip(p * (1 - p), 0, None)) + eps)
    a_p, a_n = transform.coefficients
    lp = _ref_logp(logits, np.log(tasks.base_probs), ref)
    at = a - np.where(tasks.correct, a_p, a_n) * lp
    g = pi * (at - np.sum(pi * at, axis=-1, keepdims=True))
    if kl_coef:
        g = g + _kl_grad(pi, np.log(tasks.base_probs), kl_coef)
    return g


def sampled_update(
    logits: np.ndarray,
    tasks: ToyTasks,
    transform: AdvantageTransform,
    *,
    group_size: int,
    rng: np.random.Generator,
    ref: str = "old",
    kl_coef: float = 0.0,
) -> np.ndarray:
    """One sampled GRPO direction per prompt from a group of ``group_size`` answers (score-function estimator).

    The sampled counterpart of :func:`expected_update`: Eq. (6) of [P32] with group-normalised advantages.
    """
    pi = softmax(logits)
    P, N = pi.shape
    u = rng.random((P, group_size, 1))
    ys = np.minimum((u > np.cumsum(pi, axis=-1)[:, None, :]).sum(-1), N - 1)  # inverse-CDF sampling, (P, G)
    rows = np.arange(P)[:, None]
    rewards = tasks.correct[rows, ys].astype(float)
    lp = _ref_logp(logits, np.log(tasks.base_probs), ref)[rows, ys]
    adv = transform(rewards, lp)  # (P, G)
    g = np.zeros_like(pi)
    np.add.at(g, (np.broadcast_to(rows, ys.shape), ys), adv)
    g = (g - pi * adv.sum(axis=-1, keepdims=True)) / group_size
    if kl_coef:
        g = g + _kl_grad(pi, np.log(tasks.base_probs), kl_coef)
    return g


def toy_metrics(policy: np.ndarray, tasks: ToyTasks, *, ks: tuple[int, ...], keep_prob: float) -> dict[str, float]:
    """Prompt-averaged pass@1, pass@k (train correct set), variant pass@k (``keep_prob``), E[#distinct correct] and
    the normalised correct-set entropy, all in closed form (the toy metrics of [P32]'s claims)."""
    out = {"pass@1": float(np.mean(categorical_pass_at_k(policy, tasks.correct, 1))),
           "entropy_correct": float(np.mean(correct_set_entropy(policy, tasks.correct)))}
    for k in ks:
        out[f"pass@{k}"] = float(np.mean(categorical_pass_at_k(policy, tasks.correct, k)))
        out[f"variant_pass@{k}"] = float(np.mean(variant_pass_at_k(policy, tasks.correct, k, keep_prob=keep_prob)))
        out[f"distinct@{k}"] = float(np.mean(expected_distinct_correct(policy, tasks.correct, k)))
    return out


@dataclass
class ToyRun:
    """The result of :func:`train_toy` on [P32]'s exact toy: the final ``policy_`` (P, N) and ``history``
    [(step, metrics), ...]."""

    policy_: np.ndarray
    history: list[tuple[int, dict[str, float]]] = field(default_factory=list)

    @property
    def final(self) -> dict[str, float]:
        return self.history[-1][1]


def train_toy(
    tasks: ToyTasks,
    transform: AdvantageTransform,
    *,
    steps: int,
    lr: float = 0.5,
    mode: str = "exact",
    group_size: int = 8,
    ref: str = "old",
    kl_coef: float = 0.0,
    seed: int | np.random.Generator = 0,
    ks: tuple[int, ...] = (4, 16),
    keep_prob: float = 0.5,
    record_every: int = 0,
) -> ToyRun:
    """Run ``steps`` GRPO updates θ ← θ + η·Δθ on every prompt from θ = log π_base (Eq. 6 of [P32] with ``transform``).

    Args:
        tasks: the prompts.
        transform: the advantage transform (vanilla, entropy heuristics, DS).
        steps: the number of updates.
        lr: η.
        mode: ``"exact"`` or ``"sampled"`` (see the module docstring).
        group_size: G for ``"sampled"``.
        ref: ``"old"`` or ``"base"`` (which log π the transform uses).
        kl_coef: β of the reverse-KL penalty to π_base.
        seed: sampling seed (``"sampled"`` only; an int >= 0 or a numpy Generator).
        ks: the k of the pass@k metrics recorded (see :func:`toy_metrics`).
        keep_prob: q of the variant pass@k recorded.
        record_every: record every this many steps (0: only the start and the end).
    """
    if not isinstance(tasks, ToyTasks):
        raise TypeError(f"tasks must be ToyTasks, got {type(tasks).__name__}")
    if not isinstance(transform, AdvantageTransform):
        raise TypeError(f"transform must be an AdvantageTransform, got {type(transform).__name__}")
    mode = validation.choice(mode, "mode", ("exact", "sampled"))
    ref = validation.choice(ref, "ref", ("old", "base"))
    steps = validation.int_at_least(steps, "steps", 0)
    lr = validation.real(lr, "lr", lo=0.0, lo_open=True)
    kl_coef = validation.real(kl_coef, "kl_coef", lo=0.0)
    group_size = validation.int_at_least(group_size, "group_size", 2, hi=10**5)
    record_every = validation.int_at_least(record_every, "record_every", 0)
    keep_prob = validation.real(keep_prob, "keep_prob", lo=0.0, hi=1.0)
    g = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(validation.seed(seed))
    logits = np.log(tasks.base_probs).copy()
    run = ToyRun(policy_=softmax(logits))
    run.history.append((0, toy_metrics(run.policy_, tasks, ks=ks, keep_prob=keep_prob)))
    for t in range(1, steps + 1):
        if mode == "exact":
            d = expected_update(logits, tasks, transform, ref=ref, kl_coef=kl_coef)
        else:
            d = sampled_update(logits, tasks, transform, group_size=group_size, rng=g, ref=ref, kl_coef=kl_coef)
        logits = logits + lr * d
        if (record_every and t % record_every == 0) or t == steps:
            run.history.append((t, toy_metrics(softmax(logits), tasks, ks=ks, keep_prob=keep_prob)))
    run.policy_ = softmax(logits)
    return run


def kl_optimum(base: object, correct: object, *, beta: float, gamma_p: float, gamma_n: float) -> np.ndarray:
    """The maximiser of E_π[r̃] − β·KL(π ‖ π_base) per prompt: π* ∝ π_base · exp(r̃/β), in closed form.

    r̃ is the verifier reward r̂ ∈ {0, 1} (γ_p = γ_n = 0: vanilla) or r_DS of Eq. (4) of [P32]:
    r̂ − γ_p log π_base on correct, r̂ + γ_n log π_base on incorrect answers. Float32 input is computed and returned
    in float64.

    Args:
        base: π_base, (N,) or (P, N), strictly positive rows summing to 1.
        correct: boolean mask C of ``base``'s shape.
        beta: β > 0 (finite).
        gamma_p: γ_p >= 0.
        gamma_n: γ_n >= 0.
    """
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real):
        raise TypeError(f"beta must be a real number, got {beta!r}")
    if not (np.isfinite(float(beta)) and float(beta) > 0):
        raise ValueError(f"beta must be finite and > 0, got {beta!r}")
    gp, gn = _gamma(gamma_p, "gamma_p"), _gamma(gamma_n, "gamma_n")
    if gp < 0 or gn < 0:
        raise ValueError(f"gamma_p and gamma_n must be >= 0, got {gp}, {gn}")
    p = check_policy(base, "base")
    if np.any(p <= 0):
        raise ValueError("base must be > 0 everywhere (log π_base must be finite)")
    c = check_correct(correct, p.shape)  # a boolean or 0/1 mask
    lb = np.log(p)
    r = c.astype(float)
    rt = np.where(c, r - gp * lb, r + gn * lb)  # Eq. (4)
    z = lb + rt / float(beta)
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)
