"""Structural encoding of [P22]: downsample, error-diffusion halftone, and the bipartite share layout.

Images are 2-D float arrays in [0, 1] (0 black). The secret S becomes binary shares B = halftone(downsample(S, f));
the stego image carries every bit of B as the sign of a luminance difference between two neighbouring sites of
the checkerboard (bipartite) site lattice: the black-class site holds share 1 (B) and the white-class site share
2 (¬B), so a receiver reads B̂ = 1[mean(black site) > mean(white site)] with no key, seed or prompt. Every bit is
written ``repeats`` times across the image (structural redundancy). The layout (pairs along rows, bit j on pairs j,
j + n, j + 2n, ...) is our reconstruction of the abstract's "bipartite manifold ... self-synchronizing shares".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from icml26.common.validation import choice, positive_int, real_array
from icml26.papers.kistego._adaptive import ProjectionLayout, projection_soft_bits

__all__ = ["HALFTONES", "PairLayout", "Shares", "downsample", "encode_shares", "extract", "floyd_steinberg",
           "pair_layout", "threshold_halftone"]


def _image(x: object, name: str) -> np.ndarray:
    a = real_array(x, name, ndim=2)
    if a.min() < 0.0 or a.max() > 1.0:
        raise ValueError(f"{name} must hold intensities in [0, 1], got range [{a.min():.3g}, {a.max():.3g}]")
    return a


def downsample(image: np.ndarray, factor: int) -> np.ndarray:
    """Block means over ``factor`` x ``factor`` tiles: the downsampling step of [P22]'s structural encoding.

    Args:
        image: (H, W) in [0, 1], H and W divisible by ``factor``.
        factor: the downsampling factor f.
    """
    a = _image(image, "image")
    f = positive_int(factor, "factor")
    h, w = a.shape
    if h % f or w % f:
        raise ValueError(f"factor {f} must divide the image shape {a.shape}")
    return a.reshape(h // f, f, w // f, f).mean(axis=(1, 3))


def floyd_steinberg(image: np.ndarray) -> np.ndarray:
    """Floyd-Steinberg error diffusion (weights 7/16, 3/16, 5/16, 1/16, raster order): [P22]'s halftoning step.

    Returns a uint8 array of 0/1; the local mean of the output follows the input's (the diffused error stays bounded).
    """
    a = _image(image, "image").copy()
    h, w = a.shape
    out = np.zeros((h, w), dtype=np.uint8)
    for i in range(h):
        for j in range(w):
            old = a[i, j]
            new = 1.0 if old >= 0.5 else 0.0
            out[i, j] = int(new)
            e = old - new
            if j + 1 < w:
                a[i, j + 1] += e * 7 / 16
            if i + 1 < h:
                if j > 0:
                    a[i + 1, j - 1] += e * 3 / 16
                a[i + 1, j] += e * 5 / 16
                if j + 1 < w:
                    a[i + 1, j + 1] += e * 1 / 16
    return out


def threshold_halftone(image: np.ndarray) -> np.ndarray:
    """Plain thresholding at 1/2 (no error diffusion): the alternative halftone of [P22]'s pluggable encoder."""
    return (_image(image, "image") >= 0.5).astype(np.uint8)


HALFTONES: dict[str, Callable[[np.ndarray], np.ndarray]] = {"floyd_steinberg": floyd_steinberg,
                                                            "threshold": threshold_halftone}


@dataclass(frozen=True)
class Shares:
    """The structural encoding of a secret ([P22]): the binary halftone ``bits`` (h, w) of the downsampled secret.

    Attributes:
        bits: uint8 0/1 array (h, w), share 1; share 2 is its complement ``1 - bits``.
        secret_shape: the secret's (H, W).
        factor: the downsampling factor f (H = f h).
    """

    bits: np.ndarray
    secret_shape: tuple[int, int]
    factor: int

    @property
    def complement(self) -> np.ndarray:
        """Share 2 of [P22]'s bipartite pair: ¬B."""
        return (1 - self.bits).astype(np.uint8)


def encode_shares(secret: np.ndarray, *, factor: int, halftone: str = "floyd_steinberg") -> Shares:
    """[P22] structural latent guidance, encoding half: B = halftone(downsample(S, f)) and its complement ¬B.

    Args:
        secret: the secret image S, (H, W) in [0, 1].
        factor: the downsampling factor f (divides H and W).
        halftone: ``"floyd_steinberg"`` (error diffusion) or ``"threshold"``; see :data:`HALFTONES`.
    """
    s = _image(secret, "secret")
    name = choice(halftone, "halftone", tuple(HALFTONES))
    small = downsample(s, factor)
    return Shares(bits=HALFTONES[name](small), secret_shape=(s.shape[0], s.shape[1]), factor=int(factor))


@dataclass(frozen=True)
class PairLayout:
    """Where each bit lives in a stego image of [P22]: ``black[r, j]`` / ``white[r, j]`` are the flat site indices of
    repeat ``r`` of bit ``j`` on the (H / cell) x (W / cell) site lattice; ``cell`` is the site size in pixels."""

    image_shape: tuple[int, int]
    bits_shape: tuple[int, int]
    cell: int
    black: np.ndarray
    white: np.ndarray

    @property
    def sites_shape(self) -> tuple[int, int]:
        """The site lattice's shape (H / cell, W / cell)."""
        return (self.image_shape[0] // self.cell, self.image_shape[1] // self.cell)

    @property
    def repeats(self) -> int:
        """How many times each bit is written."""
        return int(self.black.shape[0])


def pair_layout(image_shape: tuple[int, int], *, cell: int = 2, bits_shape: tuple[int, int] | None = None
                ) -> PairLayout:
    """The public, key-free bipartite layout of [P22] (our reconstruction, see the module docstring).

    Sites are ``cell`` x ``cell`` pixel blocks; neighbouring sites (i, 2k) and (i, 2k + 1) form a pair, one of each
    checkerboard class. ``bits_shape`` defaults to (H / (2 cell), W / (2 cell)), i.e. every bit written twice.
    """
    c = positive_int(cell, "cell")
    if len(image_shape) != 2:
        raise ValueError(f"image_shape must be (H, W), got {image_shape!r}")
    h, w = (positive_int(v, "image_shape") for v in image_shape)
    if h % c or w % (2 * c):
        raise ValueError(f"image_shape {image_shape} must be divisible by cell {c} (and its width by 2 cell)")
    sh, sw = h // c, w // c
    if bits_shape is None:
        bits_shape = (max(1, sh // 2), max(1, sw // 2))
    bh, bw = (positive_int(v, "bits_shape") for v in bits_shape)
    n, pairs = bh * bw, sh * sw // 2
    if n > pairs:
        raise ValueError(f"bits_shape {bits_shape} needs {n} site pairs; a {image_shape} image with cell {c} has {pairs}")
    reps = pairs // n
    q = np.arange(reps * n).reshape(reps, n)  # pair index of (repeat, bit)
    row, k = q // (sw // 2), q % (sw // 2)
    left, right = row * sw + 2 * k, row * sw + 2 * k + 1
    left_black = (row % 2) == 0  # site (row, 2k) is black iff row + 2k is even
    black = np.where(left_black, left, right)
    white = np.where(left_black, right, left)
    return PairLayout(image_shape=(h, w), bits_shape=(bh, bw), cell=c, black=black, white=white)


def site_means(image: np.ndarray, cell: int) -> np.ndarray:
    """Mean luminance of every ``cell`` x ``cell`` site, flattened in raster order (the pooling A of [P22])."""
    h, w = image.shape[-2:]
    return image.reshape(*image.shape[:-2], h // cell, cell, w // cell, cell).mean(axis=(-3, -1)).reshape(
        *image.shape[:-2], -1)


def soft_bits(image: np.ndarray, layout: PairLayout) -> np.ndarray:
    """Per bit, the black-minus-white site difference averaged over the repeats (its sign is the bit)."""
    m = site_means(image, layout.cell)
    d = m[..., layout.black] - m[..., layout.white]
    return d.mean(axis=-2).reshape(*image.shape[:-2], *layout.bits_shape)


def extract(stego: np.ndarray, *, cell: int = 2, bits_shape: tuple[int, int] | None = None,
            layout: PairLayout | ProjectionLayout | None = None) -> np.ndarray:
    """[P22] key-independent extraction: B̂ = 1[black-site mean > white-site mean], soft-majority over repeats.

    Deterministic: no key, seed, prompt or inversion; ``cell`` and ``bits_shape`` are the public format (the same
    defaults as :func:`pair_layout`). ``layout`` replaces them: a :class:`PairLayout`, or the adaptive
    :class:`~icml26.papers.kistego.ProjectionLayout` (B̂_j from the sign of a principal-direction projection).
    Returns a uint8 (h, w) array of 0/1.
    """
    x = _image(stego, "stego")
    if isinstance(layout, ProjectionLayout):
        return (projection_soft_bits(x, layout) > 0).astype(np.uint8)
    if layout is not None and not isinstance(layout, PairLayout):
        raise TypeError(f"layout must be a PairLayout or a ProjectionLayout, got {type(layout).__name__}")
    lay = layout or pair_layout((x.shape[0], x.shape[1]), cell=cell, bits_shape=bits_shape)
    if lay.image_shape != x.shape:
        raise ValueError(f"stego of shape {x.shape} does not match the layout's {lay.image_shape}")
    return (soft_bits(x, lay) > 0).astype(np.uint8)
