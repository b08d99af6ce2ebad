"""Trajectories of [P25] as step records, and their KV-cache accounting.

A :class:`Trajectory` keeps, for every step, the context it was generated from and what was generated, in either
mode: enough to train on it (every step is a segment ``context ⊕ output``), to grade its leaf, and to count what a
KV cache had to hold. :func:`kv_usage` counts tokens, not bytes: one cached token is one position's keys and values
in every layer (bytes = tokens × 2 × layers × d_model × bytes per number).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from icml26.papers.accordion._format import FINAL, STEP, Step, tokens_of

__all__ = ["MODES", "KVUsage", "StepRecord", "Trajectory", "kv_usage"]

MODES = ("fold", "unfold")


@dataclass(frozen=True)
class StepRecord:
    """One step of a [P25] rollout: the ``context`` it was generated from and the parsed ``step``."""

    context: tuple[int, ...]
    step: Step

    def __post_init__(self) -> None:
        if not isinstance(self.step, Step):
            raise TypeError(f"step must be a Step, got {type(self.step).__name__}")
        object.__setattr__(self, "context", tokens_of(self.context, "context", allow_empty=False))


@dataclass(frozen=True)
class Trajectory:
    """A [P25] rollout in one ``mode`` (``"fold"`` or ``"unfold"``): the prompt and its step records in order.

    Every record but the last is a finished ``"step"``; the last (the leaf) may be of any kind.
    """

    prompt: tuple[int, ...]
    mode: str
    records: tuple[StepRecord, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "prompt", tokens_of(self.prompt, "prompt", allow_empty=False))
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        recs = tuple(self.records)
        if not recs:
            raise ValueError("records must hold at least one step (a trajectory ends in a leaf)")
        for j, r in enumerate(recs):
            if not isinstance(r, StepRecord):
                raise TypeError(f"records[{j}] must be a StepRecord, got {type(r).__name__}")
            if j < len(recs) - 1 and r.step.kind != STEP:
                raise ValueError(f"records[{j}] is a {r.step.kind!r} step before the leaf: only the last may end it")
            if r.context[:len(self.prompt)] != self.prompt:
                raise ValueError(f"records[{j}].context does not start with the prompt")
        object.__setattr__(self, "records", recs)

    @property
    def steps(self) -> tuple[Step, ...]:
        """The parsed steps, in order."""
        return tuple(r.step for r in self.records)

    @property
    def leaf(self) -> Step:
        """The last step (where the reward is read)."""
        return self.records[-1].step

    @property
    def finished(self) -> bool:
        """Whether the leaf is a final step closed by ``<eos>`` ([P25]: the leaf ended properly)."""
        return self.leaf.kind == FINAL and self.leaf.ended

    @property
    def generated_tokens(self) -> int:
        """Tokens generated over all steps."""
        return sum(len(r.step.tokens) for r in self.records)


@dataclass(frozen=True)
class KVUsage:
    """What a KV cache held during one [P25] rollout, in tokens.

    Attributes:
        peak: the most tokens cached at once (the context of a step plus everything generated in it, maximised over
            the steps; Fold drops a step's thought when the next context is built, Unfold never drops anything).
        generated: tokens generated.
        attended: the sum, over generated tokens, of the cached tokens each one attended to (attention cost).
    """

    peak: int
    generated: int
    attended: int


def kv_usage(trajectory: Trajectory) -> KVUsage:
    """The KV-cache accounting of a [P25] rollout (closed form over the step records).

    Generating token ``i`` (0-based) of step ``j`` attends to ``|context_j| + i`` cached tokens; after the step the
    cache holds ``|context_j| + |output_j|``. The peak is the largest such total; the attended count is
    ``Σ_j (|o_j| |c_j| + |o_j| (|o_j| - 1) / 2)``.
    """
    if not isinstance(trajectory, Trajectory):
        raise TypeError(f"trajectory must be a Trajectory, got {type(trajectory).__name__}")
    peak = generated = attended = 0
    for r in trajectory.records:
        c, o = len(r.context), len(r.step.tokens)
        peak = max(peak, c + o)
        generated += o
        attended += o * c + o * (o - 1) // 2
    return KVUsage(peak=peak, generated=generated, attended=attended)


def mean_peak(trajectories: Sequence[Trajectory]) -> float:
    """Mean :attr:`KVUsage.peak` over ``trajectories`` (NaN when there are none)."""
    peaks = [kv_usage(t).peak for t in trajectories]
    return float(sum(peaks) / len(peaks)) if peaks else float("nan")
