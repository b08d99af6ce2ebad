"""Training to the plateau, the capacity sweep, the bits-per-parameter fit and membership inference of [P01]."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
import torch
from sklearn.metrics import roc_auc_score

from icml26.papers.capacity import (
    TrainConfig,
    UniformReference,
    capacity_sweep,
    fit_bits_per_param,
    fit_to_plateau,
    make_model,
    membership_inference,
    memorization_bits,
)
from icml26.papers.capacity._train import plateau_reached

FAST = TrainConfig(lr=3e-2, batch_size=64, max_steps=60, eval_every=20, patience=2, min_delta_bits=0.02)


def test_worked_example_a_tiny_gpt_memorises_a_few_random_sequences():
    V, S, N = 8, 8, 4
    x = np.random.default_rng(0).integers(0, V, size=(N, S))
    model = make_model(1, 8, vocab_size=V, seq_len=S, seed=0)
    before = memorization_bits(model, x, UniformReference(V))
    res = fit_to_plateau(model, x, config=TrainConfig(lr=3e-2, batch_size=N, max_steps=300, eval_every=25,
                                                      patience=2, min_delta_bits=0.01), seed=0)
    after = memorization_bits(model, x, UniformReference(V))
    data_bits = N * S * math.log2(V)  # 96 bits
    assert before < 0.05 * data_bits  # an untrained model knows nothing about these sequences
    assert 0.8 * data_bits < after <= data_bits  # 4 sequences fit easily in ~1.7K parameters
    assert res.stopped_early  # it stopped on the plateau, not at max_steps


@dataclass(frozen=True)
class _Scores:
    """A stand-in 'model' with prescribed code lengths (the Reference protocol): x[:, 0] indexes ``bits``."""

    bits: np.ndarray
    vocab_size: int = 1000

    def code_lengths(self, dataset: np.ndarray) -> np.ndarray:
        return self.bits[np.asarray(dataset)[:, 0]]


def test_membership_inference_auc_matches_sklearn_with_ties():
    g = np.random.default_rng(0)
    bits = np.round(g.normal(10, 2, size=200), 0)  # rounding creates ties
    coder = _Scores(bits)
    members, non = np.arange(0, 120)[:, None], np.arange(120, 200)[:, None]
    mia = membership_inference(coder, members, non)
    y = np.r_[np.ones(120), np.zeros(80)]
    assert mia.auc == pytest.approx(roc_auc_score(y, -bits), abs=1e-12)
    assert (mia.n_members, mia.n_non_members) == (120, 80)


def test_membership_inference_extremes():
    coder = _Scores(np.r_[np.zeros(50), np.full(50, 9.0)])
    perfect = membership_inference(coder, np.arange(50)[:, None], np.arange(50, 100)[:, None])
    assert perfect.auc == 1.0 and perfect.f1 == 1.0
    same = membership_inference(_Scores(np.ones(100)), np.arange(50)[:, None], np.arange(50, 100)[:, None])
    assert same.auc == 0.5


def test_bits_per_param_fit_recovers_an_exact_line():
    P = np.array([1000, 2000, 4000, 8000])
    fit = fit_bits_per_param(P, 3.6 * P)
    assert fit.alpha.value == pytest.approx(3.6) and fit.alpha.lo == pytest.approx(3.6)
    assert fit.r2 == pytest.approx(1.0) and fit.slope == pytest.approx(1.0)
    noisy = fit_bits_per_param(P, 3.6 * P * np.array([0.9, 1.1, 0.95, 1.05]))
    assert noisy.alpha.lo < noisy.alpha.value < noisy.alpha.hi
    with pytest.raises(ValueError, match="n_params"):
        fit_bits_per_param([0, 1], [1, 2])
    with pytest.raises(ValueError, match="equal length"):
        fit_bits_per_param([1, 2], [1])
    for bad in (0, -1):
        with pytest.raises(ValueError, match="n_boot"):
            fit_bits_per_param(P, 3.6 * P, n_boot=bad)
    with pytest.raises(TypeError, match="n_boot"):
        fit_bits_per_param(P, 3.6 * P, n_boot=2.5)
    assert fit_bits_per_param(P, 3.6 * P, n_boot=1).alpha.value == pytest.approx(3.6)


def test_capacity_sweep_rows_plateaus_and_determinism():
    kw = dict(seeds=(0,), vocab_size=8, seq_len=8, train=FAST)
    a = capacity_sweep([(1, 4)], [4, 16], **kw)
    assert [(r["n_sequences"], r["seed"]) for r in a.rows] == [(4, 0), (16, 0)]
    for r in a.rows:
        assert 0 <= r["mem_bits"] <= r["dataset_bits"] == pytest.approx(r["n_sequences"] * 8 * 3)
    (pl,) = a.plateaus()
    assert pl["capacity_bits"] == max(r["mem_bits"] for r in a.rows)
    assert a.fit().alpha.value == pytest.approx(pl["capacity_bits"] / pl["n_params"])
    b = capacity_sweep([(1, 4)], [4, 16], mapper=lambda f, xs: [f(x) for x in xs], **kw)
    assert a.rows == b.rows  # same seed, same numbers


def test_markov_sweep_reports_heldout_control():
    sw = capacity_sweep([(1, 4)], {(1, 4): [8]}, seeds=(1,), vocab_size=4, seq_len=6, data="markov", train=FAST)
    (r,) = sw.rows
    assert r["data"] == "markov" and r["mem_bits_heldout"] >= 0 and 0.0 <= r["mia_auc"] <= 1.0
    assert r["ref_bits_per_token"] < math.log2(4)  # a Dirichlet(0.1) chain is far from uniform


def test_sweep_and_training_bad_input():
    with pytest.raises(ValueError, match="model_sizes"):
        capacity_sweep([], [4])
    with pytest.raises(ValueError, match="model_sizes"):
        capacity_sweep([(1, 5)], [4])  # d_model not divisible by n_head=2
    with pytest.raises(ValueError, match="data must be one of"):
        capacity_sweep([(1, 4)], [4], data="text")
    with pytest.raises(ValueError, match="dataset_sizes"):
        capacity_sweep([(1, 4)], [0])
    m = make_model(1, 4, vocab_size=8, seq_len=4)
    with pytest.raises(ValueError, match="block_size"):
        fit_to_plateau(m, np.zeros((2, 5), dtype=np.int64), config=FAST)
    with pytest.raises(ValueError, match="dataset must not be empty"):
        fit_to_plateau(m, np.zeros((0, 4), dtype=np.int64), config=FAST)
    with pytest.raises(ValueError, match="TrainConfig"):
        TrainConfig(lr=0.0)
    with pytest.raises(ValueError, match="vocab_size"):
        make_model(1, 4, vocab_size=1, seq_len=4)


def test_sweep_points_can_be_shipped_to_workers():
    """ctx.map may send run_point and its SweepPoint to Ray workers: both must pickle."""
    import pickle

    from icml26.papers.capacity import SweepPoint, run_point

    with pytest.raises(TypeError):
        SweepPoint(1, 4, 8, 0)  # hyper-parameters are keyword-only
    with pytest.raises(TypeError):
        TrainConfig(3e-3)
    p = SweepPoint(n_layer=1, d_model=4, n_sequences=8, seed=0, vocab_size=8, seq_len=8, train=FAST)
    assert pickle.loads(pickle.dumps(p)) == p
    assert pickle.loads(pickle.dumps(run_point)) is run_point


# ---- the saturation rule ----------------------------------------------------------------------------------------
def test_plateau_rule_does_not_stop_while_the_loss_still_falls_by_more_than_the_tolerance():
    V, patience, rel_tol = 16, 5, 0.005
    loss = 3.9 - 0.002 * np.arange(400)  # falls 0.01 bits/token per window of 5 checks
    for t in range(1, loss.size + 1):  # learnt <= 0.8 bits/token, so the tolerance <= 0.004 < 0.01 gained
        assert not plateau_reached(loss[:t], vocab_size=V, patience=patience, rel_tol=rel_tol)
    flat = np.r_[loss, np.full(patience, loss[-1] - 1e-4)]  # then the gain over a window drops below tolerance
    assert plateau_reached(flat, vocab_size=V, patience=patience, rel_tol=rel_tol)


def test_plateau_tolerance_is_relative_to_the_bits_learnt():
    hist = [2.0, 1.99, 1.98]  # 0.02 bits/token gained over 2 checks
    assert not plateau_reached(hist, vocab_size=4, patience=2, rel_tol=0.05)  # learnt 0.02 -> tol 0.001
    assert plateau_reached(hist, vocab_size=1024, patience=2, rel_tol=0.05)  # learnt 8.02 -> tol 0.4
    assert plateau_reached(hist, vocab_size=4, patience=2, min_delta_bits=0.03)  # the absolute floor
    assert not plateau_reached(hist[:2], vocab_size=1024, patience=2, rel_tol=0.05)  # window not full yet


def test_fit_to_plateau_steps_the_lr_down_and_respects_min_epochs():
    V, S, N = 8, 8, 8
    x = np.random.default_rng(1).integers(0, V, size=(N, S))
    cfg = TrainConfig(lr=3e-2, batch_size=4, max_steps=400, eval_every=10, patience=2, min_delta_bits=5.0,
                      lr_decay=0.5, n_decays=2, min_epochs=20)  # a huge floor: every window is a plateau
    res = fit_to_plateau(make_model(1, 8, vocab_size=V, seq_len=S, seed=0), x, config=cfg, seed=0)
    # min_epochs: 20 passes of 8 sequences in batches of 4 = 40 steps before the first plateau may count; then two
    # lr step-downs, each restarting a 2-check window (20 steps), then the final plateau
    assert res.stopped_early and res.steps == 40 + 20 + 20


def test_plateau_rule_rejects_bad_arguments():
    with pytest.raises(ValueError, match="patience"):
        plateau_reached([1.0, 1.0], vocab_size=4, patience=0)
    with pytest.raises(ValueError, match="vocab_size"):
        plateau_reached([1.0, 1.0], vocab_size=1, patience=1)
    with pytest.raises(ValueError, match="lr_decay"):
        TrainConfig(lr_decay=0.0)


def test_int_sizes_and_train_config_fields_refuse_bools():
    with pytest.raises(TypeError, match="n_layer must be an int"):
        make_model(True, 8, vocab_size=8, seq_len=8)
    with pytest.raises(TypeError, match="d_model must be an int"):
        make_model(1, True, vocab_size=8, seq_len=8)
    for name in ("vocab_size", "seq_len", "n_head", "seed"):
        with pytest.raises(TypeError, match=f"{name} must be an int"):
            make_model(1, 8, **{"vocab_size": 8, "seq_len": 8, name: True})
    with pytest.raises(ValueError, match="n_layer must be an int >= 1, got 0"):
        make_model(0, 8, vocab_size=8, seq_len=8)
    assert make_model(np.int64(1), 8, vocab_size=8, seq_len=4).cfg.n_layer == 1
    for name in ("batch_size", "max_steps", "eval_every", "patience", "n_decays"):
        with pytest.raises(TypeError, match=f"TrainConfig.{name} must be an int, got bool"):
            TrainConfig(**{name: True})
    with pytest.raises(TypeError, match="TrainConfig.lr must be a real number"):
        TrainConfig(lr=True)


def test_train_config_errors_name_the_field_and_value():
    for name, bad in (("batch_size", 0), ("max_steps", 0), ("eval_every", -1), ("patience", 0), ("n_decays", -1)):
        with pytest.raises(ValueError, match=rf"TrainConfig\.{name} must be an int >= \d, got {bad}"):
            TrainConfig(**{name: bad})
    with pytest.raises(ValueError, match=r"TrainConfig\.lr must be finite and > 0, got 0\.0"):
        TrainConfig(lr=0.0)
    with pytest.raises(ValueError, match=r"TrainConfig\.lr_decay must lie in \(0, 1\], got 1\.5"):
        TrainConfig(lr_decay=1.5)
    with pytest.raises(ValueError, match=r"TrainConfig\.rel_tol must be finite and >= 0, got -0\.1"):
        TrainConfig(rel_tol=-0.1)


def test_fit_to_plateau_refuses_a_dict_config():
    m = make_model(1, 4, vocab_size=8, seq_len=4)
    x = np.zeros((2, 4), dtype=np.int64)
    with pytest.raises(TypeError, match=r"config must be a TrainConfig.*got dict"):
        fit_to_plateau(m, x, config={"lr": 1e-2})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="model must be a TinyGPT"):
        fit_to_plateau(torch.nn.Linear(2, 2), x, config=FAST)  # type: ignore[arg-type]
