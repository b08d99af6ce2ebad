"""The [P24] networks, at toy scale: a bidirectional video denoiser (the teacher and the online fake score), a causal
one-step chunk generator with a cache of its own past chunks, and the two discriminators.

All are 2-D convolutions over the frame's torus (circular padding, 3×3 kernels), so they are translation-equivariant
like the sprites; frames are stacked as channels where a network sees several. Reconstructed: the paper's models are large video diffusion transformers; only the information flow is
kept (who sees which frames).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeVar

import torch
from torch import nn

from icml26.common import validation as V

__all__ = ["BidirectionalDiscriminator", "CausalChunkGenerator", "ChunkDiscriminator", "NetConfig", "VideoDenoiser",
           "build"]

M = TypeVar("M", bound=nn.Module)


@dataclass(frozen=True)
class NetConfig:
    """Sizes of the [P24] toy networks (frames = training horizon T, including the conditioning frame)."""

    frames: int = 8
    size: int = 12  # frames are size × size pixels
    teacher_hidden: int = 32
    student_hidden: int = 16
    disc_hidden: int = 16
    latent: int = 4  # global noise channels of each chunk
    cache: int = 2  # past chunks the generator reads

    def __post_init__(self) -> None:
        V.int_at_least(self.frames, "frames", 2)
        V.int_at_least(self.size, "size", 6)
        for name in ("teacher_hidden", "student_hidden", "disc_hidden", "latent", "cache"):
            V.positive_int(getattr(self, name), name)


def build(cls: type[M], cfg: NetConfig, *, seed: int) -> M:
    """One [P24] network with its parameters initialised from ``seed`` (torch's global RNG is forked, not moved)."""
    if not isinstance(cfg, NetConfig):
        raise TypeError(f"cfg must be a NetConfig, got {type(cfg).__name__}")
    s = V.seed(seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(s)
        return cls(cfg)


def _conv(c_in: int, c_out: int, dilation: int = 1) -> nn.Conv2d:
    return nn.Conv2d(c_in, c_out, 3, padding=dilation, dilation=dilation, padding_mode="circular")


class VideoDenoiser(nn.Module):
    """[P24] bidirectional video diffusion model: predicts clean frames 1..T−1 from all noisy frames at once and the
    clean conditioning frame 0 (every output frame sees every input frame: no causal mask). x0-parameterised."""

    def __init__(self, cfg: NetConfig) -> None:
        super().__init__()
        h = cfg.teacher_hidden
        self.frames = cfg.frames
        self.inp = _conv(cfg.frames, h)
        self.blocks = nn.ModuleList([_conv(h, h, d) for d in (1, 2, 4, 1)])
        self.emb = nn.Sequential(nn.Linear(16, h), nn.SiLU(), nn.Linear(h, 2 * h * len(self.blocks)))
        self.out = _conv(h, cfg.frames - 1)

    def forward(self, x_t: torch.Tensor, cond: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        """``x_t`` (B, T−1, S, S) noisy frames, ``cond`` (B, S, S), ``t`` (B,) in (0, 1] -> x0 estimate like ``x_t``."""
        freqs = torch.exp(torch.linspace(0.0, math.log(100.0), 8))
        ang = t[:, None] * freqs[None, :] * math.pi
        film = self.emb(torch.cat([ang.sin(), ang.cos()], dim=1)).chunk(2 * len(self.blocks), dim=1)
        h = self.inp(torch.cat([cond[:, None], x_t], dim=1))
        for i, blk in enumerate(self.blocks):
            scale, shift = film[2 * i][:, :, None, None], film[2 * i + 1][:, :, None, None]
            h = h + blk(nn.functional.silu(h * (1 + scale) + shift))
        return self.out(nn.functional.silu(h))


class CausalChunkGenerator(nn.Module):
    """[P24] causal one-step generator: chunk k (one frame here) = G(z_k, cond, cache of chunks k−1, ..., k−c).

    One network evaluation per chunk, no denoising loop; the cache holds the generator's own past outputs (the
    self-forcing rollout of training is the inference rollout), so any length can be rolled out.
    """

    def __init__(self, cfg: NetConfig) -> None:
        super().__init__()
        h = cfg.student_hidden
        self.latent, self.cache = cfg.latent, cfg.cache
        self.net = nn.Sequential(_conv(cfg.cache + 1 + cfg.latent, h), nn.SiLU(), _conv(h, h, 2), nn.SiLU(),
                                 _conv(h, h), nn.SiLU(), _conv(h, 1))

    def step(self, cond: torch.Tensor, past: list[torch.Tensor], z: torch.Tensor) -> torch.Tensor:
        """One chunk from its noise ``z`` (B, latent), the condition (B, S, S) and ``past`` (newest last)."""
        window = [past[-1 - i] if i < len(past) else cond for i in range(self.cache)]
        x = torch.stack([cond, *window], dim=1)
        zz = z[:, :, None, None].expand(-1, -1, *cond.shape[-2:])
        return torch.tanh(self.net(torch.cat([x, zz], dim=1)))[:, 0]

    def rollout(self, cond: torch.Tensor, *, frames: int, noise: torch.Tensor) -> torch.Tensor:
        """Autoregressive rollout: (B, frames, S, S) with frame 0 = ``cond``; ``noise`` (B, frames − 1, latent)."""
        past: list[torch.Tensor] = []
        for k in range(frames - 1):
            past.append(self.step(cond, past, noise[:, k]))
        return torch.stack([cond, *past], dim=1)


class BidirectionalDiscriminator(nn.Module):
    """[P24] asymmetric discriminator: attends over the whole video (all chunks and the conditioning image) and
    gives one holistic realism logit per video."""

    def __init__(self, cfg: NetConfig) -> None:
        super().__init__()
        h = cfg.disc_hidden
        self.net = nn.Sequential(_conv(cfg.frames, h), nn.SiLU(), _conv(h, h, 2), nn.SiLU(), _conv(h, h))
        self.head = nn.Linear(2 * h, 1)

    def forward(self, video: torch.Tensor) -> torch.Tensor:
        """``video`` (B, T, S, S) -> logits (B,)."""
        f = nn.functional.silu(self.net(video)).flatten(2)
        return self.head(torch.cat([f.mean(-1), f.amax(-1)], dim=1))[:, 0]


class ChunkDiscriminator(nn.Module):
    """[P24] symmetric baseline: a causal, per-chunk discriminator that scores each chunk on its own (no view of the
    other chunks) and averages the chunk logits. Reconstructed reading of the paper's causal discriminator."""

    def __init__(self, cfg: NetConfig) -> None:
        super().__init__()
        h = cfg.disc_hidden
        self.net = nn.Sequential(_conv(1, h), nn.SiLU(), _conv(h, h, 2), nn.SiLU(), _conv(h, h))
        self.head = nn.Linear(2 * h, 1)

    def chunk_logits(self, video: torch.Tensor) -> torch.Tensor:
        """``video`` (B, T, S, S) -> per-chunk logits (B, T − 1) for chunks 1..T−1."""
        b, t = video.shape[:2]
        f = nn.functional.silu(self.net(video[:, 1:].reshape(b * (t - 1), 1, *video.shape[2:]))).flatten(2)
        return self.head(torch.cat([f.mean(-1), f.amax(-1)], dim=1)).reshape(b, t - 1)

    def forward(self, video: torch.Tensor) -> torch.Tensor:
        """Mean chunk logit per video (B,)."""
        return self.chunk_logits(video).mean(dim=1)
