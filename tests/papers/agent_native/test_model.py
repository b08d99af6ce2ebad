"""[P17] model side: cached decoding against the full forward, the action mask, the token budget, the arms, the
noisy agent's rollouts and the agent loop."""

import copy
import re

import pytest
import torch

from icml26.papers.agent_native import (
    ModelSpec,
    RunConfig,
    TestCache,
    contextual_trajectory,
    environmental_rollouts,
    make_model,
    make_task,
    resolve,
    run_unit_tests,
    train_on_tokens,
)
from icml26.papers.agent_native._model import KVCache, action_mask, extend
from icml26.papers.agent_native._pipeline import ARMS, arm_documents
from icml26.papers.agent_native._text import INDEX, UNK, encode

SPEC = ModelSpec(n_layer=2, n_head=2, d_model=16, block_size=320, batch_size=4)
TASKS = [make_task(seed=100 + s) for s in range(8)]


def test_cached_decoding_equals_the_full_forward():
    model = make_model(SPEC, seed=3).eval()
    ids = encode(contextual_trajectory(TASKS[0]).to_text())
    full = model(torch.tensor([ids]))[0]
    kv = KVCache(SPEC.n_layer)
    cuts = [0, 7, 8, 30, len(ids)]
    for a, b in zip(cuts, cuts[1:]):
        last = extend(model, kv, ids[a:b])
        torch.testing.assert_close(last, full[b - 1], rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="block size"):
        extend(model, kv, [0] * SPEC.block_size)


def test_action_mask_marks_action_targets_only():
    ids = encode("<issue> fails <act> SEARCH alpha <obs> no matches <act> SUBMIT <obs> submitted <eos>")
    toks = ["<issue>", "fails", "<act>", "SEARCH", "alpha", "<obs>", "no", "matches", "<act>", "SUBMIT", "<obs>",
            "submitted", "<eos>"]
    assert ids == [INDEX[t] for t in toks]
    targets = [t for t, m in zip(toks[1:], action_mask(ids)) if m]
    assert targets == ["SEARCH", "alpha", "<obs>", "SUBMIT", "<obs>"]


def test_equal_token_budget_and_determinism():
    docs = [contextual_trajectory(t).to_text() for t in TASKS]
    longest = max(len(encode(d)) for d in docs)
    a, b = make_model(SPEC, seed=0), make_model(SPEC, seed=0)
    sa = train_on_tokens(a, docs, tokens=3000, spec=SPEC, seed=5)
    sb = train_on_tokens(b, docs, tokens=3000, spec=SPEC, seed=5)
    assert sa["tokens"] == 3000 and longest > 1  # the budget is met exactly, whatever the document lengths
    assert sa == sb and all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    c = copy.deepcopy(a)
    assert train_on_tokens(c, docs, tokens=0, spec=SPEC, seed=5)["tokens"] == 0
    with pytest.raises(ValueError, match="tokens"):
        train_on_tokens(c, docs, tokens=-1, spec=SPEC, seed=5)


@pytest.mark.parametrize("arm", [a for a in ARMS if a not in ("none", "ctx_env_half")])
def test_one_training_step_per_arm(arm):
    cfg = RunConfig(model=SPEC)
    docs = arm_documents(arm, TASKS, seed=0, cfg=cfg, cache=TestCache())
    assert docs and all(UNK not in encode(d) and len(encode(d)) <= SPEC.block_size for d in docs)
    model = make_model(SPEC, seed=1)
    before = [p.clone() for p in model.parameters()]
    st = train_on_tokens(model, docs, tokens=777, spec=SPEC, seed=0)  # every arm reads exactly its budget
    assert st["tokens"] == 777 and any(not torch.equal(p, q) for p, q in zip(before, model.parameters()))
    if arm == "static":
        assert len(docs) == 2 * len(TASKS) and all(("<patch>" in d) != ("<locate>" in d) for d in docs)


def test_environmental_rollouts_pass_and_show_failures():
    cache = TestCache()
    trs = environmental_rollouts(TASKS, seed=0, p_wrong=1.0, cache=cache)
    assert 0 < len(trs) <= len(TASKS)
    for tr in trs:
        assert tr.steps[-1] == ("SUBMIT", "submitted")
        runs = [o for a, o in tr.steps if a == "RUN_TESTS"]
        assert runs[-1].endswith("failed 0")
    # with p_wrong = 1 every kept rollout whose wrong edit failed shows that failure, then the retry
    assert any(len([a for a, _ in tr.steps if a == "RUN_TESTS"]) == 2 for tr in trs)
    clean = environmental_rollouts(TASKS, seed=0, p_wrong=0.0)
    assert len(clean) == len(TASKS) and all(len(tr.steps) == 5 for tr in clean)
    with pytest.raises(ValueError, match="p_wrong"):
        environmental_rollouts(TASKS, seed=0, p_wrong=1.5)


def test_resolve_runs_the_agent_loop_and_judges_for_real():
    model = make_model(SPEC, seed=0)
    cache = TestCache()
    ok, trs = resolve(model, TASKS[:3], max_actions=3, cache=cache)
    assert len(ok) == 3 and all(isinstance(x, bool) for x in ok)
    assert all(1 <= len(tr.steps) <= 3 for tr in trs)
    judged = run_unit_tests([t.buggy for t in TASKS[:3]], cache=cache)
    # a random model almost surely leaves the bug in place: then the judgement is the buggy repo's failing run
    for x, tr, j in zip(ok, trs, judged):
        if not any(a.startswith("EDIT") for a, _ in tr.steps):
            assert x is False and not j.ok


def _templates_in(text: str) -> set[tuple[str, ...]]:
    """The templates whose docstrings ``text`` shows (docstring phrases mapped back to kinds)."""
    from icml26.papers.agent_native._repo import KINDS

    kind = {phrase: k for k, (phrase, _) in KINDS.items()}
    out = set()
    for doc in re.findall(r'""" (.+?) \. """', text):
        out.add(tuple(kind[part.rsplit(" ", 1)[0]] for part in doc.split(" , then ")))
    return out


def test_heldout_templates_appear_in_no_training_text():
    """Every text a run trains on (pretraining, each arm, SFT) shows only training templates; the evaluation and
    completion sets do use the held-out ones."""
    from icml26.papers.agent_native._data import pretrain_documents
    from icml26.papers.agent_native._pipeline import _heldout_functions, _tasks
    from icml26.papers.agent_native._repo import heldout_templates
    from icml26.papers.agent_native.claims import SMOKE

    cache = TestCache()
    texts = [d for t in _tasks(SMOKE, 0, "pre", SMOKE.pretrain_tasks) for d in pretrain_documents(t)]
    mt = _tasks(SMOKE, 0, "mt", SMOKE.mt_tasks)
    texts += [d for arm in ("static", "ctx_env") for d in arm_documents(arm, mt, seed=0, cfg=SMOKE, cache=cache)]
    texts += [tr.to_text() for tr in environmental_rollouts(_tasks(SMOKE, 0, "sft", SMOKE.sft_tasks), seed=1,
                                                            cache=cache)]
    seen = set().union(*(_templates_in(t) for t in texts))
    held = heldout_templates()
    assert seen and not seen & held
    fs = _heldout_functions(8, 0)
    assert {f.template for f in fs} <= held
    assert _templates_in("\n".join(fs[0].source())) == {fs[0].template}  # the parser would see a leak
    assert all(t.template in held for t in _tasks(SMOKE, 0, "heldout", 4, heldout=True))


def test_env_only_arm_runs_at_the_same_budget_as_the_others():
    """The environmentally-native-only arm is part of every budget's run and reads the same B tokens as the
    other full-budget arms (ctx_env_half: B/2; none: 0)."""
    from icml26.papers.agent_native._pipeline import pretrain_base, run_seed
    from icml26.papers.agent_native.claims import SMALL, SMOKE

    assert SMALL.arms == ARMS and SMOKE.arms == ARMS and "env" in ARMS
    cfg = RunConfig(pretrain_tasks=4, pretrain_tokens=300, mt_tasks=6, mt_tokens=500, sft_tasks=4, sft_tokens=200,
                    eval_tasks=1, complete_funcs=1, max_actions=1, arms=("none", "static", "env", "ctx_env_half"),
                    model=SPEC)
    rows = {r["arm"]: r for r in run_seed((cfg, 0, pretrain_base(cfg, 0)))}
    assert {a: rows[a]["mt_tokens"] for a in rows} == {"none": 0, "static": 500, "env": 500, "ctx_env_half": 250}
    assert rows["env"]["mt_pool"] >= 1 and 0.0 <= rows["env"]["resolve"] <= 1.0
