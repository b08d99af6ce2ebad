"""The [P24] multi-step teacher: a bidirectional video diffusion model over frames 1..T−1 given frame 0.

Variance-preserving cosine schedule x_t = α_t x + σ_t ε with α_t = cos(πt/2), σ_t = sin(πt/2), x0-parameterised
denoiser trained by denoising score matching, sampled with a deterministic DDIM loop of ``steps`` network calls.
The score of the model is s(x_t, t) = (α_t x̂0(x_t, t) − x_t) / σ_t² (Tweedie).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from icml26.common import validation as V
from icml26.papers.aad1._nets import NetConfig, VideoDenoiser, build

__all__ = ["alpha_sigma", "dsm_loss", "score_from_x0", "teacher_sample", "train_teacher"]

T_MIN, T_MAX = 0.02, 0.98  # training noise levels (the ends of the cosine schedule are degenerate)


def alpha_sigma(t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """[P24] VP cosine schedule: (α_t, σ_t) with α_t² + σ_t² = 1."""
    return torch.cos(0.5 * math.pi * t), torch.sin(0.5 * math.pi * t)


def score_from_x0(x_t: torch.Tensor, x0: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """[P24] Tweedie: the score ∇ log p_t(x_t) = (α_t x̂0 − x_t) / σ_t² of an x0-denoiser."""
    a, s = alpha_sigma(t)
    shape = (-1,) + (1,) * (x_t.dim() - 1)
    return (a.reshape(shape) * x0 - x_t) / s.reshape(shape) ** 2


def _bc(v: torch.Tensor) -> torch.Tensor:
    """A per-video (B,) schedule value broadcast over (B, T, S, S)."""
    return v[:, None, None, None]


def dsm_loss(model: VideoDenoiser, video: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """[P24] denoising score matching on (B, T, S, S) videos (frame 0 kept clean as the condition), x0 regression weighted
    by α_t²/σ_t² clipped to [0.1, 10] (a bounded SNR weighting)."""
    b = video.shape[0]
    x, cond = video[:, 1:], video[:, 0]
    t = T_MIN + (T_MAX - T_MIN) * torch.rand(b, generator=gen)
    eps = torch.randn(x.shape, generator=gen)
    a, s = alpha_sigma(t)
    x_t = _bc(a) * x + _bc(s) * eps
    w = (a**2 / s**2).clamp(0.1, 10.0)
    err = ((model(x_t, cond, t) - x) ** 2).mean(dim=(1, 2, 3))
    return (w * err).mean()


def train_teacher(videos: np.ndarray, *, net: NetConfig, steps: int, batch: int, lr: float,
                  seed: int) -> VideoDenoiser:
    """[P24] the bidirectional teacher, trained by DSM on ``videos`` (n, T, S, S) for ``steps`` Adam steps."""
    x = torch.as_tensor(V.real_array(videos, "videos", ndim=4), dtype=torch.float32)
    if x.shape[1:] != (net.frames, net.size, net.size):
        raise ValueError(f"videos must have shape (n, {net.frames}, {net.size}, {net.size}), got {tuple(x.shape)}")
    steps, batch = V.positive_int(steps, "steps"), V.positive_int(batch, "batch")
    lr = V.real(lr, "lr", lo=0.0, lo_open=True)
    gen = torch.Generator().manual_seed(V.seed(seed))
    model = build(VideoDenoiser, net, seed=seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    for _ in range(steps):
        idx = torch.randint(0, x.shape[0], (batch,), generator=gen)
        loss = dsm_loss(model, x[idx], gen)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
    return model.eval()


@torch.no_grad()
def teacher_sample(teacher: VideoDenoiser, cond: torch.Tensor, *, steps: int, seed: int) -> torch.Tensor:
    """[P24] multi-step teacher sampling: deterministic DDIM over ``steps`` network calls from pure noise.

    ``cond`` (B, S, S) -> videos (B, T, S, S) with frame 0 = ``cond``.
    """
    steps = V.positive_int(steps, "steps")
    c = torch.as_tensor(V.real_array(cond, "cond", ndim=3), dtype=torch.float32)
    gen = torch.Generator().manual_seed(V.seed(seed))
    b = c.shape[0]
    x = torch.randn((b, teacher.frames - 1, *c.shape[1:]), generator=gen)
    ts = torch.linspace(1.0, 0.0, steps + 1)
    for i in range(steps):
        t, s = ts[i].expand(b), ts[i + 1].expand(b)
        x0 = teacher(x, c, t.clamp(max=T_MAX + 0.01)).clamp(-1.0, 1.0)
        a_t, s_t = alpha_sigma(t)
        a_s, s_s = alpha_sigma(s)
        eps = (x - _bc(a_t) * x0) / _bc(s_t)
        x = _bc(a_s) * x0 + _bc(s_s) * eps
    return torch.cat([c[:, None], x], dim=1)
