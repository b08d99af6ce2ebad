"""[P23] recurrent model: halted states frozen bit for bit while the others update, halted tokens still read as
keys/values, the straight-through router's gradient, the dense loop against the sparse inference path, seeding."""

import numpy as np
import pytest
import torch

from icml26.papers.anira import RecurrentConfig, RecurrentTransformer, pointer_chasing, sparse_forward

TASK = pointer_chasing(6, n_vars=(5, 8), max_hops=3, n_names=16, n_values=5, seed=0)
X, MASK = torch.from_numpy(TASK.x), torch.from_numpy(TASK.mask)
POLICIES = [("fixed", "act"), ("early", "act"), ("online", "act"), ("online", "ponder"), ("mod", "act")]


def _model(mode: str, halting: str = "act", **kw) -> RecurrentTransformer:
    cfg = RecurrentConfig(vocab_sizes=TASK.vocab_sizes, n_classes=TASK.n_classes, d_model=16, n_head=2, d_ff=32,
                          max_depth=5, mode=mode, halting=halting, **kw)
    return RecurrentTransformer(cfg, seed=1)


def _recorded(model: RecurrentTransformer, generator=None):
    """The loop with a recording block: the states entering each iteration and the run masks."""
    states, runs = [], []

    def step(h, inj, run, pos):
        states.append(h.detach().clone())
        runs.append(run.clone())
        return model.block(h, inj, MASK, pos)

    out = model.run_loop(X, MASK, generator=generator, step=step)
    return out, states, runs


@pytest.mark.parametrize(("mode", "halting"), POLICIES)
@pytest.mark.parametrize("training", [False, True])
def test_halted_states_are_frozen_bitwise_and_running_ones_update(mode, halting, training):
    model = _model(mode, halting, halt_bias=0.0)
    model.train(training)
    out, states, runs = _recorded(model, torch.Generator().manual_seed(0))
    for t in range(1, len(states)):
        ran, before, after = runs[t - 1], states[t - 1], states[t]
        frozen = MASK & ~ran
        assert torch.equal(after[frozen], before[frozen]), f"iteration {t}: a token that did not run changed"
        moved = (after != before).any(-1)
        assert bool(moved[ran].all()), f"iteration {t}: a token that ran kept its state"
    assert torch.equal(out.depth, torch.stack(runs, 1).sum(1).float())  # depth = counted state updates
    assert not bool(out.run[~MASK[:, None, :].expand_as(out.run)].any())  # padding never runs


def test_online_halting_is_final():
    model = _model("online", "act", halt_bias=0.0).eval()
    _, _, runs = _recorded(model)
    r = torch.stack(runs, 1)
    assert bool((r[:, 1:] <= r[:, :-1]).all())  # once stopped, a token never runs again
    assert bool(r[:, 0][MASK].all())  # every token runs at least once


def test_a_halted_token_is_still_attended_to():
    """Change what a halted token shows as key/value at a later iteration: the tokens still running then read it
    (their outputs move); other sequences are untouched."""
    model = _model("online", "act", halt_bias=0.0).eval()
    with torch.no_grad():
        out, _, runs = _recorded(model)
    r = torch.stack(runs, 1)
    both = (MASK[:, None] & ~r).any(-1) & r.any(-1)  # (B, t): some token halted, some still running
    t = int(torch.nonzero(both.any(0))[0])
    b = int(torch.nonzero(both[:, t])[0])
    j = int(torch.nonzero(MASK[b] & ~r[b, t])[0])
    kick = torch.randn(model.cfg.d_model, generator=torch.Generator().manual_seed(0))
    calls = []

    def poked(h, inj, run, pos):
        if len(calls) == t:
            h = h.clone()
            h[b, j] += kick  # only what the block reads: the loop keeps token j's own state
        calls.append(t)
        return model.block(h, inj, MASK, pos)

    with torch.no_grad():
        changed = model.run_loop(X, MASK, generator=None, step=poked)
    moved = (changed.logits[b] - out.logits[b]).abs().amax(-1) > 1e-4
    assert bool(moved[r[b, t] & MASK[b]].all()), "the tokens still running did not read the halted token"
    assert not bool(moved[j])  # the halted token itself is unchanged
    others = [i for i in range(X.shape[0]) if i != b]
    assert torch.equal(changed.logits[others], out.logits[others])  # attention never crosses sequences


def test_router_gradient_is_the_straight_through_chain_rule():
    """By hand: dL/da_t = <dL/dh_t, h_new_t - h_{t-1}> per token, dL/dz_k = sum_{t <= k} dL/da_t (a_t sums z_k for
    k >= t), then the soft sample's softmax Jacobian, summed over tokens for the router bias."""
    model = _model("early", cost_weight=0.0)
    model.train()
    seen, news, final = [], [], []

    def step(h, inj, run, pos):
        h.retain_grad()
        seen.append(h)
        news.append(model.block(h, inj, MASK, pos))
        return news[-1]

    head = model.read_out

    def read_out(h):
        h.retain_grad()
        final.append(h)
        return head(h)

    model.read_out = read_out  # type: ignore[method-assign]
    out = model.run_loop(X, MASK, generator=torch.Generator().manual_seed(5), step=step)
    model.loss(out, torch.from_numpy(TASK.y)).backward()
    after = [*seen[1:], final[0]]  # the state after iteration t
    da = torch.stack([((a.grad * (n - b)).sum(-1) * MASK).detach() for a, n, b in zip(after, news, seen)], -1)
    dz = da.cumsum(-1)  # dL/dz_k = sum_{t <= k} dL/da_t
    with torch.no_grad():
        logits = model.router(model.router_norm(seen[0]))
        u = torch.rand(logits.shape, generator=torch.Generator().manual_seed(5)).clamp(1e-9, 1 - 1e-9)
        y = torch.softmax(logits - torch.log(-torch.log(u)), -1)
    hand = (y * (dz - (y * dz).sum(-1, keepdim=True))).sum((0, 1))
    assert model.router.bias.grad is not None and float(hand.abs().sum()) > 0
    assert torch.allclose(model.router.bias.grad, hand, atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize(("mode", "halting"), POLICIES)
def test_dense_loop_and_sparse_inference_agree(mode, halting):
    model = _model(mode, halting, halt_bias=0.0).eval()
    with torch.no_grad():
        dense = model(X, MASK)
    sparse = sparse_forward(model, X, MASK)
    t = sparse.run.shape[1]
    assert torch.equal(dense.run[:, :t], sparse.run) and not bool(dense.run[:, t:].any())
    assert torch.equal(dense.depth, sparse.depth)
    assert torch.allclose(dense.logits[MASK], sparse.logits[MASK], atol=1e-5)


def test_mod_runs_its_capacity_every_iteration():
    model = _model("mod", capacity=0.5).eval()
    with torch.no_grad():
        out = model(X, MASK)
    k = torch.clamp(torch.round(0.5 * MASK.sum(1).double()).long(), min=1)
    assert torch.equal(out.run.sum(-1), k[:, None].expand(-1, out.run.shape[1]))


def test_seeded_init_leaves_the_global_rng_alone():
    state = torch.random.get_rng_state()
    a, b = _model("early"), _model("early")
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), b.state_dict().values()))


def test_bad_inputs_are_refused():
    model = _model("early")
    with pytest.raises(ValueError, match="x"):
        model(X[..., :1], MASK)
    with pytest.raises(ValueError, match="mask"):
        model(X, torch.flip(MASK, [1]))
    with pytest.raises(TypeError, match="x"):
        model(X.float(), MASK)
    with pytest.raises(ValueError, match="generator"):
        model.train()(X, MASK)
    with pytest.raises(ValueError, match="mode"):
        RecurrentConfig(mode="sometimes")
    with pytest.raises(ValueError, match="x"):
        model.eval()(torch.full_like(X, 99), MASK)
    assert np.isfinite(model.eval()(X, MASK).logits.detach().numpy()).all()
