"""The mid-training data arms of [P17] on MiniRepo tasks (our reconstruction of each arm at toy scale).

- static (factorised, the Kimi-Dev-style baseline): ``issue + file -> patch`` and ``issue + repo map -> file``
  documents, two per task;
- contextually-native (Sec. "D^ctx"): the fix's workflow as one sequence built from the ground-truth fix, with the
  real file contents at the base commit as observations (SEARCH, OPEN, EDIT, SUBMIT; nothing executed);
- environmentally-native (Sec. "D^env_pass"): rollouts of a noisy scripted agent in the executable environment, whose
  observations are real test runs (failures, retries), kept only when the final tests pass;
- pretraining text (clean modules) and the post-training SFT set (environmentally-native, shared by every arm).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from icml26.common import validation as V
from icml26.papers.agent_native._env import Action, RepoEnv, Trajectory
from icml26.papers.agent_native._repo import Task
from icml26.papers.agent_native._sandbox import TestCache, run_unit_tests

__all__ = ["contextual_trajectory", "environmental_rollouts", "pretrain_documents", "static_documents"]


def _numbered(text: str) -> str:
    return "\n".join(f"{i} | {ln}" for i, ln in enumerate(text.split("\n"), 1))


def pretrain_documents(task: Task) -> list[str]:
    """Plain code text: every clean module of ``task`` as ``<file> name`` then its source ([P17] base corpus)."""
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task, got {type(task).__name__}")
    return [f"<file> {f}\n{task.clean.files[f]} <eos>" for f in task.clean.modules()]


def static_documents(task: Task) -> list[str]:
    """The factorised arm ([P17] baseline, Kimi-Dev-like): ``issue + file -> patch`` and ``issue -> file``."""
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task, got {type(task).__name__}")
    b = task.bug
    repo_map = " ; ".join(f"{f} : " + " , ".join(ln.split()[1] for ln in task.buggy.lines(f) if ln.startswith("def "))
                          for f in task.buggy.modules())
    patch = f"<issue> {task.issue} <file> {b.file}\n{_numbered(task.buggy.files[b.file])} <patch> " \
            f"{Action('EDIT', b.file, b.line, b.fixed)} <eos>"
    locate = f"<issue> {task.issue} <repo> {repo_map} <locate> {b.file} <eos>"
    return [patch, locate]


def _def_line(task: Task) -> int:
    return task.buggy.lines(task.bug.file).index(f"def {task.bug.func} ( x ) :") + 1


def contextual_trajectory(task: Task, *, window: int = 5) -> Trajectory:
    """The contextually-native trajectory of ``task`` ([P17] D^ctx): search, open (real contents), edit, submit.

    Built from the ground-truth fix; the observations are the environment's (no test is run).
    """
    env = RepoEnv(task, window=window)
    b = task.bug
    for a in (Action("SEARCH", b.func), Action("OPEN", b.file, _def_line(task)), Action("EDIT", b.file, b.line, b.fixed),
              Action("SUBMIT")):
        env.step(a)
    return env.trajectory


def _wrong_open(task: Task, g: np.random.Generator) -> Action:
    other = [(f, i) for f in task.buggy.modules() for i, ln in enumerate(task.buggy.lines(f), 1)
             if ln.startswith("def ") and ln.split()[1] != task.bug.func]
    f, i = other[int(g.integers(len(other)))]
    return Action("OPEN", f, i)


def _wrong_edit(task: Task, g: np.random.Generator) -> Action:
    """A plausible but wrong edit of the buggy line: another operator or constant."""
    b = task.bug
    toks = b.fixed.split()
    for _ in range(20):
        t = list(toks)
        j = int(g.integers(len(t)))
        if t[j].isdigit():
            t[j] = str(int(g.integers(2, 10)))
        elif t[j] in ("+", "-", "*", "%"):
            t[j] = ("+", "-", "*", "%")[int(g.integers(4))]
        elif t[j] in ("max", "min"):
            t[j] = "min" if t[j] == "max" else "max"
        text = " ".join(t)
        if text not in (b.fixed, b.buggy):
            return Action("EDIT", b.file, b.line, text)
    return Action("EDIT", b.file, b.line, b.buggy)


def environmental_rollouts(tasks: Sequence[Task], *, seed: int, p_wrong: float = 0.3, window: int = 5,
                           cache: TestCache | None = None) -> list[Trajectory]:
    """Passing rollouts of a noisy scripted agent on ``tasks`` ([P17] D^env_pass; the agent is ours).

    The agent searches the function named in the issue, opens a wrong function first with probability ``p_wrong``,
    makes a wrong edit with probability ``p_wrong`` (then runs the tests, reads the failure and edits again),
    runs the tests after its final edit and submits. Test runs are real and batched across tasks; a trajectory is kept
    only if its final test run passes. Episodes advance in lockstep so that each round's test runs share one batch.
    """
    seed = V.seed(seed)
    p_wrong = V.real(p_wrong, "p_wrong", lo=0.0, hi=1.0)
    if any(not isinstance(t, Task) for t in tasks):
        raise TypeError("tasks must hold Task objects only")
    g = np.random.default_rng([seed, 7])
    cache = cache if cache is not None else TestCache()
    envs = [RepoEnv(t, window=window, cache=cache) for t in tasks]
    plans: list[list[Action]] = []
    for t in tasks:
        b = t.bug
        plan = [Action("SEARCH", b.func)]
        if g.random() < p_wrong:
            plan.append(_wrong_open(t, g))
        plan.append(Action("OPEN", b.file, _def_line(t)))
        if g.random() < p_wrong:
            plan += [_wrong_edit(t, g), Action("RUN_TESTS")]
        plan += [Action("EDIT", b.file, b.line, b.fixed), Action("RUN_TESTS"), Action("SUBMIT")]
        plans.append(plan)
    for k in range(max(len(p) for p in plans)):
        live = [(e, p[k]) for e, p in zip(envs, plans) if k < len(p) and not e.done]
        run_unit_tests([e.repo for e, a in live if a.kind == "RUN_TESTS"], cache=cache)  # one batch per round
        for e, a in live:
            obs = e.step(a)
            if a.kind == "RUN_TESTS" and obs.startswith("passed") and " failed 0" in obs:
                e.step(Action("SUBMIT"))  # a wrong edit that happens to pass: the agent submits it
    keep = [e for e in envs if e.done]
    ok = run_unit_tests([e.judged_repo() for e in keep], cache=cache)
    return [e.trajectory for e, r in zip(keep, ok) if r.ok]
