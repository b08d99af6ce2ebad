"""[P16] the self-evolving loop: it never reads a label (sentinel), it learns, and it is deterministic."""

import numpy as np
import pytest
import torch

from icml26.papers.agent0vl import (
    SERCConfig,
    Task,
    ToyVLM,
    accuracy,
    cold_start,
    make_tasks,
    oracle_grpo,
    serc,
    verifier_scores,
)

TINY = SERCConfig(iterations=1, steps=2, batch=4, group=4)


class LabelRead(AssertionError):
    pass


class Sentinel:
    """Stands in for a task's label: any use of it (attribute, comparison, hash, truth, number) raises."""

    def __getattribute__(self, name):
        raise LabelRead(f"the loop read label.{name}")

    def __eq__(self, other):
        raise LabelRead("the loop compared a label")

    def __hash__(self):
        raise LabelRead("the loop hashed a label")

    def __bool__(self):
        raise LabelRead("the loop tested a label")


def _poisoned(tasks):
    return [Task(t.image, t.layout, t.question, Sentinel()) for t in tasks]


def _policy(tasks, seed=0):
    return cold_start(ToyVLM(hidden=16, seed=seed), tasks, steps=20, seed=seed)


def test_serc_never_reads_a_label():
    tasks = make_tasks(16, seed=0)
    policy = _policy(tasks)
    before = [p.detach().clone() for p in policy.parameters()]
    hist = serc(policy, _poisoned(tasks), TINY, seed=0)
    assert len(hist) == 1 and np.isfinite(hist[0]["reward"])
    assert any(not torch.equal(a, b) for a, b in zip(before, policy.parameters()))  # it did update


def test_serc_text_only_never_reads_a_label():
    tasks = make_tasks(16, seed=1)
    serc(_policy(tasks), _poisoned(tasks), SERCConfig(iterations=1, steps=2, batch=4, group=4, tool_grounded=False),
         seed=0)


def test_the_sentinel_catches_a_loop_that_reads_labels():
    """The oracle arm reads labels by design: the same sentinel stops it, so the test above can fail."""
    tasks = make_tasks(16, seed=0)
    with pytest.raises(LabelRead):
        oracle_grpo(_policy(tasks), _poisoned(tasks), TINY, seed=0)


def test_serc_is_deterministic():
    tasks = make_tasks(16, seed=2)
    a, b = _policy(tasks), _policy(tasks)
    ha, hb = serc(a, tasks, TINY, seed=3), serc(b, tasks, TINY, seed=3)
    assert ha == hb and all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters()))


def test_tool_grounded_serc_raises_tool_use_and_accuracy():
    """A short run: the share of tool calls grows and held-out accuracy does not fall (the full check is the claim)."""
    train, test = make_tasks(48, seed=4), make_tasks(40, seed=5)
    policy = cold_start(ToyVLM(hidden=32, seed=0), train, steps=150, seed=0)
    acc = []
    hist = serc(policy, train, SERCConfig(iterations=2, steps=4, batch=8, group=4), seed=0,
                on_iteration=lambda k, p: acc.append(accuracy(p, test, samples=2, seed=1)))
    assert len(acc) == 3 and hist[-1]["tool_use"] > hist[0]["tool_use"] - 0.02
    assert acc[-1] >= acc[0]


def test_config_refuses_a_group_of_one():
    with pytest.raises(ValueError, match="group"):
        SERCConfig(group=1)


def test_verifier_scores_pair_every_step_with_its_truth():
    tasks = make_tasks(12, seed=6, noise=0.1)
    sc = verifier_scores(_policy(tasks), tasks, samples=2, seed=0)
    n = len(sc["correct"])
    assert n > 0 and all(len(v) == n for v in sc.values())
    assert all(c in (0.0, 1.0) for c in sc["correct"])
    assert all(u >= x for u, x in zip(sc["trusting"], sc["text"]))  # trusting only raises tool outputs to the top
