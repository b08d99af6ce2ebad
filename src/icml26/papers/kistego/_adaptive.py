"""The adaptive share layout of [P22] (our reconstruction): bits carried by statistics the prior itself varies.

The pair layout (``pair_layout``) writes every bit as a luminance gap between two neighbouring sites, so flat regions
of a stego image (a digit's black background) must show gaps a natural sample never has. Here bit j is instead the
sign of the projection of the image onto the j-th principal direction u_j of reference images of the prior (its
samples, or its training data), against a threshold τ_j:

    B̂_j = 1[(x - μ) · u_j > τ_j]  XOR  c_j,

with c_j = (r + s) mod 2 the checkerboard class of share pixel (r, s) (the bipartite pair: share 1 B on the black
class, share 2 ¬B on the white one). τ_j is the reference projections' quantile at 1 - f_j, f_j the frequency of a 1
in written bit j over reference secrets (the median without them), so that an unguided sample of the prior already
reads each bit with the message's own frequency: guidance moves a sample only for the bits it reads wrong. The layout
is public and the same for every message (no key), but it is a codebook: the receiver must build it from the very
reference images and share frequencies the sender used (another set of samples gives other directions and reads
the shares at chance).

The guidance (:func:`projection_loss`) is a squared hinge 2 Σ_j relu(m - s_j ((x̂_0 - μ) · u_j - τ_j))² with
s_j = 2 b_j - 1, taken on x̂_0 (``space="x0"`` of the sampler): its gradient vanishes once a bit reads right with
margin m, and a step of ζ = 1 moves every violated projection exactly to the margin (the u_j are orthonormal).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from icml26.common.validation import positive_int, real, real_array

__all__ = ["ProjectionLayout", "projection_layout", "projection_loss", "projection_soft_bits"]


@dataclass(frozen=True)
class ProjectionLayout:
    """Where each bit lives in a [P22] stego image under the adaptive layout (module docstring).

    Attributes:
        image_shape: (H, W) of the stego images.
        bits_shape: (h, w) of the shares; bit j is share pixel j in raster order.
        mean: μ, (H W,) in [0, 1] image units.
        directions: u_j, (h w, H W), orthonormal rows (principal directions, most variance first).
        thresholds: τ_j, (h w,).
        flip: c_j, (h w,) of 0/1: bits written complemented (the white class of the share lattice).
    """

    image_shape: tuple[int, int]
    bits_shape: tuple[int, int]
    mean: np.ndarray
    directions: np.ndarray
    thresholds: np.ndarray
    flip: np.ndarray

    @property
    def n_bits(self) -> int:
        """Bits carried per image."""
        return int(self.directions.shape[0])


def _checkerboard(bits_shape: tuple[int, int]) -> np.ndarray:
    h, w = bits_shape
    return (np.add.outer(np.arange(h), np.arange(w)) % 2).ravel().astype(np.uint8)


def projection_layout(reference: np.ndarray, *, bits_shape: tuple[int, int], share_frequency: np.ndarray | None = None,
                      bipartite: bool = True) -> ProjectionLayout:
    """Build the adaptive layout of [P22] (our reconstruction) from reference images of the prior.

    Args:
        reference: (N, H, W) images in [0, 1] the prior generates (its samples or training data), N > h w.
        bits_shape: (h, w) of the shares to carry: h w principal directions are used.
        share_frequency: optional (h, w) frequency of a 1 in each share bit over reference secrets; the thresholds
            are the quantiles that give every written bit that frequency under the reference images (clipped to
            [0.1, 0.9]); without it the median.
        bipartite: write ¬B on the white class of the share lattice (True) or B everywhere.
    """
    from sklearn.decomposition import PCA

    ref = real_array(reference, "reference", ndim=3)
    if ref.min() < 0.0 or ref.max() > 1.0:
        raise ValueError("reference must hold intensities in [0, 1]")
    if len(bits_shape) != 2:
        raise ValueError(f"bits_shape must be (h, w), got {bits_shape!r}")
    bh, bw = (positive_int(v, "bits_shape") for v in bits_shape)
    n, (H, W) = bh * bw, ref.shape[1:]
    if ref.shape[0] <= n or n > H * W:
        raise ValueError(f"reference needs more than {n} images (and bits_shape at most H W pixels), got {ref.shape}")
    flat = ref.reshape(ref.shape[0], -1)
    pca = PCA(n_components=n, svd_solver="full").fit(flat)
    u = np.asarray(pca.components_, dtype=np.float64)
    flip = _checkerboard((bh, bw)) if bipartite else np.zeros(n, dtype=np.uint8)
    proj = (flat - pca.mean_) @ u.T
    if share_frequency is None:
        tau = np.median(proj, axis=0)
    else:
        f = real_array(share_frequency, "share_frequency", ndim=2)
        if f.shape != (bh, bw) or f.min() < 0 or f.max() > 1:
            raise ValueError(f"share_frequency must be {(bh, bw)} frequencies in [0, 1], got shape {f.shape}")
        written = np.where(flip == 1, 1 - f.ravel(), f.ravel()).clip(0.1, 0.9)
        tau = np.array([np.quantile(proj[:, j], 1 - written[j]) for j in range(n)])
    return ProjectionLayout(image_shape=(int(H), int(W)), bits_shape=(bh, bw), mean=np.asarray(pca.mean_, np.float64),
                            directions=u, thresholds=tau, flip=flip)


def projection_soft_bits(images: np.ndarray, layout: ProjectionLayout) -> np.ndarray:
    """Signed read-out of [P22]'s adaptive layout: (x - μ) · u_j - τ_j, sign-flipped on the white class, so that
    the bit is 1 where it is positive. ``images`` (..., H, W); returns (..., h, w)."""
    x = np.asarray(images, dtype=np.float64)
    if x.shape[-2:] != layout.image_shape:
        raise ValueError(f"images of shape {x.shape[-2:]} do not match the layout's {layout.image_shape}")
    p = (x.reshape(*x.shape[:-2], -1) - layout.mean) @ layout.directions.T - layout.thresholds
    return (p * (1 - 2 * layout.flip.astype(np.float64))).reshape(*x.shape[:-2], *layout.bits_shape)


def projection_loss(x0: Tensor, bits: Tensor, layout: ProjectionLayout, *, margin: float) -> Tensor:
    """[P22] margin guidance of the adaptive layout (module docstring): 2 Σ_j relu(m - s_j p_j)², (B,).

    ``x0`` (B, 1, H, W) in model space ([-1, 1]); ``bits`` (B, h w) of 0/1 (the share bits, before the bipartite
    flip); ``margin`` m in image units along each unit direction.
    """
    m = real(margin, "margin", lo=0.0, lo_open=True)
    u = torch.as_tensor(layout.directions, dtype=x0.dtype)
    mu = torch.as_tensor(layout.mean, dtype=x0.dtype)
    tau = torch.as_tensor(layout.thresholds, dtype=x0.dtype)
    flip = torch.as_tensor(layout.flip, dtype=x0.dtype)
    written = bits.to(x0.dtype) * (1 - flip) + (1 - bits.to(x0.dtype)) * flip
    p = ((x0 + 1) / 2).flatten(1) @ u.T - mu @ u.T - tau
    return 2 * (F.relu(m - (2 * written - 1) * p) ** 2).sum(dim=1)
