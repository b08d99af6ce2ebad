"""[P23] depth decisions against hand computations and closed forms: the straight-through router (forward one-hot,
backward the softmax Jacobian), ACT's halting distribution and ponder cost, PonderNet's distribution and its KL to
the truncated geometric prior."""

import math

import pytest
import torch

from icml26.papers.anira import (
    act_halting,
    alive_from_depth,
    expected_depth,
    geometric_prior,
    ponder_distribution,
    ponder_kl,
    straight_through_depth,
)


def test_straight_through_forward_is_the_argmax_one_hot_of_the_noisy_logits():
    logits = torch.tensor([[0.3, 2.0, -1.0, 0.5], [1.0, 1.0, 3.0, 0.0]])
    z, y = straight_through_depth(logits, tau=1.0, generator=None)
    assert torch.equal(z, torch.tensor([[0.0, 1, 0, 0], [0, 0, 1, 0]]))  # exact 0/1 values
    assert torch.allclose(y, torch.softmax(logits, -1))
    g = torch.Generator().manual_seed(3)
    z, y = straight_through_depth(logits, tau=0.5, generator=g)
    u = torch.rand(logits.shape, generator=torch.Generator().manual_seed(3)).clamp(1e-9, 1 - 1e-9)
    noisy = logits - torch.log(-torch.log(u))  # Gumbel(0, 1) by inversion, the same draws
    assert torch.equal(z.argmax(-1), noisy.argmax(-1)) and torch.allclose(y, torch.softmax(noisy / 0.5, -1))


def test_straight_through_gradient_is_the_soft_samples_jacobian():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(3, 5, dtype=torch.float64, generator=g).requires_grad_()
    upstream = torch.randn(3, 5, dtype=torch.float64, generator=g)
    tau = 0.7
    z, y = straight_through_depth(logits, tau=tau, generator=None)
    (z * upstream).sum().backward()
    # by hand: dy_k/dl_j = y_k (delta_kj - y_j) / tau, so grad_j = y_j (u_j - sum_k y_k u_k) / tau
    yv = torch.softmax(logits.detach() / tau, -1)
    hand = yv * (upstream - (yv * upstream).sum(-1, keepdim=True)) / tau
    assert logits.grad is not None and torch.allclose(logits.grad, hand, atol=1e-12)


def test_alive_masks_and_expected_depth():
    z = torch.tensor([[0.0, 0, 1, 0], [1, 0, 0, 0]])  # depths 3 and 1 of T = 4
    assert torch.equal(alive_from_depth(z), torch.tensor([[1.0, 1, 1, 0], [1, 0, 0, 0]]))
    p = torch.tensor([0.1, 0.2, 0.3, 0.4])
    assert expected_depth(p).item() == pytest.approx(0.1 + 0.4 + 0.9 + 1.6)
    with pytest.raises(ValueError, match="tau"):
        straight_through_depth(torch.zeros(2, 3), tau=0.0, generator=None)


def test_act_halting_by_hand():
    p = torch.tensor([[0.3, 0.5, 0.4, 0.2], [0.1, 0.1, 0.1, 0.1], [0.995, 0.2, 0.2, 0.2]])
    w, n, r = act_halting(p, eps=0.01)
    # row 0: 0.3 + 0.5 = 0.8 < 0.99, + 0.4 >= 0.99 -> N = 3, R = 1 - 0.8 = 0.2
    # row 1: never reaches 0.99 -> N = T = 4, R = 1 - 0.3 = 0.7
    # row 2: 0.995 >= 0.99 at once -> N = 1, R = 1
    assert n.tolist() == [3, 4, 1]
    assert r.tolist() == pytest.approx([0.2, 0.7, 1.0])
    assert w.tolist() == [pytest.approx([0.3, 0.5, 0.2, 0.0]), pytest.approx([0.1, 0.1, 0.1, 0.7]),
                          pytest.approx([1.0, 0.0, 0.0, 0.0])]
    assert torch.allclose(w.sum(-1), torch.ones(3))
    assert (n + r).tolist() == pytest.approx([3.2, 4.7, 2.0])  # the ponder cost N + R


def test_act_weights_sum_to_one_on_random_units():
    p = torch.rand(50, 8, generator=torch.Generator().manual_seed(1))
    w, n, r = act_halting(p, eps=0.05)
    assert torch.allclose(w.sum(-1), torch.ones(50), atol=1e-6) and bool((w >= 0).all())
    assert bool(((n >= 1) & (n <= 8)).all()) and bool(((r > 0) & (r <= 1)).all())


def test_ponder_distribution_by_hand():
    lam = torch.tensor([[0.5, 0.5, 0.5], [0.2, 0.9, 0.3]])
    p, n = ponder_distribution(lam, eps=0.0)
    # row 0: 0.5, 0.25, then the rest 0.25 at T; row 1: 0.2, 0.8 * 0.9 = 0.72, rest 0.08
    assert p.tolist() == [pytest.approx([0.5, 0.25, 0.25]), pytest.approx([0.2, 0.72, 0.08])]
    assert n.tolist() == [3, 3]
    p, n = ponder_distribution(torch.tensor([[0.5, 0.9, 0.9, 0.9]]), eps=0.1)  # 0.5 + 0.45 = 0.95 >= 0.9: stop at 2
    assert n.tolist() == [2] and p.tolist() == [pytest.approx([0.5, 0.5, 0.0, 0.0])]


def test_geometric_prior_sums_to_one_and_kl_is_zero_on_itself():
    q = geometric_prior(0.3, 6, dtype=torch.float64)
    assert q.sum().item() == pytest.approx(1.0) and q[0].item() == pytest.approx(0.3)
    assert q[-1].item() == pytest.approx(0.7 ** 5)
    assert ponder_kl(q[None], q).item() == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="lambda_p"):
        geometric_prior(1.0, 4)


def _closed_kl(a: float, b: float) -> float:
    """KL(Geom(a) || Geom(b)) on {1, 2, ...}: E[log p/q] with E[t - 1] = (1 - a) / a."""
    return math.log(a / b) + (1 - a) / a * math.log((1 - a) / (1 - b))


@pytest.mark.parametrize(("a", "b"), [(0.5, 0.3), (0.2, 0.6), (0.9, 0.1)])
def test_ponder_kl_against_the_closed_form(a, b):
    T = 400  # long enough that the truncated tails are negligible
    lam = torch.full((1, T), a, dtype=torch.float64)
    p, _ = ponder_distribution(lam, eps=0.0)
    got = ponder_kl(p, geometric_prior(b, T, dtype=torch.float64)).item()
    assert got == pytest.approx(_closed_kl(a, b), rel=1e-9)


def test_truncated_ponder_kl_by_hand():
    a, b, T = 0.4, 0.25, 5
    p, _ = ponder_distribution(torch.full((1, T), a, dtype=torch.float64), eps=0.0)
    L = math.log((1 - a) / (1 - b))
    hand = sum(a * (1 - a) ** (t - 1) * (math.log(a / b) + (t - 1) * L) for t in range(1, T))
    hand += (1 - a) ** (T - 1) * (T - 1) * L  # both tails (1-a)^(T-1) and (1-b)^(T-1) at T
    assert ponder_kl(p, geometric_prior(b, T, dtype=torch.float64)).item() == pytest.approx(hand, rel=1e-12)
