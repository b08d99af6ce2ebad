"""[P24] who sees what: the causal generator, the bidirectional teacher and the two discriminators."""

import torch

from icml26.papers.aad1 import (
    BidirectionalDiscriminator,
    CausalChunkGenerator,
    ChunkDiscriminator,
    NetConfig,
    VideoDenoiser,
    build,
)

NET = NetConfig(frames=6, size=8, teacher_hidden=8, student_hidden=8, disc_hidden=8)


def test_generator_is_causal_in_its_noise() -> None:
    g = build(CausalChunkGenerator, NET, seed=0)
    cond = torch.randn(3, 8, 8)
    z = torch.randn(3, 9, NET.latent)
    z2 = z.clone()
    z2[:, 4:] = torch.randn(3, 5, NET.latent)  # change the noise of chunks 5.. only
    with torch.no_grad():
        a, b = g.rollout(cond, frames=10, noise=z), g.rollout(cond, frames=10, noise=z2)
    assert torch.equal(a[:, :5], b[:, :5])  # frame k depends on z_1..z_k only
    assert not torch.allclose(a[:, 5:], b[:, 5:])
    assert torch.equal(a[:, 0], cond)


def test_generator_reads_its_cache() -> None:
    g = build(CausalChunkGenerator, NET, seed=0)
    cond, z = torch.randn(2, 8, 8), torch.randn(2, NET.latent)
    with torch.no_grad():
        a = g.step(cond, [torch.zeros(2, 8, 8)], z)
        b = g.step(cond, [torch.ones(2, 8, 8)], z)
    assert not torch.allclose(a, b)


def test_teacher_is_bidirectional() -> None:
    t = build(VideoDenoiser, NET, seed=0)
    x, cond, s = torch.randn(2, 5, 8, 8), torch.randn(2, 8, 8), torch.full((2,), 0.5)
    x2 = x.clone()
    x2[:, -1] += 1.0  # only the last frame changes
    with torch.no_grad():
        a, b = t(x, cond, s), t(x2, cond, s)
    assert not torch.allclose(a[:, 0], b[:, 0])  # the first output frame sees the last input frame


def test_bidirectional_discriminator_sees_the_last_frame_and_the_order() -> None:
    d = build(BidirectionalDiscriminator, NET, seed=0)
    v = torch.randn(2, 6, 8, 8)
    v2 = v.clone()
    v2[:, -1] = torch.randn(2, 8, 8)
    shuffled = v[:, [0, 2, 1, 3, 4, 5]]
    with torch.no_grad():
        assert not torch.allclose(d(v), d(v2))
        assert not torch.allclose(d(v), d(shuffled))


def test_chunk_discriminator_scores_chunks_alone() -> None:
    d = build(ChunkDiscriminator, NET, seed=0)
    v = torch.randn(2, 6, 8, 8)
    shuffled = v[:, [0, 3, 1, 5, 2, 4]]
    v2 = v.clone()
    v2[:, 0] = torch.randn(2, 8, 8)  # the condition frame is not scored
    with torch.no_grad():
        lo = d.chunk_logits(v)
        assert torch.allclose(d(v), d(shuffled), atol=1e-6)  # blind to the order of chunks
        assert torch.allclose(d(v), d(v2))
        assert torch.allclose(lo[:, 2], d.chunk_logits(v[:, [0, 3]])[:, 0], atol=1e-6)


def test_nets_are_translation_equivariant_on_the_torus() -> None:
    g = build(CausalChunkGenerator, NET, seed=0)
    d = build(BidirectionalDiscriminator, NET, seed=0)
    cond, z = torch.randn(2, 8, 8), torch.randn(2, 5, NET.latent)
    v = torch.randn(2, 6, 8, 8)
    with torch.no_grad():
        a = g.rollout(cond, frames=6, noise=z)
        b = g.rollout(torch.roll(cond, (2, -3), (1, 2)), frames=6, noise=z)
        assert torch.allclose(torch.roll(a, (2, -3), (2, 3)), b, atol=1e-5)  # a shifted condition, a shifted video
        assert torch.allclose(d(v), d(torch.roll(v, (1, 4), (2, 3))), atol=1e-5)


def test_build_is_deterministic_and_leaves_the_global_rng() -> None:
    state = torch.random.get_rng_state()
    a, b = build(CausalChunkGenerator, NET, seed=4), build(CausalChunkGenerator, NET, seed=4)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
