"""[P29] evaluation runs: held-out episodes disjoint from training, and the text baseline reading the drafter's memory."""

import numpy as np

from icml26.papers.memocr import _runs, _train, draft_memory, make_episode, train_layout_policy
from icml26.papers.memocr._runs import CHARS_PER_TOKEN, eval_seed, run_seed
from icml26.papers.memocr.claims import RunConfig


def test_evaluation_episodes_are_not_training_episodes(monkeypatch):
    seen: dict[str, list[int]] = {"train": [], "eval": []}

    def spy(where):
        def make(**kw):
            seen[where].append(kw["seed"])
            return make_episode(**kw)
        return make

    monkeypatch.setattr(_train, "make_episode", spy("train"))
    monkeypatch.setattr(_runs, "make_episode", spy("eval"))
    cfg = RunConfig(reader="geometric", episodes=3, questions=2, train_steps=10, budgets=(16, 1024))
    out = run_seed((cfg, 0))
    assert len(seen["train"]) == 10 and len(seen["eval"]) == 3
    assert not set(seen["train"]) & set(seen["eval"])
    assert tuple(seen["train"]) == train_layout_policy(steps=10, seed=0).episode_seeds
    assert {r["method"] for r in out["rows"]} == {"layout", "uniform", "text", "text_context_order", "random"}


def test_a_training_seed_is_never_an_evaluation_seed():
    first = int(np.random.default_rng(7).integers(1 << 31))
    assert eval_seed(np.random.default_rng(7), set()) == first
    assert eval_seed(np.random.default_rng(7), {first}) != first


def test_text_baseline_is_the_drafters_memory_as_text():
    """``text`` keeps the drafter's selection (promoted facts first): with the evidence promoted it answers at a
    budget whose characters hold just the evidence, where the context-order truncation cannot."""
    ep = make_episode(seed=4)
    q = next(q for q in ep.questions if min(q.evidence) >= 8)  # the evidence is not among the first facts
    mask = np.zeros(len(ep.facts), dtype=bool)
    mask[list(q.evidence)] = True
    b = -(-sum(len(ep.facts[i].text) + 1 for i in q.evidence) // CHARS_PER_TOKEN)
    cfg = RunConfig(reader="geometric", budgets=(b,), random_budgets=())
    got = {r["method"]: r["correct"] for r in _runs._question_rows(None, ep, q, mask, mask, cfg)}
    assert got["text"] and not got["text_context_order"]
    assert " ".join(draft_memory(ep, mask).replace("# ", "").splitlines()).startswith(ep.facts[min(q.evidence)].text)
