"""The public entry points of [P22] for the bad-input conformance test."""

import numpy as np

from icml26.papers.kistego import (
    GaussianProcessPrior,
    descreen,
    distort,
    downsample,
    embed,
    encode_shares,
    extract,
    floyd_steinberg,
    layout_auc,
    projection_layout,
    psnr,
    reconstruct,
    ssim,
)
from support.badinput import Entry

_img = np.linspace(0.1, 0.9, 64).reshape(8, 8)
_prior = GaussianProcessPrior(8, length_scale=2.0)
_shares = encode_shares(_img, factor=4)
_stego = np.clip(_img + 0.0, 0, 1)
_bits = _shares.bits.astype(float)
_reference = np.clip(_img[None] + np.linspace(-0.1, 0.1, 12)[:, None, None] * np.cos(np.arange(8))[None, :, None], 0, 1)

_layout = projection_layout(_reference, bits_shape=(2, 2))

ENTRY_POINTS = [
    Entry("encode_shares", encode_shares, valid={"secret": _img, "factor": 2, "halftone": "floyd_steinberg"},
          kinds={"secret": "array", "factor": "int", "halftone": "str"}),
    Entry("projection_layout", projection_layout, valid={"reference": _reference, "bits_shape": (2, 2)},
          kinds={"reference": "array"}),
    Entry("downsample", downsample, valid={"image": _img, "factor": 2}, kinds={"image": "array", "factor": "int"}),
    Entry("floyd_steinberg", floyd_steinberg, valid={"image": _img}, kinds={"image": "array"}),
    Entry("extract", extract, valid={"stego": _stego, "cell": 2}, kinds={"stego": "array", "cell": "int"}),
    Entry("embed", embed, valid={"shares": _shares, "prior": _prior, "steps": 3, "guidance": 1.0, "seed": 0,
                                 "margin": 0.1},
          kinds={"steps": "int", "guidance": "nonneg", "seed": "seed", "margin": "posreal"}),
    Entry("reconstruct", reconstruct, valid={"bits": _bits, "prior": _prior, "steps": 3, "seed": 0, "guidance": 1.0,
                                             "surrogate": "lowpass", "sigma": 0.7, "samples": 1},
          kinds={"bits": "array", "steps": "int", "seed": "seed", "guidance": "nonneg", "surrogate": "str",
                 "sigma": "posreal", "samples": "int"},
          skip={"bits:extra_dim": "a (1, h, w) stack is a valid batch of one set of shares"}),
    Entry("distort", distort, valid={"image": _img, "quality": 75, "noise": 0.02, "seed": 0},
          kinds={"image": "array", "quality": "int", "noise": "nonneg", "seed": "seed"}),
    Entry("descreen", descreen, valid={"bits": _bits, "factor": 4, "method": "blur", "size": 1.0},
          kinds={"bits": "array", "factor": "int", "method": "str", "size": "posreal"}),
    Entry("layout_auc", layout_auc, valid={"covers": _reference[:6], "stegos": _reference[6:], "layout": _layout,
                                           "folds": 2, "seed": 0},
          kinds={"covers": "array", "stegos": "array", "folds": "int", "seed": "seed"}),
    Entry("psnr", psnr, valid={"estimate": _img, "reference": _img[::-1]},
          kinds={"estimate": "array", "reference": "array"}),
    Entry("ssim", ssim, valid={"estimate": _img, "reference": _img[::-1]},
          kinds={"estimate": "array", "reference": "array"}),
]
