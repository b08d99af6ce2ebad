"""The benchmark loop of [P38]: every task runs against its own fresh copy of the persona database, through a real
MCP client (``mcp.Client``) connected to the app's simulated server in-process (the SDK's in-memory transport) or over stdio (a
``python -m icml26.papers.mcp_persona._serve`` subprocess). list_tools -> the agent proposes -> call_tool -> the
result's text goes back to the agent -> ... -> an answer; then the final state is read and scored.

Nothing here opens a socket: in-process clients talk in memory, stdio clients over a pipe.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from icml26.common.validation import choice, positive_int, real
from icml26.papers.mcp_persona._agents import Action, Agent, AgentView, Answer, Invalid, Step, ToolSpec
from icml26.papers.mcp_persona._persona import Persona, persona_db, snapshot
from icml26.papers.mcp_persona._servers import build_server
from icml26.papers.mcp_persona._tasks import Call, Task, task_success

__all__ = ["TRANSPORTS", "Score", "Trace", "run_episodes", "score"]

TRANSPORTS: tuple[str, ...] = ("inprocess", "stdio")
SERVE_MODULE = "icml26.papers.mcp_persona._serve"


@dataclass(frozen=True)
class Trace:
    """[P38] One episode: the turns, the final answer, the database before and after, and how many calls raised
    an exception on the client side (a server that reports errors properly gives 0)."""

    task_id: str
    steps: tuple[Step, ...]
    answer: str
    initial: dict[str, list[tuple[Any, ...]]] = field(repr=False)
    final: dict[str, list[tuple[Any, ...]]] = field(repr=False)
    exceptions: int = 0


@dataclass(frozen=True)
class Score:
    """[P38] What an episode scored: task success, tool calls made, calls that were valid (no error result, no
    unparsable output), turns taken, and error results seen."""

    success: bool
    calls: int
    valid_calls: int
    turns: int
    error_results: int


def score(trace: Trace, task: Task) -> Score:
    """[P38] Score an episode (Acc = the success predicate of :func:`task_success`; valid-call rate; steps)."""
    if not isinstance(trace, Trace) or not isinstance(task, Task):
        raise TypeError("score needs a Trace and its Task")
    if trace.task_id != task.id:
        raise ValueError(f"trace is of task {trace.task_id!r}, not {task.id!r}")
    calls = [s for s in trace.steps if isinstance(s.action, (Call, Invalid))]
    errors = sum(s.is_error for s in trace.steps if isinstance(s.action, Call))
    return Score(task_success(task, trace.initial, trace.final, trace.answer), len(calls),
                 sum(isinstance(s.action, Call) and not s.is_error for s in calls), len(trace.steps), errors)


@dataclass
class _Lane:
    task: Task
    client: Any
    con: sqlite3.Connection
    tools: tuple[ToolSpec, ...]
    initial: dict[str, list[tuple[Any, ...]]]
    steps: list[Step] = field(default_factory=list)
    answer: str = ""
    done: bool = False
    exceptions: int = 0

    def view(self) -> AgentView:
        return AgentView(self.task.id, self.task.app, self.task.instruction, self.tools, tuple(self.steps))


def _text(result: Any) -> str:
    return "\n".join(str(getattr(c, "text", "")) for c in result.content)


async def _open(stack: AsyncExitStack, base: sqlite3.Connection, task: Task, transport: str, folder: Path
                ) -> _Lane:
    from mcp import Client, StdioServerParameters

    if transport == "inprocess":
        con = sqlite3.connect(":memory:", check_same_thread=False)
        base.backup(con)
        target: Any = build_server(task.app, db=con)
    else:
        path = folder / f"{task.id}.sqlite"
        con = sqlite3.connect(str(path), check_same_thread=False)
        base.backup(con)
        target = StdioServerParameters(command=sys.executable, args=["-m", SERVE_MODULE, "--app", task.app,
                                                                     "--db", str(path)], env=dict(os.environ))
    client = await stack.enter_async_context(Client(target))
    listed = (await client.list_tools()).tools
    tools = tuple(ToolSpec(t.name, t.description or "", tuple(t.input_schema.get("required", [])))
                  for t in listed)
    return _Lane(task, client, con, tools, snapshot(con))


async def _apply(lane: _Lane, action: Action) -> None:
    if isinstance(action, Answer):
        lane.steps.append(Step(action))
        lane.answer, lane.done = action.text, True
    elif isinstance(action, Call):
        try:
            res = await lane.client.call_tool(action.tool, dict(action.arguments))
            lane.steps.append(Step(action, _text(res), bool(res.is_error)))
        except Exception as exc:  # noqa: BLE001 - a server that raises instead of reporting is what is counted
            lane.exceptions += 1
            lane.steps.append(Step(action, f"exception: {type(exc).__name__}: {exc}", True))
    else:
        lane.steps.append(Step(action if isinstance(action, Invalid) else Invalid(repr(action)),
                               "no tool call or answer found", True))
        lane.done = True


async def _run(agent: Agent, persona: Persona, tasks: Sequence[Task], transport: str, max_turns: int,
               timeout_s: float) -> list[Trace]:
    import anyio

    base = persona_db(persona)
    with tempfile.TemporaryDirectory() as tmp, anyio.fail_after(timeout_s):
        async with AsyncExitStack() as stack:
            lanes = [await _open(stack, base, t, transport, Path(tmp)) for t in tasks]
            for _ in range(max_turns):
                live = [ln for ln in lanes if not ln.done]
                if not live:
                    break
                actions = agent.act([ln.view() for ln in live])
                if len(actions) != len(live):
                    raise ValueError(f"agent returned {len(actions)} actions for {len(live)} episodes")
                for ln, a in zip(live, actions):
                    await _apply(ln, a)
            traces = [Trace(ln.task.id, tuple(ln.steps), ln.answer, ln.initial, snapshot(ln.con), ln.exceptions)
                      for ln in lanes]
        for ln in lanes:
            ln.con.close()
    base.close()
    return traces


def run_episodes(agent: Agent, persona: Persona, tasks: Sequence[Task], *, transport: str = "inprocess",
                 max_turns: int = 6, timeout_s: float = 300.0) -> list[Trace]:
    """[P38] Run every task once with ``agent`` through a real MCP client (module doc); episodes advance in
    lockstep rounds so that a batched agent acts on all open episodes at once.

    Args:
        agent: an :class:`Agent` (``act(views) -> actions``).
        persona: the persona tree; each task gets a fresh copy of its database.
        tasks: the tasks (from :func:`sample_tasks`).
        transport: ``"inprocess"`` (in memory) or ``"stdio"`` (one server subprocess per task).
        max_turns: turns per episode (tool calls and the answer).
        timeout_s: wall-clock limit of the whole run (servers and subprocesses included).

    Returns:
        One :class:`Trace` per task, in order.
    """
    if not isinstance(agent, Agent):
        raise TypeError(f"agent must implement Agent.act, got {type(agent).__name__}")
    if not isinstance(persona, Persona):
        raise TypeError(f"persona must be a Persona, got {type(persona).__name__}")
    if isinstance(tasks, (str, bytes)) or not tasks or not all(isinstance(t, Task) for t in tasks):
        raise TypeError("tasks must be a non-empty sequence of Task")
    transport = choice(transport, "transport", list(TRANSPORTS))
    turns = positive_int(max_turns, "max_turns", hi=100)
    limit = real(timeout_s, "timeout_s", lo=0.0, lo_open=True)
    import anyio

    return anyio.run(_run, agent, persona, list(tasks), transport, turns, limit)
