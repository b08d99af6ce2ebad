"""[P38] MCP-Persona: Evaluating Agents on Real-World, Personalized MCP Tools

What it is: a benchmark of agents on MCP tools bound to one user's account. A persona tree (account -> app ->
space -> item) lives in a SQLite database; each app (chat workspace, forum, notes, mail) is an MCP server built with
the official ``mcp`` SDK, 7-8 tools each, reached by a real MCP client in-process (the SDK's in-memory transport) or over stdio (a
subprocess). Tasks are sampled as tool chains over each app's tool dependency graph (list spaces -> list items ->
act) and fuzzified ("my latest post in r/cooking"); each has an explicit-id twin ("post p_0012") with the same
target and action. Success = the final database is exactly the initial one with the task's effects, and the answer
matches. Agents: the oracle (replays the chain; must score 100 %), a context-blind keyword heuristic, a random
agent, and an LLM agent emitting JSON tool calls (SmolLM2-135M-Instruct at ``small``).

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``harness_oracle`` — sampled tool chains solve their tasks; refused calls are MCP error results (pipeline).
  2. ``blind_gap`` — personalised tool use is hard: the context-blind heuristic, far below the oracle (Abstract).
  3. ``llm_gap`` — the same for a real (tiny) LLM agent (Abstract).

Reconstructions (the abstract and a summary were read; no code or task set):
  1. Apps, tools, errors (``not_found``, ``permission_denied``, ``invalid_argument``, ``conflict``), the persona
     generator, the tool graph, the reference forms (mine latest/oldest, a contact's latest, by title) and the
     predicate are ours; tasks stay within one app.
  2. Items are listed in id order and ids are unrelated to time, so recency must be read from the time stamps.
  3. The LLM agent's prompt format and its start ``{"`` are ours; an unparsable reply ends the episode.
"""

from icml26.papers.mcp_persona._agents import (
    Action,
    Agent,
    AgentView,
    Answer,
    BlindHeuristicAgent,
    Invalid,
    OracleAgent,
    RandomAgent,
    Step,
    ToolSpec,
)
from icml26.papers.mcp_persona._episodes import TRANSPORTS, Score, Trace, run_episodes, score
from icml26.papers.mcp_persona._llm import LLMAgent, parse_action, render_messages
from icml26.papers.mcp_persona._persona import APPS, Item, Persona, Space, User, generate_persona, persona_db, snapshot
from icml26.papers.mcp_persona._probes import error_probes
from icml26.papers.mcp_persona._servers import EMOJIS, build_server
from icml26.papers.mcp_persona._tasks import TOOL_GRAPH, Call, Effect, Task, expected_state, sample_tasks, task_success

__all__ = ["APPS", "EMOJIS", "TOOL_GRAPH", "TRANSPORTS", "Action", "Agent", "AgentView", "Answer",
           "BlindHeuristicAgent", "Call", "Effect", "Invalid", "Item", "LLMAgent", "OracleAgent", "Persona",
           "RandomAgent", "Score", "Space", "Step", "Task", "ToolSpec", "Trace", "User", "build_server",
           "error_probes", "expected_state", "generate_persona", "parse_action", "persona_db", "render_messages",
           "run_episodes", "sample_tasks", "score", "snapshot", "task_success"]
