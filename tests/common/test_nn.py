import itertools

import pytest

torch = pytest.importorskip("torch")

from icml26.common.nn import GPTConfig, MoE, RMSNorm, TinyGPT, apply_rope, sinusoidal_positions  # noqa: E402
from icml26.common.train import train  # noqa: E402

# every norm placement and block layout once, with the other options rotating through their values
VARIANTS = [
    dict(norm=n, norm_position=p, mlp=m, pos=q, parallel=par)
    for (p, par), n, m, q in zip(
        [("pre", False), ("post", False), ("sandwich", False), ("pre", True), ("sandwich", True)] * 2,
        itertools.cycle(("layernorm", "rmsnorm", "rmsnorm")),
        itertools.cycle(("gelu", "swiglu", "relu", "reglu")),
        itertools.cycle(("learned", "rope", "none")),
    )
]


@pytest.mark.parametrize("kw", VARIANTS + [dict(pos="sinusoidal", mlp="geglu"), dict(n_experts=3, top_k=2, mlp="swiglu")],
                         ids=lambda kw: "-".join(f"{v}" for v in kw.values()))
def test_variants_are_causal_and_differentiable(kw):
    cfg = GPTConfig(vocab_size=11, block_size=8, n_layer=2, n_head=2, d_model=8, **kw)
    m = TinyGPT(cfg, seed=1).double()
    idx = torch.randint(0, 11, (2, 8), generator=torch.Generator().manual_seed(0))
    out = m(idx)
    assert out.shape == (2, 8, 11) and out.dtype == torch.float64
    idx2 = idx.clone()
    idx2[:, 5:] = (idx2[:, 5:] + 1) % 11  # change the future only
    torch.testing.assert_close(m(idx2)[:, :5], out[:, :5], rtol=0, atol=1e-12)
    m.loss(idx[:, :-1], idx[:, 1:]).backward()
    assert all(p.grad is not None and torch.isfinite(p.grad).all() for p in m.parameters() if p.requires_grad)


def test_seeded_init_is_deterministic_and_leaves_global_rng_alone():
    cfg = GPTConfig()
    state = torch.random.get_rng_state()
    a, b, c = TinyGPT(cfg, seed=3), TinyGPT(cfg, seed=3), TinyGPT(cfg, seed=4)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert not torch.equal(a.wte.weight, c.wte.weight)


def test_parameter_count_matches_formula():
    d, V, T, L = 16, 10, 8, 3
    m = TinyGPT(GPTConfig(vocab_size=V, block_size=T, n_layer=L, n_head=2, d_model=d), seed=0)
    # attention q, k, v, o + MLP in/out + two bias-free LayerNorms (weight only); final norm d; lm_head tied to wte
    per_block = 4 * d * d + 2 * d * 4 * d + 2 * d
    assert m.n_params() == V * d + T * d + L * per_block + d
    assert m.n_params(non_embedding=True) == L * per_block + d


def test_rope_scores_depend_only_on_relative_position():
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, 4, generator=g, dtype=torch.float64), torch.randn(1, 4, generator=g, dtype=torch.float64)

    def score(i, j):
        return (apply_rope(q, torch.tensor([i])) * apply_rope(k, torch.tensor([j]))).sum()

    torch.testing.assert_close(score(3, 1), score(10, 8))
    with pytest.raises(ValueError, match="even head dimension"):
        apply_rope(torch.zeros(1, 3), torch.tensor([0]))


def test_sinusoidal_table_and_rmsnorm():
    t = sinusoidal_positions(5, 4, dtype=torch.float64)
    assert t[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    torch.testing.assert_close(t[2, 0], torch.sin(torch.tensor(2.0, dtype=torch.float64)))
    x = torch.randn(3, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    y = RMSNorm(6).double()(x)
    torch.testing.assert_close(y.pow(2).mean(-1), torch.ones(3, dtype=torch.float64), rtol=1e-5, atol=1e-5)


def test_moe_gates_are_topk_and_sum_to_one():
    moe = MoE(4, 8, kind="gelu", bias=False, n_experts=4, top_k=2)
    g = moe.gates(torch.randn(5, 4, generator=torch.Generator().manual_seed(0)))
    torch.testing.assert_close(g.sum(-1), torch.ones(5))
    assert ((g > 0).sum(-1) == 2).all()


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        (dict(d_model=10, n_head=3), "divisible"),
        (dict(pos="alibi"), "pos must be"),
        (dict(norm_position="middle"), "norm_position"),
        (dict(parallel=True, norm_position="post"), "parallel"),
        (dict(n_experts=2, top_k=3), "top_k"),
        (dict(vocab_size=0), "vocab_size"),
    ],
)
def test_bad_config(kw, match):
    with pytest.raises(ValueError, match=match):
        GPTConfig(**kw)


def test_bad_input_and_generation():
    m = TinyGPT(GPTConfig(vocab_size=7, block_size=4), seed=0)
    with pytest.raises(ValueError, match="block_size"):
        m(torch.zeros(1, 5, dtype=torch.long))
    with pytest.raises(ValueError, match="token ids"):
        m(torch.full((1, 2), 7))
    with pytest.raises(ValueError, match="batch, time"):
        m(torch.zeros(4, dtype=torch.long))
    out = m.generate(torch.zeros(1, 2, dtype=torch.long), max_new_tokens=6)
    assert out.shape == (1, 8) and torch.equal(out, m.generate(torch.zeros(1, 2, dtype=torch.long), max_new_tokens=6))


def test_train_learns_and_stops_on_plateau():
    # a deterministic sequence task: next token = (token + 1) mod V
    V, T = 8, 6
    start = torch.arange(64) % V
    x = (start[:, None] + torch.arange(T)[None, :]) % V
    y = (x + 1) % V
    m = TinyGPT(GPTConfig(vocab_size=V, block_size=T, n_layer=1, n_head=2, d_model=16), seed=0)

    def loss_fn(model, a, b):
        return model.loss(a, b)

    r1 = train(m, (x, y), loss_fn, steps=200, lr=1e-2, batch_size=16, seed=0, eval_every=20, patience=2, min_delta=0.01)
    assert r1.best < 0.1 * r1.losses[0]
    assert r1.stopped_early and r1.steps < 200  # the loss plateaus near zero, so the loop stops early
    m2 = TinyGPT(GPTConfig(vocab_size=V, block_size=T, n_layer=1, n_head=2, d_model=16), seed=0)
    r2 = train(m2, (x, y), loss_fn, steps=200, lr=1e-2, batch_size=16, seed=0, eval_every=20, patience=2, min_delta=0.01)
    assert r1.losses == r2.losses  # deterministic
    with pytest.raises(ValueError, match="first dimension"):
        train(m, (x, y[:3]), loss_fn, steps=1)
