"""Baselines of [P22]'s checks: inverse halftoning by filtering, and key-dependent DDIM-inversion steganography.

- :func:`descreen`: a continuous-tone estimate from binary shares by a Gaussian blur or a median filter of B̂, then
  bilinear upsampling by the factor f (classic inverse halftoning).
- :func:`keyed_hide` / :func:`keyed_reveal`: a CRoSS-style scheme (Yu et al. 2023) with a DiffStega-style key: the
  secret is DDIM-inverted to noise, the noise is permuted and sign-flipped by a generator seeded with ``key``, and
  the stego is the DDIM generation from it; the receiver inverts the stego, undoes the key's scrambling and
  generates the secret. Our reconstruction of the key-dependent family the abstract contrasts KIStego with.
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


def ddim_invert(prior: DiffusionPrior, x0: Tensor, *, steps: int) -> Tensor:
    """Deterministic DDIM inversion x_0 -> x_T on the sampler's step grid ([P22] baseline; CRoSS's key step)."""
    ts = step_grid(int(prior.alpha_bar.shape[0]), steps)[::-1]
    x = x0.detach().clone().float()
    prev_ab = torch.tensor(1.0)
    with torch.no_grad():
        for t in ts:
            # the ε at the current point drives the step to the next (noisier) time
            ab = prior.alpha_bar[t]
            tt = torch.full((x.shape[0],), t, dtype=torch.long)
            eps = prior.denoise(x, tt)
            x0_hat = (x - (1 - prev_ab).sqrt() * eps) / prev_ab.sqrt()
            x = ab.sqrt() * x0_hat + (1 - ab).sqrt() * eps
            prev_ab = ab
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


def keyed_hide(secrets: np.ndarray, prior: DiffusionPrior, *, key: int, steps: int) -> np.ndarray:
    """Key-dependent baseline of [P22] (module docstring): (n, H, W) secrets -> (n, H, W) stego images in [0, 1]."""
    k = int_at_least(key, "key", 0)
    z = ddim_invert(prior, _to_model(secrets, "secrets"), steps=steps)
    x = guided_sample(prior, n=z.shape[0], steps=steps, seed=0, eta=0.0, x_T=_scramble(z, k, inverse=False))
    return ((x[:, 0] + 1) / 2).numpy().astype(np.float64)


def keyed_reveal(stegos: np.ndarray, prior: DiffusionPrior, *, key: int, steps: int) -> np.ndarray:
    """The receiver of [P22]'s key-dependent baseline: invert, unscramble with ``key``, generate the secret."""
    k = int_at_least(key, "key", 0)
    z = ddim_invert(prior, _to_model(stegos, "stegos"), steps=steps)
    x = guided_sample(prior, n=z.shape[0], steps=steps, seed=0, eta=0.0, x_T=_scramble(z, k, inverse=True))
    return ((x[:, 0] + 1) / 2).numpy().astype(np.float64)
