"""Baselines of [P22]'s checks: inverse halftoning by filtering, and key-dependent DDIM-inversion steganography.

- :func:`descreen`: a continuous-tone estimate from binary shares by a Gaussian blur or a median filter of B̂, then
  bilinear upsampling by the factor f (classic inverse halftoning).
- :func:`keyed_hide` / :func:`keyed_reveal`: a CRoSS-style scheme (Yu et al. 2023) with a DiffStega-style key: the
  secret is DDIM-inverted to x_t, x_t is permuted and sign-flipped by a generator seeded with ``key``, and the stego
  is the deterministic DDIM generation from it; the receiver inverts the stego, undoes the key's scrambling and
  generates the secret. Our reconstruction of the key-dependent family the abstract contrasts KIStego with. The
  sampler runs unclipped so that :func:`ddim_invert` is its exact inverse; the unclipped sampler of a small prior
  leaves the image range when started from full noise, so the scheme starts at a partial depth (half the schedule,
  ᾱ ≈ 0.08 for the linear schedule), as SDEdit-style editors do.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from scipy.ndimage import gaussian_filter, median_filter
from torch import Tensor

from icml26.common.validation import choice, int_at_least, positive_int, real, real_array
from icml26.papers.kistego._priors import DiffusionPrior
from icml26.papers.kistego._sampler import guided_sample, step_grid

__all__ = ["descreen", "ddim_invert", "keyed_hide", "keyed_reveal"]


def descreen(bits: np.ndarray, *, factor: int, method: str = "blur", size: float = 1.0) -> np.ndarray:
    """Inverse halftoning baseline of [P22]'s fidelity claim: filter B̂ (``blur``: Gaussian σ = ``size``;
    ``median``: window ``size``), then upsample bilinearly by ``factor``. Returns (f h, f w) in [0, 1]."""
    b = real_array(bits, "bits", ndim=2)
    f = positive_int(factor, "factor")
    m = choice(method, "method", ("blur", "median"))
    s = real(size, "size", lo=0.0, lo_open=True)
    low = gaussian_filter(b, s, mode="reflect") if m == "blur" else median_filter(b, size=max(1, int(round(s))),
                                                                                  mode="reflect")
    t = torch.as_tensor(low, dtype=torch.float32)[None, None]
    up = F.interpolate(t, scale_factor=float(f), mode="bilinear", align_corners=False)[0, 0]
    return up.clamp(0, 1).numpy().astype(np.float64)


def ddim_invert(prior: DiffusionPrior, x0: Tensor, *, steps: int, iterations: int = 4) -> Tensor:
    """Inverse of the deterministic DDIM sampler (η = 0, unclipped) on its step grid ([P22] baseline; CRoSS's key
    step): x_T such that ``guided_sample(prior, x_T=x_T, eta=0, clip=False)`` returns ``x0``.

    Each sampler step x_{t'} = sqrt(ᾱ_{t'}) x̂_0(x_t) + sqrt(1 - ᾱ_{t'}) ε̂(x_t) is solved for x_t by fixed-point
    iteration on ε̂ (``iterations`` refinements, started from ε̂ at x_{t'}; 0 is the usual approximate inversion).
    """
    its = int_at_least(iterations, "iterations", 0)
    ts = step_grid(int(prior.alpha_bar.shape[0]), steps)  # the sampler's order: noisiest first
    pairs = [(ts[i + 1] if i + 1 < len(ts) else -1, t) for i, t in enumerate(ts)][::-1]
    x = x0.detach().clone().float()
    with torch.no_grad():
        for t_next, t in pairs:
            ab = prior.alpha_bar[t]
            ab_next = prior.alpha_bar[t_next] if t_next >= 0 else torch.tensor(1.0)
            tt = torch.full((x.shape[0],), t, dtype=torch.long)
            y, eps = x, prior.denoise(x, tt)
            for k in range(its + 1):
                x0_hat = (y - (1 - ab_next).sqrt() * eps) / ab_next.sqrt()
                x = ab.sqrt() * x0_hat + (1 - ab).sqrt() * eps
                if k < its:
                    eps = prior.denoise(x, tt)
    return x


def _scramble(z: Tensor, key: int, inverse: bool) -> Tensor:
    g = torch.Generator().manual_seed(int(key))
    flat = z.flatten(1)
    perm = torch.randperm(flat.shape[1], generator=g)
    flip = torch.randint(0, 2, (flat.shape[1],), generator=g).float() * 2 - 1
    if inverse:
        out = torch.empty_like(flat)
        out[:, perm] = flat * flip
    else:
        out = flat[:, perm] * flip
    return out.view_as(z)


def _to_model(images: np.ndarray, name: str) -> Tensor:
    a = real_array(images, name, ndim=3)
    if a.min() < 0.0 or a.max() > 1.0:
        raise ValueError(f"{name} must hold intensities in [0, 1]")
    return torch.as_tensor(a, dtype=torch.float32).unsqueeze(1) * 2 - 1


class _Truncated:
    """``prior`` restricted to its first ``steps`` diffusion times: sampling starts from x_t, t = ``steps`` - 1."""

    def __init__(self, prior: DiffusionPrior, steps: int) -> None:
        self.prior, self.shape, self.alpha_bar = prior, prior.shape, prior.alpha_bar[:steps]

    def denoise(self, x_t: Tensor, t: Tensor) -> Tensor:
        return self.prior.denoise(x_t, t)


def _keyed_map(images: np.ndarray, name: str, prior: DiffusionPrior, *, key: int, steps: int, depth: float,
               inverse: bool) -> np.ndarray:
    k = int_at_least(key, "key", 0)
    d = real(depth, "depth", lo=0.0, lo_open=True, hi=1.0)
    T = int(prior.alpha_bar.shape[0])
    part = _Truncated(prior, max(2, int(round(d * T))))
    n = positive_int(steps, "steps", hi=int(part.alpha_bar.shape[0]))
    z = ddim_invert(part, _to_model(images, name), steps=n)
    x = guided_sample(part, n=z.shape[0], steps=n, seed=0, eta=0.0, x_T=_scramble(z, k, inverse=inverse), clip=False)
    return ((x[:, 0] + 1) / 2).clamp(0, 1).numpy().astype(np.float64)


def keyed_hide(secrets: np.ndarray, prior: DiffusionPrior, *, key: int, steps: int, depth: float = 0.5
               ) -> np.ndarray:
    """Key-dependent baseline of [P22] (module docstring): (n, H, W) secrets -> (n, H, W) stego images in [0, 1].

    The secret is inverted exactly (:func:`ddim_invert`) to the time ``depth`` T of the schedule, scrambled with
    ``key`` and generated back by the unclipped deterministic sampler, whose exact inverse the receiver runs.
    """
    return _keyed_map(secrets, "secrets", prior, key=key, steps=steps, depth=depth, inverse=False)


def keyed_reveal(stegos: np.ndarray, prior: DiffusionPrior, *, key: int, steps: int, depth: float = 0.5
                 ) -> np.ndarray:
    """The receiver of [P22]'s key-dependent baseline: invert to ``depth`` T, unscramble with ``key``, generate."""
    return _keyed_map(stegos, "stegos", prior, key=key, steps=steps, depth=depth, inverse=True)
