"""The public entry points of [P38] for the bad-input conformance test."""

from icml26.common.models import tiny_causal_lm
from icml26.papers.mcp_persona import (
    AgentView,
    LLMAgent,
    OracleAgent,
    RandomAgent,
    ToolSpec,
    build_server,
    generate_persona,
    persona_db,
    render_messages,
    run_episodes,
    sample_tasks,
)
from support.badinput import Entry

_P = generate_persona(seed=0, n_contacts=3, spaces_per_app=2, items_per_space=3)
_TASKS = sample_tasks(_P, n_pairs=1, seed=0)
_MODEL, _TOK = tiny_causal_lm(seed=0, hidden_size=16, num_layers=1, num_heads=2, num_kv_heads=1,
                              intermediate_size=32)
_VIEW = AgentView("t", "forum", "Delete post p_0001.", (ToolSpec("delete_post", "Delete a post.", ("post_id",)),))

ENTRY_POINTS = [
    Entry("generate_persona", generate_persona,
          valid={"seed": 0, "n_contacts": 3, "spaces_per_app": 2, "items_per_space": 3},
          kinds={"seed": "seed", "n_contacts": "int", "spaces_per_app": "int", "items_per_space": "int"}),
    Entry("sample_tasks", sample_tasks, valid={"persona": _P, "n_pairs": 2, "seed": 0},
          kinds={"n_pairs": "int", "seed": "seed"}),
    Entry("build_server", build_server, valid={"app": "chat", "db": persona_db(_P)}, kinds={"app": "str"}),
    Entry("run_episodes", run_episodes,
          valid={"agent": OracleAgent(_TASKS), "persona": _P, "tasks": _TASKS, "transport": "inprocess",
                 "max_turns": 4, "timeout_s": 60.0},
          kinds={"transport": "str", "max_turns": "int", "timeout_s": "posreal"}),
    Entry("RandomAgent", RandomAgent, valid={"seed": 0, "p_answer": 0.2}, kinds={"seed": "seed",
                                                                                 "p_answer": "nonneg"}),
    Entry("LLMAgent", LLMAgent, valid={"model": _MODEL, "tokenizer": _TOK, "max_new_tokens": 4, "batch": 2},
          kinds={"max_new_tokens": "int", "batch": "int"}),
    Entry("render_messages", render_messages, valid={"view": _VIEW, "max_observation_chars": 100},
          kinds={"max_observation_chars": "int"}),
]
