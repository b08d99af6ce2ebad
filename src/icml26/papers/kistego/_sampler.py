"""Guided diffusion sampling for [P22]: one sampler serves both guidances of the dual-guidance mechanism.

Each step predicts x̂_0(x_t) = (x_t - sqrt(1 - ᾱ_t) ε̂) / sqrt(ᾱ_t), takes the DDIM step to t' (η = 1: ancestral,
η = 0: deterministic), and subtracts ζ ∇_{x_t} L(x̂_0(x_t)) with ζ normalised by sqrt(L) per image as in diffusion
posterior sampling (DPS, Chung et al. 2023). ``L`` is the structural loss at embedding and the measurement loss at
reconstruction. The strided step grid and the normalisation are our reconstruction (the abstract names neither).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from icml26.common.validation import int_at_least, positive_int, real
from icml26.papers.kistego._priors import DiffusionPrior

__all__ = ["guided_sample", "step_grid"]


def step_grid(timesteps: int, steps: int) -> list[int]:
    """The ``steps`` sampling times, evenly spaced over [0, T), in decreasing order ([P22] sampler)."""
    T = positive_int(timesteps, "timesteps")
    n = positive_int(steps, "steps", hi=T)
    return sorted({int(round(v)) for v in torch.linspace(0, T - 1, n).tolist()}, reverse=True)


def _x0_hat(prior: DiffusionPrior, x: Tensor, t: int) -> tuple[Tensor, Tensor]:
    tt = torch.full((x.shape[0],), t, dtype=torch.long)
    eps = prior.denoise(x, tt)
    ab = prior.alpha_bar[t]
    return (x - (1 - ab).sqrt() * eps) / ab.sqrt(), eps


def _check_prior(prior: object) -> DiffusionPrior:
    if not isinstance(prior, DiffusionPrior):
        raise TypeError(f"prior must have shape, alpha_bar and denoise(x_t, t), got {type(prior).__name__}")
    return prior


def guided_sample(
    prior: DiffusionPrior,
    *,
    n: int,
    steps: int,
    seed: int,
    loss: Callable[[Tensor], Tensor] | None = None,
    guidance: float = 1.0,
    eta: float = 1.0,
    x_T: Tensor | None = None,
) -> Tensor:
    """Sample ``n`` images from ``prior`` under guidance ``loss`` (per-image losses (n,) of x̂_0 in model space).

    Implements the sampler of [P22]'s dual guidance (module docstring); ``loss=None`` or ``guidance=0`` is plain
    DDIM/DDPM sampling. ``x_T`` replaces the seeded start noise (used by inversion baselines). Returns (n, 1, H, W)
    in model space, clipped to [-1, 1].
    """
    p = _check_prior(prior)
    k = positive_int(n, "n")
    zeta = real(guidance, "guidance", lo=0.0)
    e = real(eta, "eta", lo=0.0, hi=1.0)
    g = torch.Generator().manual_seed(int_at_least(seed, "seed", 0))
    T = int(p.alpha_bar.shape[0])
    ts = step_grid(T, steps)
    x = torch.randn((k, 1, *p.shape), generator=g) if x_T is None else x_T.detach().clone().float()
    for i, t in enumerate(ts):
        t_next = ts[i + 1] if i + 1 < len(ts) else -1
        guided = loss is not None and zeta > 0
        with torch.enable_grad() if guided else torch.no_grad():
            xr = x.detach().requires_grad_(guided)
            x0, eps = _x0_hat(p, xr, t)
            x0c = x0.clamp(-1, 1)
            grad = None
            if guided and loss is not None:
                ell = loss(x0c)
                norm = ell.detach().clamp_min(1e-12).sqrt().view(-1, 1, 1, 1)
                (grad,) = torch.autograd.grad(ell.sum(), xr)
                grad = grad / norm
        x0c, eps = x0c.detach(), eps.detach()
        ab = p.alpha_bar[t]
        ab_next = p.alpha_bar[t_next] if t_next >= 0 else torch.tensor(1.0)
        sigma = e * ((1 - ab_next) / (1 - ab) * (1 - ab / ab_next)).clamp_min(0).sqrt()
        eps_dir = (x - ab.sqrt() * x0c) / (1 - ab).sqrt()
        x = ab_next.sqrt() * x0c + (1 - ab_next - sigma**2).clamp_min(0).sqrt() * eps_dir
        if t_next >= 0 and sigma > 0:
            x = x + sigma * torch.randn(x.shape, generator=g)
        if grad is not None:
            x = x - zeta * grad
    return x.clamp(-1, 1)
