"""Diffusion priors for [P22]: the protocol the pipeline needs, the DDPM schedule, and an analytic GP prior.

The pipeline works in model space x ∈ [-1, 1] (x = 2 image - 1), with the DDPM forward process
x_t = sqrt(ᾱ_t) x_0 + sqrt(1 - ᾱ_t) ε. A prior is anything with ``shape``, ``alpha_bar`` and ``denoise(x_t, t)``
returning the noise prediction ε̂ (Ho et al. 2020), so a pretrained diffusion model plugs in through a thin wrapper.

:class:`GaussianProcessPrior` is x_0 ~ N(μ, σ² K ⊗ K), K the squared-exponential kernel on the pixel grid. Its
noisy marginal is N(sqrt(ᾱ) μ, ᾱ Σ + (1 - ᾱ) I), so its score, and hence ε̂ = -sqrt(1 - ᾱ) ∇ log p_t, is exact
(computed in the kernel's eigenbasis, one small eigendecomposition per axis): a prior for fast tests with an oracle.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
import torch
from torch import Tensor

from icml26.common.validation import positive_int, real

__all__ = ["DiffusionPrior", "GaussianProcessPrior", "linear_schedule"]


def linear_schedule(timesteps: int = 1000, *, beta_start: float = 1e-4, beta_end: float = 0.02) -> Tensor:
    """ᾱ_t = Π_{s<=t} (1 - β_s) for the linear β schedule of DDPM (the schedule of [P22]'s reconstructed prior)."""
    n = positive_int(timesteps, "timesteps")
    b0 = real(beta_start, "beta_start", lo=0.0, lo_open=True, hi=1.0, hi_open=True)
    b1 = real(beta_end, "beta_end", lo=b0, hi=1.0, hi_open=True)
    betas = torch.linspace(b0, b1, n, dtype=torch.float64)
    return torch.cumprod(1.0 - betas, dim=0).float()


@runtime_checkable
class DiffusionPrior(Protocol):
    """What [P22]'s pipeline needs of a diffusion prior (model space [-1, 1], images (B, 1, H, W)).

    Attributes:
        shape: (H, W) of the images it generates.
        alpha_bar: (T,) cumulative products ᾱ_t of its forward process.
    """

    shape: tuple[int, int]
    alpha_bar: Tensor

    def denoise(self, x_t: Tensor, t: Tensor) -> Tensor:
        """ε̂(x_t, t): the predicted noise, shape of ``x_t``; ``t`` is a (B,) long tensor of steps in [0, T)."""
        ...


def _se_kernel(n: int, length_scale: float) -> np.ndarray:
    d = np.arange(n)[:, None] - np.arange(n)[None, :]
    return np.exp(-0.5 * (d / length_scale) ** 2)


class GaussianProcessPrior:
    """[P22] analytic test prior: x_0 ~ N(μ, σ² K ⊗ K + jitter I) with K_ij = exp(-(i - j)² / (2 ℓ²)) per axis.

    Exact ε̂ and log-density at every t (module docstring). ``mean`` is μ in model space ([-1, 1]).
    """

    def __init__(self, size: int, *, length_scale: float = 3.0, scale: float = 0.5, mean: float = 0.0,
                 jitter: float = 1e-4, timesteps: int = 1000) -> None:
        n = positive_int(size, "size")
        ls = real(length_scale, "length_scale", lo=0.0, lo_open=True)
        self.scale = real(scale, "scale", lo=0.0, lo_open=True)
        self.mean = real(mean, "mean", lo=-1.0, hi=1.0)
        self.jitter = real(jitter, "jitter", lo=0.0, lo_open=True)
        self.shape = (n, n)
        self.alpha_bar = linear_schedule(timesteps)
        lam, u = np.linalg.eigh(_se_kernel(n, ls))
        lam = np.clip(lam, 0.0, None)
        self._u = torch.tensor(u, dtype=torch.float64)
        # eigenvalues of Σ = σ² K ⊗ K + jitter I on the (i, j) eigen-grid
        self._lam = torch.tensor(self.scale**2 * np.outer(lam, lam) + self.jitter, dtype=torch.float64)

    def _to_eig(self, x: Tensor) -> Tensor:
        return self._u.T @ x @ self._u

    def _from_eig(self, c: Tensor) -> Tensor:
        return self._u @ c @ self._u.T

    def _var(self, t: Tensor) -> tuple[Tensor, Tensor]:
        ab = self.alpha_bar.to(torch.float64)[t.long()].view(-1, 1, 1, 1)
        return ab, ab * self._lam + (1.0 - ab)

    def score(self, x_t: Tensor, t: Tensor) -> Tensor:
        """∇ log p_t(x_t) of [P22]'s GP prior, exact: -Σ_t⁻¹ (x_t - sqrt(ᾱ_t) μ), Σ_t = ᾱ_t Σ + (1 - ᾱ_t) I."""
        ab, var = self._var(t)
        r = x_t.to(torch.float64) - ab.sqrt() * self.mean
        return (-self._from_eig(self._to_eig(r) / var)).to(x_t.dtype)

    def denoise(self, x_t: Tensor, t: Tensor) -> Tensor:
        """ε̂ = -sqrt(1 - ᾱ_t) ∇ log p_t(x_t) ([P22] prior protocol), differentiable in ``x_t``."""
        ab = self.alpha_bar.to(x_t.dtype)[t.long()].view(-1, 1, 1, 1)
        return -(1.0 - ab).sqrt() * self.score(x_t, t)

    def log_density(self, x_t: Tensor, t: Tensor) -> Tensor:
        """Log p_t(x_t) of [P22]'s GP prior, (B,): the oracle the score is tested against."""
        ab, var = self._var(t)
        c = self._to_eig(x_t.to(torch.float64) - ab.sqrt() * self.mean)
        n = float(self._lam.numel())
        quad = (c**2 / var).sum(dim=(-3, -2, -1))
        return -0.5 * (quad + torch.log(var).sum(dim=(-3, -2, -1)) + n * np.log(2 * np.pi))

    def sample_x0(self, n: int, *, seed: int) -> Tensor:
        """Exact draws x_0 ~ N(μ, Σ) of [P22]'s GP prior, (n, 1, H, W), from a seeded generator."""
        k = positive_int(n, "n")
        g = torch.Generator().manual_seed(int(seed))
        z = torch.randn((k, 1, *self.shape), generator=g, dtype=torch.float64)
        return (self.mean + self._from_eig(self._lam.sqrt() * z)).float()
