"""The [P02] transformers agent and judge on a tiny random Llama: padding, determinism, the tasks."""

import numpy as np
import pytest
import torch

from icml26.common.models import tiny_causal_lm
from icml26.papers.monitorability import InterventionEval, LMAgent, LMJudgeMonitor, arithmetic_tasks, episodes_of
from icml26.papers.monitorability._lm import next_token_logits, sample_text

MODEL, TOK = tiny_causal_lm(seed=0)


def test_arithmetic_tasks_are_well_formed() -> None:
    for t in arithmetic_tasks(50, seed=0):
        assert t.options[t.answer] == str(t.meta["a"] + t.meta["b"]) and len(set(t.options)) == 4
        assert t.target != t.answer and f"({'ABCD'[t.target]})" in t.treated_prompt


def test_left_padded_batch_equals_each_text_alone() -> None:
    texts = ["What is 1 + 2?", "A much longer question about 37 + 48, please"]
    batch = next_token_logits(MODEL, TOK, texts)
    for i, t in enumerate(texts):
        ids = torch.tensor([TOK.encode(t, add_special_tokens=False)])
        with torch.no_grad():
            alone = torch.log_softmax(MODEL(input_ids=ids).logits[0, -1].float(), dim=-1)
        assert torch.allclose(batch[i], alone, atol=1e-4)


def test_sampling_is_deterministic_in_its_generator() -> None:
    a = sample_text(MODEL, TOK, ["x", "yy"], max_new_tokens=5, temperature=1.0, generator=torch.Generator().manual_seed(1))
    b = sample_text(MODEL, TOK, ["x", "yy"], max_new_tokens=5, temperature=1.0, generator=torch.Generator().manual_seed(1))
    assert a == b and len(a) == 2


def test_agent_and_judge_run_the_intervention_eval() -> None:
    ev = InterventionEval()
    tasks = arithmetic_tasks(3, seed=1)
    agent = LMAgent(MODEL, TOK, cot=True, max_new_tokens=4, batch=4)
    eps = episodes_of(agent, ev, tasks, samples=2, followup=False, seed=0)
    again = episodes_of(agent, ev, tasks, samples=2, followup=False, seed=0)
    assert [e.transcript for e in eps] == [e.transcript for e in again]
    assert len(eps) == 12 and all(e.transcript.action in "ABCD" for e in eps)
    judge = LMJudgeMonitor(MODEL, TOK, "all", batch=4)
    views = [ev.view(e, "all") for e in eps]
    s = judge.scores(views)
    assert s.shape == (12,) and np.all(np.isfinite(s))
    labels = np.array([e.prompt.arm == "treatment" for e in eps], dtype=int)
    judge.fit(views, labels, seed=0)
    p = judge.predict_proba(views, seed=0)
    assert np.all((p >= 0) & (p <= 1))
    with pytest.raises(ValueError, match="temperature"):
        LMAgent(MODEL, TOK, cot=False, temperature=0.0)


def test_the_action_follows_the_option_the_cot_states() -> None:
    from icml26.papers.monitorability._lm import _stated

    assert _stated("I think (B), no wait, the answer is (D).") == "D"
    assert _stated("47 + 50 = 97") == "" and _stated("(E) is not an option") == ""
