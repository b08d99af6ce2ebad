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

from icml26.common.validation import choice, int_at_least, positive_int, real
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


def _guidance(p: DiffusionPrior, x: Tensor, t: int, loss: Callable[[Tensor], Tensor] | None, zeta: float,
              space: str, clip: bool) -> tuple[Tensor, Tensor | None, Tensor | None]:
    """x̂_0 at (x, t) and the guidance correction: a DPS shift of x_t (``space="x_t"``) or a plain gradient step
    Δ on x̂_0 (``space="x0"``; no gradient through the denoiser). Returns (x̂_0, Δ or None, shift or None)."""
    if loss is None or zeta == 0:
        with torch.no_grad():
            x0, _ = _x0_hat(p, x, t)
        return (x0.clamp(-1, 1) if clip else x0), None, None
    if space == "x0":
        with torch.no_grad():
            x0, _ = _x0_hat(p, x, t)
        x0c = (x0.clamp(-1, 1) if clip else x0).detach()
        xg = x0c.clone().requires_grad_(True)
        with torch.enable_grad():
            (grad,) = torch.autograd.grad(loss(xg).sum(), xg)
        moved = x0c - zeta * grad
        return x0c, ((moved.clamp(-1, 1) if clip else moved) - x0c).detach(), None
    with torch.enable_grad():
        xr = x.detach().requires_grad_(True)
        x0, _ = _x0_hat(p, xr, t)
        x0c = x0.clamp(-1, 1) if clip else x0
        ell = loss(x0c)
        norm = ell.detach().clamp_min(1e-12).sqrt().view(-1, 1, 1, 1)
        (grad,) = torch.autograd.grad(ell.sum(), xr)
    return x0c.detach(), None, zeta * grad / norm


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
    guide_fraction: float = 1.0,
    space: str = "x_t",
    clip: bool = True,
) -> Tensor:
    """Sample ``n`` images from ``prior`` under guidance ``loss`` (per-image losses (n,) of x̂_0 in model space).

    Implements the sampler of [P22]'s dual guidance (module docstring); ``loss=None`` or ``guidance=0`` is plain
    DDIM/DDPM sampling. ``x_T`` replaces the seeded start noise (used by inversion baselines). ``guide_fraction``
    guides only the first (noisiest) fraction of the steps, so the prior alone fills in the late detail.
    ``space``: ``"x_t"`` (DPS: ζ ∇_{x_t} L / sqrt(L) through the denoiser) or ``"x0"`` (x̂_0 ← x̂_0 - ζ ∇_{x̂_0} L,
    unnormalised: for a margin loss whose gradient vanishes once a bit reads right, the step moves the estimate only
    as far as the violated margins need). ``clip=False`` keeps x̂_0 and the output unclipped (with ``eta=0`` the
    sampler is then the deterministic map :func:`~icml26.papers.kistego.ddim_invert` inverts). Returns
    (n, 1, H, W) in model space, clipped to [-1, 1] unless ``clip`` is false.
    """
    p = _check_prior(prior)
    k = positive_int(n, "n")
    zeta = real(guidance, "guidance", lo=0.0)
    e = real(eta, "eta", lo=0.0, hi=1.0)
    frac = real(guide_fraction, "guide_fraction", lo=0.0, hi=1.0)
    where = choice(space, "space", ("x_t", "x0"))
    g = torch.Generator().manual_seed(int_at_least(seed, "seed", 0))
    ts = step_grid(int(p.alpha_bar.shape[0]), steps)
    n_guided = int(round(frac * len(ts)))
    x = torch.randn((k, 1, *p.shape), generator=g) if x_T is None else x_T.detach().clone().float()
    for i, t in enumerate(ts):
        t_next = ts[i + 1] if i + 1 < len(ts) else -1
        x0c, delta, shift = _guidance(p, x, t, loss if i < n_guided else None, zeta, where, clip)
        ab = p.alpha_bar[t]
        ab_next = p.alpha_bar[t_next] if t_next >= 0 else torch.tensor(1.0)
        sigma = e * ((1 - ab_next) / (1 - ab) * (1 - ab / ab_next)).clamp_min(0).sqrt()
        eps_dir = (x - ab.sqrt() * x0c) / (1 - ab).sqrt()  # the noise direction of the unguided prediction
        x0_step = x0c if delta is None else x0c + delta
        x = ab_next.sqrt() * x0_step + (1 - ab_next - sigma**2).clamp_min(0).sqrt() * eps_dir
        if t_next >= 0 and sigma > 0:
            x = x + sigma * torch.randn(x.shape, generator=g)
        if shift is not None:
            x = x - shift
    return x.clamp(-1, 1) if clip else x
