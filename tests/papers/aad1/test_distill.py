"""[P24] DMD gradient, schedule and scores against closed forms; the two training phases on tiny networks."""

import numpy as np
import pytest
import torch

from icml26.papers.aad1 import (
    CausalChunkGenerator,
    NetConfig,
    VideoDenoiser,
    adversarial_distill,
    alpha_sigma,
    build,
    dmd_gradient,
    dmd_warmup,
    dsm_loss,
    make_sprite_videos,
    rollout,
    score_from_x0,
    teacher_sample,
    train_teacher,
)

NET = NetConfig(frames=4, size=8, teacher_hidden=8, student_hidden=8, disc_hidden=8, latent=2)


def _gauss_x0(x_t: torch.Tensor, t: torch.Tensor, mu: float, s2: float) -> torch.Tensor:
    """Exact E[x0 | x_t] for x0 ~ N(mu, s2) under the VP schedule."""
    a, s = alpha_sigma(t)
    return mu + a * s2 / (a**2 * s2 + s**2) * (x_t - a * mu)


def test_dmd_gradient_moves_the_student_towards_the_teacher_on_a_1d_gaussian() -> None:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 4000, generator=g)  # one batch of student samples, N(0, 1); teacher N(2, 1)
    for _ in range(200):
        t = 0.1 + 0.8 * torch.rand(1, 4000, generator=g)
        a, s = alpha_sigma(t)
        x_t = a * x + s * torch.randn(x.shape, generator=g)
        mu_f = float(x.mean())
        grad = dmd_gradient(x, _gauss_x0(x_t, t, 2.0, 1.0), _gauss_x0(x_t, t, mu_f, float(x.var())))
        x = x - 0.05 * grad
    assert 1.7 < float(x.mean()) < 2.3
    first = dmd_gradient(torch.zeros(5, 1), torch.ones(5, 1), -torch.ones(5, 1))
    assert torch.all(first < 0)  # descending it raises x towards the teacher's denoised mean


def test_schedule_and_tweedie_score_against_autograd() -> None:
    t = torch.linspace(0.05, 0.95, 7)
    a, s = alpha_sigma(t)
    assert torch.allclose(a**2 + s**2, torch.ones(7))
    mu, s2 = 0.7, 0.4
    x_t = torch.linspace(-2, 2, 7, requires_grad=True)
    var = a**2 * s2 + s**2
    logp = (-0.5 * (x_t - a * mu) ** 2 / var).sum()
    (auto,) = torch.autograd.grad(logp, x_t)
    assert torch.allclose(score_from_x0(x_t.detach(), _gauss_x0(x_t.detach(), t, mu, s2), t), auto, atol=1e-5)


class _Oracle(torch.nn.Module):
    """A denoiser that always answers the same clean frames."""

    def __init__(self, clean: torch.Tensor) -> None:
        super().__init__()
        self.clean, self.frames = clean, clean.shape[1] + 1

    def forward(self, x_t: torch.Tensor, cond: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        return self.clean.expand(x_t.shape[0], -1, -1, -1)


def test_ddim_returns_the_denoisers_answer() -> None:
    clean = torch.rand(1, 3, 8, 8) * 2 - 1
    out = teacher_sample(_Oracle(clean), np.zeros((2, 8, 8)), steps=5, seed=0)  # type: ignore[arg-type]
    assert torch.allclose(out[:, 1:], clean.expand(2, -1, -1, -1), atol=1e-5)
    assert torch.equal(out[:, 0], torch.zeros(2, 8, 8))


def test_teacher_training_lowers_the_dsm_loss() -> None:
    v = make_sprite_videos(64, frames=4, size=8, modes=((1.0, 0.0),), sigma=1.2, seed=0).videos
    x = torch.as_tensor(v, dtype=torch.float32)
    before = build(VideoDenoiser, NET, seed=0)
    after = train_teacher(v, net=NET, steps=60, batch=32, lr=3e-3, seed=0)

    def loss(m: torch.nn.Module) -> float:
        with torch.no_grad():
            return float(dsm_loss(m, x, torch.Generator().manual_seed(1)))  # type: ignore[arg-type]

    assert loss(after) < 0.7 * loss(before)


@pytest.mark.parametrize("kind", ["bidirectional", "causal"])
def test_phases_update_the_student_and_log_probes(kind: str) -> None:
    v = make_sprite_videos(32, frames=4, size=8, modes=((1.0, 0.0), (0.0, -1.0)), sigma=1.2, seed=0).videos
    teacher = build(VideoDenoiser, NET, seed=0)
    g = build(CausalChunkGenerator, NET, seed=1)
    p0 = [p.detach().clone() for p in g.parameters()]
    log = dmd_warmup(g, teacher, v, net=NET, steps=4, batch=8, lr=1e-3, probe_every=2, seed=0)  # type: ignore
    assert log.steps == [2, 4] and not log.diverged and all(np.isfinite(log.displacement))
    assert any(not torch.equal(a, b) for a, b in zip(p0, g.parameters()))
    log = adversarial_distill(g, v, net=NET, discriminator=kind, steps=4, batch=8, lr=1e-3, probe_every=2, seed=0)
    assert log.steps == [2, 4] and not log.diverged
    out = rollout(g, v[:3, 0], frames=9, seed=0)  # type: ignore[arg-type]
    assert out.shape == (3, 9, 8, 8) and torch.isfinite(out).all() and out.abs().max() <= 1.0
    with pytest.raises(ValueError, match="discriminator"):
        adversarial_distill(g, v, net=NET, discriminator="symmetric", steps=1, batch=2, lr=1e-3, seed=0)
