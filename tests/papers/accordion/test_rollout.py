"""[P25] Fold/Unfold rollouts over a scripted sampler, and KV-cache accounting against a brute-force count."""

import numpy as np
import pytest
import torch

from icml26.papers.accordion import (
    AccumulatorTask,
    Problem,
    fold_context,
    fold_rollout,
    kv_usage,
    leaf_rewards,
    segments_of,
    unfold_rollout,
)

TASK = AccumulatorTask()
MK = TASK.markers
G = torch.Generator().manual_seed(0)


class Scripted:
    """Plays back a planned trace per prompt: step j of a Fold context (j = its number of TLDR markers), or the whole
    rest of the trace after an Unfold context; cut at the first stop token and at ``max_new_tokens``."""

    def __init__(self, plans):
        self.plans = plans  # prompt -> list of step outputs
        self.calls = []

    def __call__(self, contexts, *, max_new_tokens, stop_tokens, generator):
        self.calls.append([tuple(c) for c in contexts])
        outs = []
        for c in contexts:
            plan = self.plans[tuple(c[:4])]
            j = c.count(MK.tldr[0])
            done = len(c) - 4 if j == 0 else None
            rest = list(sum(plan[j:], ())) if done is None else list(sum(plan, ()))[done:]
            cut = []
            for t in rest[:max_new_tokens]:
                cut.append(t)
                if t in stop_tokens:
                    break
            outs.append(tuple(cut))
        return outs


def _plan(p, lossy=None):
    return TASK.trace(p, lossy=tuple(lossy) if lossy is not None else (False,) * (p.steps - 1))


P6 = Problem(x0=3, a=2, steps=6)
P3 = Problem(x0=1, a=7, steps=3)


def _roll(fn, problems, plans, **kw):
    sampler = Scripted({TASK.prompt(p): plan for p, plan in zip(problems, plans)})
    args = dict(markers=MK, max_steps=TASK.max_steps, max_step_tokens=TASK.step_tokens + 3, max_summary_tokens=3,
                generator=G) | kw
    return fn(sampler, [TASK.prompt(p) for p in problems], **args), sampler


def test_fold_rollout_feeds_each_step_the_folded_context():
    plans = [_plan(P6), _plan(P3, [True, False])]
    trajs, sampler = _roll(fold_rollout, [P6, P3], plans)
    assert [len(t.records) for t in trajs] == [6, 3] and len(sampler.calls) == 6
    for t, p, plan in zip(trajs, [P6, P3], plans):
        for j, rec in enumerate(t.records):
            assert rec.step.tokens == plan[j]
            assert rec.context == fold_context(TASK.prompt(p), [r.step for r in t.records[:j]], markers=MK)
    # the context of step 2 of P3, by hand: prompt, TLDR, <step> ? </step>, TLDR, <step> x2 </step>
    x = TASK.states(P3)
    assert trajs[1].records[2].context == (*TASK.prompt(P3), MK.tldr[0], MK.step_open, TASK.lost, MK.step_close,
                                           MK.tldr[0], MK.step_open, TASK.value_token(x[1]), MK.step_close)
    assert [t.finished for t in trajs] == [True, True]
    np.testing.assert_array_equal(leaf_rewards(trajs, [TASK.target(P6), TASK.target(P3)]), [1.0, 1.0])
    assert TASK.completeness(trajs[0], P6) == (5, 5) and TASK.completeness(trajs[1], P3) == (1, 2)


def test_unfold_rollout_is_one_generation_cut_into_the_same_steps():
    plans = [_plan(P6), _plan(P3, [True, False])]
    folds, _ = _roll(fold_rollout, [P6, P3], plans)
    unfolds, sampler = _roll(unfold_rollout, [P6, P3], plans)
    assert len(sampler.calls) == 1
    for f, u in zip(folds, unfolds):
        assert f.steps == u.steps  # same steps, same leaves; only the contexts differ
        ctx = list(u.prompt)
        for rec in u.records:
            assert rec.context == tuple(ctx)
            ctx += rec.step.tokens


def test_the_step_limit_and_a_malformed_step_end_the_branch():
    short, _ = _roll(fold_rollout, [P6], [_plan(P6)], max_steps=4)
    assert len(short[0].records) == 4 and not short[0].finished
    assert leaf_rewards(short, [TASK.target(P6)], format_penalty=-1.0)[0] == -1.0
    broken = list(_plan(P6))
    broken[1] = broken[1][:-1] + (MK.eos,)  # step 1 closes with <eos> instead of </step>
    for fn in (fold_rollout, unfold_rollout):
        t, _ = _roll(fn, [P6], [broken])
        assert len(t[0].records) == 2 and t[0].leaf.kind == "malformed"
        assert leaf_rewards(t, [TASK.target(P6)])[0] == 0.0


def _brute_kv(traj):
    """Replay the rollout token by token on an explicit cache (a list): Fold rebuilds it from the folded context
    before each step (dropping the last thought's keys), Unfold only ever appends."""
    cache, peak, attended = [], 0, 0
    for rec in traj.records:
        if traj.mode == "fold" or not cache:
            cache = list(rec.context)
        else:
            assert cache == list(rec.context)  # Unfold continues its cache
        peak = max(peak, len(cache))
        for tok in rec.step.tokens:
            attended += len(cache)
            cache.append(tok)
            peak = max(peak, len(cache))
    return peak, attended


def test_kv_accounting_equals_a_brute_force_count():
    rng = np.random.default_rng(0)
    problems = [Problem(int(rng.integers(0, 13)), int(rng.integers(1, 13)), int(rng.integers(3, 7)))
                for _ in range(12)]
    plans = [_plan(p, rng.random(p.steps - 1) < 0.5) for p in problems]
    for fn in (fold_rollout, unfold_rollout):
        trajs, _ = _roll(fn, problems, plans)
        for t in trajs:
            u = kv_usage(t)
            assert (u.peak, u.attended) == _brute_kv(t)
            assert u.generated == sum(len(s) for s in plans[problems.index(next(
                p for p in problems if TASK.prompt(p) == t.prompt))])


def test_a_well_formed_six_step_trace_folds_to_under_a_third():
    f, _ = _roll(fold_rollout, [P6], [_plan(P6)])
    u, _ = _roll(unfold_rollout, [P6], [_plan(P6)])
    # Unfold: 4 + 6 x 28 = 172. Fold: the last step's context is 4 + 5 x 4 = 24 tokens, plus its 28 = 52
    assert kv_usage(u[0]).peak == 172 and kv_usage(f[0]).peak == 52 == TASK.fold_peak
    assert kv_usage(f[0]).peak / kv_usage(u[0]).peak <= 1 / 3


def test_training_segments():
    f, _ = _roll(fold_rollout, [P3], [_plan(P3)])
    u, _ = _roll(unfold_rollout, [P3], [_plan(P3)])
    segs = segments_of(f[0])
    assert [s.n_context for s in segs] == [4, 8, 12]
    assert [s.tokens[s.n_context:] for s in segs] == list(_plan(P3))
    (one,) = segments_of(u[0])
    assert one.n_context == 4 and one.tokens == TASK.prompt(P3) + sum(_plan(P3), ())


@pytest.mark.parametrize("fn", [fold_rollout, unfold_rollout])
def test_rollouts_refuse_bad_arguments(fn):
    s = Scripted({})
    with pytest.raises(ValueError, match="prompts"):
        fn(s, [], markers=MK, max_steps=2, max_step_tokens=4, max_summary_tokens=1, generator=G)
    with pytest.raises(ValueError, match="max_steps"):
        fn(s, [(1, 2)], markers=MK, max_steps=0, max_step_tokens=4, max_summary_tokens=1, generator=G)
    with pytest.raises(TypeError, match="generator"):
        fn(s, [(1, 2)], markers=MK, max_steps=1, max_step_tokens=4, max_summary_tokens=1, generator=0)
