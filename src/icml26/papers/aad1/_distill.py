"""The two [P24] training phases of the one-step causal student.

Phase 1, DMD warm-up (distribution matching with an online fake score): for x = G(z) rolled out causally,
x_t = α_t x + σ_t ε, the generator's gradient is ∇_x = w_t (s_fake(x_t) − s_real(x_t)) ∝ (x̂0_real − x̂0_fake) with
the sign of descent, written with x0-denoisers (DMD2) and normalised by w = 1 / mean|x − x̂0_real|. The fake score is
the teacher's copy trained online by DSM on the student's own rollouts.

Phase 2, asymmetric adversarial distillation: a non-saturating GAN with R1 on real videos, where the discriminator is
bidirectional over the whole video (AAD-1) or per-chunk (the symmetric baseline) and the generator stays causal.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn

from icml26.common import validation as V
from icml26.papers.aad1._data import motion_stats
from icml26.papers.aad1._diffusion import T_MAX, T_MIN, alpha_sigma, dsm_loss
from icml26.papers.aad1._nets import (
    BidirectionalDiscriminator,
    CausalChunkGenerator,
    ChunkDiscriminator,
    NetConfig,
    VideoDenoiser,
    build,
)

__all__ = ["DISCRIMINATORS", "DistillLog", "adversarial_distill", "dmd_gradient", "dmd_warmup", "imle_init", "imle_match",
           "rollout"]

DISCRIMINATORS = ("bidirectional", "causal")


@dataclass
class DistillLog:
    """[P24] what a training phase recorded: the step of each probe and the probe's mean displacement per frame (px)."""

    steps: list[int] = field(default_factory=list)
    displacement: list[float] = field(default_factory=list)
    diverged: bool = False
    loss: list[float] = field(default_factory=list)  # imle_init: the regression loss of every step


def rollout(generator: CausalChunkGenerator, cond: torch.Tensor, *, frames: int, seed: int) -> torch.Tensor:
    """[P24] one-step causal rollout of ``frames`` frames (frame 0 = ``cond``), noise drawn from ``seed``."""
    frames = V.int_at_least(frames, "frames", 2)
    c = torch.as_tensor(V.real_array(cond, "cond", ndim=3), dtype=torch.float32)
    gen = torch.Generator().manual_seed(V.seed(seed))
    noise = torch.randn((c.shape[0], frames - 1, generator.latent), generator=gen)
    return generator.rollout(c, frames=frames, noise=noise)


def _tensor(a: Any, name: str) -> torch.Tensor:
    """``a`` as a finite, non-empty float tensor of >= 1 dimension (tensors are checked, not copied)."""
    if isinstance(a, torch.Tensor):
        if a.dim() < 1 or a.numel() == 0 or not torch.is_floating_point(a):
            raise ValueError(f"{name} must be a non-empty real tensor, got shape {tuple(a.shape)} dtype {a.dtype}")
        if not torch.isfinite(a).all():
            raise ValueError(f"{name} must be finite (got NaN or inf)")
        return a
    return torch.as_tensor(V.real_array(a, name, ndim=(1, 2, 3, 4)), dtype=torch.float32)


def dmd_gradient(x: Any, x0_real: Any, x0_fake: Any) -> torch.Tensor:
    """[P24] DMD gradient w.r.t. the sample x (Eq. of DMD/DMD2 in x0 form): w (x̂0_fake − x̂0_real), with
    w = 1 / mean|x − x̂0_real| per sample. Descending it moves x from the fake density towards the real one."""
    x, x0_real, x0_fake = (_tensor(a, n) for a, n in ((x, "x"), (x0_real, "x0_real"), (x0_fake, "x0_fake")))
    if x.shape != x0_real.shape or x.shape != x0_fake.shape:
        raise ValueError(f"x, x0_real and x0_fake must share a shape, got {tuple(x.shape)}, "
                         f"{tuple(x0_real.shape)}, {tuple(x0_fake.shape)}")
    dims = tuple(range(1, x.dim()))
    w = 1.0 / (x - x0_real).abs().mean(dim=dims, keepdim=True).clamp_min(1e-4)
    return w * (x0_fake - x0_real)


def imle_match(candidates: Any, targets: Any) -> torch.Tensor:
    """Index of the nearest candidate (mean squared error) per target: ``candidates`` (B, K, ...), ``targets``
    (B, ...) -> (B,) in [0, K). The selection step of IMLE (Li & Malik, arXiv 2018), used by :func:`imle_init` to
    initialise the [P24] student (ours, not the paper's)."""
    candidates, targets = _tensor(candidates, "candidates"), _tensor(targets, "targets")
    if candidates.dim() < 3 or candidates.shape[0] != targets.shape[0] or candidates.shape[2:] != targets.shape[1:]:
        raise ValueError(f"candidates must be (B, K, ...) around targets (B, ...), got {tuple(candidates.shape)} and "
                         f"{tuple(targets.shape)}")
    return ((candidates - targets[:, None]) ** 2).flatten(2).mean(dim=2).argmin(dim=1)


def imle_init(generator: CausalChunkGenerator, cond: Any, targets: Any, *, steps: int, batch: int, lr: float,
              candidates: int = 16, seed: int) -> DistillLog:
    """Initialise the [P24] one-step student (in place) on the teacher's samples by implicit maximum likelihood
    estimation (IMLE).

    Ours, not [P24]'s (the paper's student starts from the pretrained teacher's weights, which our toy student
    cannot share): per step, ``candidates`` noise draws per target are rolled out without gradient, the nearest
    rollout (MSE) is kept (:func:`imle_match`) and the generator regresses that rollout on the target. Unlike
    regression on the teacher's noise -> sample (ODE) pairs, each target gets the student's own best latent: the
    bidirectional teacher's motion mode depends on the noise of every frame, which a causal student cannot read at
    chunk 1, so plain pair regression learns the average of the modes (a blurred ring), not a sprite.

    ``cond`` (n, S, S) conditioning frames, ``targets`` (n, T − 1, S, S) the teacher's frames 1..T−1 for them.
    """
    steps, batch, lr = V.positive_int(steps, "steps"), V.positive_int(batch, "batch"), V.real(lr, "lr", lo=0.0,
                                                                                                  lo_open=True)
    k = V.positive_int(candidates, "candidates")
    c = _tensor(cond, "cond")
    y = _tensor(targets, "targets")
    if c.dim() != 3 or y.dim() != 4 or y.shape[0] != c.shape[0] or y.shape[2:] != c.shape[1:]:
        raise ValueError(f"cond must be (n, S, S) and targets (n, T - 1, S, S) for the same n and S, got "
                         f"{tuple(c.shape)} and {tuple(y.shape)}")
    gen = torch.Generator().manual_seed(V.seed(seed))
    frames = y.shape[1] + 1
    opt = torch.optim.Adam(generator.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    log = DistillLog()
    for _ in range(steps):
        j = torch.randint(0, c.shape[0], (batch,), generator=gen)
        z = torch.randn((batch * k, frames - 1, generator.latent), generator=gen)
        with torch.no_grad():
            cand = generator.rollout(c[j].repeat_interleave(k, dim=0), frames=frames, noise=z)[:, 1:]
        best = imle_match(cand.reshape(batch, k, *y.shape[1:]), y[j])
        video = generator.rollout(c[j], frames=frames, noise=z.reshape(batch, k, frames - 1, -1)[torch.arange(batch), best])
        loss = ((video[:, 1:] - y[j]) ** 2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        log.loss.append(float(loss.detach()))
    return log


def _cond_bank(videos: np.ndarray, net: NetConfig) -> torch.Tensor:
    v = torch.as_tensor(V.real_array(videos, "videos", ndim=4), dtype=torch.float32)
    if v.shape[1:] != (net.frames, net.size, net.size):
        raise ValueError(f"videos must have shape (n, {net.frames}, {net.size}, {net.size}), got {tuple(v.shape)}")
    return v


def _probe(log: DistillLog, step: int, g: CausalChunkGenerator, probe: torch.Tensor, frames: int) -> None:
    with torch.no_grad():
        x = rollout(g, probe, frames=frames, seed=12345)
    if not torch.isfinite(x).all():
        log.diverged = True
        return
    log.steps.append(step)
    log.displacement.append(motion_stats(x.numpy().astype(np.float64)).mean_displacement)


def _check_common(steps: int, batch: int, lr: float, probe_every: int) -> tuple[int, int, float, int]:
    return (V.positive_int(steps, "steps"), V.positive_int(batch, "batch"), V.real(lr, "lr", lo=0.0, lo_open=True),
            V.positive_int(probe_every, "probe_every"))


def dmd_warmup(generator: CausalChunkGenerator, teacher: VideoDenoiser, videos: np.ndarray, *, net: NetConfig,
               steps: int, batch: int, lr: float, fake_updates: int = 2, probe_every: int = 50,
               fake: VideoDenoiser | None = None, seed: int) -> DistillLog:
    """[P24] phase 1: distribution-matching warm-up of ``generator`` (in place) against the frozen ``teacher``.

    ``videos`` supplies conditioning frames (frame 0). Per generator step: a causal rollout, the DMD gradient from
    the teacher (real score) and the online fake score, then ``fake_updates`` DSM steps of the fake score on the
    detached rollout. The fake score starts as a copy of the teacher, or is ``fake`` (trained in place) to continue
    an earlier run with the fake score that already tracks the student, instead of restarting it from the teacher.
    """
    steps, batch, lr, probe_every = _check_common(steps, batch, lr, probe_every)
    fake_updates = V.positive_int(fake_updates, "fake_updates")
    bank = _cond_bank(videos, net)
    gen = torch.Generator().manual_seed(V.seed(seed))
    if fake is not None and not isinstance(fake, VideoDenoiser):
        raise TypeError(f"fake must be a VideoDenoiser or None, got {type(fake).__name__}")
    fake = copy.deepcopy(teacher).train() if fake is None else fake.train()
    teacher.requires_grad_(False)
    opt_g = torch.optim.Adam(generator.parameters(), lr=lr, betas=(0.0, 0.99))
    opt_f = torch.optim.Adam(fake.parameters(), lr=lr, betas=(0.0, 0.99))
    log = DistillLog()
    probe = bank[:128, 0]
    for step in range(steps):
        cond = bank[torch.randint(0, bank.shape[0], (batch,), generator=gen), 0]
        noise = torch.randn((batch, net.frames - 1, generator.latent), generator=gen)
        video = generator.rollout(cond, frames=net.frames, noise=noise)
        x = video[:, 1:]
        t = T_MIN + (T_MAX - T_MIN) * torch.rand(batch, generator=gen)
        a, s = alpha_sigma(t)
        x_t = a[:, None, None, None] * x.detach() + s[:, None, None, None] * torch.randn(x.shape, generator=gen)
        with torch.no_grad():
            grad = dmd_gradient(x.detach(), teacher(x_t, cond, t), fake(x_t, cond, t))
        loss = 0.5 * ((x - (x - grad).detach()) ** 2).sum() / batch
        opt_g.zero_grad(set_to_none=True)
        loss.backward()
        opt_g.step()
        for _ in range(fake_updates):
            f_loss = dsm_loss(fake, video.detach(), gen)
            opt_f.zero_grad(set_to_none=True)
            f_loss.backward()
            opt_f.step()
        if (step + 1) % probe_every == 0:
            _probe(log, step + 1, generator, probe, net.frames)
    teacher.requires_grad_(True)
    return log


def _r1(logits: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
    (g,) = torch.autograd.grad(logits.sum(), real, create_graph=True)
    return (g**2).sum(dim=(1, 2, 3)).mean()


def _diffused(video: torch.Tensor, t: torch.Tensor | None, eps: torch.Tensor | None) -> torch.Tensor:
    """``video`` with frames 1..T−1 diffused to level ``t`` (B,) by ``eps``; unchanged where ``t`` is None."""
    if t is None or eps is None:
        return video
    a, s = alpha_sigma(t)
    return torch.cat([video[:, :1], a[:, None, None, None] * video[:, 1:] + s[:, None, None, None] * eps], dim=1)


def adversarial_distill(generator: CausalChunkGenerator, videos: np.ndarray, *, net: NetConfig,
                        discriminator: str = "bidirectional", steps: int, batch: int, lr: float, r1: float = 1.0,
                        noise: float = 0.0, probe_every: int = 50, seed: int) -> DistillLog:
    """[P24] phase 2: adversarial distillation of ``generator`` (in place) against real ``videos``.

    ``discriminator="bidirectional"`` is AAD-1's asymmetric holistic critic over the whole video;
    ``"causal"`` the per-chunk baseline. Non-saturating loss, R1 penalty ``r1``/2 · ||∇D(real)||² on real videos.
    ``noise`` > 0 is instance noise (ours; the noised discriminator input of diffusion-GAN and adversarial
    post-training): the critic sees frames 1..T−1 diffused to a level t ~ U(0, ``noise``) of the teacher's schedule,
    one t per real/fake pair, frame 0 clean; R1 is taken at the noised real video.
    """
    steps, batch, lr, probe_every = _check_common(steps, batch, lr, probe_every)
    kind = V.choice(discriminator, "discriminator", DISCRIMINATORS)
    gamma = V.real(r1, "r1", lo=0.0)
    level = V.real(noise, "noise", lo=0.0, hi=T_MAX)
    bank = _cond_bank(videos, net)
    cls: Callable[..., nn.Module] = BidirectionalDiscriminator if kind == "bidirectional" else ChunkDiscriminator
    d = build(cls, net, seed=V.seed(seed) + 1)
    gen = torch.Generator().manual_seed(V.seed(seed))
    opt_g = torch.optim.Adam(generator.parameters(), lr=lr, betas=(0.0, 0.99))
    opt_d = torch.optim.Adam(d.parameters(), lr=lr, betas=(0.0, 0.99))
    log = DistillLog()
    probe = bank[:128, 0]
    sp = nn.functional.softplus
    for step in range(steps):
        real = bank[torch.randint(0, bank.shape[0], (batch,), generator=gen)]
        z = torch.randn((batch, net.frames - 1, generator.latent), generator=gen)
        fake = generator.rollout(real[:, 0], frames=net.frames, noise=z)
        t = e_real = e_fake = None
        if level > 0:
            t = level * torch.rand(batch, generator=gen)
            e_real, e_fake = (torch.randn(real[:, 1:].shape, generator=gen) for _ in range(2))
        seen = _diffused(real, t, e_real).detach().requires_grad_(True)
        d_real = d(seen)
        d_loss = sp(-d_real).mean() + sp(d(_diffused(fake.detach(), t, e_fake))).mean() + 0.5 * gamma * _r1(d_real, seen)
        opt_d.zero_grad(set_to_none=True)
        d_loss.backward()
        opt_d.step()
        g_loss = sp(-d(_diffused(fake, t, e_fake))).mean()
        opt_g.zero_grad(set_to_none=True)
        g_loss.backward()
        opt_g.step()
        if not torch.isfinite(g_loss):
            log.diverged = True
            break
        if (step + 1) % probe_every == 0:
            _probe(log, step + 1, generator, probe, net.frames)
    return log
