"""[P23] training and the cache of trained models: the loss falls, a cached model is the trained one, the cache key
covers every field, evaluation rows line up with the task's tokens."""

import dataclasses

import numpy as np
import pytest
import torch

from icml26.papers.anira import (
    RecurrentConfig,
    RecurrentTransformer,
    depth_difficulty_rho,
    evaluate_tokens,
    pointer_chasing,
    train_recurrent,
)
from icml26.papers.anira._train import RunSpec, TaskSpec, cache_key, trained_model

TINY = RunSpec(task=TaskSpec("pointer", (("n_vars", (3, 5)), ("max_hops", 2)), (("n_vars", (6, 8)), ("max_hops", 3)),
                             ood_min_difficulty=3),
               method="anira_o_act", d_model=16, n_head=2, d_ff=16, max_depth=3, n_train=64, steps=3, batch_size=8)


def test_training_lowers_the_loss_and_uses_no_difficulty():
    task = pointer_chasing(400, n_vars=(4, 6), max_hops=2, n_names=10, n_values=4, seed=0)
    cfg = RecurrentConfig(vocab_sizes=task.vocab_sizes, n_classes=task.n_classes, d_model=24, n_head=2, d_ff=32,
                          max_depth=4, mode="early")
    model = RecurrentTransformer(cfg, seed=0)
    res = train_recurrent(model, task, steps=80, lr=3e-3, batch_size=32, seed=0)
    assert np.mean(res.losses[-10:]) < 0.8 * np.mean(res.losses[:10])
    scrambled = dataclasses.replace(task, difficulty=np.zeros_like(task.difficulty))
    again = RecurrentTransformer(cfg, seed=0)
    res2 = train_recurrent(again, scrambled, steps=80, lr=3e-3, batch_size=32, seed=0)
    assert res.losses == res2.losses  # the labels of difficulty never reach the model


def test_a_cached_model_is_the_trained_one(tmp_path, monkeypatch):
    a = trained_model(TINY, 1, cache_dir=tmp_path)
    folders = list((tmp_path / "anira").iterdir())
    assert len(folders) == 1 and (folders[0] / "model.pt").is_file()

    def no_training(*args, **kwargs):
        raise AssertionError("a cached model was retrained")

    monkeypatch.setattr("icml26.papers.anira._train._train", no_training)
    b = trained_model(TINY, 1, cache_dir=tmp_path)
    assert all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), b.state_dict().values()))
    monkeypatch.undo()
    c = trained_model(TINY, 1, cache_dir=None)  # no cache folder: trained in memory, the same weights
    assert all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), c.state_dict().values()))


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, tuple):
        return (*value, ("extra", 1))
    raise AssertionError(value)


def test_the_cache_key_covers_every_field():
    base = cache_key(TINY, 0)[1]
    assert cache_key(TINY, 1)[1] != base
    for f in dataclasses.fields(RunSpec):
        if f.name == "task":
            continue
        assert cache_key(dataclasses.replace(TINY, **{f.name: _changed(getattr(TINY, f.name))}), 0)[1] != base, f.name
    for f in dataclasses.fields(TaskSpec):
        task = dataclasses.replace(TINY.task, **{f.name: _changed(getattr(TINY.task, f.name))})
        assert cache_key(dataclasses.replace(TINY, task=task), 0)[1] != base, f.name


def test_evaluation_rows_follow_the_tokens():
    model = trained_model(TINY, 0, cache_dir=None)
    task = pointer_chasing(7, n_vars=(3, 6), max_hops=2, n_names=32, n_values=8, seed=9)
    res = evaluate_tokens(model, task, batch_size=3)
    n = task.n_tokens
    assert all(len(v) == n for v in res.values())
    assert np.array_equal(res["difficulty"], task.difficulty[task.mask])
    assert np.array_equal(res["seq"], np.nonzero(task.mask)[0])
    assert ((res["depth"] >= 1) & (res["depth"] <= 3)).all()
    with pytest.raises(ValueError, match="vocab_sizes"):
        train_recurrent(model, pointer_chasing(3, n_names=12, seed=0), steps=1, lr=1e-3, batch_size=2, seed=0)


def test_online_halting_learns_to_spend_more_on_more_hops():
    # [P23]'s central effect at toy size, with a fixed seed: ACT halting trained only on the task loss and the ponder
    # cost gives tokens with more pointer hops more iterations (the hop counts never reach the model)
    task = pointer_chasing(2000, n_vars=(6, 8), max_hops=3, seed=0)
    cfg = RecurrentConfig(vocab_sizes=task.vocab_sizes, n_classes=task.n_classes, d_model=24, n_head=2, d_ff=48,
                          max_depth=6, mode="online", halting="act", halt_bias=-1.0)
    model = RecurrentTransformer(cfg, seed=0)
    train_recurrent(model, task, steps=200, lr=3e-3, batch_size=32, seed=0)
    res = evaluate_tokens(model, pointer_chasing(200, n_vars=(6, 8), max_hops=3, seed=1))
    depth, hops = res["depth"], res["difficulty"]
    assert depth[hops >= 2].mean() > depth[hops == 0].mean() + 0.2
    assert depth_difficulty_rho(depth, hops) > 0.3
    assert res["correct"][hops == 0].mean() > 0.9  # the direct bindings are learned
