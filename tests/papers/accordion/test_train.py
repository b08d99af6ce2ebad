"""[P25] training pieces: the PPO update against a hand-written policy-gradient oracle, the lossy cold-start data,
and a short SFT + RL run end to end."""

import copy

import numpy as np
import pytest
import torch

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.papers.accordion import (
    AccumulatorTask,
    PolicySpec,
    Problem,
    RLSpec,
    SFTSpec,
    StepRecord,
    Trajectory,
    accordion_update,
    parse_step,
    sft_segments,
    train_mixed,
    train_sft,
)
from icml26.papers.accordion._sft import fresh_policy

TASK = AccumulatorTask(modulus=5, updates_per_step=3, min_steps=2, max_steps=3)
MK = TASK.markers


def _fold_traj(outs):
    """A Fold trajectory over hand-written step outputs of the prompt of one tiny problem."""
    prompt = TASK.prompt(Problem(1, 2, len(outs)))
    recs, done = [], []
    for o in outs:
        step = parse_step(o, markers=MK, max_summary_tokens=3)
        ctx = list(prompt)
        for s in done:
            ctx += [*MK.tldr, *s.summary]
        recs.append(StepRecord(tuple(ctx), step))
        done.append(step)
    return Trajectory(prompt, "fold", tuple(recs))


def test_one_epoch_is_the_policy_gradient_with_the_leaf_advantage_on_every_step():
    model = TinyGPT(GPTConfig(vocab_size=TASK.vocab_size, block_size=TASK.block_size, n_layer=1, n_head=1,
                              d_model=8), seed=0).double()
    plan = TASK.trace(Problem(1, 2, 2), lossy=(False,))
    trajs = [_fold_traj(plan), _fold_traj([plan[0], plan[1][:-2] + (MK.eos,)])]  # the second ends wrong
    adv = np.array([0.5, -0.5])
    # oracle: at ratio 1 the clipped surrogate's gradient is -sum_tokens(A_traj grad log p) / (trained tokens)
    ref = copy.deepcopy(model)
    num, n_tok = torch.zeros((), dtype=torch.float64), 0
    for t, a in zip(trajs, adv):
        for r in t.records:
            seq = torch.tensor([r.context + r.step.tokens])
            logp = torch.log_softmax(ref(seq[:, :-1]), -1).gather(-1, seq[:, 1:, None])[0, :, 0]
            out = logp[len(r.context) - 1:]
            num = num - a * out.sum()
            n_tok += out.numel()
    (num / n_tok).backward()
    want = {k: p.grad.clone() for k, p in ref.named_parameters() if p.grad is not None}
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    before = {k: p.detach().clone() for k, p in model.named_parameters()}
    stats = accordion_update(model, opt, trajs, adv, epochs=1, pad=MK.eos, grad_clip=1e9)
    assert stats["tokens"] == n_tok and stats["clip_fraction"] == 0.0
    for k, p in model.named_parameters():
        torch.testing.assert_close(before[k] - p.detach(), want.get(k, torch.zeros_like(p)), rtol=1e-6, atol=1e-9)


def test_zero_advantages_leave_the_model_alone():
    model = fresh_policy(TASK, PolicySpec(n_layer=1, n_head=1, d_model=8), seed=0)
    before = [p.detach().clone() for p in model.parameters()]
    plan = TASK.trace(Problem(1, 2, 2), lossy=(False,))
    opt = torch.optim.SGD(model.parameters(), lr=1.0)
    assert accordion_update(model, opt, [_fold_traj(plan)], [0.0])["tokens"] == 0.0
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
    with pytest.raises(ValueError, match="advantages"):
        accordion_update(model, opt, [_fold_traj(plan)], [0.5, 0.5])


def test_cold_start_data_drop_fold_steps_after_a_lossy_summary():
    unfold, fold = sft_segments(TASK, n_problems=40, lossy_rate=0.5, seed=0)
    assert len(unfold) == 40
    lost = sum(s.tokens.count(TASK.lost) for s in unfold)
    kept = sum(s.tokens.count(MK.step_open) for s in unfold) - lost
    assert 0 < lost and 0 < kept
    # one Fold segment per kept summary; its context never holds a thought token, and no kept context ends lossy
    assert len(fold) == kept
    n_thought = (TASK.updates_per_step + 1) * TASK.modulus
    for s in fold:
        ctx = s.tokens[: s.n_context]
        assert max(ctx[4:]) >= n_thought and all(t >= n_thought for t in ctx)
        assert ctx[-2] != TASK.lost
    assert sft_segments(TASK, n_problems=40, lossy_rate=0.5, seed=0) == (unfold, fold)


def test_a_short_sft_and_rl_run():
    spec = PolicySpec(n_layer=1, n_head=2, d_model=16)
    model = fresh_policy(TASK, spec, seed=0)
    losses = train_sft(model, TASK, SFTSpec(n_problems=32, steps=20, batch_size=8, lr=1e-2), seed=0)
    assert len(losses) == 20 and np.mean(losses[-5:]) < np.mean(losses[:5])
    hist = train_mixed(model, TASK, RLSpec(iterations=3, prompts=2, group_size=4), seed=1)
    assert len(hist.reward["fold"]) == len(hist.reward["unfold"]) == len(hist.completeness) == 3
    assert all(0.0 <= r <= 1.0 for r in hist.reward["fold"] + hist.reward["unfold"])
    # Fold never holds more than one step's output and the folded summaries (TLDR, tags, a summary of <= 3)
    assert max(hist.peak_kv["fold"]) <= TASK.prompt_tokens + (TASK.max_steps - 1) * 6 + TASK.step_tokens + 3
    again = fresh_policy(TASK, spec, seed=0)
    assert train_sft(again, TASK, SFTSpec(n_problems=32, steps=20, batch_size=8, lr=1e-2), seed=0) == losses
