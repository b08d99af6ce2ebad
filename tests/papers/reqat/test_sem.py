"""[P11] SEM: the weight formula against a hand computation, the loss against its definition, no gradient
through the weights, entropies against a direct sum."""

import math

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from icml26.papers.reqat import sem_loss, sem_weights, token_entropy


def test_weights_match_a_hand_computation():
    # entropies 0.1, 0.2, 0.4, 0.8, 1.6: numpy's 75th percentile (linear) is 0.8, H_min = 0.1
    h = torch.tensor([0.1, 0.2, 0.4, 0.8, 1.6])
    w = sem_weights(h, eps=1e-6)
    den = 0.8 - 0.1 + 1e-6
    want = [1.0, 1 - 0.1 / den, 1 - 0.3 / den, max(0.0, 1 - 0.7 / den), 0.0]
    assert w.tolist() == pytest.approx(want, abs=1e-6)
    assert float(np.percentile(h.numpy(), 75)) == pytest.approx(0.8)


def test_weights_of_equal_entropies_and_other_percentiles():
    assert sem_weights(torch.full((4,), 0.3)).tolist() == pytest.approx([1.0] * 4)
    h = torch.tensor([[0.0, 1.0], [2.0, 3.0]])  # pooled over positions, shape kept
    w = sem_weights(h, percentile=50.0)  # τ = 1.5
    assert w.shape == h.shape and w.flatten().tolist() == pytest.approx([1.0, 1 - 1 / 1.500001, 0.0, 0.0], abs=1e-6)


def test_entropy_matches_a_direct_sum():
    lg = torch.randn(5, 7, generator=torch.Generator().manual_seed(0))
    p = lg.softmax(-1)
    assert token_entropy(lg).tolist() == pytest.approx((-(p * p.log()).sum(-1)).tolist(), rel=1e-5)
    assert token_entropy(torch.zeros(1, 8)).item() == pytest.approx(math.log(8), rel=1e-6)


def test_loss_is_ce_plus_weighted_entropy_without_gradient_through_the_weights():
    g = torch.Generator().manual_seed(1)
    logits = torch.randn(2, 6, 9, generator=g, requires_grad=True)
    targets = torch.randint(0, 9, (2, 6), generator=g)
    mask = torch.rand(2, 6, generator=g) < 0.7
    loss = sem_loss(logits, targets, mask, lam=0.1)
    sel = logits[mask]
    h = token_entropy(sel)
    w = sem_weights(h.detach())
    want = F.cross_entropy(sel, targets[mask]) + 0.1 * (w * h).sum() / h.numel()
    assert loss.item() == pytest.approx(want.item(), rel=1e-6)
    (g1,) = torch.autograd.grad(loss, logits)
    (g2,) = torch.autograd.grad(want, logits)
    torch.testing.assert_close(g1, g2)
    assert sem_loss(logits, targets, mask, lam=0.0).item() == pytest.approx(F.cross_entropy(sel, targets[mask]).item())


def test_refusals():
    with pytest.raises(ValueError, match="entropies"):
        sem_weights(torch.tensor([0.1, float("nan")]))
    with pytest.raises(ValueError, match="percentile"):
        sem_weights(torch.tensor([0.1, 0.2]), percentile=0.0)
    with pytest.raises(ValueError, match="eps"):
        sem_weights(torch.tensor([0.1, 0.2]), eps=0.0)
