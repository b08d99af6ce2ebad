"""The step format of [P25] and the Fold-context builder: token sequences in, step records out.

A reasoning trace is a sequence of steps. A non-final step is ``thought <step> summary </step>``; the final step is
``thought </think> answer <eos>``. The Fold mode keeps, of each finished step, only the TLDR marker and the summary
with its tags (the thought is dropped), so the context of step ``j`` is

    prompt ⊕ (TLDR ⊕ <step> s_1 </step>) ⊕ … ⊕ (TLDR ⊕ <step> s_{j-1} </step>)

while the Unfold mode keeps everything, ``prompt ⊕ o_1 ⊕ … ⊕ o_{j-1}``. A step whose tokens do not follow the format
(no tags, a summary over its cap, an end-of-sequence inside a step, a truncated output) is ``malformed``: it ends
the branch, and its leaf earns the format penalty. Token ids are the caller's: :class:`Markers` names them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from icml26.common import validation

__all__ = ["FINAL", "KINDS", "MALFORMED", "STEP", "Markers", "Step", "fold_context", "parse_step", "split_steps",
           "unfold_context"]

STEP, FINAL, MALFORMED = "step", "final", "malformed"
KINDS = (STEP, FINAL, MALFORMED)


def tokens_of(x: Any, name: str, *, allow_empty: bool = True) -> tuple[int, ...]:
    """``x`` as a tuple of non-negative Python ints (a list, tuple or 1-D integer array); ValueError/TypeError naming
    ``name`` otherwise."""
    if isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be a sequence of token ids, got {type(x).__name__}")
    if isinstance(x, (tuple, list)) and not x:  # np.asarray([]) would be float64
        if not allow_empty:
            raise ValueError(f"{name} must not be empty")
        return ()
    arr = validation.int_array(list(x) if isinstance(x, (tuple, list)) else x, name, ndim=1, allow_empty=allow_empty)
    if arr.size and int(arr.min()) < 0:
        raise ValueError(f"{name} must hold token ids >= 0, got {int(arr.min())}")
    return tuple(int(t) for t in arr)


@dataclass(frozen=True)
class Markers:
    """The token ids of [P25]'s format (Sec. 3, the ``<step>``/``</step>`` tags, ``</think>``, the TLDR marker).

    Attributes:
        step_open: ``<step>``, opening a step's summary.
        step_close: ``</step>``, closing it (the Fold rollout's stop token).
        end_think: ``</think>``, after which the final answer follows.
        eos: end of sequence, closing the final answer.
        tldr: the tokens that replace a folded thought (the paper's ``...TLDR...`` between blank lines); one or more ids.
    """

    step_open: int
    step_close: int
    end_think: int
    eos: int
    tldr: tuple[int, ...]

    def __post_init__(self) -> None:
        tags = {}
        for name in ("step_open", "step_close", "end_think", "eos"):
            tags[name] = validation.int_at_least(getattr(self, name), name, 0)
        if len(set(tags.values())) != 4:
            raise ValueError(f"step_open, step_close, end_think and eos must be four distinct ids, got {tags}")
        tldr = tokens_of(self.tldr, "tldr", allow_empty=False)
        if set(tldr) & set(tags.values()):
            raise ValueError("tldr must not contain step_open, step_close, end_think or eos")
        object.__setattr__(self, "tldr", tldr)

    @property
    def tags(self) -> frozenset[int]:
        """The four tag ids."""
        return frozenset((self.step_open, self.step_close, self.end_think, self.eos))


@dataclass(frozen=True)
class Step:
    """One generated step of [P25] (its tokens as sampled, and what they mean).

    Attributes:
        tokens: the step's output, as generated (up to and including its stop token).
        kind: ``"step"`` (``thought <step> s </step>``), ``"final"`` (``thought </think> answer``) or ``"malformed"``.
        thought: the tokens before ``<step>`` (or ``</think>``); empty for a malformed step.
        summary: what Fold keeps, ``<step> s </step>`` with its tags (empty unless ``kind == "step"``).
        answer: the tokens between ``</think>`` and ``<eos>`` (final steps only).
        ended: a final step closed by ``<eos>`` (the leaf "ended properly": only then is its answer graded).
    """

    tokens: tuple[int, ...]
    kind: str
    thought: tuple[int, ...] = ()
    summary: tuple[int, ...] = ()
    answer: tuple[int, ...] = ()
    ended: bool = False

    @property
    def summary_body(self) -> tuple[int, ...]:
        """The summary without its tags."""
        return self.summary[1:-1]


def parse_step(tokens: Sequence[int], *, markers: Markers, max_summary_tokens: int) -> Step:
    """Read one generated step ([P25] Fold rollout: a step without the step format ends the branch).

    Final if ``</think>`` occurs (answer up to ``<eos>``, ``ended`` iff the output closes with ``<eos>``). Otherwise a
    valid step is exactly ``thought <step> s </step>`` with one ``<step>``, ``</step>`` last, no other tag inside and
    ``len(s) <= max_summary_tokens``; anything else is malformed.
    """
    toks = tokens_of(tokens, "tokens")
    if not isinstance(markers, Markers):
        raise TypeError(f"markers must be a Markers, got {type(markers).__name__}")
    cap = validation.int_at_least(max_summary_tokens, "max_summary_tokens", 0)
    if markers.end_think in toks:
        i = toks.index(markers.end_think)
        rest = toks[i + 1:]
        ended = bool(rest) and rest[-1] == markers.eos and markers.eos not in rest[:-1]
        answer = rest[:-1] if ended else tuple(t for t in rest if t != markers.eos)
        if markers.eos in toks[:i]:
            return Step(toks, MALFORMED)
        return Step(toks, FINAL, thought=toks[:i], answer=answer, ended=ended)
    if not toks or toks[-1] != markers.step_close or toks.count(markers.step_open) != 1:
        return Step(toks, MALFORMED)
    i = toks.index(markers.step_open)
    body = toks[i + 1:-1]
    inside = set(toks[:i]) | set(body)
    if len(body) > cap or inside & markers.tags:
        return Step(toks, MALFORMED)
    return Step(toks, STEP, thought=toks[:i], summary=toks[i:])


def _steps_of(steps: Sequence[Step], name: str = "steps") -> tuple[Step, ...]:
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence):
        raise TypeError(f"{name} must be a sequence of Step records, got {type(steps).__name__}")
    out = tuple(steps)
    for j, s in enumerate(out):
        if not isinstance(s, Step):
            raise TypeError(f"{name}[{j}] must be a Step, got {type(s).__name__}")
        if s.kind != STEP:
            raise ValueError(f"{name}[{j}] is a {s.kind!r} step: only finished 'step' records precede a context "
                             "(a final or malformed step is a leaf)")
    return out


def fold_context(prompt: Sequence[int], steps: Sequence[Step], *, markers: Markers) -> tuple[int, ...]:
    """The Fold context of [P25] (``format_fold_input_ids`` of the authors' code): the prompt, then for each finished
    step the TLDR marker and the step's summary with its tags; every thought is dropped, the order kept."""
    p = tokens_of(prompt, "prompt", allow_empty=False)
    if not isinstance(markers, Markers):
        raise TypeError(f"markers must be a Markers, got {type(markers).__name__}")
    out = list(p)
    for s in _steps_of(steps):
        # the thought (everything before <step>) becomes the TLDR marker; <step> s </step> is kept
        out.extend(markers.tldr)
        out.extend(s.summary)
    return tuple(out)


def unfold_context(prompt: Sequence[int], steps: Sequence[Step]) -> tuple[int, ...]:
    """The Unfold (full-context) input of [P25]: the prompt followed by every finished step's output."""
    out = list(tokens_of(prompt, "prompt", allow_empty=False))
    for s in _steps_of(steps):
        out.extend(s.tokens)
    return tuple(out)


def split_steps(tokens: Sequence[int], *, markers: Markers, max_steps: int, max_step_tokens: int,
                max_summary_tokens: int) -> tuple[Step, ...]:
    """Cut one Unfold generation into [P25] steps, with the Fold rollout's rules (same caps, same leaves).

    A piece ends at ``</step>`` or ``<eos>``; a piece longer than ``max_step_tokens`` is cut there (a truncated,
    malformed step). The steps stop at the first leaf (final or malformed) or after ``max_steps`` pieces.
    """
    toks = tokens_of(tokens, "tokens")
    n_max = validation.positive_int(max_steps, "max_steps")
    cap = validation.positive_int(max_step_tokens, "max_step_tokens")
    out: list[Step] = []
    start = 0
    while start < len(toks) and len(out) < n_max:
        end = start
        while end < len(toks) and end - start < cap and toks[end] not in (markers.step_close, markers.eos):
            end += 1
        end = min(end + 1, len(toks), start + cap)
        step = parse_step(toks[start:end], markers=markers, max_summary_tokens=max_summary_tokens)
        out.append(step)
        start = end
        if step.kind != STEP:
            break
    return tuple(out)
