"""CountDown-3 with a verifier: given three digits and a target, write ``a∘b∘c`` (each digit once, ∘ ∈ {+, −, ×},
usual precedence) that evaluates to the target. A character-level task for the tiny-model check of [P32].

Token layout (vocabulary ``0-9 + - * =``): prompt ``a b c = t₁ t₂`` (target zero-padded to two digits), completion of
exactly 5 tokens ``d ∘ d ∘ d``. An instance usually has several correct completions (commuted operands, different
operators), which is what lets diversity among correct answers matter.
"""

from __future__ import annotations

import functools
import itertools
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icml26.common import validation

__all__ = [
    "COMPLETION_LEN",
    "PROMPT_LEN",
    "VOCAB",
    "CountdownInstance",
    "decode",
    "encode_prompt",
    "make_instances",
    "sft_targets",
    "verify",
]

VOCAB = "0123456789+-*="
PROMPT_LEN = 6
COMPLETION_LEN = 5
_OPS = "+-*"
_ID = {ch: i for i, ch in enumerate(VOCAB)}


def _generator(seed: object) -> np.random.Generator:
    """An explicit seed (an int >= 0, or a numpy Generator used as is); ``None`` is refused."""
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(validation.seed(seed))


def _evaluate(d: Sequence[int], ops: Sequence[str]) -> int:
    """Value of d0 o0 d1 o1 d2 with × before + and − (left to right otherwise)."""
    terms, signs = [d[0]], []
    for o, x in zip(ops, d[1:]):
        if o == "*":
            terms[-1] *= x
        else:
            terms.append(x)
            signs.append(o)
    v = terms[0]
    for s, t in zip(signs, terms[1:]):
        v = v + t if s == "+" else v - t
    return v


@dataclass(frozen=True)
class CountdownInstance:
    """One CountDown-3 problem of [P32]'s tiny-model check: ``digits`` (three of 1-9), ``target`` (0-99) and every
    correct completion (sorted strings)."""

    digits: tuple[int, int, int]
    target: int
    solutions: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.digits) != 3 or any(not (isinstance(x, numbers.Integral) and 1 <= x <= 9) for x in self.digits):
            raise ValueError(f"digits must be three ints in 1..9, got {self.digits!r}")
        if not (isinstance(self.target, numbers.Integral) and 0 <= self.target <= 99):
            raise ValueError(f"target must be an int in 0..99, got {self.target!r}")

    @property
    def prompt(self) -> str:
        return "".join(map(str, self.digits)) + f"={self.target:02d}"


def _solutions(digits: tuple[int, int, int], target: int) -> tuple[str, ...]:
    out = set()
    for perm in set(itertools.permutations(digits)):
        for ops in itertools.product(_OPS, repeat=2):
            if _evaluate(perm, ops) == target:
                out.add(f"{perm[0]}{ops[0]}{perm[1]}{ops[1]}{perm[2]}")
    return tuple(sorted(out))


@functools.lru_cache(maxsize=1)
def _all_prompts() -> frozenset[str]:
    """Every prompt :func:`make_instances` can draw: digits in drawn order and a reachable target in 0..99."""
    out = set()
    for d in itertools.product(range(1, 10), repeat=3):
        values = {_evaluate(p, o) for p in itertools.permutations(d) for o in itertools.product(_OPS, repeat=2)}
        out.update("".join(map(str, d)) + f"={t:02d}" for t in values if 0 <= t <= 99)
    return frozenset(out)


def make_instances(n: int, *, seed: int | np.random.Generator = 0, exclude: set[str] | None = None) -> list[CountdownInstance]:
    """``n`` distinct CountDown-3 instances for [P32]'s CountDown experiments: random digits, the target = value of a
    uniformly random expression (kept if 0..99); prompts in ``exclude`` are skipped (to hold out a test set).

    There are ``len(_all_prompts())`` = 6,396 distinct prompts: more than those left after ``exclude`` is refused at
    once (``ValueError`` naming ``n``).
    """
    n = validation.positive_int(n, "n")
    g = _generator(seed)
    seen = set(exclude or ())
    left = len(_all_prompts() - seen)
    if n > left:
        raise ValueError(f"n = {n} exceeds the {left} distinct CountDown-3 prompts available (of "
                         f"{len(_all_prompts())}, after exclude)")
    out: list[CountdownInstance] = []
    for _ in range(200 * n):
        d = tuple(int(x) for x in g.integers(1, 10, size=3))
        perm = tuple(d[i] for i in g.permutation(3))
        ops = tuple(_OPS[i] for i in g.integers(0, 3, size=2))
        t = _evaluate(perm, ops)
        prompt = "".join(map(str, d)) + f"={t:02d}"
        if not 0 <= t <= 99 or prompt in seen:
            continue
        seen.add(prompt)
        out.append(CountdownInstance((d[0], d[1], d[2]), t, _solutions((d[0], d[1], d[2]), t)))
        if len(out) == n:
            return out
    raise ValueError(f"n = {n}: could not draw that many distinct instances in {200 * n} tries")


def verify(instance: CountdownInstance, completion: str) -> bool:
    """The verifier (the verifiable reward r̂ of [P32] on CountDown): ``completion`` is ``d∘d∘d`` using exactly
    ``instance.digits`` and evaluates to the target."""
    if len(completion) != COMPLETION_LEN:
        return False
    ds, ops = completion[0::2], completion[1::2]
    if not (all(c in "123456789" for c in ds) and all(o in _OPS for o in ops)):
        return False
    d = tuple(int(c) for c in ds)
    if sorted(d) != sorted(instance.digits):
        return False
    return _evaluate(d, (ops[0], ops[1])) == instance.target


def encode_prompt(instance: CountdownInstance) -> list[int]:
    """Token ids of the prompt (length ``PROMPT_LEN``): a tokenisation helper for [P32]'s CountDown experiments."""
    return [_ID[c] for c in instance.prompt]


def decode(ids: object) -> str:
    """Token ids (a 1-D sequence of ints in ``[0, len(VOCAB))``) -> text (a helper for [P32]'s CountDown
    experiments); other ids are refused (``ValueError``), non-integers too (``TypeError``)."""
    a = np.asarray(ids)
    if a.dtype.kind not in "iu":
        raise TypeError(f"ids must be integer token ids, got dtype {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"ids must be 1-dimensional, got shape {a.shape}")
    if a.size and (int(a.min()) < 0 or int(a.max()) >= len(VOCAB)):
        raise ValueError(f"ids must lie in [0, {len(VOCAB)}) (the CountDown vocabulary), got {a.min()}..{a.max()}")
    return "".join(VOCAB[i] for i in a.tolist())


def sft_targets(instances: list[CountdownInstance], *, zipf: float = 1.5, seed: int | np.random.Generator = 0) -> np.ndarray:
    """SFT sequences (n, PROMPT_LEN + COMPLETION_LEN): each instance with one correct completion drawn with weights
    ∝ rank^(−``zipf``) over its solutions in sorted order (a consistent house style): a base model with a skewed
    distribution over the correct answers (the regime where RL sharpens, [P32]'s selection bias)."""
    zipf = validation.real(zipf, "zipf", lo=0.0)
    g = _generator(seed)
    rows = []
    for inst in instances:
        sols = inst.solutions
        w = np.arange(1, len(sols) + 1, dtype=float) ** (-zipf)
        s = sols[int(g.choice(len(sols), p=w / w.sum()))]
        rows.append(encode_prompt(inst) + [_ID[c] for c in s])
    return np.asarray(rows, dtype=np.int64)
