"""Arithmetic reasoning traces for the tiny-model reproduction of [P11] (notes §4; our task, not the paper's data).

A problem is a sum of a few terms; its trace adds one term per step and ends with the answer:

    37+85+12=;37+85=122;122+12=134;A134⏎

(character tokens, vocabulary of 16; the claims use terms 0-9). The digits of each step's result and of the answer are the low-entropy
"symbolic commitments" the paper's analysis is about. A *corrupted* trace (the imperfect base model's data) has one
step's result off by 1-9; the later steps carry the wrong value on, so the final answer is wrong too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from icml26.common.validation import int_at_least
from icml26.common.validation import seed as check_seed

__all__ = ["VOCAB", "Problem", "TraceData", "decode", "encode", "make_problems", "trace_text", "traces_dataset"]

PAD = "."
VOCAB = PAD + "0123456789+=;A\n"
_ID = {c: i for i, c in enumerate(VOCAB)}


def encode(text: str) -> list[int]:
    """Token ids of ``text`` (characters of :data:`VOCAB`)."""
    try:
        return [_ID[c] for c in text]
    except KeyError as exc:
        raise ValueError(f"text holds a character outside the vocabulary {VOCAB!r}: {exc}") from None


def decode(ids: Sequence[int]) -> str:
    """The text of token ids (inverse of :func:`encode`)."""
    return "".join(VOCAB[int(i)] for i in ids)


@dataclass(frozen=True)
class Problem:
    """A problem of the [P11] reproduction task: a sum of terms; ``prompt`` is ``"a+b+c="``."""

    terms: tuple[int, ...]

    @property
    def prompt(self) -> str:
        return "+".join(map(str, self.terms)) + "="

    @property
    def answer(self) -> int:
        return sum(self.terms)


def trace_text(p: Problem, *, error_step: int | None = None, error: int = 0) -> str:
    """The completion after the prompt: one ``;x+y=z`` per step, then ``;A<answer>⏎``; with ``error_step`` the
    result of that step is off by ``error`` and the rest of the trace carries it on."""
    acc = p.terms[0]
    out = []
    for i, t in enumerate(p.terms[1:]):
        z = acc + t + (error if i == error_step else 0)
        if z < 0:  # a corrupted result stays a non-negative number
            z = acc + t + abs(error)
        out.append(f";{acc}+{t}={z}")
        acc = z
    return "".join(out) + f";A{acc}\n"


def make_problems(n: int, *, seed: int, min_terms: int = 2, max_terms: int = 4, low: int = 10, high: int = 99,
                  exclude: frozenset[tuple[int, ...]] = frozenset()) -> list[Problem]:
    """[P11] reproduction task: ``n`` distinct problems (terms uniform in ``low..high``, their number uniform in [min_terms, max_terms]), none
    in ``exclude``, from ``seed``."""
    n = int_at_least(n, "n", 1)
    seed = check_seed(seed)
    min_terms = int_at_least(min_terms, "min_terms", 2)
    max_terms = int_at_least(max_terms, "max_terms", min_terms)
    low = int_at_least(low, "low", 0)
    high = int_at_least(high, "high", low)
    space = sum((high - low + 1) ** k for k in range(min_terms, max_terms + 1))
    if n > space - len(exclude):
        raise ValueError(f"n = {n} exceeds the {space - len(exclude)} distinct problems left with these terms")
    g = np.random.default_rng(seed)
    seen: set[tuple[int, ...]] = set()
    out = []
    while len(out) < n:
        k = int(g.integers(min_terms, max_terms + 1))
        terms = tuple(int(v) for v in g.integers(low, high + 1, size=k))
        if terms in seen or terms in exclude:
            continue
        seen.add(terms)
        out.append(Problem(terms))
    return out


@dataclass
class TraceData:
    """Training tensors: inputs ``x`` (N, L), next tokens ``y`` (N, L) and ``mask`` (N, L), true where ``y`` is a
    completion token (the prompt and the padding do not count)."""

    x: Tensor
    y: Tensor
    mask: Tensor

    def __len__(self) -> int:
        return int(self.x.shape[0])

    def subset(self, n: int) -> TraceData:
        """The first ``n`` traces (TAQ's D_TAQ ⊆ D_FT)."""
        return TraceData(self.x[:n], self.y[:n], self.mask[:n])

    @property
    def tokens(self) -> int:
        """Completion tokens in the set."""
        return int(self.mask.sum())


def traces_dataset(problems: Sequence[Problem], *, length: int, corrupt: float = 0.0, seed: int = 0) -> TraceData:
    """[P11] reproduction task: traces of ``problems`` padded to ``length`` + 1 tokens; each is corrupted (one random step off by ±1..9) with
    probability ``corrupt``, drawn from ``seed``."""
    g = np.random.default_rng(seed)
    rows, masks = [], []
    for p in problems:
        err_step, err = None, 0
        if corrupt > 0 and g.random() < corrupt:
            err_step = int(g.integers(0, len(p.terms) - 1))
            err = int(g.integers(1, 10)) * (1 if g.random() < 0.5 else -1)
        seq = encode(p.prompt + trace_text(p, error_step=err_step, error=err))
        if len(seq) > length + 1:
            raise ValueError(f"a trace has {len(seq)} tokens, more than length + 1 = {length + 1}")
        n_prompt = len(p.prompt)
        pad = length + 1 - len(seq)
        rows.append(seq + [0] * pad)
        masks.append([n_prompt <= i + 1 < len(seq) for i in range(length)])
    t = torch.tensor(rows, dtype=torch.long)
    return TraceData(t[:, :-1].contiguous(), t[:, 1:].contiguous(), torch.tensor(masks, dtype=torch.bool))
