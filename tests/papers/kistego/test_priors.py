"""[P22] priors and sampler: the GP prior's exact score against autograd and Gaussian conditioning."""

import numpy as np
import torch

from icml26.papers.kistego import GaussianProcessPrior, guided_sample, linear_schedule
from icml26.papers.kistego._priors import _se_kernel


def test_gp_score_is_the_gradient_of_its_log_density() -> None:
    gp = GaussianProcessPrior(6, length_scale=1.5, mean=0.1)
    x = torch.randn(3, 1, 6, 6, dtype=torch.float64, requires_grad=True)
    t = torch.tensor([0, 400, 999])
    (g,) = torch.autograd.grad(gp.log_density(x, t).sum(), x)
    np.testing.assert_allclose(gp.score(x.detach(), t).numpy(), g.numpy(), rtol=1e-6, atol=1e-8)


def test_gp_log_density_matches_torch_distributions() -> None:
    gp = GaussianProcessPrior(4, length_scale=1.0, scale=0.5, mean=-0.2)
    k = np.kron(_se_kernel(4, 1.0), _se_kernel(4, 1.0)) * 0.25 + 1e-4 * np.eye(16)
    ab = float(gp.alpha_bar[300])
    cov = torch.tensor(ab * k + (1 - ab) * np.eye(16))
    dist = torch.distributions.MultivariateNormal(torch.full((16,), np.sqrt(ab) * -0.2, dtype=torch.float64), cov)
    x = torch.randn(2, 1, 4, 4, dtype=torch.float64)
    np.testing.assert_allclose(gp.log_density(x, torch.tensor([300, 300])).numpy(), dist.log_prob(x.reshape(2, 16)).numpy(),
                               rtol=1e-9)


def test_unguided_sampling_draws_from_the_gp() -> None:
    """With the exact score, the sampler's output variance matches the prior's marginal variance."""
    gp = GaussianProcessPrior(4, length_scale=1.5, scale=0.3)
    x = guided_sample(gp, n=400, steps=50, seed=0)
    ref = gp.sample_x0(4000, seed=1)
    assert abs(float(x.var()) - float(ref.var())) < 0.2 * float(ref.var())
    assert abs(float(x.mean())) < 0.05


def test_schedule_is_decreasing_in_0_1() -> None:
    ab = linear_schedule(1000)
    assert ab.shape == (1000,) and float(ab[0]) < 1 and float(ab[-1]) > 0 and bool(torch.all(ab[1:] < ab[:-1]))
