"""[P17] toy world: bug injection, the sandbox, the tool executor and the trajectory format, against oracles."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from icml26.papers.agent_native import (
    Action,
    RepoEnv,
    TestCache,
    Trajectory,
    contextual_trajectory,
    heldout_templates,
    make_task,
    parse_action,
    run_unit_tests,
    templates,
)
from icml26.papers.agent_native._repo import TEST_FILE, Repo
from icml26.papers.agent_native._text import UNK, decode, encode

TASKS = [make_task(seed=s) for s in range(12)] + [make_task(seed=s, heldout=True) for s in range(6)]


def test_bug_makes_a_test_fail_and_the_fix_passes():
    cache = TestCache()
    buggy = run_unit_tests([t.buggy for t in TASKS], cache=cache)
    clean = run_unit_tests([t.clean for t in TASKS], cache=cache)
    for t, b, c in zip(TASKS, buggy, clean):
        assert c.ok and c.passed == 4
        assert not b.ok and b.failed == 1 and b.failures[0][0] == f"test_{t.bug.func}"
        got, want = re.search(r"returned (-?\d+) , expected (-?\d+)", t.issue).groups()
        assert t.bug.buggy != t.bug.fixed
        assert t.buggy.lines(t.bug.file)[t.bug.line - 1].strip() == t.bug.buggy
        assert t.clean.with_line(t.bug.file, t.bug.line, "    " + t.bug.fixed) == t.clean
        assert "AssertionError" in b.failures[0][1]
        assert int(got) != int(want)


def test_issue_matches_the_real_code():
    for t in TASKS:
        name, x, got = re.match(r"test_(\w+) fails : \w+ \( (\d) \) returned (-?\d+)", t.issue).groups()
        ns: dict = {}
        exec(t.buggy.files[t.bug.file], ns)  # the oracle: Python itself
        assert ns[name](int(x)) == int(got)


def test_heldout_templates_split():
    held = heldout_templates()
    assert held and held < set(templates()) and all(len(t) == 2 for t in held)
    train = [make_task(seed=s) for s in range(60)]
    assert not {f.template for t in train for f in t.functions} & held
    assert all(t.template in held for t in TASKS[12:])


def test_sandbox_timeout_network_and_cache():
    t = TASKS[0]
    loop = Repo({**t.clean.files, "m0.py": t.clean.files["m0.py"] + "\nwhile True :\n    pass\n"})
    net = Repo({**t.clean.files, "m0.py": "import socket\nsocket.socket ( )\n" + t.clean.files["m0.py"]})
    syntax = t.clean.with_line("m0.py", 3, "    y = = 1")
    cache = TestCache()
    r_loop, r_net, r_syn, r_ok, r_ok2 = run_unit_tests([loop, net, syntax, t.clean, t.clean], cache=cache,
                                                       per_repo_s=0.3)
    assert r_loop.error == "TimeoutError" and not r_loop.ok
    assert r_net.error == "OSError" and not r_net.ok
    assert r_syn.error == "SyntaxError"
    assert r_ok.ok and r_ok2 == r_ok and cache.executed == 4
    run_unit_tests([t.clean], cache=cache)
    assert cache.executed == 4


def test_sandbox_contains_writes_prints_raw_sockets_and_hangs(tmp_path):
    t = TASKS[0]
    src = t.clean.files["m0.py"]
    outside = tmp_path / "escaped.txt"
    write = Repo({**t.clean.files, "m0.py": f"f = open ( {str(outside)!r} , 'w' )\nf.write ( 'x' * 99 )\nf.close ( )\n" + src})
    noisy = Repo({**t.clean.files, "m0.py": "print ( 'hello' )\n" + src})
    raw = Repo({**t.clean.files, "m0.py": "import _socket\n_socket.socket ( )\n" + src})
    stubborn = "while True :\n    try :\n        while True :\n            pass\n    except BaseException :\n        pass\n"
    hang = Repo({**t.clean.files, "m0.py": stubborn + src})  # swallows the alarm: the interpreter's timeout ends it
    die = Repo({**t.clean.files, "m0.py": "import os\nos._exit ( 3 )\n" + src})
    r_write, r_noisy, r_raw = run_unit_tests([write, noisy, raw], per_repo_s=0.3)
    assert r_write.error == "OSError" and outside.stat().st_size == 0  # no file outside can grow
    assert r_noisy.ok  # what a snapshot prints does not spoil the report
    assert r_raw.error == "OSError"
    r_hang, r_die, r_ok = run_unit_tests([hang, die, t.clean], per_repo_s=0.2, timeout_s=0.5)
    assert r_hang.error == "TimeoutError" and r_die.error == "Exception" and r_ok.ok


def test_the_agent_vocabulary_names_no_escape_route():
    """The model writes its edits in the closed vocabulary: no loop, file, process, import machinery or network."""
    from icml26.papers.agent_native._text import VOCAB

    assert not {"open", "os", "sys", "socket", "subprocess", "exec", "eval", "compile", "__import__", "while",
                "for", "lambda", "getattr", "globals", "print", "input", "del", "**"} & set(VOCAB)


def test_tool_executor_is_exact():
    t = TASKS[1]
    env = RepoEnv(t, window=5, cache=TestCache())
    hits = env.step(Action("SEARCH", t.bug.func))
    brute = [f"{f} : {i}" for f in t.buggy.modules() for i, ln in enumerate(t.buggy.lines(f), 1)
             if t.bug.func in ln.replace("(", " ").split()]
    assert hits == " ; ".join(brute)
    assert env.step("SEARCH nosuchname") == "no matches"
    line = int(brute[0].split(" : ")[1])
    shown = env.step(Action("OPEN", t.bug.file, line)).split("\n")
    assert shown == [f"{i} | {t.buggy.lines(t.bug.file)[i - 1]}" for i in range(line, line + 5)]
    assert env.step(f"OPEN {TEST_FILE} 999") == "error : no such line"
    assert env.step("EDIT m9.py 1 y = x") == "error : no such file"
    assert env.step("DANCE") == "error : bad action"
    assert env.step("RUN_TESTS").startswith(f"passed 3 failed 1 : test_{t.bug.func} AssertionError")
    assert env.step(Action("EDIT", t.bug.file, t.bug.line, t.bug.fixed)) == "ok"
    assert env.repo == t.clean
    assert env.step("RUN_TESTS") == "passed 4 failed 0"
    assert env.step("SUBMIT") == "submitted" and env.done and env.resolved()
    with pytest.raises(RuntimeError, match="ended"):
        env.step("SUBMIT")


def test_editing_the_tests_does_not_resolve():
    t = TASKS[2]
    env = RepoEnv(t)
    ls = t.buggy.lines(TEST_FILE)
    for i, ln in enumerate(ls, 1):
        if f"{t.bug.func} (" in ln and "assertEqual" in ln:
            env.step(Action("EDIT", TEST_FILE, i, "pass"))
    assert "failed 0" in env.step("RUN_TESTS")
    assert not env.resolved()


def test_contextual_trajectory_resolves_and_round_trips():
    for t in TASKS[:5]:
        tr = contextual_trajectory(t)
        assert [a.split()[0] for a, _ in tr.steps] == ["SEARCH", "OPEN", "EDIT", "SUBMIT"]
        assert Trajectory.from_text(tr.to_text()) == tr
        env = RepoEnv(t)
        for a, obs in tr.steps:
            assert env.step(a) == obs  # replaying the actions reproduces every observation
        assert env.resolved()
        ids = encode(tr.to_text())
        assert UNK not in ids


_ident = st.sampled_from(["alpha", "bravo", "m0.py", "m1.py", TEST_FILE])
_actions = st.one_of(
    st.builds(lambda a: Action("SEARCH", a), st.sampled_from(["alpha", "zulu", "test_golf"])),
    st.builds(lambda f, n: Action("OPEN", f, n), _ident, st.integers(1, 120)),
    st.builds(lambda f, n, k: Action("EDIT", f, n, f"y = y + {k}"), _ident, st.integers(1, 120), st.integers(0, 9)),
    st.sampled_from([Action("RUN_TESTS"), Action("SUBMIT")]))


@given(_actions)
def test_action_round_trip(a):
    assert parse_action(str(a)) == a
    assert parse_action(decode(encode(str(a)))) == a  # through the tokenizer (digits split, then merged)


@pytest.mark.parametrize("bad", ["", "SEARCH", "SEARCH a b", "OPEN m0.py", "OPEN m0.py x", "EDIT m0.py 3",
                                 "RUN_TESTS now", "open m0.py 1"])
def test_parse_action_refuses(bad):
    with pytest.raises(ValueError, match="text"):
        parse_action(bad)


def test_trajectory_from_text_refuses_garbage():
    with pytest.raises(ValueError, match="text"):
        Trajectory.from_text("<issue> x <act> SEARCH a <eos>")
