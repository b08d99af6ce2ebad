"""Agents of [P38]'s benchmark loop (list tools -> propose a call -> observe -> ... -> answer): the ``Agent``
protocol and the reference agents: the oracle (replays the ground-truth chain, reading the answer from the last
observation), a context-blind heuristic and a random agent. The real LLM agent is in ``_llm.py``.

Agents are batched: ``act`` gets the views of every open episode and returns one action each, so that an LLM can
decode all episodes of a round together.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from icml26.common.validation import real
from icml26.common.validation import seed as check_seed
from icml26.papers.mcp_persona._persona import ITEM_PREFIX
from icml26.papers.mcp_persona._tasks import TOOL_GRAPH, Call, Task

__all__ = ["Action", "Agent", "AgentView", "Answer", "BlindHeuristicAgent", "Invalid", "OracleAgent",
           "RandomAgent", "Step", "ToolSpec"]


@dataclass(frozen=True)
class ToolSpec:
    """[P38] A tool as the client listed it: name, description and the names of its required arguments."""

    name: str
    description: str
    required: tuple[str, ...]


@dataclass(frozen=True)
class Answer:
    """[P38] The agent's final answer (ends the episode)."""

    text: str


@dataclass(frozen=True)
class Invalid:
    """[P38] Output that is neither a tool call nor an answer (ends the episode; counted as an invalid call)."""

    text: str


Action = Call | Answer | Invalid


@dataclass(frozen=True)
class Step:
    """[P38] One turn: the action, what came back (the tool result's text) and whether it was an error result."""

    action: Action
    observation: str = ""
    is_error: bool = False


@dataclass(frozen=True)
class AgentView:
    """[P38] What an agent sees of an open episode: the instruction, the app, the tools, the turns so far.
    ``task_id`` is given for bookkeeping; only the oracle reads the task behind it."""

    task_id: str
    app: str
    instruction: str
    tools: tuple[ToolSpec, ...]
    history: tuple[Step, ...] = ()


@runtime_checkable
class Agent(Protocol):
    """[P38] An agent: one action per open episode per round."""

    def act(self, views: Sequence[AgentView]) -> list[Action]:
        """One action for each view, in order."""
        ...


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


class OracleAgent:
    """[P38] The oracle: replays each task's ground-truth chain, then answers with the task's answer field read from
    the last tool result (so a tool that returned the wrong item fails it). Must score 100 %: it validates the
    servers, the transport, the task generator and the predicate together."""

    def __init__(self, tasks: Sequence[Task]) -> None:
        if isinstance(tasks, (str, bytes)) or not all(isinstance(t, Task) for t in tasks):
            raise TypeError("tasks must be a sequence of Task")
        self._tasks = {t.id: t for t in tasks}

    def act(self, views: Sequence[AgentView]) -> list[Action]:
        """[P38] The next call of each chain, then the answer."""
        out: list[Action] = []
        for v in views:
            t = self._tasks[v.task_id]
            k = len(v.history)
            if k < len(t.chain):
                out.append(t.chain[k])
                continue
            last = _json(v.history[-1].observation) if v.history else None
            ans = str(last.get(t.answer_field, "")) if isinstance(last, dict) and t.answer_field else "done"
            out.append(Answer(ans))
        return out


_QUOTED = re.compile(r'"([^"]+)"')
_TITLED = re.compile(r"'([^']+)'")
_IDS = re.compile(r"\b([a-z]{1,2}_\d{2,4})\b")
_STOP = {"the", "a", "to", "of", "in", "my", "with", "on", "and", "what", "is", "its", "only", "answer", "one"}
_SYNONYMS = {"delete": ("delete",), "remove": ("delete",), "change": ("edit", "update"), "replace": ("edit", "update"),
             "react": ("reaction",), "reply": ("reply",), "comment": ("comment",), "move": ("move",),
             "say": ("get", "read"), "subject": ("read",), "title": ("get",)}


def _words(text: str) -> set[str]:
    ws = {w for w in re.findall(r"[a-z]+", text.lower()) if w not in _STOP}
    return ws | {s for w in ws for s in _SYNONYMS.get(w, ())}


def _folders(v: AgentView) -> list[dict[str, Any]]:
    """The folders a ``list_folders`` call of this episode returned (none before one is made)."""
    for s in v.history:
        if isinstance(s.action, Call) and s.action.tool == "list_folders" and not s.is_error:
            got = _json(s.observation)
            if isinstance(got, dict) and isinstance(got.get("folders"), list):
                return [r for r in got["folders"] if isinstance(r, dict)]
    return []


class BlindHeuristicAgent:
    """[P38] A context-blind heuristic (our baseline): picks the action tool by keyword overlap between the
    instruction and the tools' names and descriptions, walks the app's tool graph to reach an item, and picks by
    surface match only: a space whose name the instruction contains, an item whose title it quotes or whose id it
    names, else the first candidate listed. It sees only what the MCP client returned (ids, folders included, come
    from tool results or the instruction); it never uses who the account is or when an item was made."""

    def act(self, views: Sequence[AgentView]) -> list[Action]:
        """[P38] One keyword-chosen step per view."""
        return [self._step(v) for v in views]

    def _target(self, v: AgentView) -> ToolSpec:
        words = _words(v.instruction)
        acts = [t for t in v.tools if any(a.endswith("_id") for a in t.required)
                and t.name not in {g[0] for g in TOOL_GRAPH[v.app].values()}]
        return max(acts, key=lambda t: (len(words & set(t.name.split("_"))), len(words & _words(t.description))))

    def _step(self, v: AgentView) -> Action:
        target = self._target(v)
        graph = TOOL_GRAPH[v.app]
        if target.name in [s.action.tool for s in v.history if isinstance(s.action, Call)]:
            last = _json(v.history[-1].observation)
            return Answer(self._answer(v, last))
        named = [i for i in _IDS.findall(v.instruction) if i.startswith(f"{ITEM_PREFIX[v.app]}_")]
        if named:
            if "folder_id" in target.required and not _folders(v):  # folder ids are learnt by listing them
                return Call(graph["spaces"][0])
            return Call(target.name, self._arguments(v, target, named[0]))
        if not v.history:
            return Call(graph["spaces"][0])
        last = _json(v.history[-1].observation)
        rows = next((x for x in last.values() if isinstance(x, list)), []) if isinstance(last, dict) else []
        prev = v.history[-1].action
        if isinstance(prev, Call) and prev.tool == graph["spaces"][0]:
            low = v.instruction.lower()
            space = next((r for r in rows if str(r.get("name", "")).lower() in low), rows[0] if rows else {"id": ""})
            return Call(graph["items"][0], {graph["items"][1]: str(space["id"])})
        titles = _TITLED.findall(v.instruction)
        pick = next((r for r in rows if r.get("title") in titles), rows[0] if rows else {"id": ""})
        return Call(target.name, self._arguments(v, target, str(pick["id"])))

    @staticmethod
    def _arguments(v: AgentView, target: ToolSpec, item: str) -> dict[str, str]:
        args: dict[str, str] = {}
        quoted = _QUOTED.findall(v.instruction)
        for a in target.required:
            if a.endswith("_id") and a != "folder_id":
                args[a] = item
            elif a == "folder_id":  # the listed folder named last in the instruction ("... to the Archive folder")
                low = v.instruction.lower()
                folders = sorted(_folders(v), key=lambda r: low.rfind(str(r.get("name", "")).lower()))
                args[a] = str(folders[-1].get("id", "")) if folders else ""
            elif a == "emoji":
                m = re.search(r":([a-z]+):", v.instruction)
                args[a] = m.group(1) if m else "thumbsup"
            else:
                args[a] = quoted[0] if quoted else v.instruction
        return args

    @staticmethod
    def _answer(v: AgentView, last: Any) -> str:
        if not isinstance(last, dict):
            return "done"
        low = v.instruction.lower()
        if "say" in low or "text" in low:
            return str(last.get("body", "done"))
        if "title" in low or "subject" in low:
            return str(last.get("title", "done"))
        return "done"


@dataclass
class RandomAgent:
    """[P38] A random agent (our floor): a uniformly random tool, each required argument drawn from the ids seen so
    far (instruction and observations) or a fixed word; answers at random with probability ``p_answer``."""

    seed: int
    p_answer: float = 0.2
    _rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.p_answer = real(self.p_answer, "p_answer", lo=0.0, hi=1.0)
        self._rng = np.random.default_rng(check_seed(self.seed))

    def act(self, views: Sequence[AgentView]) -> list[Action]:
        """[P38] A random step per view."""
        out: list[Action] = []
        for v in views:
            if v.history and self._rng.random() < self.p_answer:
                out.append(Answer("done"))
                continue
            tool = v.tools[int(self._rng.integers(len(v.tools)))]
            seen = _IDS.findall(v.instruction + " ".join(s.observation for s in v.history))
            args: Mapping[str, str] = {a: (str(self._rng.choice(seen)) if seen and a.endswith("_id") else "hello")
                                       for a in tool.required}
            out.append(Call(tool.name, dict(args)))
        return out
