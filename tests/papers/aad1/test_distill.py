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
    imle_init,
    imle_match,
    make_sprite_videos,
    render_sprite,
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


def test_imle_match_is_the_brute_force_nearest_candidate() -> None:
    g = torch.Generator().manual_seed(0)
    cand, tgt = torch.randn(5, 7, 3, 4, 4, generator=g), torch.randn(5, 3, 4, 4, generator=g)
    brute = [min(range(7), key=lambda k: float(((cand[b, k] - tgt[b]) ** 2).sum())) for b in range(5)]
    assert imle_match(cand, tgt).tolist() == brute
    with pytest.raises(ValueError, match="candidates"):
        imle_match(cand[:, :, 0], tgt)


def test_imle_init_covers_both_modes_instead_of_their_average() -> None:
    """Two targets per condition (a sprite moved right or left): IMLE fits each by its own noise draw, so the best
    candidate ends far closer to every target than the modes' average (what plain regression learns) is."""
    net = NetConfig(frames=3, size=8, student_hidden=16, latent=2)
    d = make_sprite_videos(64, frames=3, size=8, modes=((1.0, 0.0), (-1.0, 0.0)), sigma=1.2, seed=0)
    cond, tgt = torch.as_tensor(d.videos[:, 0]).float(), torch.as_tensor(d.videos[:, 1:]).float()
    g = build(CausalChunkGenerator, net, seed=0)
    log = imle_init(g, cond, tgt, steps=150, batch=16, lr=3e-3, candidates=8, seed=0)
    assert len(log.loss) == 150 and np.mean(log.loss[-20:]) < 0.5 * np.mean(log.loss[:20])
    z = torch.randn(64 * 16, 2, 2, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        cand = g.rollout(cond.repeat_interleave(16, 0), frames=3, noise=z)[:, 1:].reshape(64, 16, 2, 8, 8)
    best = ((cand - tgt[:, None]) ** 2).mean(dim=(2, 3, 4)).amin(dim=1).mean()
    steps = np.arange(1, 3)[None, :, None] * np.array([1.0, 0.0])
    right, left = (torch.as_tensor(render_sprite((d.start[:, None, :] + sign * steps) % 8, size=8, sigma=1.2)).float()
                   for sign in (1.0, -1.0))
    average = ((0.5 * (right + left) - tgt) ** 2).mean()
    assert float(best) < 0.5 * float(average)
    with pytest.raises(ValueError, match="targets"):
        imle_init(g, cond, tgt[:10], steps=1, batch=2, lr=1e-3, seed=0)


def test_dmd_warmup_continues_a_given_fake_score_in_place() -> None:
    v = make_sprite_videos(16, frames=4, size=8, modes=((1.0, 0.0),), sigma=1.2, seed=0).videos
    teacher = build(VideoDenoiser, NET, seed=0)
    fake = build(VideoDenoiser, NET, seed=3)
    before = [p.detach().clone() for p in fake.parameters()]
    t0 = [p.detach().clone() for p in teacher.parameters()]
    g = build(CausalChunkGenerator, NET, seed=1)
    dmd_warmup(g, teacher, v, net=NET, steps=2, batch=4, lr=1e-3, fake=fake, probe_every=5, seed=0)  # type: ignore
    assert any(not torch.equal(a, b) for a, b in zip(before, fake.parameters()))  # trained in place
    assert all(torch.equal(a, b) for a, b in zip(t0, teacher.parameters()))  # the teacher stays frozen
    with pytest.raises(TypeError, match="fake"):
        dmd_warmup(g, teacher, v, net=NET, steps=1, batch=2, lr=1e-3, fake="teacher", seed=0)  # type: ignore


def test_init_targets_are_teacher_samples_on_conditioning_frames_apart_from_the_evaluation() -> None:
    """The students' initialisation sees the teacher's samples only, never the evaluation's frames or real videos."""
    from icml26.papers.aad1 import _arms
    from icml26.papers.aad1.claims import SMOKE

    teacher = build(VideoDenoiser, SMOKE.net, seed=0).eval()
    got = _arms._sample_targets(SMOKE, teacher)  # pyright: ignore[reportPrivateUsage]
    data = make_sprite_videos(SMOKE.init_videos, frames=SMOKE.net.frames, size=SMOKE.net.size, seed=_arms.TARGET_SEED)
    again = teacher_sample(teacher, got["cond"], steps=SMOKE.init_sample_steps, seed=_arms.TARGET_SEED)[:, 1:]
    assert torch.equal(got["targets"], again)  # the teacher's frames 1..T-1, drawn afresh
    assert not torch.allclose(got["targets"], torch.as_tensor(data.videos[:, 1:], dtype=torch.float32), atol=0.1)
    ev = make_sprite_videos(SMOKE.eval_videos, frames=SMOKE.net.frames, size=SMOKE.net.size, seed=_arms.EVAL_SEED)
    gap = (got["cond"][:, None] - torch.as_tensor(ev.videos[None, :, 0], dtype=torch.float32)).abs().amax(dim=(2, 3))
    assert float(gap.min()) > 1e-3  # no evaluation conditioning frame among the initialisation's


def test_instance_noise_diffuses_frames_after_the_condition_by_the_schedule() -> None:
    from icml26.papers.aad1 import _distill

    g = torch.Generator().manual_seed(0)
    video, eps = torch.randn(3, 4, 8, 8, generator=g), torch.randn(3, 3, 8, 8, generator=g)
    t = torch.tensor([0.0, 0.3, 0.5])
    out = _distill._diffused(video, t, eps)  # pyright: ignore[reportPrivateUsage]
    assert torch.equal(out[:, 0], video[:, 0])  # the conditioning frame stays clean
    torch.testing.assert_close(out[0], video[0])  # t = 0 leaves the video as it is
    a, s = np.cos(0.15 * np.pi), np.sin(0.15 * np.pi)
    torch.testing.assert_close(out[1, 1:], float(a) * video[1, 1:] + float(s) * eps[1])
    assert _distill._diffused(video, None, None) is video  # pyright: ignore[reportPrivateUsage]
    v = make_sprite_videos(16, frames=4, size=8, modes=((1.0, 0.0),), sigma=1.2, seed=0).videos
    runs = []
    for noise in (0.0, 0.5):
        gen = build(CausalChunkGenerator, NET, seed=1)
        log = adversarial_distill(gen, v, net=NET, steps=3, batch=4, lr=1e-3, noise=noise, probe_every=3, seed=0)
        assert not log.diverged
        runs.append(torch.cat([p.detach().flatten() for p in gen.parameters()]))
    assert not torch.equal(runs[0], runs[1])  # the critic saw other inputs, so the generator moved otherwise
    with pytest.raises(ValueError, match="noise"):
        adversarial_distill(gen, v, net=NET, steps=1, batch=2, lr=1e-3, noise=1.0, seed=0)


def test_arm_runs_splits_each_seed_in_two_jobs_and_caches_the_student_init(tmp_path, monkeypatch) -> None:
    """Every (seed, arm) row once, in seed then arm order, from 2 jobs per seed; the IMLE initialisation is built
    once per seed and read back from the cache folder afterwards, identical."""
    from icml26.papers.aad1 import _arms
    from icml26.papers.aad1._rules import ARMS
    from icml26.papers.aad1.claims import SMOKE

    monkeypatch.setenv("ICML26_CACHE_DIR", str(tmp_path))
    built: list[int] = []
    real = _arms._init_state  # pyright: ignore[reportPrivateUsage]

    def counting(cfg, targets, seed):  # type: ignore[no-untyped-def]
        built.append(seed)
        return real(cfg, targets, seed)

    monkeypatch.setattr(_arms, "_init_state", counting)
    jobs: list[object] = []

    def mapper(fn, items):  # type: ignore[no-untyped-def]
        jobs.extend(items)
        return [fn(x) for x in items]

    runs = _arms.arm_runs(SMOKE, (3, 1), mapper)
    assert sorted(jobs) == sorted([(s, p) for s in (3, 1) for p in ("distill", "adv_only")])  # type: ignore[type-var]
    assert [(r["seed"], r["arm"]) for r in runs["rows"]] == [(s, a) for s in (3, 1) for a in ARMS]
    assert sorted(built) == [1, 3]  # the adv_only job read the init its seed's distill job cached
    teacher = _arms.trained_teacher(SMOKE)
    targets = _arms.teacher_targets(SMOKE, teacher)
    g = _arms.student_init(SMOKE, targets, 3)
    fresh = build(CausalChunkGenerator, SMOKE.net, seed=0)
    fresh.load_state_dict(real(SMOKE, targets, 3))
    assert all(torch.equal(a, b) for a, b in zip(g.parameters(), fresh.parameters())) and sorted(built) == [1, 3]


def test_both_critics_see_the_same_instance_noised_videos(monkeypatch) -> None:
    """Same seed, same generator: the bidirectional and the per-chunk critic are shown the same videos, the real ones
    diffused (frame 0 clean, frames 1.. noised) when ``noise`` > 0 and unchanged when it is 0."""
    from icml26.papers.aad1 import _nets

    v = make_sprite_videos(16, frames=4, size=8, modes=((1.0, 0.0),), sigma=1.2, seed=0).videos
    bank = torch.as_tensor(v, dtype=torch.float32)
    seen: dict[str, list[torch.Tensor]] = {"bidirectional": [], "causal": []}
    for kind, cls in (("bidirectional", _nets.BidirectionalDiscriminator), ("causal", _nets.ChunkDiscriminator)):
        def record(self, video, _orig=cls.forward, _kind=kind):  # type: ignore[no-untyped-def]
            seen[_kind].append(video.detach().clone())
            return _orig(self, video)

        monkeypatch.setattr(cls, "forward", record)
    for noise in (0.5, 0.0):
        for kind in ("bidirectional", "causal"):
            seen[kind].clear()
            g = build(CausalChunkGenerator, NET, seed=1)
            adversarial_distill(g, v, net=NET, discriminator=kind, steps=1, batch=4, lr=1e-3, noise=noise,
                                probe_every=5, seed=0)
        a, b = seen["bidirectional"], seen["causal"]
        assert len(a) == len(b) == 3  # real and fake for the critic's step, fake for the generator's
        assert all(torch.equal(x, y) for x, y in zip(a, b))
        real = a[0]
        gap = (real[:, None] - bank[None]).abs().amax(dim=(3, 4))  # (batch, bank, frames)
        nearest = gap[..., 0].argmin(dim=1)
        assert torch.all(gap[torch.arange(4), nearest, 0] == 0)  # frame 0 is a real conditioning frame, clean
        moved = gap[torch.arange(4), nearest, 1:].amin(dim=1)
        assert torch.all(moved > 1e-3) if noise > 0 else torch.all(moved == 0)


def test_every_arm_starts_from_the_seeds_init_with_the_same_steps_and_critic_settings(tmp_path, monkeypatch) -> None:
    """The DMD warm-up and the GAN alone start from the seed's initialisation, DMD only / AAD-1 / per-chunk from the
    same warm-up; every arm makes warmup + adversarial generator steps; the three GANs share lr, R1, noise and seed."""
    from icml26.papers.aad1 import _arms
    from icml26.papers.aad1.claims import SMOKE

    monkeypatch.setenv("ICML26_CACHE_DIR", str(tmp_path))
    calls: list[dict] = []

    def flat(g: CausalChunkGenerator) -> torch.Tensor:
        return torch.cat([p.detach().flatten() for p in g.parameters()]).clone()

    def wrap(name, fn):  # type: ignore[no-untyped-def]
        def inner(generator, *args, **kw):  # type: ignore[no-untyped-def]
            call = {"fn": name, "start": flat(generator), "steps": kw["steps"],
                    "gan": {k: kw.get(k) for k in ("lr", "r1", "noise", "seed", "batch")}, "kind": kw.get("discriminator")}
            log = fn(generator, *args, **kw)
            calls.append({**call, "end": flat(generator)})
            return log
        return inner

    monkeypatch.setattr(_arms, "dmd_warmup", wrap("dmd", _arms.dmd_warmup))
    monkeypatch.setattr(_arms, "adversarial_distill", wrap("gan", _arms.adversarial_distill))
    _arms.arm_runs(SMOKE, (2,))
    init = flat(_arms.student_init(SMOKE, _arms.teacher_targets(SMOKE, _arms.trained_teacher(SMOKE)), 2))
    warm, dmd, aad, causal, alone = calls  # the "distill" job, then the "adv_only" job
    assert [c["fn"] for c in calls] == ["dmd", "dmd", "gan", "gan", "gan"]
    assert [c["kind"] for c in (aad, causal, alone)] == ["bidirectional", "causal", "bidirectional"]
    assert torch.equal(warm["start"], init) and torch.equal(alone["start"], init)
    assert not torch.equal(warm["end"], init)
    assert all(torch.equal(c["start"], warm["end"]) for c in (dmd, aad, causal))
    total = SMOKE.warmup + SMOKE.adversarial
    assert [warm["steps"] + c["steps"] for c in (dmd, aad, causal)] + [alone["steps"]] == [total] * 4
    assert aad["gan"] == causal["gan"] == alone["gan"]
    assert aad["gan"]["noise"] == SMOKE.d_noise > 0


def test_the_init_cache_key_covers_what_determines_the_init(monkeypatch) -> None:
    """Every config field either changes the initialisation's cache key or leaves the initialisation bit-identical,
    so the cache never serves a stale student; IMLE's own settings and the seed change the key."""
    from dataclasses import fields, replace

    from icml26.papers.aad1 import _arms
    from icml26.papers.aad1.claims import SMOKE

    monkeypatch.setenv("ICML26_CACHE_DIR", "off")
    net = NetConfig(frames=3, size=12, teacher_hidden=2, student_hidden=2, disc_hidden=2, latent=1, cache=1)
    base = replace(SMOKE, net=net, train_videos=8, teacher_steps=2, teacher_batch=4, teacher_sample_steps=2, batch=2,
                   init_videos=4, init_sample_steps=1, init_steps=2, init_candidates=2)

    def init(cfg) -> dict[str, torch.Tensor]:  # type: ignore[no-untyped-def]
        return _arms._init_state(cfg, _arms.teacher_targets(cfg, _arms.trained_teacher(cfg)), 0)  # pyright: ignore[reportPrivateUsage]

    def bumped(obj, f):  # type: ignore[no-untyped-def]
        v = getattr(obj, f.name)
        return replace(obj, **{f.name: v + 1 if isinstance(v, int) else v * 0.5})

    variants = {f.name: bumped(base, f) for f in fields(base) if f.name not in ("net", "full_scale")}
    variants |= {f"net.{f.name}": replace(base, net=bumped(net, f)) for f in fields(net)}
    key = _arms._init_key(base, 0)  # pyright: ignore[reportPrivateUsage]
    ref = init(base)
    same = [n for n, cfg in variants.items() if _arms._init_key(cfg, 0) == key]  # pyright: ignore[reportPrivateUsage]
    for name in same:
        got = init(variants[name])
        assert all(torch.equal(got[k], ref[k]) for k in ref), name
    changed = set(variants) - set(same)
    assert {"init_steps", "init_candidates", "init_lr", "init_videos", "init_sample_steps", "batch", "teacher_steps",
            "net.student_hidden", "net.latent", "net.cache", "net.frames", "net.size"} <= changed
    assert _arms._init_key(base, 1) != key  # pyright: ignore[reportPrivateUsage]
