"""The MQAR task of [P30]'s accuracy claim: layout, labels, filler, and a model that learns it."""

import pytest
import torch

from icml26.papers.unisparse import MQARTask, mqar_batch
from icml26.papers.unisparse._mqar import mqar_accuracy, mqar_model, train_mqar

TASK = MQARTask(n=200, pairs=6, span=3)


def test_layout_and_labels() -> None:
    x, y = mqar_batch(TASK, batch=8, seed=0)
    assert x.shape == y.shape == (8, 200)
    for b in range(8):
        facts = {int(t) for t in x[b] if t < TASK.query0}
        queries = (x[b] >= TASK.query0) & (x[b] < TASK.noise0)
        assert len(facts) == 6 and int(queries.sum()) == 6 * 3
        assert int(torch.nonzero(queries).min()) >= TASK.n_context  # questions after the context
        for pos in torch.nonzero(queries)[:, 0].tolist():
            key = int(x[b, pos]) - TASK.query0
            value = next(f % TASK.values for f in facts if f // TASK.values == key)
            assert int(y[b, pos]) == TASK.answer0 + value
            fact_pos = [p for p in range(pos) if int(x[b, p]) == key * TASK.values + value]
            assert len(fact_pos) == 3 and fact_pos == list(range(fact_pos[0], fact_pos[0] + 3))


def test_filler_repeats_two_back_and_is_labelled_where_predictable() -> None:
    x, y = mqar_batch(TASK, batch=4, seed=1)
    filler = x >= TASK.noise0
    lab = (y >= 0) & (y < TASK.answer0)
    for b in range(4):
        for t in torch.nonzero(lab[b])[:, 0].tolist():
            assert filler[b, t] and filler[b, t + 1] and filler[b, t - 1] and int(y[b, t]) == int(x[b, t + 1])
            assert int(x[b, t + 1]) == int(x[b, t - 1])
    assert torch.equal(mqar_batch(TASK, batch=4, seed=1)[0], x)


def test_bad_tasks() -> None:
    with pytest.raises(ValueError, match="pairs"):
        MQARTask(n=200, pairs=20, keys=16)
    with pytest.raises(ValueError, match="spans"):
        MQARTask(n=40, pairs=8)
    with pytest.raises(TypeError, match="task"):
        mqar_batch("task", batch=2, seed=0)  # type: ignore[arg-type]


def test_training_is_deterministic_and_learns() -> None:
    task = MQARTask(n=64, pairs=2, span=2, keys=4, values=4, noise=4)
    a, b = (mqar_model(task, seed=0, hidden=32) for _ in range(2))
    la = train_mqar(a, [(task, 60, 16)], lr=3e-3, seed=0)
    lb = train_mqar(b, [(task, 60, 16)], lr=3e-3, seed=0)
    assert la == lb and sum(la[-10:]) < 0.8 * sum(la[:10])
    x, y = mqar_batch(task, batch=8, seed=9)
    r = mqar_accuracy(a, task, x, y, method=None)
    assert r["queries"] == [4] * 8 and 0 <= sum(r["correct"]) <= 32 and r["density"] == 1.0
