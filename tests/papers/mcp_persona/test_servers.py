"""[P38] servers: real MCP clients in-process and over stdio, tool counts, refusals as MCP error results."""

import socket

import anyio
import pytest

from icml26.papers.mcp_persona import (
    APPS,
    OracleAgent,
    build_server,
    error_probes,
    generate_persona,
    persona_db,
    run_episodes,
    sample_tasks,
    score,
    snapshot,
)

P = generate_persona(seed=3)


async def _session(app, calls):
    from mcp import Client

    con = persona_db(P)
    async with Client(build_server(app, db=con)) as c:
        tools = (await c.list_tools()).tools
        results = [await c.call_tool(name, args) for name, args in calls]
    return tools, results, con


@pytest.mark.parametrize("app", APPS)
def test_each_app_lists_7_or_8_tools_with_schemas(app):
    tools, _, _ = anyio.run(_session, app, [])
    assert 7 <= len(tools) <= 8
    for t in tools:
        assert t.description and t.input_schema["type"] == "object"


def test_forum_reads_and_writes_the_database():
    post = next(i for i in P.items if i.app == "forum" and i.author_id == P.me.id)
    _, (got, edited), con = anyio.run(_session, "forum", [("get_post", {"post_id": post.id}),
                                                          ("edit_post", {"post_id": post.id, "body": "new body"})])
    assert not got.is_error and post.title in got.content[0].text
    assert not edited.is_error
    assert con.execute("SELECT body FROM items WHERE id = ?", (post.id,)).fetchone()[0] == "new body"


def test_refusals_are_error_results_with_codes_and_change_nothing():
    theirs = next(i for i in P.items if i.app == "forum" and i.author_id != P.me.id)
    con0 = snapshot(persona_db(P))
    _, res, con = anyio.run(_session, "forum", [("delete_post", {"post_id": theirs.id}),
                                                ("get_post", {"post_id": "p_9999"}), ("nope", {}),
                                                ("comment", {"post_id": theirs.id, "text": "  "})])
    assert all(r.is_error for r in res)
    text = [r.content[0].text for r in res]
    assert "permission_denied" in text[0] and "not_found" in text[1] and "invalid_argument" in text[3]
    assert snapshot(con) == con0


def test_probes_all_refused_over_inprocess_client():
    probes = error_probes(P)
    traces = run_episodes(OracleAgent(probes), P, probes, max_turns=10)
    for t, tr in zip(probes, traces):
        s = score(tr, t)
        assert s.success and s.calls == len(t.chain) == s.error_results and tr.exceptions == 0


def test_stdio_transport_reaches_the_same_states_as_inprocess():
    tasks = sample_tasks(P, n_pairs=1, seed=3)
    a = run_episodes(OracleAgent(tasks), P, tasks, transport="stdio", max_turns=6, timeout_s=120.0)
    b = run_episodes(OracleAgent(tasks), P, tasks, transport="inprocess", max_turns=6)
    assert [x.final for x in a] == [x.final for x in b]
    assert all(score(x, t).success for x, t in zip(a, tasks))


def test_inprocess_run_opens_no_socket(monkeypatch):
    tasks = sample_tasks(P, n_pairs=2, seed=1)

    real = socket.socket

    def guarded(family=socket.AF_INET, *a, **k):  # the event loop's own AF_UNIX self-pipe is allowed
        if family in (socket.AF_INET, socket.AF_INET6):
            raise AssertionError("a network socket was opened")
        return real(family, *a, **k)

    monkeypatch.setattr(socket, "socket", guarded)
    traces = run_episodes(OracleAgent(tasks), P, tasks)
    assert all(score(x, t).success for x, t in zip(traces, tasks))


def test_build_server_refuses_a_missing_file(tmp_path):
    with pytest.raises(ValueError, match="db"):
        build_server("notes", db=tmp_path / "none.sqlite")
    with pytest.raises(TypeError, match="db"):
        build_server("notes", db=3)
