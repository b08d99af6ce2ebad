"""[P38] tasks: the oracle solves every sampled task, references single out their target (brute force over the
persona), and the predicate accepts the intended change only."""

import pytest

from icml26.papers.mcp_persona import (
    OracleAgent,
    expected_state,
    generate_persona,
    persona_db,
    run_episodes,
    sample_tasks,
    score,
    snapshot,
    task_success,
)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_oracle_scores_100_percent(seed):
    p = generate_persona(seed=seed)
    tasks = sample_tasks(p, n_pairs=16, seed=seed)
    traces = run_episodes(OracleAgent(tasks), p, tasks, max_turns=10)
    assert all(score(tr, t).success for tr, t in zip(traces, tasks))
    assert {t.reference for t in tasks} - {"explicit"} >= {"titled"}


def _resolve(p, t):
    """The target a fuzzified reference points to, found by brute force from the persona's items (not the chain)."""
    target_id = next(iter(t.chain[-1].arguments.values()))
    target = next(i for i in p.items if i.id == target_id)
    same = [i for i in p.items if i.space_id == target.space_id]
    if t.reference == "titled":
        return [i.id for i in p.items if i.app == t.app and f"'{i.title}'" in t.instruction]
    if t.reference.startswith("mine"):
        mine = [i for i in same if i.author_id == p.me.id]
        pick = max if t.reference == "mine_latest" else min
        return [pick(mine, key=lambda i: i.ts).id]
    who = next(c for c in p.contacts if c.name in t.instruction)
    return [max((i for i in same if i.author_id == who.id), key=lambda i: i.ts).id]


def test_fuzzified_references_single_out_the_chain_target():
    p = generate_persona(seed=5)
    for t in sample_tasks(p, n_pairs=40, seed=5):
        if t.variant == "fuzzy":
            assert _resolve(p, t) == [next(iter(t.chain[-1].arguments.values()))], t.instruction


def test_twins_share_target_effects_and_answer():
    p = generate_persona(seed=2)
    tasks = sample_tasks(p, n_pairs=12, seed=2)
    for fz, ex in zip(tasks[::2], tasks[1::2]):
        assert fz.pair == ex.pair and fz.effects == ex.effects and fz.answer == ex.answer
        assert ex.chain == fz.chain[-1:] and len(fz.chain) >= 2
        assert next(iter(ex.chain[0].arguments.values())) in ex.instruction


def test_predicate_accepts_only_the_target_deletion():
    p = generate_persona(seed=4)
    task = next(t for t in sample_tasks(p, n_pairs=60, seed=4) if t.effects and t.effects[0].op == "delete")
    initial = snapshot(persona_db(p))
    passing = []
    for item in p.items:  # brute force: delete each item in turn
        con = persona_db(p)
        con.execute("DELETE FROM items WHERE id = ?", (item.id,))
        if task_success(task, initial, snapshot(con), ""):
            passing.append(item.id)
    assert passing == [task.effects[0].key]
    assert not task_success(task, initial, initial, "")


def test_expected_state_of_no_effect_is_the_state():
    p = generate_persona(seed=1)
    s = snapshot(persona_db(p))
    e = expected_state(s, ())
    assert e["items"] == s["items"] and e["new_items"] == []


def test_bad_apps_refused():
    p = generate_persona(seed=0)
    with pytest.raises(ValueError, match="apps"):
        sample_tasks(p, n_pairs=2, seed=0, apps=("slack",))
