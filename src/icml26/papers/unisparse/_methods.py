"""The mask selectors of [P30] by name, each with the one knob that sets its density, and a density matcher.

Comparisons "at equal density" give every method the same budget of blocks: UniSparse's knob (τ) is set to meet a
density bound, then each baseline's knob to the smallest value whose density reaches UniSparse's. Density depends on
the inputs only (never on labels), so matching it on the evaluation inputs uses no answer.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

from torch import Tensor

from icml26.papers.unisparse._baselines import (
    flexprefill_mask,
    random_block_mask,
    streaming_mask,
    vertical_slash_mask,
    xattention_mask,
)
from icml26.papers.unisparse._mask import BlockMask
from icml26.papers.unisparse._unisparse import unisparse_mask

__all__ = ["BASELINES", "METHODS", "Knob", "bisect_knob", "make_method"]

MaskFn = Callable[[Tensor, Tensor], BlockMask]
METHODS = ("unisparse", "streaming", "vertical_slash", "xattention", "flexprefill", "random")
BASELINES = METHODS[1:]


@dataclass(frozen=True)
class Knob:
    """A method's density knob: its range and whether it takes integers (density grows with it)."""

    lo: float
    hi: float
    integer: bool = False


def make_method(name: str, *, block: int, cq: int, ck: int, granularities: tuple[int, ...], n: int, seed: int,
                stride: int = 8) -> tuple[Callable[[float], MaskFn], Knob]:
    """``(knob -> mask function, knob range)`` for the method ``name`` of :data:`METHODS` ([P30] and its baselines).

    Knobs: UniSparse τ, XAttention τ, FlexPrefill γ (cumulative shares); StreamingLLM's window in blocks (one sink
    block); MInference's line budget s (``vertical = s·n/4`` columns and ``slash = s·n`` diagonals, a 1 : 4 split of
    ours); the random baseline's density.
    """
    nb = math.ceil(n / block)
    if name == "unisparse":
        return (lambda t: functools.partial(unisparse_mask, block=block, cq=cq, ck=ck, tau=t,
                                            granularities=granularities)), Knob(0.02, 1.0)
    if name == "xattention":
        return (lambda t: functools.partial(xattention_mask, block=block, stride=min(stride, block), tau=t)), \
            Knob(0.02, 1.0)
    if name == "flexprefill":
        return (lambda t: functools.partial(flexprefill_mask, block=block, gamma=t)), Knob(0.02, 1.0)
    if name == "vertical_slash":
        return (lambda s: functools.partial(vertical_slash_mask, block=block, vertical=round(s * n / 4),
                                            slash=round(s * n))), Knob(0.0, 1.0)
    if name == "streaming":
        return (lambda w: functools.partial(streaming_mask, block=block, window_blocks=int(w))), Knob(1, nb, True)
    if name == "random":
        return (lambda p: functools.partial(random_block_mask, block=block, density=p, seed=seed)), Knob(0.0, 1.0)
    raise ValueError(f"method must be one of {list(METHODS)}, got {name!r}")


def bisect_knob(density: Callable[[float], float], knob: Knob, target: float, *, steps: int,
                at_least: bool) -> float:
    """The smallest knob whose density reaches ``target`` (``at_least``) or the largest whose density stays at or
    below it, by bisection over ``steps`` evaluations of the monotone ``density(knob)`` ([P30]'s equal-density
    comparison). Falls back to the range's end when no knob qualifies."""
    lo, hi = knob.lo, knob.hi
    for _ in range(steps):
        if knob.integer and hi - lo <= 1:
            break
        mid = (lo + hi) // 2 if knob.integer else (lo + hi) / 2
        meets = density(mid) >= target if at_least else density(mid) <= target
        if at_least:
            lo, hi = (lo, mid) if meets else (mid, hi)
        else:
            lo, hi = (mid, hi) if meets else (lo, mid)
    if knob.integer and at_least and density(lo) >= target:
        return lo
    return hi if at_least else lo
