"""The KV-cached sampler of [P25] reproduces TinyGPT's full forward pass, for every block and position variant."""

import numpy as np
import pytest
import torch

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.papers.accordion import KVSampler, sample_from_logits
from icml26.papers.accordion._decode import _Cache, _forward

VARIANTS = [dict(pos="learned"), dict(pos="rope"), dict(pos="sinusoidal"), dict(pos="none"),
            dict(norm_position="post"), dict(norm_position="sandwich", norm="rmsnorm"), dict(parallel=True),
            dict(n_experts=2, top_k=1, mlp="swiglu")]


def _model(**kw):
    cfg = GPTConfig(vocab_size=17, block_size=24, n_layer=2, n_head=2, d_model=16, **kw)
    return TinyGPT(cfg, seed=3).double().eval()


def _cached_logits(model, ctxs, extra):
    """Prefill the left-padded contexts, then feed ``extra`` tokens one at a time; logits after each."""
    lens = torch.tensor([len(c) for c in ctxs])
    L, B = int(lens.max()), len(ctxs)
    pad = L - lens
    idx = torch.zeros(B, L, dtype=torch.long)
    for r, c in enumerate(ctxs):
        idx[r, int(pad[r]):] = torch.tensor(c)
    pos = torch.clamp(torch.arange(L)[None] - pad[:, None], min=0)
    cfg = model.cfg
    cache = _Cache(cfg.n_layer, (B, cfg.n_head, L + extra.shape[1], cfg.d_model // cfg.n_head), torch.float64)
    cache.valid[:, :L] = torch.arange(L)[None] >= pad[:, None]
    out = [_forward(model, idx, pos, cache)]
    for t in range(extra.shape[1]):
        cache.valid[:, L + t] = True
        out.append(_forward(model, extra[:, t:t + 1], (lens + t)[:, None], cache))
    return out


@pytest.mark.parametrize("kw", VARIANTS, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
def test_cached_logits_equal_the_full_forward(kw):
    model = _model(**kw)
    ctxs = [(1, 2, 3, 4, 5, 6, 7), (8, 9), (10, 11, 12, 13)]  # different lengths: left padding and per-row positions
    extra = torch.tensor([[3, 4, 5], [6, 7, 8], [9, 10, 11]])
    got = _cached_logits(model, ctxs, extra)
    with torch.no_grad():
        for r, c in enumerate(ctxs):
            for t in range(extra.shape[1] + 1):
                seq = torch.tensor([list(c) + extra[r, :t].tolist()])
                want = model(seq)[0, -1]
                torch.testing.assert_close(got[t][r], want, rtol=1e-9, atol=1e-9)


def test_greedy_sampling_equals_greedy_generate():
    model = _model()
    sampler = KVSampler(model, temperature=0.0)
    g = torch.Generator().manual_seed(0)
    ctxs = [(1, 2, 3), (4, 5, 6, 7, 8)]
    outs = sampler(ctxs, max_new_tokens=6, stop_tokens=(), generator=g)
    for c, o in zip(ctxs, outs):
        want = model.generate(torch.tensor([c]), max_new_tokens=6)[0, len(c):].tolist()
        assert list(o) == want


def test_rows_stop_at_their_stop_token_and_at_the_block():
    model = _model()
    g = torch.Generator().manual_seed(0)
    greedy = KVSampler(model, temperature=0.0)(
        [(1, 2, 3)], max_new_tokens=10, stop_tokens=(), generator=g)[0]
    stop = greedy[2]
    cut = KVSampler(model, temperature=0.0)([(1, 2, 3)], max_new_tokens=10, stop_tokens=(stop,), generator=g)[0]
    assert cut == greedy[: greedy.index(stop) + 1]
    full = KVSampler(model, temperature=0.0)([tuple(range(1, 17)) + (1,) * 6], max_new_tokens=10, stop_tokens=(),
                                             generator=g)[0]
    assert len(full) == 24 - 22  # as many as the block leaves room for


def test_sampling_is_seeded_and_follows_the_distribution():
    model = _model()
    outs = [KVSampler(model)([(1, 2, 3)] * 4, max_new_tokens=5, stop_tokens=(), generator=torch.Generator().manual_seed(s))
            for s in (7, 7, 8)]
    assert outs[0] == outs[1] and outs[0] != outs[2]
    logits = torch.tensor([[0.0, np.log(3.0)]]).repeat(20000, 1)
    draws = sample_from_logits(logits, temperature=1.0, generator=torch.Generator().manual_seed(0))
    assert abs(float(draws.double().mean()) - 0.75) < 0.015  # p(1) = 3/4


def test_broken_logits_are_refused():
    g = torch.Generator().manual_seed(0)
    with pytest.raises(ValueError, match="logits"):
        sample_from_logits(torch.tensor([[0.0, float("nan")]]), temperature=1.0, generator=g)
    with pytest.raises(ValueError, match="logits"):
        sample_from_logits(torch.tensor([[float("-inf"), float("-inf")]]), temperature=1.0, generator=g)
    masked = sample_from_logits(torch.tensor([[float("-inf"), 0.0]]), temperature=1.0, generator=g)
    assert int(masked[0]) == 1  # -inf is a mask, not an error
    model = _model()
    with torch.no_grad():
        model.lm_head.weight.fill_(float("nan"))
    with pytest.raises(ValueError, match="logits"):
        KVSampler(model)([(1, 2)], max_new_tokens=2, stop_tokens=(), generator=g)
