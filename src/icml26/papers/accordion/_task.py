"""The synthetic reasoning task of our [P25] reproduction: an accumulator whose state must survive folding.

A problem is ``(x0, a, S)``: starting from ``x0``, add ``a`` modulo ``m``, ``k`` times a step, for ``S`` steps
(``a`` from ``1 … increments``: a small set of increments keeps each update a lookup the tiny model learns in
minutes, where general modular addition is slow to learn). Its
prompt is ``<bos> x0 +a #S`` (4 tokens, whatever ``S``). A step's thought is ``k + 1`` tokens ``[i:v]``, update
``i`` of the step and the value it made: ``[0:v]`` restates the value the step starts from, then ``[i:v + i·a]``
for ``i = 1 … k``. A non-final step ends with the summary ``<step> v </step>``, the final one with the answer
``</think> v <eos>``. A step starts from the latest value in its context, so the state after a step is one number:
a summary is complete (it holds the true accumulator) or not, and in the Fold mode a step whose summary lost it
starts from a stale value (always a wrong one: a step adds ``k·a``, never 0 mod the prime ``m``). The cold-start
traces drop the value from a share of the summaries (``<step> ? </step>``): Unfold can still read it in the
thought, Fold cannot.

Vocabulary: the thought tokens ``[i:v]`` (``(k + 1)·m``), the plain values ``0 … m-1``, the increments
``+0 … +(m-1)``, the step counts ``#1 … #max_steps``, then ``<bos> <step> </step> TLDR </think> <eos> ?`` (padding
reuses ``<eos>``; it is masked). A thought token's embedding starts as the sum of an index part and a value part
shared with the plain values (:meth:`AccumulatorTask.init_embeddings`), so what is learned about a value in one
slot holds in all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from icml26.common import validation
from icml26.common.nn import TinyGPT
from icml26.papers.accordion._format import Markers
from icml26.papers.accordion._trace import Trajectory

__all__ = ["AccumulatorTask", "Problem", "make_problems"]

SPLITS = ("train", "eval")


@dataclass(frozen=True)
class Problem:
    """One program of the [P25] reproduction task: the start ``x0``, the increment ``a`` and the number of steps."""

    x0: int
    a: int
    steps: int


@dataclass(frozen=True)
class AccumulatorTask:
    """The task's sizes ([P25] reproduction; every field is part of a trained model's cache key).

    Attributes:
        modulus: m, a prime.
        increments: the increments ``a`` are drawn from ``1 … increments`` (< m).
        updates_per_step: k, updates a step (not a multiple of ``m``); a step is ``k + 4`` tokens.
        min_steps, max_steps: the range of ``S`` (the paper trains with at most 6 steps).
    """

    modulus: int = 13
    increments: int = 2
    updates_per_step: int = 24
    min_steps: int = 3
    max_steps: int = 6

    def __post_init__(self) -> None:
        m = validation.int_at_least(self.modulus, "modulus", 3)
        if any(m % q == 0 for q in range(2, int(m ** 0.5) + 1)):
            raise ValueError(f"modulus must be prime, got {m}")
        validation.int_at_least(self.increments, "increments", 1, hi=m - 1)
        k = validation.positive_int(self.updates_per_step, "updates_per_step")
        if k % m == 0:
            raise ValueError(f"updates_per_step must not be a multiple of modulus ({m}), got {k}")
        lo = validation.positive_int(self.min_steps, "min_steps")
        validation.int_at_least(self.max_steps, "max_steps", lo)

    # token ids
    def thought_token(self, i: int, v: int) -> int:
        """``[i:v]``: update ``i`` of a step (0: the start) made the value ``v``."""
        return i * self.modulus + v

    def value_token(self, v: int) -> int:
        """The plain value ``v`` (the start, a summary, the answer)."""
        return (self.updates_per_step + 1) * self.modulus + v

    def increment_token(self, a: int) -> int:
        """The prompt token ``+a``."""
        return (self.updates_per_step + 2) * self.modulus + a

    def count_token(self, s: int) -> int:
        """The prompt token ``#s``."""
        return (self.updates_per_step + 3) * self.modulus + s - 1

    @property
    def bos(self) -> int:
        return (self.updates_per_step + 3) * self.modulus + self.max_steps

    @property
    def lost(self) -> int:
        """``?``: the value a lossy summary leaves out."""
        return self.bos + 6

    @property
    def vocab_size(self) -> int:
        return self.bos + 7

    @property
    def markers(self) -> Markers:
        """The format's tags: ``<step> </step> </think> <eos>`` and the one-token TLDR marker."""
        b = self.bos
        return Markers(step_open=b + 1, step_close=b + 2, end_think=b + 4, eos=b + 5, tldr=(b + 3,))

    # sizes
    @property
    def prompt_tokens(self) -> int:
        return 4

    @property
    def step_tokens(self) -> int:
        """Tokens of a well-formed step: the thought (``k + 1``), then three of summary (or answer)."""
        return self.updates_per_step + 4

    @property
    def block_size(self) -> int:
        """The longest well-formed Unfold sequence (the model's context)."""
        return self.prompt_tokens + self.max_steps * self.step_tokens

    @property
    def fold_peak(self) -> int:
        """Peak cached tokens of a well-formed Fold rollout of ``max_steps`` steps."""
        return self.prompt_tokens + (self.max_steps - 1) * 4 + self.step_tokens

    def init_embeddings(self, model: TinyGPT, *, seed: int) -> None:
        """Factorised start for the thought and value embeddings: ``E[i:v] = U_i + W_v``, ``E[v] = U_plain + W_v``
        (N(0, 0.02²) parts drawn from ``seed``); the other tokens keep their initialisation."""
        k, m = self.updates_per_step, self.modulus
        g = torch.Generator().manual_seed(validation.seed(seed))
        d = model.cfg.d_model
        u = torch.randn(k + 2, d, generator=g, dtype=torch.float64) * 0.02
        w = torch.randn(m, d, generator=g, dtype=torch.float64) * 0.02
        with torch.no_grad():
            table = model.wte.weight
            table[: (k + 2) * m] = (u[:, None, :] + w[None, :, :]).reshape((k + 2) * m, d).to(table.dtype)

    # problems and traces
    def prompt(self, p: Problem) -> tuple[int, ...]:
        return (self.bos, self.value_token(p.x0), self.increment_token(p.a), self.count_token(p.steps))

    def states(self, p: Problem) -> list[int]:
        """The state after each step (``S`` values; the last is the answer)."""
        return [(p.x0 + (j + 1) * self.updates_per_step * p.a) % self.modulus for j in range(p.steps)]

    def trace(self, p: Problem, *, lossy: tuple[bool, ...]) -> list[tuple[int, ...]]:
        """The cold-start trace: one output per step; ``lossy[j]`` drops the value from step ``j``'s summary."""
        if len(lossy) != p.steps - 1:
            raise ValueError(f"lossy must flag each of the {p.steps - 1} summaries, got {len(lossy)}")
        mk, m, x, out = self.markers, self.modulus, p.x0, []
        for j in range(p.steps):
            toks = [self.thought_token(0, x)]
            for i in range(1, self.updates_per_step + 1):
                x = (x + p.a) % m
                toks.append(self.thought_token(i, x))
            v = self.value_token(x)
            if j == p.steps - 1:
                toks += [mk.end_think, v, mk.eos]
            else:
                toks += [mk.step_open, self.lost if lossy[j] else v, mk.step_close]
            out.append(tuple(toks))
        return out

    def target(self, p: Problem) -> tuple[int, ...]:
        """The answer tokens."""
        return (self.value_token(self.states(p)[-1]),)

    def correct(self, traj: Trajectory, p: Problem) -> bool:
        """Whether the rollout ended properly with the right answer."""
        return traj.finished and traj.leaf.answer == self.target(p)

    def completeness(self, traj: Trajectory, p: Problem) -> tuple[int, int]:
        """(complete, total) over the rollout's intermediate summaries: complete = it holds the true state."""
        truth = self.states(p)
        steps = [s for s in traj.steps if s.kind == "step"]
        done = sum(s.summary_body == (self.value_token(truth[j]),) for j, s in enumerate(steps) if j < len(truth))
        return done, len(steps)


def _held_out(x0: int, a: int) -> bool:
    """The eval split: one (x0, a) in five, never trained on."""
    return (3 * x0 + a) % 5 == 0


def make_problems(task: AccumulatorTask, n: int, *, split: str, seed: int) -> list[Problem]:
    """``n`` problems of the [P25] reproduction task drawn uniformly from a split (``"train"`` or ``"eval"``: disjoint
    sets of starts and increments), the number of steps uniform in ``[min_steps, max_steps]``."""
    if not isinstance(task, AccumulatorTask):
        raise TypeError(f"task must be an AccumulatorTask, got {type(task).__name__}")
    n = validation.positive_int(n, "n")
    split = validation.choice(split, "split", SPLITS)
    g = np.random.default_rng(validation.seed(seed))
    m = task.modulus
    pool = [(x0, a) for x0 in range(m) for a in range(1, task.increments + 1) if _held_out(x0, a) == (split == "eval")]
    idx = g.integers(0, len(pool), size=n)
    steps = g.integers(task.min_steps, task.max_steps + 1, size=n)
    return [Problem(*pool[int(i)], steps=int(s)) for i, s in zip(idx, steps)]
