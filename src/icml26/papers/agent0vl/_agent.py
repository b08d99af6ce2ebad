"""The inner loop of [P16]'s Self-Evolving Reasoning Cycle: solve (multi-turn, tool calls executed), verify (per-step
score, confidence and critique, tool-grounded or text-only), confidence-gated repair, and the self-reward.

Reconstructed from the abstract and summaries (no released code): the feedback tuple (score_t ∈ [−1, 1],
conf_t ∈ [0, 1], critique_t), the gate ``conf_t < τ`` and the process reward ``mean_t score_t − λ_rep · repairs +
λ_fmt · well-formed``; the weights are ours. The tool-grounded Verifier re-derives each step's quantity with the
tools (``measure`` for a reading, the interpreter for arithmetic); the text-only one asks the policy's own belief.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from icml26.common import validation
from icml26.papers.agent0vl._policy import STEP_KINDS, Policy, Step
from icml26.papers.agent0vl._render import View
from icml26.papers.agent0vl._tools import ToolBox

__all__ = ["Feedback", "Trajectory", "repair", "repair_gate", "self_reward", "solve", "verify"]

MAX_STEPS = 8


@dataclass(frozen=True)
class Trajectory:
    """[P16] A Solver trajectory: its steps (the last an ``answer``), the answer, the repairs made and whether it is
    well formed (ends in an answer with a value, every step of a known kind)."""

    steps: tuple[Step, ...]
    repairs: int = 0

    @property
    def answer(self) -> int | None:
        """The final answer (``None`` if there is none)."""
        return self.steps[-1].value if self.steps and self.steps[-1].kind == "answer" else None

    @property
    def well_formed(self) -> bool:
        """Ends in an answer with a value and every step is of a known kind."""
        return self.answer is not None and all(s.kind in STEP_KINDS for s in self.steps)


@dataclass(frozen=True)
class Feedback:
    """[P16] The Verifier's structured feedback on one step: score in [−1, 1], confidence in [0, 1], the critique,
    and the tool call it made to check ('' for a text-only check)."""

    score: float
    conf: float
    critique: str
    call: str = ""


def _execute(step: Step, tools: ToolBox) -> Step:
    if not step.call:
        return step
    res = tools.run(step.call)
    return Step(step.kind, res.value, step.objects, step.expr, step.call, res.observation)


def solve(policy: Policy, view: View, *, generator: torch.Generator, prefix: tuple[Step, ...] = ()) -> Trajectory:
    """[P16] Solver role: multi-turn tool-integrated reasoning. The policy proposes steps; each tool call is executed
    on the figure (:class:`ToolBox`) and its observation appended, until an ``answer`` (at most 8 steps).
    ``prefix``: steps kept from an earlier attempt (repair re-generates from there)."""
    if not isinstance(view, View):
        raise TypeError(f"view must be a View, got {type(view).__name__}")
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    tools = ToolBox(view.image, view.layout)
    steps = list(prefix)
    while len(steps) < MAX_STEPS:
        step = _execute(policy.next_step(view, tuple(steps), generator=generator), tools)
        steps.append(step)
        if step.kind not in STEP_KINDS or step.kind == "answer":
            break
    return Trajectory(tuple(steps))


def _grounded(view: View, before: tuple[Step, ...], step: Step, tools: ToolBox) -> Feedback:
    if step.kind in ("measure", "read"):
        call = f"measure({step.objects[0] + 1})"
    elif step.kind in ("calc", "mental"):
        call = f"calc({step.expr})"
    elif step.kind == "answer":
        ok = bool(before) and step.value is not None and step.value == before[-1].value
        return Feedback(1.0 if ok else -1.0, 1.0 if ok else 0.0, "answer restates the last value" if ok else
                        "answer does not restate the last value")
    else:
        return Feedback(-1.0, 0.0, "malformed step")
    res = tools.run(call)
    if res.value is None or step.value is None:
        return Feedback(-1.0, 0.0, f"could not check: {res.observation}", call)
    err = abs(step.value - res.value)
    score = max(-1.0, 1.0 - float(err))
    return Feedback(score, 1.0 if err == 0 else 0.0, f"{call} gives {res.value}; the step claims {step.value}", call)


def verify(policy: Policy, view: View, trajectory: Trajectory, *, tool_grounded: bool = True,
           trust_tool_outputs: bool = False) -> list[Feedback]:
    """[P16] Verifier role: one :class:`Feedback` per step.

    Tool-grounded (the paper's Verifier): the step's quantity is re-derived with a tool call and compared; score
    ``1 − |claimed − tool|`` clipped to [−1, 1], confidence 1 on agreement and 0 otherwise. Text-only (the
    self-rewarding baseline): confidence = the policy's own :meth:`Policy.belief`, score = 2·conf − 1; with
    ``trust_tool_outputs`` a step whose value an executed tool call returned is taken as right (score and
    confidence 1: a text verifier that believes the transcript's tool outputs).
    """
    if not isinstance(trajectory, Trajectory):
        raise TypeError(f"trajectory must be a Trajectory, got {type(trajectory).__name__}")
    if not isinstance(tool_grounded, bool):
        raise TypeError(f"tool_grounded must be a bool, got {type(tool_grounded).__name__}")
    if not isinstance(trust_tool_outputs, bool):
        raise TypeError(f"trust_tool_outputs must be a bool, got {type(trust_tool_outputs).__name__}")
    tools = ToolBox(view.image, view.layout)
    out = []
    for t, step in enumerate(trajectory.steps):
        before = trajectory.steps[:t]
        if tool_grounded:
            out.append(_grounded(view, before, step, tools))
        elif trust_tool_outputs and step.call and step.value is not None:
            out.append(Feedback(1.0, 1.0, f"the transcript's {step.call} returned {step.value}"))
        else:
            c = float(policy.belief(view, before, step))
            out.append(Feedback(2.0 * c - 1.0, c, f"belief {c:.2f} in the claimed value {step.value}"))
    return out


def repair_gate(feedback: list[Feedback], *, tau: float) -> int | None:
    """[P16] The confidence gate: the first step whose confidence is below ``tau`` (``None``: no repair)."""
    tau = validation.real(tau, "tau", lo=0.0, hi=1.0)
    for t, f in enumerate(feedback):
        if f.conf < tau:
            return t
    return None


def repair(policy: Policy, view: View, trajectory: Trajectory, step: int, critique: Feedback, *,
           generator: torch.Generator) -> Trajectory:
    """[P16] Self-repair: keep the steps before ``step``, redo step ``step`` with the tool call the critique names
    (the evidence-grounded correction), then let the Solver re-generate the rest. Counts one repair.

    A text-only critique names no tool; the flagged step is then redone with the tool of its kind (``measure`` for a
    reading, ``calc`` for arithmetic). An ``answer`` step is re-generated by the Solver.
    """
    n = len(trajectory.steps)
    step = validation.int_at_least(step, "step", 0, hi=n - 1)
    tools = ToolBox(view.image, view.layout)
    old = trajectory.steps[step]
    prefix = trajectory.steps[:step]
    if old.kind in ("measure", "read"):
        fixed = Step("measure", None, old.objects, call=critique.call or f"measure({old.objects[0] + 1})")
        prefix = (*prefix, _execute(fixed, tools))
    elif old.kind in ("calc", "mental"):
        fixed = Step("calc", None, expr=old.expr, call=critique.call or f"calc({old.expr})")
        prefix = (*prefix, _execute(fixed, tools))
    new = solve(policy, view, generator=generator, prefix=prefix)
    return Trajectory(new.steps, trajectory.repairs + 1)


def self_reward(feedback: list[Feedback], trajectory: Trajectory, *, repair_penalty: float = 0.1,
                format_bonus: float = 0.1) -> float:
    """[P16] The self-generated process reward: ``mean_t score_t − repair_penalty · repairs + format_bonus ·
    well_formed`` (the weights are ours; the paper's are not public)."""
    repair_penalty = validation.real(repair_penalty, "repair_penalty", lo=0.0)
    format_bonus = validation.real(format_bonus, "format_bonus", lo=0.0)
    if not feedback:
        raise ValueError("feedback: empty (verify a trajectory with at least one step)")
    mean = sum(f.score for f in feedback) / len(feedback)
    return mean - repair_penalty * trajectory.repairs + format_bonus * float(trajectory.well_formed)
