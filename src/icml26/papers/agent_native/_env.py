"""The agent's action language and the repository environment ([P17]: actions with real observations).

Actions (one line each): ``SEARCH <name>``, ``OPEN <file> <line>``, ``EDIT <file> <line> <new text>``,
``RUN_TESTS``, ``SUBMIT``. Observations: SEARCH lists ``file : line`` of every module line naming the identifier;
OPEN shows a window of ``window`` numbered lines from ``line`` (our reading of a windowed file viewer); EDIT replaces
one line, keeping its indentation; RUN_TESTS runs the unit tests for real (:mod:`._sandbox`) and reports the counts
and the failing tests' last traceback lines; SUBMIT ends the episode. A task is resolved when the modules as
submitted pass the repository's original test file (edits to the test file do not count).

A :class:`Trajectory` is the issue then (action, observation) pairs; it is written as text with the markers
``<issue>``, ``<act>``, ``<obs>``, ``<eos>`` and read back exactly (:meth:`Trajectory.from_text`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from icml26.papers.agent_native._repo import TEST_FILE, Repo, Task
from icml26.papers.agent_native._sandbox import TestCache, TestReport, run_unit_tests

__all__ = ["ACTIONS", "Action", "RepoEnv", "Trajectory", "parse_action", "test_observation"]

ACTIONS = ("SEARCH", "OPEN", "EDIT", "RUN_TESTS", "SUBMIT")
MARKERS = ("<issue>", "<act>", "<obs>", "<eos>")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


@dataclass(frozen=True)
class Action:
    """One agent action ([P17] action language); ``arg`` is the SEARCH query or the file, ``line`` 1-based, ``text`` the EDIT's new line."""

    kind: str
    arg: str = ""
    line: int = 0
    text: str = ""

    def __str__(self) -> str:
        if self.kind == "SEARCH":
            return f"SEARCH {self.arg}"
        if self.kind == "OPEN":
            return f"OPEN {self.arg} {self.line}"
        if self.kind == "EDIT":
            return f"EDIT {self.arg} {self.line} {self.text}"
        return self.kind


def parse_action(text: str) -> Action:
    """The :class:`Action` written as ``text`` ([P17] action language); a ``ValueError`` for anything else.

    Digits may come space-separated (the tokenizer splits numbers), so ``OPEN m0.py 1 2`` is line 12.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    parts = text.split()
    if not parts or parts[0] not in ACTIONS:
        raise ValueError(f"text must start with one of {ACTIONS}, got {text!r}")
    kind, rest = parts[0], parts[1:]
    if kind in ("RUN_TESTS", "SUBMIT"):
        if rest:
            raise ValueError(f"text: {kind} takes no argument, got {text!r}")
        return Action(kind)
    if kind == "SEARCH":
        if len(rest) != 1 or not _IDENT.fullmatch(rest[0]):
            raise ValueError(f"text: SEARCH takes one identifier, got {text!r}")
        return Action(kind, arg=rest[0])
    if not rest:
        raise ValueError(f"text: {kind} needs a file and a line, got {text!r}")
    digits = []
    for p in rest[1:]:
        if not p.isdigit():
            break
        digits.append(p)
    if not digits:
        raise ValueError(f"text: {kind} needs a line number after the file, got {text!r}")
    line, tail = int("".join(digits)), rest[1 + len(digits):]
    if kind == "OPEN":
        if tail:
            raise ValueError(f"text: OPEN takes a file and a line only, got {text!r}")
        return Action(kind, arg=rest[0], line=line)
    if not tail:
        raise ValueError(f"text: EDIT needs the new line's text, got {text!r}")
    return Action(kind, arg=rest[0], line=line, text=" ".join(tail))


def test_observation(report: TestReport) -> str:
    """The RUN_TESTS observation of ``report`` ([P17] environmentally-native feedback)."""
    if report.error:
        return f"error : {report.error}"
    head = f"passed {report.passed} failed {report.failed}"
    if not report.failures:
        return head
    return head + " : " + " ; ".join(f"{t} {msg}" for t, msg in report.failures)


test_observation.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


@dataclass
class Trajectory:
    """The issue, then ``(action, observation)`` pairs ([P17] agent-native trajectory)."""

    issue: str
    steps: list[tuple[str, str]] = field(default_factory=list)

    def to_text(self) -> str:
        parts = [f"<issue> {self.issue}"]
        for act, obs in self.steps:
            parts += [f"<act> {act}", f"<obs> {obs}"]
        return " ".join(parts) + " <eos>"

    @classmethod
    def from_text(cls, text: str) -> Trajectory:
        """Inverse of :meth:`to_text` (a ``ValueError`` on text not written by it)."""
        if not text.startswith("<issue> ") or not text.endswith(" <eos>"):
            raise ValueError("text must start with '<issue> ' and end with ' <eos>'")
        pieces = re.split(r" (<act>|<obs>) ", text[len("<issue> "):-len(" <eos>")])
        issue, rest = pieces[0], pieces[1:]
        if len(rest) % 4:
            raise ValueError("text must alternate <act> and <obs>")
        steps = []
        for i in range(0, len(rest), 4):
            if rest[i] != "<act>" or rest[i + 2] != "<obs>":
                raise ValueError("text must alternate <act> and <obs>")
            steps.append((rest[i + 1], rest[i + 3]))
        return cls(issue=issue, steps=steps)


class RepoEnv:
    """One episode on ``task``'s buggy repository ([P17] executable environment; observations are real).

    ``window`` is how many lines OPEN shows; ``cache`` shares test reports across episodes (batch callers prefetch
    with :func:`run_unit_tests` and the episode's own call then hits the cache).
    """

    def __init__(self, task: Task, *, window: int = 5, cache: TestCache | None = None) -> None:
        if not isinstance(task, Task):
            raise TypeError(f"task must be a Task, got {type(task).__name__}")
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise ValueError(f"window must be an int >= 1, got {window!r}")
        self.task = task
        self.repo: Repo = task.buggy
        self.window = window
        self.cache = cache if cache is not None else TestCache()
        self.trajectory = Trajectory(issue=task.issue)
        self.done = False

    def _search(self, q: str) -> str:
        hits = [f"{f} : {i}" for f in self.repo.modules() for i, ln in enumerate(self.repo.lines(f), 1)
                if q in _IDENT.findall(ln)]
        return " ; ".join(hits) if hits else "no matches"

    def _open(self, a: Action) -> str:
        if a.arg not in self.repo.files:
            return "error : no such file"
        ls = self.repo.lines(a.arg)
        if not 1 <= a.line <= len(ls):
            return "error : no such line"
        return "\n".join(f"{i} | {ls[i - 1]}" for i in range(a.line, min(len(ls), a.line + self.window - 1) + 1))

    def _edit(self, a: Action) -> str:
        if a.arg not in self.repo.files:
            return "error : no such file"
        ls = self.repo.lines(a.arg)
        if not 1 <= a.line <= len(ls):
            return "error : no such line"
        old = ls[a.line - 1]
        self.repo = self.repo.with_line(a.arg, a.line, old[: len(old) - len(old.lstrip())] + a.text)
        return "ok"

    def judged_repo(self) -> Repo:
        """The modules as they stand with the original test file (what resolution is judged on)."""
        return Repo({**self.repo.files, TEST_FILE: self.task.buggy.files[TEST_FILE]})

    def step(self, action: Action | str) -> str:
        """Apply one action and return its observation (a malformed action string gets an ``error`` observation)."""
        if self.done:
            raise RuntimeError("the episode has ended (SUBMIT)")
        text = str(action)
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except ValueError:
                obs = "error : bad action"
                self.trajectory.steps.append((text, obs))
                return obs
        if action.kind == "SEARCH":
            obs = self._search(action.arg)
        elif action.kind == "OPEN":
            obs = self._open(action)
        elif action.kind == "EDIT":
            obs = self._edit(action)
        elif action.kind == "RUN_TESTS":
            obs = test_observation(run_unit_tests([self.repo], cache=self.cache)[0])
        else:
            obs, self.done = "submitted", True
        self.trajectory.steps.append((text, obs))
        return obs

    def resolved(self) -> bool:
        """Whether the current modules pass the original tests (runs them, through the cache)."""
        return run_unit_tests([self.judged_repo()], cache=self.cache)[0].ok
