"""The evaluation-suite vocabulary of [P02]: tasks, prompts, transcripts, episodes, what a monitor sees, the result
type, and the three protocols a user implements for their own model (:class:`Agent`, :class:`Monitor`,
:class:`Eval`).

The paper's monitor scopes (what the monitor observes, Sec. "monitor scopes" in the notes) are named here:
``action`` (the task prompt and the final action only), ``cot`` (the prompt and the chain of thought), ``all`` (the
prompt, the CoT and the action) and ``all+followup`` (all of that and the CoT of the agent's answer to a follow-up
question).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

import numpy as np

from icml26.common.stats import Estimate

__all__ = ["ARCHETYPES", "ARMS", "SCOPES", "Agent", "Episode", "Eval", "Monitor", "Monitorability", "Prompt", "Task",
           "Transcript", "View", "view_of"]

#: the paper's three evaluation archetypes
ARCHETYPES = ("intervention", "process", "outcome")
#: the arms of an intervention eval; ``none`` for the other archetypes
ARMS = ("control", "treatment", "none")
#: what a monitor observes (see the module docstring)
SCOPES = ("action", "cot", "all", "all+followup")


@dataclass(frozen=True)
class Task:
    """[P02] One evaluation item.

    ``prompt`` is the text an agent reads without intervention; ``treated_prompt`` the intervened text (intervention
    archetype only: the hint added). ``options`` and ``answer`` describe a multiple-choice item (``answer`` the index
    of the correct option, ``target`` the option the intervention points to; ``-1`` where not used). ``difficulty``
    in [0, 1] and ``meta`` are free for simulated agents and label functions.
    """

    id: int
    archetype: str
    prompt: str
    treated_prompt: str = ""
    options: tuple[str, ...] = ()
    answer: int = -1
    target: int = -1
    difficulty: float = 0.5
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Prompt:
    """[P02] One request to an agent: a task in one arm (``control``, ``treatment`` or ``none``), the text the agent
    reads, and the index of this sample among repeated samples of the same (task, arm)."""

    task: Task
    arm: str
    text: str
    sample: int = 0


@dataclass(frozen=True)
class Transcript:
    """[P02] What an agent produced: its chain of thought, its final action (for multiple choice the chosen option's
    letter, ``""`` when none could be read), the CoT of its answer to a follow-up question (``""`` until asked) and
    ``meta`` (simulated agents put their hidden ground truth here; monitors never see it)."""

    cot: str
    action: str
    followup: str = ""
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Episode:
    """[P02] A prompt and the agent's transcript of it."""

    prompt: Prompt
    transcript: Transcript

    def with_followup(self, text: str) -> Episode:
        """This episode with the follow-up CoT ``text``."""
        return replace(self, transcript=replace(self.transcript, followup=text))


@dataclass(frozen=True)
class View:
    """[P02] What a monitor observes of one episode: the question it must answer, the task prompt, and the parts of
    the transcript its scope allows (``None`` where hidden)."""

    question: str
    prompt: str
    action: str | None = None
    cot: str | None = None
    followup: str | None = None

    def fields(self) -> dict[str, str]:
        """The visible text fields by name (``prompt``, ``cot``, ``action``, ``followup``)."""
        out = {"prompt": self.prompt, "cot": self.cot, "action": self.action, "followup": self.followup}
        return {k: v for k, v in out.items() if v is not None}


def view_of(episode: Episode, scope: str, *, question: str, prompt: str | None = None) -> View:
    """[P02] The view of ``episode`` under monitor ``scope`` (one of :data:`SCOPES`); ``prompt`` overrides the task
    text shown (an intervention eval shows the treated prompt in both arms, so the arm is not given away)."""
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {list(SCOPES)}, got {scope!r}")
    t = episode.transcript
    shown = episode.prompt.text if prompt is None else prompt
    return View(question=question, prompt=shown,
                action=t.action if scope != "cot" else None,
                cot=t.cot if scope != "action" else None,
                followup=t.followup if scope == "all+followup" else None)


@dataclass(frozen=True)
class Monitorability:
    """[P02] A monitorability estimate: g-mean² = TPR × TNR with its bootstrap CI ``[lo, hi]`` at ``level``.

    ``n`` counts the resampled units (episodes, tasks or prompts), ``n_pos``/``n_neg`` the positives and negatives
    the rates rest on (for an intervention eval: effect-corrected treated matches and control matches); ``extra``
    holds the estimator's other numbers (the effect size of an intervention, the prompts kept by filtering).
    """

    g_mean2: float
    tpr: float
    tnr: float
    lo: float
    hi: float
    level: float
    n: int
    n_pos: float
    n_neg: float
    extra: Mapping[str, float] = field(default_factory=dict)

    @property
    def estimate(self) -> Estimate:
        """The g-mean² and its CI as an :class:`~icml26.common.stats.Estimate`."""
        return Estimate(self.g_mean2, self.lo, self.hi, self.level)

    def __str__(self) -> str:
        return (f"g-mean² {self.g_mean2:.3f} [{self.lo:.3f}, {self.hi:.3f}] (TPR {self.tpr:.3f}, TNR {self.tnr:.3f}, "
                f"n = {self.n})")


@runtime_checkable
class Agent(Protocol):
    """[P02] The model being monitored. ``act`` answers prompts (with whatever CoT the agent produces);
    ``follow_up`` answers ``question`` asked after each transcript and returns the CoT of that answer."""

    def act(self, prompts: Sequence[Prompt], *, seed: int) -> list[Transcript]: ...

    def follow_up(self, prompts: Sequence[Prompt], transcripts: Sequence[Transcript], *, question: str,
                  seed: int) -> list[str]: ...


@runtime_checkable
class Monitor(Protocol):
    """[P02] A monitor: ``scope`` says what it observes; ``fit`` learns from labelled views (a judge may only
    calibrate); ``predict_proba`` gives P(the property holds) per view, flagged at >= 0.5."""

    scope: str

    def fit(self, views: Sequence[View], labels: np.ndarray, *, seed: int) -> Monitor: ...

    def predict_proba(self, views: Sequence[View], *, seed: int) -> np.ndarray: ...


@runtime_checkable
class Eval(Protocol):
    """[P02] One evaluation of an archetype (:data:`ARCHETYPES`): it makes tasks and prompts, says which episodes a
    monitor is asked about (``cases``: indices and the labels observable to the evaluator, used to train monitors),
    shows them to a monitor (``view``) and turns the monitor's flags on the cases into a :class:`Monitorability`
    (``score``) or into paired bootstrap replicates for several monitors at once (``bootstrap``)."""

    archetype: str
    question: str
    followup_question: str

    def tasks(self, n: int, *, seed: int) -> list[Task]: ...

    def prompts(self, tasks: Sequence[Task], *, samples: int) -> list[Prompt]: ...

    def cases(self, episodes: Sequence[Episode]) -> tuple[np.ndarray, np.ndarray]: ...

    def view(self, episode: Episode, scope: str) -> View: ...

    def score(self, episodes: Sequence[Episode], flags: np.ndarray, *, n_boot: int, level: float,
              seed: int) -> Monitorability: ...

    def bootstrap(self, episodes: Sequence[Episode], flags: Sequence[np.ndarray], *, n_boot: int,
                  seed: int) -> tuple[np.ndarray, np.ndarray]: ...
