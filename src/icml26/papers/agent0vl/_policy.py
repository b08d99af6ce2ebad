"""The policy of [P16]: one model in two roles. :class:`Policy` is the protocol a Solver/Verifier model fills (a real
LVLM prompted with a role token and parsed, or our :class:`ToyVLM`); :class:`Step` is one reasoning step.

:class:`ToyVLM` stands in for the paper's Qwen-VL (no vision-language model installs offline here): a small torch
network that sees each object through a coarse, quantised crop of the rendered image (its "vision": 8 x 8 pixel
blocks at three grey levels, so a visual reading is off by a unit or two), and decides per step whether to call a
tool or to answer from sight (a reading) or from mental arithmetic. Its Verifier role scores a step from the same
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
from icml26.papers.agent0vl._render import QUESTION_KINDS, View

__all__ = ["N_VALUES", "STEP_KINDS", "Policy", "Step", "ToyVLM", "expression"]

STEP_KINDS = ("measure", "read", "calc", "mental", "answer")
N_VALUES = 31  # values 0..30: object measures (<= 15) and their sums
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


def expression(kind: str, a: int, b: int) -> str:
    """[P16] The arithmetic of a two-object question as interpreter text (``sum``: a + b, ``diff``: larger − smaller)."""
    a = validation.int_at_least(a, "a", 0)
    b = validation.int_at_least(b, "b", 0)
    if kind == "sum":
        return f"{a} + {b}"
    if kind == "diff":
        return f"max({a}, {b}) - min({a}, {b})"
    raise ValueError(f"kind: no arithmetic for {kind!r}")


def object_features(view: View, index: int) -> np.ndarray:
    """The toy's vision of one object: a 64 x 16 pixel crop at its centre, in 8 x 8 blocks of mean darkness
    quantised to :data:`LEVELS` levels, and the figure kind."""
    c = int(view.layout.centres[index])
    crop = 1.0 - view.image[:, max(0, c - CROP // 2):c + CROP // 2]
    h, w = crop.shape[0] // BLOCK, crop.shape[1] // BLOCK
    blocks = crop[:h * BLOCK, :w * BLOCK].reshape(h, BLOCK, w, BLOCK).mean(axis=(1, 3))
    q = np.round(blocks * (LEVELS - 1)) / (LEVELS - 1)
    return np.append(q.ravel(), float(view.layout.kind == "circles")).astype(np.float32)


N_FEATURES = (64 // BLOCK) * (CROP // BLOCK) + 1


def _sample(logits: torch.Tensor, generator: torch.Generator) -> int:
    return int(torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator))


def _relative(logits: torch.Tensor, value: int | None) -> float:
    if value is None or not 0 <= value < N_VALUES:
        return 0.0
    p = torch.softmax(logits, dim=-1)
    return float(p[value] / p.max())


class ToyVLM(nn.Module):
    """[P16] The toy stand-in for the paper's LVLM (module docstring): heads ``tool`` (measure vs read an object),
    ``read`` (a value from sight), ``calc`` (interpreter vs mental arithmetic) and ``mental`` (a value from two
    operands), sharing one policy. ``ToyVLM(hidden=64, seed=0)`` initialises every weight from ``seed``."""

    def __init__(self, *, hidden: int = 64, seed: int) -> None:
        super().__init__()
        hidden = validation.positive_int(hidden, "hidden", hi=4096)
        seed = validation.seed(seed)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.trunk = nn.Sequential(nn.Linear(N_FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
            self.read = nn.Linear(hidden, N_VALUES)
            self.tool = nn.Linear(hidden + len(QUESTION_KINDS), 2)
            self.mental = nn.Sequential(nn.Linear(2 * N_VALUES + 2, hidden), nn.ReLU(), nn.Linear(hidden, N_VALUES))
            self.calc = nn.Linear(2, 2)

    # -- batched heads (used by training and by the single-step methods below) --
    def read_logits(self, feats: torch.Tensor, qkind: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits of the ``tool`` (2) and ``read`` (values) heads for object features ``(B, F)``, question kinds ``(B,)``."""
        h = self.trunk(feats)
        q = nn.functional.one_hot(qkind, len(QUESTION_KINDS)).to(h.dtype)
        return self.tool(torch.cat([h, q], dim=-1)), self.read(h)

    def arith_logits(self, a: torch.Tensor, b: torch.Tensor, op: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits of the ``calc`` (2) and ``mental`` (values) heads for operands ``a, b`` and op (0 sum, 1 diff)."""
        o = nn.functional.one_hot(op, 2).float()
        x = torch.cat([nn.functional.one_hot(a, N_VALUES).float(), nn.functional.one_hot(b, N_VALUES).float(), o], -1)
        return self.calc(o), self.mental(x)

    def _read_one(self, view: View, index: int) -> tuple[torch.Tensor, torch.Tensor]:
        f = torch.from_numpy(object_features(view, index))[None]
        k = torch.tensor([QUESTION_KINDS.index(view.question.kind)])
        t, r = self.read_logits(f, k)
        return t[0], r[0]

    def _arith_one(self, kind: str, a: int, b: int) -> tuple[torch.Tensor, torch.Tensor]:
        c, m = self.arith_logits(torch.tensor([min(max(a, 0), N_VALUES - 1)]),
                                 torch.tensor([min(max(b, 0), N_VALUES - 1)]), torch.tensor([int(kind == "diff")]))
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
            if any(v is None for v in values):
                return Step("answer", None)
            a, b = int(values[0]), int(values[1])  # type: ignore[arg-type]
            expr = expression(q.kind, a, b)
            c, m = self._arith_one(q.kind, a, b)
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
            if len(ops) < 2 or any(v is None for v in ops):
                return 0.0
            return _relative(self._arith_one(view.question.kind, int(ops[0]), int(ops[1]))[1], step.value)  # type: ignore[arg-type]
        if step.kind == "answer":
            return float(bool(transcript) and step.value is not None and step.value == transcript[-1].value)
        return 0.0

    def log_probs(self, views: Sequence[View], trajectories: Sequence[Sequence[Step]]) -> tuple[torch.Tensor,
                                                                                               torch.Tensor]:
        """[P16] The log-probability of every decision the trajectories hold under the current weights (with
        gradients), and the trajectory each belongs to: ``(logp (D,), owner (D,))``."""
        reads: list[tuple[int, np.ndarray, int, int, int]] = []  # owner, features, q kind, tool action, value or -1
        ariths: list[tuple[int, int, int, int, int, int]] = []  # owner, a, b, op, calc action, value or -1
        for n, (view, steps) in enumerate(zip(views, trajectories)):
            qk = QUESTION_KINDS.index(view.question.kind)
            ops: list[int] = []
            for s in steps:
                if s.kind in ("measure", "read"):
                    v = -1 if s.kind == "measure" or s.value is None else min(max(s.value, 0), N_VALUES - 1)
                    reads.append((n, object_features(view, s.objects[0]), qk, int(s.kind == "measure"), v))
                    ops.append(0 if s.value is None else min(max(s.value, 0), N_VALUES - 1))
                elif s.kind in ("calc", "mental") and len(ops) >= 2:
                    v = -1 if s.kind == "calc" or s.value is None else min(max(s.value, 0), N_VALUES - 1)
                    ariths.append((n, ops[0], ops[1], int(view.question.kind == "diff"), int(s.kind == "calc"), v))
        parts, owners = [], []
        if reads:
            t, r = self.read_logits(torch.from_numpy(np.stack([x[1] for x in reads])),
                                    torch.tensor([x[2] for x in reads]))
            parts.append(_picked(t, [x[3] for x in reads]))
            owners.append(torch.tensor([x[0] for x in reads]))
            parts.append(_picked(r, [x[4] for x in reads]))
            owners.append(torch.tensor([x[0] for x in reads]))
        if ariths:
            c, m = self.arith_logits(*(torch.tensor([x[k] for x in ariths]) for k in (1, 2, 3)))
            parts.append(_picked(c, [x[4] for x in ariths]))
            owners.append(torch.tensor([x[0] for x in ariths]))
            parts.append(_picked(m, [x[5] for x in ariths]))
            owners.append(torch.tensor([x[0] for x in ariths]))
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
