"""The two exploration controls of [P15] as hooks for any multi-turn rollout loop.

- :class:`ThinkingIntervention` (token level, TTI): inside a think segment, once the windowed uncertainty stops
  moving — ``|mean(M[t-w+1..t]) − mean(M[t-2w+1..t-w])| < eps`` over the last ``2w`` decisions — the loop emits the
  end-of-thinking token instead of sampling, so the action is generated; a hard cap ends every segment after
  ``max_think_tokens`` think tokens. The window rule is reconstructed from the abstract ("once the marginal
  uncertainty change falls below a threshold"); the cap is the released scripts' ``num_think_tokens``.
- :class:`TurnResampler` (turn level, TDS): after turn ``k``'s response with score ``s_k`` (the mean token
  entropy of its response, :func:`turn_score`), regenerate it from the same input while ``0 < |s_k − s_{k−1}| < eta``, at most ``max_try`` times,
  keeping the last sample (as the released ``T2PO_multi_turn_loop`` does; the first turn is never resampled).

Both are plain objects with scalar methods for a user's own loop and vectorised ones for a batched loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import numpy as np

from icml26.common import validation

__all__ = ["Resampled", "ThinkingIntervention", "TurnResampler"]

T = TypeVar("T")


def _trace(trace: Any, name: str = "trace") -> np.ndarray:
    return validation.real_array(trace, name, ndim=1, allow_empty=True)


class ThinkingIntervention:
    """Token-level thinking intervention (TTI) of [P15] (Sec. 3, token level; window rule reconstructed).

    Args:
        eps: the threshold on the marginal change of the windowed uncertainty (> 0).
        window: ``w``, the number of decisions averaged on each side of the change (>= 1); the rule needs ``2w``
            decisions of the segment before it can fire.
        max_think_tokens: the hard cap on think tokens per segment (>= 1; the released scripts use 450).

    A segment's *trace* is the uncertainty ``M`` (:func:`uncertainty`) of every decision inside the segment so far,
    the current one last: ``len(trace) − 1`` think tokens have been emitted. :meth:`fires` says whether the current
    decision is replaced by the end-of-thinking token.
    """

    def __init__(self, *, eps: float, window: int = 2, max_think_tokens: int = 450) -> None:
        self.eps = validation.real(eps, "eps", lo=0.0, lo_open=True)
        self.window = validation.positive_int(window, "window")
        self.max_think_tokens = validation.positive_int(max_think_tokens, "max_think_tokens")

    def __repr__(self) -> str:
        return (f"ThinkingIntervention(eps={self.eps:g}, window={self.window}, "
                f"max_think_tokens={self.max_think_tokens})")

    def change(self, trace: Any) -> float:
        """``|mean(last w) − mean(the w before)|`` of a segment's trace ([P15] marginal uncertainty change); NaN
        while the trace holds fewer than ``2w`` values."""
        m = _trace(trace)
        w = self.window
        if m.size < 2 * w:
            return float("nan")
        return float(abs(m[-w:].mean() - m[-2 * w:-w].mean()))

    def fires(self, trace: Any) -> bool:
        """Whether the current decision of the segment becomes the end-of-thinking token ([P15] TTI): the cap is
        reached (``len(trace) − 1 >= max_think_tokens``) or the windowed change is below ``eps``."""
        m = _trace(trace)
        if m.size == 0:
            raise ValueError("trace must hold at least the current decision's uncertainty")
        if m.size - 1 >= self.max_think_tokens:
            return True
        c = self.change(m)
        return bool(c == c and c < self.eps)

    def fires_batch(self, traces: Any, lengths: Any) -> np.ndarray:
        """:meth:`fires` for ``B`` segments at once ([P15] TTI): ``traces`` ``(B, L)`` holds each segment's trace
        left-aligned in its first ``lengths[b]`` (>= 1) entries (the rest is ignored)."""
        t = validation.real_array(traces, "traces", ndim=2, finite=False)
        n = validation.int_array(lengths, "lengths", ndim=1)
        if n.shape[0] != t.shape[0]:
            raise ValueError(f"lengths must have one entry per row of traces ({t.shape[0]}), got {n.shape[0]}")
        if np.any(n < 1) or np.any(n > t.shape[1]):
            raise ValueError(f"lengths must lie in [1, {t.shape[1]}]")
        rows = np.arange(t.shape[0])
        w = self.window
        ok = n >= 2 * w
        if not np.all(np.isfinite(t[np.arange(t.shape[1])[None, :] < n[:, None]])):
            raise ValueError("traces must be finite inside each row's length")
        csum = np.concatenate([np.zeros((t.shape[0], 1)), np.cumsum(np.nan_to_num(t), axis=1)], axis=1)
        hi = csum[rows, n] - csum[rows, np.maximum(n - w, 0)]
        lo = csum[rows, np.maximum(n - w, 0)] - csum[rows, np.maximum(n - 2 * w, 0)]
        change = np.abs(hi - lo) / w
        return (n - 1 >= self.max_think_tokens) | (ok & (change < self.eps))


@dataclass(frozen=True)
class Resampled(Generic[T]):
    """What :meth:`TurnResampler.run` returns ([P15] TDS): the kept ``response``, its ``score`` and how many
    regenerations (``tries``, 0..max_try) it took."""

    response: T
    score: float
    tries: int


class TurnResampler:
    """Turn-level dynamic resampling (TDS) of [P15] (Sec. 3, turn level; from the released rollout loop).

    Args:
        eta: a turn whose score moved by less than ``eta`` from the previous turn's (but moved) made "negligible
            exploration progress" and is regenerated (> 0; the release uses 0.3).
        max_try: the most regenerations of one turn (>= 0; the release uses 2). The last sample is kept.
    """

    def __init__(self, *, eta: float = 0.3, max_try: int = 2) -> None:
        self.eta = validation.real(eta, "eta", lo=0.0, lo_open=True)
        self.max_try = validation.int_at_least(max_try, "max_try", 0)

    def __repr__(self) -> str:
        return f"TurnResampler(eta={self.eta:g}, max_try={self.max_try})"

    def should_resample(self, previous: float | None, current: float, tries: int) -> bool:
        """[P15] TDS test for one turn: ``previous`` is ``s_{k−1}`` (``None`` on the first turn: never resampled),
        ``current`` is ``s_k``, ``tries`` the regenerations already made; True iff ``tries < max_try`` and
        ``0 < |s_k − s_{k−1}| < eta``."""
        cur = validation.real(current, "current")
        n = validation.int_at_least(tries, "tries", 0)
        if previous is None:
            return False
        d = abs(cur - validation.real(previous, "previous"))
        return n < self.max_try and 0.0 < d < self.eta

    def mask(self, previous: Any, current: Any, tries: Any, *, has_previous: Any) -> np.ndarray:
        """:meth:`should_resample` for ``B`` turns at once ([P15] TDS): float arrays ``previous``, ``current``,
        int array ``tries`` and bool array ``has_previous``, all ``(B,)``."""
        cur = validation.real_array(current, "current", ndim=1)
        b = cur.shape[0]
        prev = validation.real_array(previous, "previous", shape=(b,))
        n = validation.int_array(tries, "tries", shape=(b,))
        has = np.asarray(has_previous)
        if has.shape != (b,) or has.dtype != np.bool_:
            raise ValueError(f"has_previous must be a boolean array of shape ({b},)")
        d = np.abs(cur - prev)
        return has & (n < self.max_try) & (d > 0.0) & (d < self.eta)

    def run(self, generate: Callable[[int], tuple[T, float]], *, previous: float | None) -> Resampled[T]:
        """Generate one turn with [P15] TDS: ``generate(attempt)`` returns ``(response, s_k)`` for attempt
        ``0, 1, ...`` (each a fresh sample from the same input); regenerate while :meth:`should_resample` says so
        and keep the last response."""
        if not callable(generate):
            raise TypeError("generate must be a callable attempt -> (response, score)")
        tries = 0
        response, score = generate(0)
        while self.should_resample(previous, score, tries):
            tries += 1
            response, score = generate(tries)
        return Resampled(response, float(score), tries)
