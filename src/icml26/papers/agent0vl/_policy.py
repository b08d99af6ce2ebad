"""The policy of [P16]: one model in two roles. :class:`Policy` is the protocol a Solver/Verifier model fills (a real
LVLM prompted with a role token and parsed, or our :class:`ToyVLM`); :class:`Step` is one reasoning step.

:class:`ToyVLM` stands in for the paper's Qwen-VL (no vision-language model installs offline here): a small torch
network that sees each object through a coarse, quantised crop of the rendered image (its "vision": 8 x 8 pixel
blocks at three grey levels, so a visual reading is off by a unit or two), and decides per step whether to call a
tool or to answer from sight (a reading) or from mental arithmetic. A triangle's sides it sees only through the
whole figure in 4 x 4 blocks of 16 x 24 pixels, so by sight it can little more than guess them. Its Verifier role scores a step from the same
parameters (the text-only self-evaluation the paper contrasts with tool-grounded critique).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import torch
from torch import nn

from icml26.common import validation
from icml26.papers.agent0vl._render import FIGURE_KINDS, QUESTION_KINDS, View

__all__ = ["ARITH_KINDS", "N_VALUES", "STEP_KINDS", "Policy", "Step", "ToyVLM", "expression"]

STEP_KINDS = ("measure", "read", "calc", "mental", "answer")
N_VALUES = 181  # values 0..180: object measures (<= 21), their sums and perimeters, angles in degrees
ARITH_KINDS = ("sum", "diff", "max", "perimeter", "angle")  # the question kinds that end in arithmetic
MAX_OPERANDS = 5
_ARITY = {"sum": (2, 2), "diff": (2, 2), "max": (2, MAX_OPERANDS), "perimeter": (3, 3), "angle": (3, 3)}
BLOCK, LEVELS, CROP = 8, 3, 16


@dataclass(frozen=True)
class Step:
    """[P16] One Solver step: ``kind`` in :data:`STEP_KINDS`, the objects it is about (0-based), the arithmetic
    ``expr`` (calc/mental), the tool ``call`` text ('' without a tool), the ``value`` it claims or the tool
    returned (``None`` after a tool error) and the tool's ``observation``."""

    kind: str
    value: int | None
    objects: tuple[int, ...] = ()
    expr: str = ""
    call: str = ""
    observation: str = ""


@runtime_checkable
class Policy(Protocol):
    """[P16] The unified policy π_θ: the Solver role proposes the next step of a trajectory (a tool call for
    the caller to execute, or a claimed value); the Verifier role gives its text-only belief that a step is right.

    A real LVLM implements ``next_step`` by prompting with ``<solve>``, the image, the question and the transcript
    and parsing its output into a :class:`Step` (``Step("invalid", None)`` when it does not parse), and ``belief``
    by prompting with ``<verify>`` and reading its confidence. Tool-grounded verification (:func:`verify`) calls the
    tools itself and needs nothing more from the policy.
    """

    def next_step(self, view: View, transcript: tuple[Step, ...], *, generator: torch.Generator) -> Step:
        """The Solver's next step (the last one has kind ``answer``)."""
        ...

    def belief(self, view: View, transcript: tuple[Step, ...], step: Step) -> float:
        """The Verifier's text-only confidence in [0, 1] that ``step`` is right, given what came before."""
        ...


def expression(kind: str, a: int, b: int, *rest: int) -> str:
    """[P16] The arithmetic of a question as interpreter text over the operands as read: ``sum`` a + b, ``diff``
    larger − smaller, ``max`` the largest, ``perimeter`` a + b + c, ``angle`` the angle facing side ``a`` between
    sides ``b`` and ``c`` in degrees (law of cosines: ``degrees(acos((b² + c² − a²) / (2bc)))``)."""
    if kind not in _ARITY:
        raise ValueError(f"kind: no arithmetic for {kind!r}; one of {ARITH_KINDS}")
    ops = [validation.int_at_least(a, "a", 0), validation.int_at_least(b, "b", 0),
           *(validation.int_at_least(x, "rest", 0) for x in rest)]
    lo, hi = _ARITY[kind]
    if not lo <= len(ops) <= hi:
        raise ValueError(f"rest: {kind} takes {lo} to {hi} operands, got {len(ops)}")
    if kind == "sum" or kind == "perimeter":
        return " + ".join(map(str, ops))
    if kind == "diff":
        return f"max({ops[0]}, {ops[1]}) - min({ops[0]}, {ops[1]})"
    if kind == "max":
        return f"max({', '.join(map(str, ops))})"
    x, y, z = ops
    return f"degrees(acos(({y} ** 2 + {z} ** 2 - {x} ** 2) / (2 * {y} * {z})))"


def _blocks(image: np.ndarray, bh: int, bw: int) -> np.ndarray:
    h, w = image.shape[0] // bh, image.shape[1] // bw
    blocks = (1.0 - image[:h * bh, :w * bw]).reshape(h, bh, w, bw).mean(axis=(1, 3))
    return np.round(blocks * (LEVELS - 1)).ravel() / (LEVELS - 1)


def object_features(view: View, index: int) -> np.ndarray:
    """The toy's vision of one object: a 64 x 16 pixel crop at its centre (a triangle's side: the whole figure in
    16 x 24 blocks), in blocks of mean darkness quantised to :data:`LEVELS` levels, then the figure kind and, for a
    triangle, which side (one-hot each)."""
    lay = view.layout
    side = np.zeros(3)
    if lay.kind == "triangles":
        q = _blocks(view.image, view.image.shape[0] // 4, view.image.shape[1] // 4)
        side[index] = 1.0
    else:
        c = int(lay.centres[index])
        q = _blocks(view.image[:, max(0, c - CROP // 2):c + CROP // 2], BLOCK, BLOCK)
    kind = np.eye(len(FIGURE_KINDS))[FIGURE_KINDS.index(lay.kind)]
    return np.concatenate([q, kind, side]).astype(np.float32)


N_FEATURES = (64 // BLOCK) * (CROP // BLOCK) + len(FIGURE_KINDS) + 3


def _sample(logits: torch.Tensor, generator: torch.Generator) -> int:
    return int(torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator))


def _relative(logits: torch.Tensor, value: int | None) -> float:
    if value is None or not 0 <= value < N_VALUES:
        return 0.0
    p = torch.softmax(logits, dim=-1)
    return float(p[value] / p.max())


def _clip(v: int) -> int:
    return min(max(int(v), 0), N_VALUES - 1)


def _padded(ops: Sequence[int]) -> list[int]:
    """Operands clipped to the value range and padded with −1 to :data:`MAX_OPERANDS`."""
    return [_clip(v) for v in ops] + [-1] * (MAX_OPERANDS - len(ops))


class ToyVLM(nn.Module):
    """[P16] The toy stand-in for the paper's LVLM (module docstring): heads ``tool`` (measure vs read an object),
    ``read`` (a value from sight), ``calc`` (interpreter vs mental arithmetic) and ``mental`` (a value from the
    operands: the first one-hot, the others as counts, and the operation), sharing one policy.
    ``ToyVLM(hidden=64, seed=0)`` initialises every weight from ``seed``."""

    def __init__(self, *, hidden: int = 64, seed: int) -> None:
        super().__init__()
        hidden = validation.positive_int(hidden, "hidden", hi=4096)
        seed = validation.seed(seed)
        n_ops = len(ARITH_KINDS)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.trunk = nn.Sequential(nn.Linear(N_FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
            self.read = nn.Linear(hidden, N_VALUES)
            self.tool = nn.Linear(hidden + len(QUESTION_KINDS), 2)
            self.mental = nn.Sequential(nn.Linear(2 * N_VALUES + n_ops, hidden), nn.ReLU(),
                                        nn.Linear(hidden, N_VALUES))
            self.calc = nn.Linear(n_ops, 2)

    # -- batched heads (used by training and by the single-step methods below) --
    def read_logits(self, feats: torch.Tensor, qkind: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits of the ``tool`` (2) and ``read`` (values) heads for object features ``(B, F)``, question kinds ``(B,)``."""
        h = self.trunk(feats)
        q = nn.functional.one_hot(qkind, len(QUESTION_KINDS)).to(h.dtype)
        return self.tool(torch.cat([h, q], dim=-1)), self.read(h)

    def arith_logits(self, operands: torch.Tensor, op: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits of the ``calc`` (2) and ``mental`` (values) heads for ``operands`` ``(B, MAX_OPERANDS)`` (values,
        padded with −1) and ``op`` ``(B,)`` (an index into :data:`ARITH_KINDS`)."""
        o = nn.functional.one_hot(op, len(ARITH_KINDS)).float()
        first = nn.functional.one_hot(operands[:, 0], N_VALUES).float()
        rest = operands[:, 1:]
        counts = (nn.functional.one_hot(rest.clamp_min(0), N_VALUES).float() * (rest >= 0)[..., None]).sum(dim=1)
        return self.calc(o), self.mental(torch.cat([first, counts, o], -1))

    def _read_one(self, view: View, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        f = torch.from_numpy(object_features(view, index))[None]
        k = torch.tensor([QUESTION_KINDS.index(view.question.kind)])
        t, r = self.read_logits(f, k)
        return t[0], r[0]

    def _arith_one(self, kind: str, ops: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor]:
        c, m = self.arith_logits(torch.tensor([_padded(ops)]), torch.tensor([ARITH_KINDS.index(kind)]))
        return c[0], m[0]

    @torch.no_grad()
    def next_step(self, view: View, transcript: tuple[Step, ...], *, generator: torch.Generator) -> Step:
        """[P16] Solver role: read (or measure) each object the question names, then combine (calc or mental),
        then answer the last value."""
        q = view.question
        done = [s for s in transcript if s.kind in ("measure", "read")]
        if len(done) < len(q.objects):
            i = q.objects[len(done)]
            t, r = self._read_one(view, i)
            if _sample(t, generator) == 1:
                return Step("measure", None, (i,), call=f"measure({i + 1})")
            return Step("read", _sample(r, generator), (i,))
        values = [s.value for s in done]
        if q.kind != "value" and not any(s.kind in ("calc", "mental") for s in transcript):
            ops = [v for v in values if v is not None]
            if len(ops) < len(values):
                return Step("answer", None)
            expr = expression(q.kind, *ops)
            c, m = self._arith_one(q.kind, ops)
            if _sample(c, generator) == 1:
                return Step("calc", None, expr=expr, call=f"calc({expr})")
            return Step("mental", _sample(m, generator), expr=expr)
        return Step("answer", transcript[-1].value if transcript else None)

    @torch.no_grad()
    def belief(self, view: View, transcript: tuple[Step, ...], step: Step) -> float:
        """[P16] Verifier role, text only: the model's own probability of the claimed value relative to its most
        likely value (1 when the claim is what the model itself would say)."""
        if step.kind in ("measure", "read"):
            return _relative(self._read_one(view, step.objects[0])[1], step.value)
        if step.kind in ("calc", "mental"):
            ops = [s.value for s in transcript if s.kind in ("measure", "read")]
            known = [v for v in ops if v is not None]
            if len(ops) < len(view.question.objects) or len(known) < len(ops) or len(ops) < 2:
                return 0.0
            return _relative(self._arith_one(view.question.kind, known)[1], step.value)
        if step.kind == "answer":
            return float(bool(transcript) and step.value is not None and step.value == transcript[-1].value)
        return 0.0

    def log_probs(self, views: Sequence[View], trajectories: Sequence[Sequence[Step]]) -> tuple[torch.Tensor,
                                                                                               torch.Tensor]:
        """[P16] The log-probability of every decision the trajectories hold under the current weights (with
        gradients), and the trajectory each belongs to: ``(logp (D,), owner (D,))``."""
        reads: list[tuple[int, np.ndarray, int, int, int]] = []  # owner, features, q kind, tool action, value or -1
        ariths: list[tuple[int, list[int], int, int, int]] = []  # owner, operands, op, calc action, value or -1
        for n, (view, steps) in enumerate(zip(views, trajectories)):
            qk = QUESTION_KINDS.index(view.question.kind)
            ops: list[int] = []
            for s in steps:
                if s.kind in ("measure", "read"):
                    v = -1 if s.kind == "measure" or s.value is None else _clip(s.value)
                    reads.append((n, object_features(view, s.objects[0]), qk, int(s.kind == "measure"), v))
                    ops.append(0 if s.value is None else _clip(s.value))
                elif s.kind in ("calc", "mental") and len(ops) >= 2:
                    v = -1 if s.kind == "calc" or s.value is None else _clip(s.value)
                    ariths.append((n, _padded(ops), ARITH_KINDS.index(view.question.kind), int(s.kind == "calc"), v))
        parts, owners = [], []
        if reads:
            t, r = self.read_logits(torch.from_numpy(np.stack([x[1] for x in reads])),
                                    torch.tensor([x[2] for x in reads]))
            parts += [_picked(t, [x[3] for x in reads]), _picked(r, [x[4] for x in reads])]
            owners += [torch.tensor([x[0] for x in reads])] * 2
        if ariths:
            c, m = self.arith_logits(torch.tensor([x[1] for x in ariths]), torch.tensor([x[2] for x in ariths]))
            parts += [_picked(c, [x[3] for x in ariths]), _picked(m, [x[4] for x in ariths])]
            owners += [torch.tensor([x[0] for x in ariths])] * 2
        if not parts:
            return torch.zeros(0), torch.zeros(0, dtype=torch.long)
        lp, ow = torch.cat(parts), torch.cat(owners)
        keep = torch.isfinite(lp)
        return lp[keep], ow[keep]


def _picked(logits: torch.Tensor, actions: list[int]) -> torch.Tensor:
    """Log-probabilities of the chosen actions; ``-inf`` marks rows without a decision (filtered by the caller)."""
    a = torch.tensor(actions)
    lp = torch.log_softmax(logits, dim=-1).gather(1, a.clamp_min(0)[:, None])[:, 0]
    return torch.where(a >= 0, lp, torch.full_like(lp, -torch.inf))
