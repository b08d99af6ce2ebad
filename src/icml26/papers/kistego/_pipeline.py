"""The [P22] pipeline: embed shares into a generated stego image, and reconstruct the secret from extracted bits.

- :func:`embed` — structural latent guidance: sample from the prior while pushing x̂_0 so that every bit's
  black-site minus white-site luminance has the bit's sign with at least ``margin`` (a softplus hinge summed over
  pairs and repeats; our reconstruction of the guidance form).
- :func:`reconstruct` — measurement posterior sampling: sample a secret from the prior guided by
  ‖H(x̂_0) - h(B̂)‖² through a differentiable halftone surrogate (``SURROGATES``): ``lowpass`` compares Gaussian
  low-passes of downsample(x̂_0) and of B̂ (error diffusion preserves local means), ``sigmoid`` compares
  σ(k (downsample(x̂_0) - 1/2)) with B̂ directly (a thresholding surrogate). Both are our reconstruction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from icml26.common.validation import choice, int_at_least, positive_int, real, real_array
from icml26.papers.kistego._adaptive import ProjectionLayout, projection_loss
from icml26.papers.kistego._halftone import PairLayout, Shares, pair_layout
from icml26.papers.kistego._priors import DiffusionPrior
from icml26.papers.kistego._sampler import guided_sample

__all__ = ["SURROGATES", "embed", "gaussian_lowpass", "reconstruct", "structural_loss"]


def _sites(x: Tensor, cell: int) -> Tensor:
    """(B, 1, H, W) -> (B, sites) site means in raster order."""
    return F.avg_pool2d(x, cell).flatten(1)


def structural_loss(x0: Tensor, bits: Tensor, layout: PairLayout, *, margin: float, sharpness: float = 20.0) -> Tensor:
    """[P22] structural guidance loss (reconstructed): Σ softplus(k (m - s (x_black - x_white))) / k, s = 2b - 1.

    ``x0`` (B, 1, H, W) in model space, ``bits`` (B, n) of 0/1; ``margin`` m in model-space units. Returns (B,).
    """
    s = _sites(x0, layout.cell)
    black = torch.as_tensor(layout.black)
    white = torch.as_tensor(layout.white)
    d = s[:, black] - s[:, white]  # (B, repeats, n)
    sign = (2 * bits.float() - 1).unsqueeze(1)
    return (F.softplus(sharpness * (margin - sign * d)) / sharpness).sum(dim=(1, 2))


def _as_bits(shares: Shares | Sequence[Shares]) -> tuple[np.ndarray, bool]:
    single = isinstance(shares, Shares)
    items = [shares] if isinstance(shares, Shares) else list(shares)
    if not items or not all(isinstance(s, Shares) for s in items):
        raise TypeError("shares must be a Shares or a non-empty sequence of Shares (see encode_shares)")
    shapes = {s.bits.shape for s in items}
    if len(shapes) != 1:
        raise ValueError(f"shares must all have one bits shape, got {sorted(shapes)}")
    return np.stack([s.bits for s in items]), single


def embed(shares: Shares | Sequence[Shares], prior: DiffusionPrior, *, steps: int, guidance: float, seed: int,
          cell: int = 2, margin: float = 0.1, layout: ProjectionLayout | None = None,
          guide_fraction: float = 1.0) -> np.ndarray:
    """[P22] stego generation: sample from ``prior`` under structural guidance so that :func:`extract` reads the bits.

    Args:
        shares: one :class:`Shares` (returns (H, W)) or a sequence (returns (n, H, W)); its bits fill the
            default layout of :func:`pair_layout` for the prior's image shape, or must match ``bits_shape`` there.
        prior: any :class:`DiffusionPrior`.
        steps: sampling steps.
        guidance: the step ζ of the guidance (pair layout: DPS step on x_t; adaptive layout: the fraction of each
            violated margin closed per step on x̂_0, 1 = exactly to the margin).
        seed: the sampler's noise.
        cell: site size in pixels (public format of the pair layout).
        margin: the gap aimed at, in [0, 1] image units: between paired sites (pair layout, at most 0.5) or of
            each projection beyond its threshold (adaptive layout).
        layout: ``None`` for the pair layout, or a :class:`~icml26.papers.kistego.ProjectionLayout` (adaptive:
            margin guidance on x̂_0 through :func:`~icml26.papers.kistego.projection_loss`).
        guide_fraction: guide only this first (noisiest) fraction of the steps.

    Returns:
        stego image(s) in [0, 1].
    """
    bits, single = _as_bits(shares)
    b = torch.as_tensor(bits.reshape(bits.shape[0], -1))
    if layout is not None:
        if not isinstance(layout, ProjectionLayout):
            raise TypeError(f"layout must be a ProjectionLayout or None, got {type(layout).__name__}")
        if layout.bits_shape != bits.shape[1:] or layout.image_shape != prior.shape:
            raise ValueError(f"layout carries {layout.bits_shape} bits in {layout.image_shape} images; shares are "
                             f"{bits.shape[1:]} and the prior makes {prior.shape}")
        mp = real(margin, "margin", lo=0.0, lo_open=True)

        def ploss(x0: Tensor) -> Tensor:
            return projection_loss(x0, b, layout, margin=mp)

        x = guided_sample(prior, n=bits.shape[0], steps=steps, seed=seed, loss=ploss, guidance=guidance,
                          guide_fraction=guide_fraction, space="x0")
        out = ((x[:, 0] + 1) / 2).clamp(0, 1).numpy().astype(np.float64)
        return out[0] if single else out
    m = real(margin, "margin", lo=0.0, lo_open=True, hi=0.5)
    pairs = pair_layout(prior.shape, cell=cell, bits_shape=(bits.shape[1], bits.shape[2]))

    def loss(x0: Tensor) -> Tensor:
        return structural_loss(x0, b, pairs, margin=2 * m)

    x = guided_sample(prior, n=bits.shape[0], steps=steps, seed=seed, loss=loss, guidance=guidance,
                      guide_fraction=guide_fraction)
    out = ((x[:, 0] + 1) / 2).clamp(0, 1).numpy().astype(np.float64)
    return out[0] if single else out


def gaussian_lowpass(x: Tensor, sigma: float) -> Tensor:
    """Separable Gaussian blur (edge-replicating padding) of (B, 1, h, w): the low-pass h of [P22]'s ``lowpass`` surrogate."""
    r = max(1, int(np.ceil(3 * sigma)))
    k = torch.exp(-0.5 * (torch.arange(-r, r + 1, dtype=x.dtype) / sigma) ** 2)
    k = k / k.sum()
    x = F.pad(x, (r, r, r, r), mode="replicate")
    x = F.conv2d(x, k.view(1, 1, 1, -1))
    return F.conv2d(x, k.view(1, 1, -1, 1))


def _lowpass_loss(x0: Tensor, target: Tensor, factor: int, sigma: float) -> Tensor:
    img = F.avg_pool2d((x0 + 1) / 2, factor)
    return ((gaussian_lowpass(img, sigma) - gaussian_lowpass(target, sigma)) ** 2).sum(dim=(1, 2, 3))


def _sigmoid_loss(x0: Tensor, target: Tensor, factor: int, sigma: float) -> Tensor:
    img = F.avg_pool2d((x0 + 1) / 2, factor)
    return ((torch.sigmoid((img - 0.5) / max(sigma, 1e-3) * 4) - target) ** 2).sum(dim=(1, 2, 3))


SURROGATES: dict[str, Callable[[Tensor, Tensor, int, float], Tensor]] = {"lowpass": _lowpass_loss,
                                                                         "sigmoid": _sigmoid_loss}


def reconstruct(bits: np.ndarray, prior: DiffusionPrior, *, steps: int, seed: int, guidance: float = 1.0,
                surrogate: str = "lowpass", sigma: float = 1.0, samples: int = 1) -> np.ndarray:
    """[P22] measurement posterior sampling: a continuous-tone secret from binary shares B̂ through a surrogate H.

    Args:
        bits: extracted shares, (h, w) or (n, h, w) of 0/1; the prior's shape must be f·(h, w) for an integer f.
        prior: a :class:`DiffusionPrior` of secret images.
        steps: sampling steps.
        seed: the sampler's noise.
        guidance: the step ζ of the measurement guidance.
        surrogate: ``"lowpass"`` or ``"sigmoid"`` (module docstring).
        sigma: the surrogate's width (low-pass σ in share pixels, or the sigmoid's softness).
        samples: posterior draws averaged into the estimate (1: one posterior sample; more: an approximate posterior
            mean, the minimum-MSE estimate; our choice, the abstract does not say).

    Returns:
        Ŝ in [0, 1], (H, W) or (n, H, W).
    """
    b = real_array(bits, "bits", ndim=(2, 3))
    if not np.all((b == 0) | (b == 1)):
        raise ValueError("bits must hold only 0 and 1")
    single = b.ndim == 2
    b = b[None] if single else b
    H, W = prior.shape
    if H % b.shape[1] or W % b.shape[2] or H // b.shape[1] != W // b.shape[2]:
        raise ValueError(f"bits shape {b.shape[1:]} must divide the prior's image shape {prior.shape} by one factor")
    factor = positive_int(H // b.shape[1], "factor")
    name = choice(surrogate, "surrogate", tuple(SURROGATES))
    s = real(sigma, "sigma", lo=0.0, lo_open=True)
    target = torch.as_tensor(b, dtype=torch.float32).unsqueeze(1)
    fn = SURROGATES[name]

    def loss(x0: Tensor) -> Tensor:
        return fn(x0, target, factor, s)

    k = positive_int(samples, "samples")
    n = b.shape[0]
    target = target.repeat(k, 1, 1, 1)  # draw j of image i sits at row j n + i
    x = guided_sample(prior, n=n * k, steps=int_at_least(steps, "steps", 1), seed=seed, loss=loss,
                      guidance=guidance)
    out = ((x[:, 0] + 1) / 2).clamp(0, 1).reshape(k, n, H, W).mean(0).numpy().astype(np.float64)
    return out[0] if single else out
