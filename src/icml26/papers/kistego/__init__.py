"""[P22] KIStego: Key-Independent Generative Image Steganography

What it is: a secret image S is turned into binary shares B = halftone(downsample(S, f)) (Floyd-Steinberg error
diffusion); a diffusion sampler generates a natural-looking stego image under structural guidance that writes each
bit as the sign of the luminance difference between two neighbouring sites of a checkerboard (bipartite) lattice,
share 1 (B) on the black class and share 2 (¬B) on the white class, each bit repeated. The receiver reads
B̂ = 1[black > white] with no key, seed, prompt or inversion, then reconstructs a continuous-tone Ŝ by measurement
posterior sampling: diffusion sampling of secrets guided by ‖H(x̂_0) - h(B̂)‖² through a differentiable halftone
surrogate H. Any prior with ``shape``, ``alpha_bar`` and ``denoise(x_t, t) -> ε̂`` plugs in.

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``keyfree_extraction`` — shares extracted without a key (clean and after a lossy channel), where a keyed
     DDIM-inversion scheme recovers them with its right key and nothing with a wrong one (Abstract).
  2. ``posterior_fidelity`` — posterior sampling restores continuous tone better than descreening (Abstract).
  3. ``steganalysis_chance`` — stego images indistinguishable from ordinary samples (Abstract).

Reconstructed pieces (only the abstract exists; each is a separate, replaceable function):
  1. Share layout (``pair_layout``): 2 x 2-pixel sites, pairs (i, 2k), (i, 2k + 1) along rows, black site = B,
     white site = ¬B, every bit written twice; "bipartite manifold ... self-synchronizing shares" read this way.
  2. Structural guidance (``structural_loss``): a softplus hinge on the signed pair difference with margin m,
     applied to x̂_0 at every step of a DDPM sampler (η = 1), step ζ / sqrt(L) as in DPS (``guided_sample``).
     The embedding strength ζ is swept (capacity / security trade-off); the claims' operating point is the weakest
     ζ whose bit accuracy after the channel reaches 0.95 on calibration secrets disjoint from the test secrets.
  3. Halftone (``HALFTONES``): Floyd-Steinberg (default) or thresholding; downsampling by block means.
  4. Measurement surrogate (``SURROGATES``): ``lowpass`` (Gaussian low-pass of downsample(x̂_0) vs of B̂: error
     diffusion preserves local means) or ``sigmoid`` (σ(k (downsample(x̂_0) - 1/2)) vs B̂).
  5. Channel (``distort``): 8-bit rounding, JPEG-like 8 x 8 DCT quantisation (quality 75), noise σ = 0.02.
  6. Baselines: descreening by Gaussian blur or median filter (``descreen``); a CRoSS-style keyed scheme
     (``keyed_hide``/``keyed_reveal``: DDIM inversion, key-seeded permutation and sign flips of the noise).
  7. Steganalysers (``logistic_auc``, ``cnn_auc``) on median-filter residuals.
  8. Priors: :class:`GaussianProcessPrior` (exact score; smoke and tests) and a ~0.6 M-parameter DDPM UNet trained
     here on scikit-learn's bundled digits upsampled to 32 x 32 (``digits_prior``, cached by config) in place of
     the paper's pretrained diffusion model; pixel space, not a latent space.
"""

from icml26.papers.kistego._attacks import distort, jpeg_like, psnr, ssim
from icml26.papers.kistego._baselines import ddim_invert, descreen, keyed_hide, keyed_reveal
from icml26.papers.kistego._halftone import (
    HALFTONES,
    PairLayout,
    Shares,
    downsample,
    encode_shares,
    extract,
    floyd_steinberg,
    pair_layout,
)
from icml26.papers.kistego._pipeline import SURROGATES, embed, reconstruct, structural_loss
from icml26.papers.kistego._priors import DiffusionPrior, GaussianProcessPrior, linear_schedule
from icml26.papers.kistego._sampler import guided_sample
from icml26.papers.kistego._steganalysis import cnn_auc, logistic_auc
from icml26.papers.kistego._unet import TinyUNet, UNetPrior, digits_images, digits_prior

__all__ = [
    "HALFTONES",
    "SURROGATES",
    "DiffusionPrior",
    "GaussianProcessPrior",
    "PairLayout",
    "Shares",
    "TinyUNet",
    "UNetPrior",
    "cnn_auc",
    "ddim_invert",
    "descreen",
    "digits_images",
    "digits_prior",
    "distort",
    "downsample",
    "embed",
    "encode_shares",
    "extract",
    "floyd_steinberg",
    "guided_sample",
    "jpeg_like",
    "keyed_hide",
    "keyed_reveal",
    "linear_schedule",
    "logistic_auc",
    "pair_layout",
    "psnr",
    "reconstruct",
    "ssim",
    "structural_loss",
]
