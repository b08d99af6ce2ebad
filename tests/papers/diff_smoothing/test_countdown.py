"""CountDown verifier and the torch GRPO trainer on TinyGPT."""

import numpy as np
import pytest
import torch

from icml26.papers.diff_smoothing import (
    CountdownInstance,
    LMConfig,
    differential_smoothing,
    encode_prompt,
    grpo_train,
    make_instances,
    make_model,
    sample,
    sequence_logp,
    vanilla,
    verify,
)


def test_verifier_worked_examples():
    inst = CountdownInstance((2, 3, 4), 14, ("2+3*4", "2+4*3", "3*4+2", "4*3+2"))
    assert verify(inst, "2+3*4") and verify(inst, "4*3+2")
    assert not verify(inst, "2*3+4")  # 10: precedence matters
    assert not verify(inst, "2+3*5")  # wrong digits
    assert not verify(inst, "2+3*")  # malformed
    assert not verify(inst, "22+33")


def test_instances_list_exactly_the_verified_completions():
    insts = make_instances(30, seed=0)
    assert len({i.prompt for i in insts}) == 30
    alphabet = [f"{a}{o}{b}{p}{c}" for a in "123456789" for o in "+-*" for b in "123456789" for p in "+-*" for c in "123456789"]
    for inst in insts[:5]:  # brute force over every well-formed completion
        assert tuple(sorted(s for s in alphabet if verify(inst, s))) == inst.solutions
    held = make_instances(10, seed=1, exclude={i.prompt for i in insts})
    assert not {i.prompt for i in held} & {i.prompt for i in insts}


def test_sample_logp_matches_teacher_forced_logp():
    m = make_model(LMConfig(d_model=16), seed=0)
    prompts = torch.tensor([encode_prompt(i) for i in make_instances(3, seed=0)])
    comps, lp = sample(m, prompts, n=4, generator=torch.Generator().manual_seed(0))
    assert comps.shape == (12, 5)
    with torch.no_grad():
        tf = sequence_logp(m, prompts.repeat_interleave(4, dim=0), comps)
    assert torch.allclose(lp, tf, atol=1e-5)


def test_vanilla_grpo_without_signal_leaves_the_model_unchanged_but_ds_moves_it():
    insts = make_instances(20, seed=0)
    base = make_model(LMConfig(d_model=16), seed=0)  # untrained: every sample is wrong, all advantages are zero
    m_v, h = grpo_train(base, insts, vanilla(), steps=2, prompts_per_step=4, group_size=4, seed=0)
    assert max(h.reward) == 0.0
    assert all(torch.equal(a, b) for a, b in zip(base.parameters(), m_v.parameters()))
    m_d, _ = grpo_train(base, insts, differential_smoothing(gamma_p=0.1, gamma_n=0.1), steps=2, prompts_per_step=4,
                        group_size=4, seed=0)
    assert any(not torch.equal(a, b) for a, b in zip(base.parameters(), m_d.parameters()))


def test_bad_input_rejected():
    with pytest.raises(ValueError, match="digits must be three ints"):
        CountdownInstance((0, 1, 2), 3, ())
    with pytest.raises(ValueError, match="target must be an int in 0..99"):
        CountdownInstance((1, 2, 3), 120, ())
    with pytest.raises(ValueError, match="n must be an int"):
        make_instances(0)
    m = make_model(LMConfig(d_model=16), seed=0)
    with pytest.raises(ValueError, match="prompts must be"):
        sample(m, torch.zeros((2, 3), dtype=torch.long), n=1, generator=torch.Generator())
    with pytest.raises(ValueError, match="instances must be a non-empty list"):
        grpo_train(m, [], vanilla(), steps=1)
    with pytest.raises(TypeError, match="transform must be an AdvantageTransform"):
        grpo_train(m, make_instances(2), np.mean, steps=1)


def test_decode_refuses_ids_outside_the_vocabulary_and_make_instances_refuses_at_once():
    import time

    from icml26.papers.diff_smoothing import decode

    assert decode([1, 10, 2, 12, 3]) == "1+2*3" and decode(torch.tensor([13])) == "="
    with pytest.raises(ValueError, match="ids must lie in"):
        decode([-1])  # not the last token by wrap-around
    with pytest.raises(ValueError, match="ids must lie in"):
        decode([9999])  # a ValueError, not an IndexError
    with pytest.raises(TypeError, match="ids must be integer"):
        decode([1.0])
    t = time.perf_counter()
    with pytest.raises(ValueError, match="n = 6397 exceeds the 6396 distinct"):
        make_instances(6397)  # refused before any search
    with pytest.raises(ValueError, match="exceeds the 6386 distinct"):
        make_instances(6387, exclude={i.prompt for i in make_instances(10, seed=3)})
    assert time.perf_counter() - t < 5.0
    with pytest.raises(TypeError, match="seed"):
        make_instances(3, seed=None)
