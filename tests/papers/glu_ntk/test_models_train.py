"""Models (parameter matching, initialisation, seeding) and the training helpers of [P21]."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from icml26.papers.glu_ntk import (
    ACTIVATIONS,
    GATED,
    RegressionTask,
    TwoLayerMLP,
    count_params,
    digits_split,
    gaussian_regression_task,
    make_mlp,
    matched_glu_width,
    train_classifier,
    train_regression,
)


def _n_params(net: torch.nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())


def test_parameter_matching_is_exact_when_divisible():
    # d = 75, c = 1: m (d + c) = m' (2d + c)  <=>  76 m = 151 m'
    assert matched_glu_width(151, in_dim=75) == 76
    relu, reglu = make_mlp("relu", in_dim=75, width=302, seed=0), make_mlp("reglu", in_dim=75, width=302, seed=0)
    assert reglu.hidden == 152 and _n_params(relu) == _n_params(reglu) == 302 * 76


@settings(max_examples=50, deadline=None)
@given(m=st.integers(1, 5000), d=st.integers(1, 300), c=st.integers(1, 20), bias=st.booleans())
def test_parameter_matching_is_the_nearest_width(m, d, c, bias):
    mg = matched_glu_width(m, in_dim=d, out_dim=c, bias=bias)
    target = count_params(kind="relu", in_dim=d, hidden=m, out_dim=c, bias=bias)
    per_unit = 2 * d + c + (2 if bias else 0)
    diff = count_params(kind="reglu", in_dim=d, hidden=mg, out_dim=c, bias=bias) - target
    assert abs(diff) <= per_unit / 2 or mg == 1
    for other in (mg - 1, mg + 1):  # no other width is closer
        if other >= 1:
            assert abs(count_params(kind="reglu", in_dim=d, hidden=other, out_dim=c, bias=bias) - target) >= abs(diff)


@pytest.mark.parametrize("kind", sorted(ACTIVATIONS))
@pytest.mark.parametrize("bias", [False, True])
def test_count_params_matches_the_module(kind, bias):
    net = TwoLayerMLP(kind, in_dim=5, hidden=7, out_dim=3, bias=bias, seed=0)
    assert _n_params(net) == count_params(kind=kind, in_dim=5, hidden=7, out_dim=3, bias=bias)
    assert (net.P is not None) == (kind in GATED)
    assert net(torch.zeros(2, 5, dtype=torch.float64)).shape == (2, 3)


def test_lecun_init_and_seeding():
    a = TwoLayerMLP("swiglu", in_dim=400, hidden=300, seed=7)
    b = TwoLayerMLP("swiglu", in_dim=400, hidden=300, seed=7)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert not torch.equal(a.W.weight, TwoLayerMLP("swiglu", in_dim=400, hidden=300, seed=8).W.weight)
    for lin in (a.W, a.P, a.V):
        assert float(lin.weight.detach().std()) == pytest.approx(1 / math.sqrt(lin.in_features), rel=0.05)


@pytest.mark.parametrize("kind", ["relu", "swiglu"])
@pytest.mark.parametrize("seed", [0, "generator"])
def test_building_a_model_leaves_the_global_torch_rng_alone(kind, seed):
    seed = torch.Generator().manual_seed(3) if seed == "generator" else seed
    before = torch.get_rng_state()
    net = make_mlp(kind, in_dim=6, width=8, seed=seed, bias=True)
    assert torch.equal(torch.get_rng_state(), before)
    assert net.W.weight.shape[1] == 6  # the model was built


def test_gated_forward_is_gate_times_activation():
    net = TwoLayerMLP("geglu", in_dim=3, hidden=4, seed=1)
    x = torch.randn(5, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    expected = net.V(net.P(x) * torch.nn.functional.gelu(net.W(x)))
    torch.testing.assert_close(net(x), expected)


def test_model_rejects_bad_arguments():
    with pytest.raises(ValueError, match="kind must be one of"):
        TwoLayerMLP("tanh", in_dim=2, hidden=2, seed=0)
    with pytest.raises(ValueError, match="hidden must be an int >= 1"):
        TwoLayerMLP("relu", in_dim=2, hidden=0, seed=0)
    with pytest.raises(TypeError, match="in_dim must be an int"):
        TwoLayerMLP("relu", in_dim=2.0, hidden=2, seed=0)
    with pytest.raises(TypeError, match="seed must be"):
        TwoLayerMLP("relu", in_dim=2, hidden=2, seed="x")
    with pytest.raises(TypeError, match="dtype"):
        TwoLayerMLP("relu", in_dim=2, hidden=2, seed=0, dtype=torch.int64)
    with pytest.raises(ValueError, match="width must be an int >= 1"):
        matched_glu_width(0, in_dim=3)
    with pytest.raises(ValueError, match="width must be an int >= 1"):
        make_mlp("reglu", in_dim=3, width=-2, seed=0)


def test_seed_is_required_so_default_builds_are_reproducible():
    with pytest.raises(TypeError, match="seed"):
        TwoLayerMLP("relu", in_dim=2, hidden=2)  # no OS-entropy default any more
    with pytest.raises(TypeError, match="seed"):
        make_mlp("reglu", in_dim=2, width=4)
    with pytest.raises(TypeError, match="seed must be an int >= 0 or a torch.Generator"):
        make_mlp("reglu", in_dim=2, width=4, seed=None)
    with pytest.raises(ValueError, match="seed must be an int >= 0"):
        make_mlp("reglu", in_dim=2, width=4, seed=-1)  # torch would silently wrap a negative seed
    a, b = (make_mlp("reglu", in_dim=4, width=6, seed=torch.Generator().manual_seed(5)) for _ in range(2))
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_regression_training_lowers_the_loss_and_is_deterministic():
    task = gaussian_regression_task(128, 8, seed=0)
    runs = [train_regression(make_mlp("reglu", in_dim=8, width=64, seed=0), task, lr=0.05, epochs=15,
                             batch_size=32, seed=1) for _ in range(2)]
    assert (runs[0] == runs[1]).all()
    assert runs[0][0] == pytest.approx(0.5 * float((task.y**2).mean()))  # zero-output start
    assert runs[0][-1] < 0.5 * runs[0][0]
    with pytest.raises(ValueError, match="lr must be"):
        train_regression(make_mlp("relu", in_dim=8, width=4, seed=0), task, lr=0.0, epochs=1, batch_size=4, seed=0)
    with pytest.raises(ValueError, match="noise must be"):
        gaussian_regression_task(4, 2, noise=float("nan"), seed=0)


def test_digits_split_and_classifier():
    data = digits_split(seed=0, n_max=300)
    Xtr, ytr, Xte, _yte = data
    assert Xtr.shape[1] == 64 and Xtr.shape[0] + Xte.shape[0] == 300
    assert 0.0 <= float(Xtr.min()) <= float(Xtr.max()) <= 1.0
    assert set(ytr.tolist()) == set(range(10))
    h = train_classifier(make_mlp("reglu", in_dim=64, width=32, out_dim=10, seed=0, dtype=torch.float32), data,
                         epochs=5, seed=0)
    assert h.train_loss.shape == (6,) and h.train_loss[-1] < h.train_loss[0]
    assert h.first_epoch_below(float(h.train_loss[0]) + 1) == 0 and h.first_epoch_below(-1.0) is None
    with pytest.raises(ValueError, match="test_fraction"):
        digits_split(test_fraction=1.5, seed=0)
    with pytest.raises(ValueError, match="epochs must be"):
        train_classifier(make_mlp("relu", in_dim=64, width=4, out_dim=10, seed=0), data, epochs=0, seed=0)


def test_regression_task_rejects_non_finite_and_mismatched_data():
    X, y = torch.zeros(4, 3, dtype=torch.float64), torch.zeros(4, dtype=torch.float64)
    bad_y = y.clone()
    bad_y[1] = float("nan")
    with pytest.raises(ValueError, match="y must be finite"):
        RegressionTask(X=X, y=bad_y)
    bad_X = X.clone()
    bad_X[2, 0] = float("inf")
    with pytest.raises(ValueError, match="X must be finite"):
        RegressionTask(X=bad_X, y=y)
    with pytest.raises(ValueError, match="y must have shape"):
        RegressionTask(X=X, y=torch.zeros(5, dtype=torch.float64))
    with pytest.raises(ValueError, match="X must be 2-D"):
        RegressionTask(X=torch.zeros(4, dtype=torch.float64), y=y)
    with pytest.raises(TypeError, match="y must be a floating-point"):
        RegressionTask(X=X, y=torch.zeros(4, dtype=torch.int64))
    with pytest.raises(TypeError, match="task must be a RegressionTask"):
        train_regression(make_mlp("relu", in_dim=3, width=4, seed=0), (X, y), lr=0.1, epochs=1, batch_size=4,
                         seed=0)


def test_data_and_training_helpers_require_an_int_seed():
    with pytest.raises(TypeError, match="seed must be an int"):
        gaussian_regression_task(4, 2, seed=None)
    task = gaussian_regression_task(8, 2, seed=0)
    with pytest.raises(TypeError, match="seed must be an int"):
        train_regression(make_mlp("relu", in_dim=2, width=4, seed=0), task, lr=0.1, epochs=1, batch_size=4,
                         seed=None)
    with pytest.raises(TypeError, match="seed must be an int"):
        digits_split(seed=None)


def test_regression_training_rejects_multi_output_models():
    task = gaussian_regression_task(16, 3, seed=0)
    with pytest.raises(ValueError, match="out_dim=1"):
        train_regression(make_mlp("relu", in_dim=3, width=4, out_dim=2, seed=0), task, lr=0.1, epochs=1,
                         batch_size=4, seed=0)


def test_training_rejects_a_model_whose_in_dim_differs_from_the_data():
    task = gaussian_regression_task(10, 5, seed=0)
    with pytest.raises(ValueError, match=r"task has d=5 features but the model expects in_dim=7"):
        train_regression(make_mlp("relu", in_dim=7, width=8, seed=0), task, lr=0.01, epochs=1, batch_size=4, seed=0)
    data = digits_split(n_max=100, seed=0)  # 64 features
    with pytest.raises(ValueError, match=r"X_train has d=64 features but the model expects in_dim=7"):
        train_classifier(make_mlp("relu", in_dim=7, width=8, out_dim=10, seed=0), data, epochs=1, seed=0)
