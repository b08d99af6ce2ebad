"""[P27]'s edits on the tiny Llama: the cached partial forward pass, the moments, the value search, and the edits
against identities they must satisfy."""

import numpy as np
import pytest
import torch

from icml26.papers.zerounlearn import (
    compute_z,
    forget_keys,
    knows,
    make_prompts,
    retain_moments,
    zero_unlearn,
    zero_unlearn_gd,
)
from icml26.papers.zerounlearn._baselines import gradient_ascent, memit_eos
from icml26.papers.zerounlearn._model import Stack, down_proj, pad_rows
from icml26.papers.zerounlearn._stats import residual_at


def _weights(model):
    return {i: down_proj(model, i).weight.detach().clone() for i in range(len(model.model.layers))}


def test_partial_forward_equals_the_full_model(tiny):
    model, tok, facts, _ = tiny
    ids, mask = pad_rows([tok(f.text())["input_ids"] for f in facts[:4]] + [tok("the capital")["input_ids"]],
                         tok.pad_token_id)
    with torch.no_grad():
        full = model(input_ids=ids, attention_mask=mask).logits
        stack = Stack(model, ids, mask, 2)
        part = model.get_output_embeddings()(stack.run())
    on = mask.bool()
    torch.testing.assert_close(part[on], full[on], atol=1e-4, rtol=1e-4)


def test_knows_agrees_with_greedy_generation(tiny):
    model, tok, facts, _ = tiny
    prompts = [f.text() for f in facts[:6]]
    wrong = [facts[(i + 1) % 6].answer if facts[(i + 1) % 6].answer != f.answer else " the"
             for i, f in enumerate(facts[:6])]
    got = knows(model, tok, prompts, [f.answer for f in facts[:6]])
    for p, f, k in zip(prompts, facts[:6], got):
        ids = torch.tensor([tok(p)["input_ids"]])
        out = model.generate(ids, max_new_tokens=1, do_sample=False, pad_token_id=tok.pad_token_id)
        assert bool(k) == (tok.decode(out[0, -1:]).strip() == f.answer.strip())
    assert not knows(model, tok, prompts, wrong).any()


def test_retain_moments_are_consistent(tiny):
    model, tok, facts, stats = tiny
    for lay in (1, 2):
        kk, vk = stats.kk[lay], stats.vk[lay]
        np.testing.assert_allclose(kk.numpy(), kk.numpy().T, atol=1e-10)
        assert float(torch.linalg.eigvalsh(kk).min()) > -1e-8
        w = down_proj(model, lay).weight.detach().double()  # v = W k exactly (no bias)
        torch.testing.assert_close(vk, w @ kk, atol=1e-4 * float(vk.abs().max()), rtol=0)


def test_value_search_lowers_the_target_loss_within_the_clamp(tiny):
    model, tok, facts, _ = tiny
    prompts = make_prompts(tok, facts[:3])
    z = compute_z(model, prompts, prompts.eos, layer=2, steps=15, lr=1.0, clamp=0.5)
    zero = compute_z(model, prompts, prompts.eos, layer=2, steps=1, lr=1.0, clamp=0.5)  # the loss at δ = 0
    assert (z.loss < zero.loss).all()
    ratio = (z.z - z.init).norm(dim=1) / z.init.norm(dim=1)
    assert float(ratio.max()) <= 0.5 + 1e-5
    assert torch.equal(z.init, zero.init)


def test_edit_without_forget_term_or_projector_is_the_identity(tiny):
    model, tok, facts, stats = tiny
    before = _weights(model)
    res = zero_unlearn(model, make_prompts(tok, facts[:2]), layers=(1, 2), retain_stats=stats, steps=2,
                       forget_weight=0.0, projector=False)
    for lay in (1, 2):
        torch.testing.assert_close(res.matrices[lay], torch.eye(64, dtype=torch.float64), atol=1e-4, rtol=0)
        torch.testing.assert_close(down_proj(model, lay).weight, before[lay], atol=1e-4 * float(before[lay].abs().max()), rtol=0)
    res.restore(model)


def test_zero_unlearn_forgets_more_than_it_breaks_and_restores(tiny):
    model, tok, facts, stats = tiny
    before = _weights(model)
    forget = facts[:3]
    base = knows(model, tok, [f.text() for f in facts], [f.answer for f in facts])
    assert base.all()
    prompts = make_prompts(tok, forget)
    z_new = compute_z(model, prompts, prompts.eos, layer=2, lr=1.0).z.double()  # the search zero_unlearn runs first
    h_before = residual_at(model, prompts, 2)
    res = zero_unlearn(model, prompts, layers=(1, 2), retain_stats=stats, lr=1.0)
    try:
        after = knows(model, tok, [f.text() for f in facts], [f.answer for f in facts])
        for lay in (0, 3):  # only the named layers change
            assert torch.equal(down_proj(model, lay).weight, before[lay])
        # the edit's target: every forget prompt's last-layer state moves toward its neutral state z_new
        h_after = residual_at(model, prompts, 2)
        assert ((h_after - z_new).norm(dim=1) < (h_before - z_new).norm(dim=1)).all()
        assert after[:3].mean() < after[3:].mean()  # forgets a larger share than it breaks
        assert after[3:].mean() >= 0.5  # most others kept
        d = res.matrices[2]
        assert d.shape == (64, 64) and torch.isfinite(d).all()
    finally:
        res.restore(model)
    for lay, w in before.items():
        assert torch.equal(down_proj(model, lay).weight, w)


def test_gradient_variant_stays_in_the_retain_null_space(tiny):
    model, tok, facts, stats = tiny
    res = zero_unlearn_gd(model, make_prompts(tok, facts[:2]), layers=(1,), retain_stats=stats, steps=3,
                          gd_steps=20, gd_lr=1e-2, null_threshold=1e-3)
    try:
        vals, vecs = torch.linalg.eigh(stats.kk[1])
        busy = vecs[:, vals >= 1e-3]  # directions the retain keys use
        dw = res.matrices[1]
        assert float((dw @ busy).abs().max()) < 1e-8
        k, _ = forget_keys(model, make_prompts(tok, facts[:2]), 1)
        assert k.shape == (2, 128)
    finally:
        res.restore(model)


def test_baselines_run_and_restore(tiny):
    model, tok, facts, stats = tiny
    before = _weights(model)
    prompts = make_prompts(tok, facts[:2])
    seen = []
    ga = gradient_ascent(model, prompts, layers=(1, 2), steps=5, lr=1e-2, on_step=lambda s: seen.append(s) or s >= 3)
    assert seen == [1, 2, 3] and ga.passes == 6
    ga.restore(model)
    me = memit_eos(model, prompts, layers=(1, 2), retain_stats=stats, steps=3)
    me.restore(model)
    for lay, w in before.items():
        assert torch.equal(down_proj(model, lay).weight, w)


def test_bad_input_is_refused(tiny):
    model, tok, facts, stats = tiny
    prompts = make_prompts(tok, facts[:2])
    with pytest.raises(ValueError, match="facts"):
        make_prompts(tok, [])
    with pytest.raises(ValueError, match="layers"):
        zero_unlearn(model, prompts, layers=(1, 9), retain_stats=stats)
    with pytest.raises(ValueError, match="layers"):
        zero_unlearn(model, prompts, layers=(2, 1), retain_stats=stats)
    with pytest.raises(ValueError, match="retain_stats"):
        zero_unlearn(model, prompts, layers=(0,), retain_stats=stats)
    with pytest.raises(ValueError, match="forget"):
        zero_unlearn(model, [], layers=(1,), retain_stats=stats)
    with pytest.raises(TypeError, match="model"):
        zero_unlearn(torch.nn.Linear(2, 2), prompts, layers=(0,), retain_stats=stats)
    with pytest.raises(ValueError, match="layer"):
        compute_z(model, prompts, prompts.eos, layer=4)
    with pytest.raises(ValueError, match="site"):
        compute_z(model, prompts, prompts.eos, layer=1, site="attn")
    with pytest.raises(ValueError, match="rows"):
        retain_moments(model, [], layers=(1,), pad_id=0)
