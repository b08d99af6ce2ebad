"""[P38] agents: the blind heuristic on explicit ids vs fuzzified references, the random agent, the LLM agent's
parsing and prompt, and a tiny random LM through the real loop."""

import pytest

from icml26.common.models import tiny_causal_lm
from icml26.papers.mcp_persona import (
    AgentView,
    Answer,
    BlindHeuristicAgent,
    Call,
    Invalid,
    LLMAgent,
    RandomAgent,
    Step,
    ToolSpec,
    generate_persona,
    parse_action,
    render_messages,
    run_episodes,
    sample_tasks,
    score,
)

P = generate_persona(seed=7)
TASKS = sample_tasks(P, n_pairs=16, seed=7)


def _success(agent, tasks, **kw):
    return [score(tr, t).success for tr, t in zip(run_episodes(agent, P, tasks, **kw), tasks)]


def test_blind_heuristic_solves_explicit_ids_and_titles_but_not_personal_references():
    ok = dict(zip((t.id for t in TASKS), _success(BlindHeuristicAgent(), TASKS)))
    explicit = [ok[t.id] for t in TASKS if t.variant == "explicit"]
    titled = [ok[t.id] for t in TASKS if t.reference == "titled"]
    personal = [ok[t.id] for t in TASKS if t.variant == "fuzzy" and t.reference != "titled"]
    assert all(explicit) and all(titled)
    assert personal and sum(personal) < len(personal)


def test_blind_heuristic_learns_folder_ids_from_list_folders():
    p = generate_persona(seed=0)
    moves = [t for t in sample_tasks(p, n_pairs=48, seed=0) if t.chain[-1].tool == "move_mail"]
    explicit = next(t for t in moves if t.variant == "explicit")
    (trace,) = run_episodes(BlindHeuristicAgent(), p, [explicit])
    tools = [s.action.tool for s in trace.steps if isinstance(s.action, Call)]
    assert tools == ["list_folders", "move_mail"] and score(trace, explicit).success


def test_random_agent_is_deterministic_and_weak():
    a = run_episodes(RandomAgent(seed=1), P, TASKS[:8])
    b = run_episodes(RandomAgent(seed=1), P, TASKS[:8])
    assert [x.steps for x in a] == [x.steps for x in b]
    assert sum(score(x, t).success for x, t in zip(a, TASKS[:8])) <= 4


@pytest.mark.parametrize(("text", "want"), [
    ('{"tool": "get_post", "arguments": {"post_id": "p_0001"}}', Call("get_post", {"post_id": "p_0001"})),
    ('sure: {"name": "list_forums", "arguments": {}} ok', Call("list_forums", {})),
    ('{"tool": "get_post", "arguments": {"post_id": "p_0001"}', Call("get_post", {"post_id": "p_0001"})),
    ('{"answer": "Lantern ticket"}', Answer("Lantern ticket")),
    ("I would delete it.", Invalid("I would delete it.")),
    ('{"tool": 3}', Invalid('{"tool": 3}')),
])
def test_parse_action(text, want):
    assert parse_action(text) == want


def test_render_messages_lists_tools_and_history():
    tools = (ToolSpec("list_posts", "Posts of a forum.", ("forum_id",)), ToolSpec("list_forums", "Forums.", ()))
    view = AgentView("t", "forum", "Delete my latest post.", tools,
                     (Step(Call("list_forums", {}), "x" * 1000), Step(Call("list_posts", {"forum_id": "q"}), "no",
                                                                      True)))
    msgs = render_messages(view, max_observation_chars=50)
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert "list_posts(forum_id)" in msgs[0]["content"] and msgs[1]["content"] == "Delete my latest post."
    assert msgs[3]["content"] == "Result: " + "x" * 50 and msgs[5]["content"].startswith("Error: ")


def test_tiny_lm_agent_runs_through_the_mcp_loop():
    model, tok = tiny_causal_lm(seed=0, max_positions=4096, hidden_size=16, num_layers=1, num_heads=2,
                                num_kv_heads=1, intermediate_size=32)
    agent = LLMAgent(model, tok, max_new_tokens=4, batch=2)
    traces = run_episodes(agent, P, TASKS[:2], max_turns=2)
    assert agent.generations >= 2
    assert all(1 <= len(t.steps) <= 2 for t in traces)
    assert not any(score(x, t).success for x, t in zip(traces, TASKS[:2]))  # a random LM solves nothing


def test_llm_agent_needs_a_model_id_to_cache():
    model, tok = tiny_causal_lm(seed=0)
    with pytest.raises(ValueError, match="model_id"):
        LLMAgent(model, tok, cache=True)
    with pytest.raises(TypeError, match="model"):
        LLMAgent(object(), tok)
