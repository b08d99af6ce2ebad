"""CountDown-3 with a verifier: given three digits and a target, write ``a∘b∘c`` (each digit once, ∘ ∈ {+, −, ×},
usual precedence) that evaluates to the target. A character-level task for the tiny-model check of [P32].

Token layout (vocabulary ``0-9 + - * =``): prompt ``a b c = t₁ t₂`` (target zero-padded to two digits), completion of
exactly 5 tokens ``d ∘ d ∘ d``. An instance usually has several correct completions (commuted operands, different
operators), which is what lets diversity among correct answers matter.
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass

import numpy as np

from icml26.common.seeding import rng as make_rng

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


def _evaluate(d: tuple[int, int, int], ops: tuple[str, str]) -> int:
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


def make_instances(n: int, *, seed: int | np.random.Generator | None = 0, exclude: set[str] | None = None) -> list[CountdownInstance]:
    """``n`` distinct CountDown-3 instances for [P32]'s CountDown experiments: random digits, the target = value of a
    uniformly random expression (kept if 0..99); prompts in ``exclude`` are skipped (to hold out a test set)."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    g = make_rng(seed)
    seen = set(exclude or ())
    out: list[CountdownInstance] = []
    for _ in range(200 * n):
        d = tuple(int(x) for x in g.integers(1, 10, size=3))
        perm = tuple(d[i] for i in g.permutation(3))
        ops = tuple(_OPS[i] for i in g.integers(0, 3, size=2))
        t = _evaluate(perm, ops)  # type: ignore[arg-type]
        if not 0 <= t <= 99:
            continue
        inst = CountdownInstance(d, t, _solutions(d, t))  # type: ignore[arg-type]
        if inst.prompt in seen:
            continue
        seen.add(inst.prompt)
        out.append(inst)
        if len(out) == n:
            return out
    raise ValueError(f"could not draw {n} distinct instances (too many excluded?)")


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
    return _evaluate(d, (ops[0], ops[1])) == instance.target  # type: ignore[arg-type]


def encode_prompt(instance: CountdownInstance) -> list[int]:
    """Token ids of the prompt (length ``PROMPT_LEN``): a tokenisation helper for [P32]'s CountDown experiments."""
    return [_ID[c] for c in instance.prompt]


def decode(ids: object) -> str:
    """Token ids -> text (a helper for [P32]'s CountDown experiments)."""
    return "".join(VOCAB[int(i)] for i in np.asarray(ids).ravel())


def sft_targets(instances: list[CountdownInstance], *, zipf: float = 1.5, seed: int | np.random.Generator | None = 0) -> np.ndarray:
    """SFT sequences (n, PROMPT_LEN + COMPLETION_LEN): each instance with one correct completion drawn with weights
    ∝ rank^(−``zipf``) over its solutions in sorted order (a consistent house style): a base model with a skewed
    distribution over the correct answers (the regime where RL sharpens, [P32]'s selection bias)."""
    g = make_rng(seed)
    rows = []
    for inst in instances:
        sols = inst.solutions
        w = np.arange(1, len(sols) + 1, dtype=float) ** (-zipf)
        s = sols[int(g.choice(len(sols), p=w / w.sum()))]
        rows.append(encode_prompt(inst) + [_ID[c] for c in s])
    return np.asarray(rows, dtype=np.int64)
