"""The learned prior of [P22]'s reproduction: a small DDPM UNet trained here on scikit-learn's bundled digits.

The paper's prior is a large pretrained diffusion model; ours is a ~0.6 M-parameter UNet (pixel-unshuffled to 8 x 8, two resolutions,
residual blocks with GroupNorm and a sinusoidal time embedding) trained with the ε-prediction loss of DDPM on the 8 x 8
digits bilinearly upsampled to 32 x 32. A fixed permutation holds :data:`HELD_OUT` digits out of training: the
secrets of the checks come from them only (the steganalysis covers are unguided samples of the prior). The trained
weights are cached (``icml26.common.cache``), keyed by the training config, so every claim shares one training run.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from icml26.common.cache import cached_value
from icml26.common.train import train
from icml26.common.validation import int_at_least, positive_int
from icml26.papers.kistego._priors import linear_schedule

__all__ = ["HELD_OUT", "TinyUNet", "UNetConfig", "UNetPrior", "digits_images", "digits_prior", "train_unet"]

HELD_OUT = 297  # digits kept out of training (1797 - 1500)


def digits_images(*, size: int = 32, split: str = "all") -> np.ndarray:
    """scikit-learn's bundled 8 x 8 digits in [0, 1], bilinearly upsampled to ``size`` (the data of [P22]'s prior).

    ``split``: ``"all"``, ``"train"`` or ``"heldout"`` (a fixed permutation, seed 0; :data:`HELD_OUT` held out).
    """
    from sklearn.datasets import load_digits

    n = positive_int(size, "size")
    if split not in ("all", "train", "heldout"):
        raise ValueError(f"split must be 'all', 'train' or 'heldout', got {split!r}")
    bunch: Any = load_digits()
    images = np.asarray(bunch.images, dtype=np.float64)
    x = torch.tensor(images / 16.0, dtype=torch.float32).unsqueeze(1)
    x = F.interpolate(x, size=(n, n), mode="bilinear", align_corners=False).clamp(0, 1)[:, 0].numpy()
    order = np.random.default_rng(0).permutation(x.shape[0])
    idx = {"all": np.arange(x.shape[0]), "train": order[:-HELD_OUT], "heldout": order[-HELD_OUT:]}[split]
    return x[idx].astype(np.float64)


def _time_embedding(t: Tensor, dim: int) -> Tensor:
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
    a = t.float()[:, None] * freqs[None]
    return torch.cat([a.sin(), a.cos()], dim=1)


class _Block(nn.Module):
    def __init__(self, c_in: int, c_out: int, t_dim: int) -> None:
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(8, c_in), nn.Conv2d(c_in, c_out, 3, padding=1)
        self.t = nn.Linear(t_dim, c_out)
        self.n2, self.c2 = nn.GroupNorm(8, c_out), nn.Conv2d(c_out, c_out, 3, padding=1)
        self.skip = nn.Conv2d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x: Tensor, te: Tensor) -> Tensor:
        h = self.c1(F.silu(self.n1(x))) + self.t(te)[:, :, None, None]
        return self.skip(x) + self.c2(F.silu(self.n2(h)))


@dataclass(frozen=True)
class UNetConfig:
    """Architecture and training of [P22]'s reproduction prior (the cache key)."""

    width: int = 48
    train_steps: int = 1500
    batch_size: int = 32
    lr: float = 2e-3
    timesteps: int = 1000
    size: int = 32
    seed: int = 0


class TinyUNet(nn.Module):
    """ε-prediction UNet of [P22]'s reproduction prior: pixel-unshuffle by 4 (32 x 32 -> 16 x 8 x 8), residual blocks
    at 8 x 8 and 4 x 4 with ``width`` and 2 ``width`` channels, pixel-shuffle back (cheap enough for 2 CPU cores)."""

    def __init__(self, width: int = 48) -> None:
        super().__init__()
        w = positive_int(width, "width")
        self.t_dim = 2 * w
        self.t_mlp = nn.Sequential(nn.Linear(w, self.t_dim), nn.SiLU(), nn.Linear(self.t_dim, self.t_dim))
        self.inp = nn.Sequential(nn.PixelUnshuffle(4), nn.Conv2d(16, w, 3, padding=1))
        self.d1, self.d2 = _Block(w, w, self.t_dim), _Block(w, 2 * w, self.t_dim)
        self.mid = _Block(2 * w, 2 * w, self.t_dim)
        self.u2, self.u1 = _Block(4 * w, w, self.t_dim), _Block(2 * w, w, self.t_dim)
        self.out = nn.Sequential(nn.GroupNorm(8, w), nn.SiLU(), nn.Conv2d(w, 16, 3, padding=1), nn.PixelShuffle(4))
        self.width = w

    def forward(self, x: Tensor, t: Tensor) -> Tensor:
        te = self.t_mlp(_time_embedding(t, self.width))
        h0 = self.d1(self.inp(x), te)  # 8 x 8
        h1 = self.d2(F.avg_pool2d(h0, 2), te)  # 4 x 4
        h = self.mid(h1, te)
        h = self.u2(torch.cat([h, h1], 1), te)
        h = self.u1(torch.cat([F.interpolate(h, scale_factor=2.0), h0], 1), te)  # 8 x 8
        return self.out(h)


def _ddpm_loss(model: nn.Module, x0: Tensor, t: Tensor, eps: Tensor, ab: Tensor) -> Tensor:
    a = ab[t].view(-1, 1, 1, 1)
    return F.mse_loss(model(a.sqrt() * x0 + (1 - a).sqrt() * eps, t), eps)


def _no_eval(model: nn.Module) -> float:
    return 0.0


def train_unet(cfg: UNetConfig) -> dict[str, Tensor]:
    """Train :class:`TinyUNet` on the training digits with the DDPM ε-loss ([P22] reproduction prior).

    Times and noise come from a generator seeded with ``cfg.seed`` (the run is deterministic); returns the state dict.
    """
    with torch.random.fork_rng(devices=[]):  # the initial weights from cfg.seed, the global generator left as it was
        torch.manual_seed(cfg.seed)
        model = TinyUNet(cfg.width)
    x = torch.tensor(digits_images(size=cfg.size, split="train"), dtype=torch.float32).unsqueeze(1) * 2 - 1
    g = torch.Generator().manual_seed(cfg.seed + 1)
    ab = linear_schedule(cfg.timesteps)

    def loss(m: nn.Module, xb: Tensor) -> Tensor:  # fresh (t, ε) per step from the seeded generator
        t = torch.randint(0, cfg.timesteps, (xb.shape[0],), generator=g)
        return _ddpm_loss(m, xb, t, torch.randn(xb.shape, generator=g), ab)

    train(model, [x], loss, steps=cfg.train_steps, lr=cfg.lr, batch_size=cfg.batch_size, seed=cfg.seed,
          eval_every=cfg.train_steps + 1, lr_schedule="cosine", eval_fn=_no_eval)
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


class UNetPrior:
    """A trained :class:`TinyUNet` as a [P22] :class:`~icml26.papers.kistego.DiffusionPrior` (ε̂ = model(x_t, t))."""

    def __init__(self, model: TinyUNet, *, size: int = 32, timesteps: int = 1000) -> None:
        self.model = model.eval()
        for p in self.model.parameters():
            p.requires_grad_(False)
        self.shape = (positive_int(size, "size"), positive_int(size, "size"))
        self.alpha_bar = linear_schedule(timesteps)

    def denoise(self, x_t: Tensor, t: Tensor) -> Tensor:
        """ε̂(x_t, t) of the trained UNet ([P22] prior protocol); differentiable in ``x_t``."""
        return self.model(x_t, t)


def digits_prior(*, width: int = 48, train_steps: int = 1500, seed: int = 0) -> UNetPrior:
    """The [P22] reproduction prior: :func:`train_unet` once per config, cached under ``$ICML26_CACHE_DIR``."""
    cfg = UNetConfig(width=positive_int(width, "width"), train_steps=positive_int(train_steps, "train_steps"),
                     seed=int_at_least(seed, "seed", 0))
    key = {"what": "kistego-ddpm-digits", "version": 1, **asdict(cfg)}
    state = cached_value("kistego", key, "unet.pt", lambda: train_unet(cfg))
    with torch.random.fork_rng(devices=[]):  # the throw-away initial weights must not advance the global generator
        model = TinyUNet(cfg.width)
    model.load_state_dict(state)
    return UNetPrior(model, size=cfg.size, timesteps=cfg.timesteps)
