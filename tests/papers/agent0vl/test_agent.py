"""[P16] the inner loop: Solver steps execute their tools, the Verifier's scores, the repair gate, repair and the
self-reward; a scripted policy stands in for a plugged-in LVLM."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from icml26.papers.agent0vl import (
    Feedback,
    Policy,
    Step,
    ToyVLM,
    Trajectory,
    _agent,
    _tools,
    make_tasks,
    repair,
    repair_gate,
    self_reward,
    solve,
    verify,
)


class Scripted:
    """A policy that reads every object by sight as ``value + offset`` and does arithmetic in its head."""

    def __init__(self, values, offset=0, belief=0.9):
        self.values, self.offset, self.b = values, offset, belief

    def next_step(self, view, transcript, *, generator):
        q = view.question
        reads = [s for s in transcript if s.kind in ("read", "measure")]
        if len(reads) < len(q.objects):
            i = q.objects[len(reads)]
            return Step("read", self.values[i] + self.offset, (i,))
        if q.kind != "value" and not any(s.kind in ("calc", "mental") for s in transcript):
            a, b = reads[0].value, reads[1].value
            return Step("mental", a + b if q.kind == "sum" else abs(a - b), expr=f"max({a}, {b}) - min({a}, {b})"
                        if q.kind == "diff" else f"{a} + {b}")
        return Step("answer", transcript[-1].value)

    def belief(self, view, transcript, step):
        return self.b


def _task(kind="sum"):
    return next(t for t in make_tasks(30, seed=8) if t.question.kind == kind)


def _gen():
    return torch.Generator().manual_seed(0)


def test_policies_fill_the_protocol():
    assert isinstance(ToyVLM(seed=0), Policy) and isinstance(Scripted((1,)), Policy)


def test_solve_executes_tool_calls():
    t = _task("diff")
    tr = solve(ToyVLM(seed=0), t.view(), generator=_gen())
    assert tr.steps[-1].kind == "answer" and tr.well_formed
    for s in tr.steps:
        if s.kind == "measure":
            assert s.value == t.label.values[s.objects[0]] and s.observation == str(s.value)
        if s.kind == "calc":
            assert s.value == _tools.evaluate_arithmetic(s.expr)


def test_grounded_verifier_is_exact():
    t = _task("sum")
    right = solve(Scripted(t.label.values), t.view(), generator=_gen())
    fb = verify(Scripted(t.label.values), t.view(), right, tool_grounded=True)
    assert right.answer == t.label.answer
    assert [f.score for f in fb] == [1.0] * len(fb) and [f.conf for f in fb] == [1.0] * len(fb)
    assert fb[0].call == f"measure({t.question.objects[0] + 1})"
    off = solve(Scripted(t.label.values, offset=1), t.view(), generator=_gen())
    fb = verify(Scripted(t.label.values), t.view(), off, tool_grounded=True)
    assert [f.score for f in fb[:2]] == [0.0, 0.0] and [f.conf for f in fb[:2]] == [0.0, 0.0]
    assert fb[2].score == 1.0  # the arithmetic on the claimed operands is right


def test_text_only_verifier_asks_the_policy():
    t = _task("sum")
    off = solve(Scripted(t.label.values, offset=2), t.view(), generator=_gen())
    fb = verify(Scripted(t.label.values, belief=0.9), t.view(), off, tool_grounded=False)
    assert all(f.conf == pytest.approx(0.9) and f.score == pytest.approx(0.8) and not f.call for f in fb)


def test_trusting_text_verifier_believes_tool_outputs_only():
    t = _task("sum")
    i, j = t.question.objects
    vi = t.label.values[i]
    tr = Trajectory((Step("measure", vi, (i,), call=f"measure({i + 1})", observation=str(vi)),
                     Step("read", 3, (j,)), Step("mental", vi + 3, expr=f"{vi} + 3"), Step("answer", vi + 3)))
    fb = verify(Scripted(t.label.values, belief=0.25), t.view(), tr, tool_grounded=False, trust_tool_outputs=True)
    assert (fb[0].score, fb[0].conf) == (1.0, 1.0)
    assert all(f.conf == pytest.approx(0.25) for f in fb[1:])
    plain = verify(Scripted(t.label.values, belief=0.25), t.view(), tr, tool_grounded=False)
    assert plain[0].conf == pytest.approx(0.25)


def test_bug_injection_an_off_by_one_tool_is_caught(monkeypatch):
    """With the measuring tool shifted by one the grounded verifier rejects right readings: the exactness test fails."""
    t = _task("value")
    right = solve(Scripted(t.label.values), t.view(), generator=_gen())
    assert verify(Scripted(t.label.values), t.view(), right)[0].conf == 1.0
    real = _tools.measure_object
    monkeypatch.setattr(_tools, "measure_object", lambda image, layout, index: real(image, layout, index) + 1)
    assert verify(Scripted(t.label.values), t.view(), right)[0].conf == 0.0


def test_grounded_verifier_inherits_a_misreading_tool():
    """On heavily noised renders the pixel tool misreads some objects: the grounded Verifier then rejects right
    readings and would pass wrong ones, so its AUROC is not fixed at 1 by construction."""
    tasks = [t for t in make_tasks(60, seed=1, noise=0.1) if t.question.kind == "value"]
    confs = [verify(Scripted(t.label.values), t.view(), solve(Scripted(t.label.values), t.view(), generator=_gen()))[0]
             .conf for t in tasks]
    misread = [_tools.measure_object(t.image, t.layout, t.question.objects[0]) != t.label.values[t.question.objects[0]]
               for t in tasks]
    assert any(misread) and not all(misread)
    assert [c == 0.0 for c in confs] == misread  # a right reading is rejected exactly where the tool misreads


@given(st.lists(st.floats(0, 1), min_size=1, max_size=6), st.floats(0, 1))
def test_repair_gate_fires_iff_a_confidence_is_below_tau(confs, tau):
    fb = [Feedback(0.0, c, "") for c in confs]
    got = repair_gate(fb, tau=tau)
    below = [i for i, c in enumerate(confs) if c < tau]
    assert got == (below[0] if below else None)


def test_repair_redoes_the_flagged_step_with_the_tool():
    t = _task("sum")
    pol = Scripted(t.label.values, offset=1)
    tr = solve(pol, t.view(), generator=_gen())
    fb = verify(pol, t.view(), tr)
    k = repair_gate(fb, tau=0.5)
    assert k == 0
    fixed = repair(pol, t.view(), tr, k, fb[k], generator=_gen())
    assert fixed.repairs == 1 and fixed.steps[0].kind == "measure"
    assert fixed.steps[0].value == t.label.values[t.question.objects[0]]
    twice = repair(pol, t.view(), fixed, 1, verify(pol, t.view(), fixed)[1], generator=_gen())
    assert twice.repairs == 2 and twice.answer == t.label.answer


def test_self_reward_formula():
    fb = [Feedback(1.0, 1.0, ""), Feedback(0.0, 0.0, ""), Feedback(-1.0, 0.0, ""), Feedback(1.0, 1.0, "")]
    tr = Trajectory((Step("read", 1, (0,)), Step("answer", 1)), repairs=2)
    assert self_reward(fb, tr, repair_penalty=0.1, format_bonus=0.2) == pytest.approx(0.25 - 0.2 + 0.2)
    bad = Trajectory((Step("read", 1, (0,)),))
    assert not bad.well_formed and self_reward(fb, bad, repair_penalty=0.1, format_bonus=0.2) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="feedback"):
        self_reward([], tr)


def test_malformed_steps_stop_the_solver():
    class Broken(Scripted):
        def next_step(self, view, transcript, *, generator):
            return Step("invalid", None)

    t = _task("value")
    tr = solve(Broken(t.label.values), t.view(), generator=_gen())
    assert len(tr.steps) == 1 and tr.answer is None and not tr.well_formed
    assert verify(Broken(()), t.view(), tr)[0].score == -1.0
    assert _agent.MAX_STEPS >= 5 and np.isfinite(self_reward(verify(Broken(()), t.view(), tr), tr))
