"""The [P09] losses against oracles: POT's numpy backend, hand-computed values, finite differences, invariances."""

import math

import numpy as np
import ot
import pytest
import torch
from scipy.spatial.distance import cdist

from icml26.papers.mfedpba import class_distances, gw_alignment, logit_distillation, proto_infonce


def _points(n=6, d=3, seed=0):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal((n, d)))


def test_gw_is_zero_for_identical_geometries_and_isometric_copies() -> None:
    x = _points()
    d = class_distances(x)
    assert float(gw_alignment(d, d)) < 1e-12
    q, _ = np.linalg.qr(np.random.default_rng(1).standard_normal((5, 5)))
    lifted = torch.cat([x, torch.zeros(6, 2, dtype=x.dtype)], 1) @ torch.from_numpy(q) + 3.0  # rotate, shift, in 5-D
    assert float(gw_alignment(d, class_distances(lifted))) < 1e-12  # defined across dimensions


def test_gw_is_invariant_to_class_permutations() -> None:
    d1, d2 = class_distances(_points(seed=2)), class_distances(_points(seed=3, d=4))
    base = float(gw_alignment(d1, d2))
    assert base > 1e-3
    for s in range(3):
        p = torch.from_numpy(np.random.default_rng(10 + s).permutation(6))
        both = float(gw_alignment(d1[p][:, p], d2[p][:, p]))  # the same relabelling of the classes on both sides
        one = float(gw_alignment(d1[p][:, p], d2))  # GW never uses the labels at all
        assert both == pytest.approx(base, rel=1e-9) and one == pytest.approx(base, rel=1e-9)


def test_gw_matches_pot_numpy_backend_and_is_symmetric() -> None:
    d1, d2 = class_distances(_points(seed=4)), class_distances(_points(n=4, seed=5))  # 6 vs 4 classes
    want = ot.gromov.gromov_wasserstein2(d1.numpy(), d2.numpy(), ot.unif(6), ot.unif(4), loss_fun="square_loss")
    assert float(gw_alignment(d1, d2)) == pytest.approx(float(want), rel=1e-10)
    assert float(gw_alignment(d2, d1)) == pytest.approx(float(want), rel=1e-8)


def test_gw_gradient_reaches_the_points_and_matches_finite_differences() -> None:
    x = _points(seed=6).requires_grad_(True)
    target = class_distances(_points(seed=7, d=5))
    v = gw_alignment(class_distances(x), target)
    v.backward()
    assert x.grad is not None and float(x.grad.norm()) > 1e-6
    e = torch.from_numpy(np.random.default_rng(8).standard_normal(x.shape))
    h = 1e-6
    with torch.no_grad():
        up = float(gw_alignment(class_distances(x + h * e), target))
        down = float(gw_alignment(class_distances(x - h * e), target))
    assert (up - down) / (2 * h) == pytest.approx(float((x.grad * e).sum()), rel=1e-4)


def test_class_distances_match_scipy() -> None:
    x = _points(seed=9)
    np.testing.assert_allclose(class_distances(x).numpy(), cdist(x.numpy(), x.numpy()), atol=1e-12)


def test_infonce_against_hand_computed_values() -> None:
    g = torch.tensor([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    z = torch.tensor([[3.0, 0.0], [0.0, 0.5]])  # normalised: e1 (class 0), e2 (class 1)
    present = np.array([True, True, False])  # class 2 has no global prototype: left out of the denominator
    got = proto_infonce(z, torch.tensor([0, 1]), g, tau=0.5, present=present)
    assert float(got) == pytest.approx(math.log(1 + math.exp(-2.0)), rel=1e-6)  # s = (2, 0) for both samples
    wrong = proto_infonce(z, torch.tensor([1, 0]), g, tau=0.5, present=present)
    assert float(wrong) == pytest.approx(math.log(1 + math.exp(2.0)), rel=1e-6)
    diag = proto_infonce(torch.tensor([[1.0, 1.0]]), torch.tensor([0]), g, tau=0.1, present=present)
    assert float(diag) == pytest.approx(math.log(2.0), rel=1e-6)  # equally similar to both present prototypes
    # with class 2 present: cos((1,0), (1,1)/√2) = 1/√2 enters the denominator
    full = proto_infonce(z[:1], torch.tensor([0]), g, tau=0.5)
    want = -math.log(math.exp(2.0) / (math.exp(2.0) + 1.0 + math.exp(math.sqrt(2.0))))
    assert float(full) == pytest.approx(want, rel=1e-6)


def test_infonce_skips_samples_without_a_prototype_and_keeps_the_gradient() -> None:
    z = torch.randn(4, 3, generator=torch.Generator().manual_seed(0), requires_grad=True)
    g = torch.randn(3, 3, generator=torch.Generator().manual_seed(1))
    none = proto_infonce(z, torch.tensor([2, 2, 2, 2]), g, present=np.array([True, True, False]))
    assert float(none.detach()) == 0.0
    loss = proto_infonce(z, torch.tensor([0, 1, 0, 1]), g)
    loss.backward()
    assert z.grad is not None and float(z.grad.abs().sum()) > 0


def test_distillation_against_a_hand_computed_kl() -> None:
    logits = torch.zeros(1, 2, dtype=torch.float64)
    glob = torch.tensor([[math.log(3.0), 0.0], [0.0, 0.0]], dtype=torch.float64)
    t1 = logit_distillation(logits, torch.tensor([0]), glob, temperature=1.0)
    assert float(t1) == pytest.approx(0.75 * math.log(1.5) + 0.25 * math.log(0.5), rel=1e-6)
    p = math.sqrt(3.0) / (math.sqrt(3.0) + 1.0)  # softmax((ln 3, 0) / 2)
    t2 = logit_distillation(logits, torch.tensor([0]), glob, temperature=2.0)
    assert float(t2) == pytest.approx(4.0 * (p * math.log(2 * p) + (1 - p) * math.log(2 * (1 - p))), rel=1e-6)
    assert float(logit_distillation(logits, torch.tensor([1]), glob)) == pytest.approx(0.0, abs=1e-7)


@pytest.mark.parametrize("bad", [np.ones((3, 4)), -np.ones((3, 3))])
def test_gw_refuses_what_is_not_a_distance_matrix(bad) -> None:
    with pytest.raises(ValueError, match="d_client"):
        gw_alignment(bad, np.zeros((3, 3)))


def test_losses_refuse_mismatched_shapes() -> None:
    with pytest.raises(ValueError, match="prototypes"):
        proto_infonce(np.ones((2, 3)), np.array([0, 1]), np.ones((2, 4)))
    with pytest.raises(ValueError, match="y must have length 2"):
        proto_infonce(np.ones((2, 3)), np.array([0, 1, 1]), np.ones((2, 3)))
    with pytest.raises(ValueError, match="n_classes"):
        proto_infonce(np.ones((2, 3)), np.array([0, 5]), np.ones((2, 3)))
    with pytest.raises(ValueError, match="global_logits"):
        logit_distillation(np.ones((2, 3)), np.array([0, 1]), np.ones((2, 3)))
    with pytest.raises(ValueError, match="present"):
        proto_infonce(np.ones((2, 3)), np.array([0, 1]), np.ones((2, 3)), present=np.array([1, 1]))
    with pytest.raises(ValueError, match="p must be a probability"):
        gw_alignment(np.zeros((2, 2)), np.zeros((2, 2)), p=np.array([0.2, 0.2]))
