"""The KV-cached decoder against TinyGPT's full forward, and the rollout loop's invariants with [P15]'s hooks."""

import numpy as np
import pytest
import torch

from icml26.papers.t2po import (
    AgentVocab,
    KVDecoder,
    NumberHunt,
    ThinkingIntervention,
    TurnResampler,
    make_policy,
    multi_turn_rollout,
)
from icml26.papers.t2po._policy import token_logprobs

VOCAB = AgentVocab(NumberHunt.n_observations, 8)


def _model(seed: int = 0, block: int = 24):
    return make_policy(VOCAB, block_size=block, d_model=16, n_layer=2, n_head=2, seed=seed)


def test_vocabulary_layout() -> None:
    assert (VOCAB.PAD, VOCAB.BOS, VOCAB.THINK, VOCAB.END_THINK) == (0, 1, 2, 3)
    assert VOCAB.observation(0) == 4 and VOCAB.action_token(0) == 9 and VOCAB.size == 17
    assert VOCAB.action_of(VOCAB.action_token(7)) == 7 and VOCAB.action_of(VOCAB.THINK) == -1
    with pytest.raises(ValueError, match="action"):
        VOCAB.action_token(8)


def test_kv_decoder_matches_the_full_forward_with_per_row_positions_and_rewinds() -> None:
    m = _model()
    g = torch.Generator().manual_seed(0)
    seq = torch.randint(0, VOCAB.size, (3, 20), generator=g)
    full = m(seq).detach()
    dec = KVDecoder(m, batch=3)
    rows = torch.arange(3)
    for p in range(20):
        out = dec.step(rows, seq[:, p], torch.full((3,), p))
        torch.testing.assert_close(out, full[:, p], atol=1e-5, rtol=1e-5)
    # rewind row 1 to position 5 and feed a different continuation: its logits follow the new prefix only
    alt = seq[1].clone()
    alt[5:] = torch.randint(0, VOCAB.size, (15,), generator=g)
    want = m(alt[None]).detach()[0]
    for p in range(5, 12):
        out = dec.step(torch.tensor([1]), alt[p:p + 1], torch.tensor([p]))
        torch.testing.assert_close(out[0], want[p], atol=1e-5, rtol=1e-5)


def _play(tti=None, tds=None, seed=0, b=12, block=24):
    m = _model(block=block)
    envs = [NumberHunt(n=8, max_turns=4) for _ in range(b)]
    return m, multi_turn_rollout(m, envs, vocab=VOCAB, seeds=np.arange(b), generator=torch.Generator().manual_seed(seed),
                                 tti=tti, tds=tds)


@pytest.mark.parametrize("hooks", [(None, None), (ThinkingIntervention(eps=0.05, max_think_tokens=3), TurnResampler())])
def test_rollout_logprobs_and_structure(hooks) -> None:
    m, ep = _play(*hooks)
    width = int(ep.lengths.max())
    lp = token_logprobs(m, torch.as_tensor(ep.tokens[:, :width])).detach().numpy()
    mask = ep.response[:, :width]
    np.testing.assert_allclose(lp[mask], ep.logp[:, :width][mask], atol=1e-5)
    for i in range(len(ep.lengths)):
        toks = ep.tokens[i, :ep.lengths[i]].tolist()
        assert toks[:1] == [VOCAB.BOS] and toks[2] == VOCAB.THINK
        # every completed turn: <think> ... </think> action, and the kept think tokens are counted
        ends = [p for p, t in enumerate(toks) if t == VOCAB.END_THINK and ep.response[i, p]]
        assert len(ends) >= ep.n_turns[i]
        for k in range(ep.n_turns[i]):
            starts = [p for p in range(len(toks)) if ep.turn[i, p] == k]
            assert ep.think[i, k] == len(starts) - 2
        assert ep.success[i] or ep.overflow[i] or ep.n_turns[i] == 4


def test_thinking_intervention_caps_and_forces_end_of_thinking() -> None:
    _, ep = _play(ThinkingIntervention(eps=1e-12, max_think_tokens=2))
    done = np.arange(ep.think.shape[1])[None, :] < ep.n_turns[:, None]
    assert ep.think[done].max() <= 2
    forced = ep.tokens[ep.forced]
    assert forced.size and np.all(forced == VOCAB.END_THINK)
    _, free = _play()
    assert free.think[np.arange(4)[None, :] < free.n_turns[:, None]].max() > 2  # the random policy thinks longer


def test_resampler_regenerates_at_most_max_try_times() -> None:
    short = ThinkingIntervention(eps=1e-12, max_think_tokens=1)  # short turns, so that episodes see several
    _, ep = _play(short, TurnResampler(eta=10.0, max_try=2), block=40)  # every changed score is "too small"
    done = np.arange(ep.tries.shape[1])[None, :] < ep.n_turns[:, None]
    later = done & (np.arange(ep.tries.shape[1])[None, :] >= 1)
    assert later.any() and np.all(ep.tries[later] == 2) and np.all(ep.tries[:, 0][ep.n_turns > 0] == 0)
    _, none = _play(short, TurnResampler(eta=1e-9, max_try=2), block=40)
    assert none.tries.sum() == 0
    assert ep.tokens_emitted.sum() > none.tokens_emitted.sum()


def test_rollout_is_deterministic_for_a_seed() -> None:
    _, a = _play(ThinkingIntervention(eps=0.05), TurnResampler(), seed=4)
    _, b = _play(ThinkingIntervention(eps=0.05), TurnResampler(), seed=4)
    np.testing.assert_array_equal(a.tokens, b.tokens)
    _, c = _play(seed=5)
    assert not np.array_equal(a.tokens, c.tokens)


def test_rollout_refuses_bad_inputs() -> None:
    m = _model()
    envs = [NumberHunt(n=8)]
    with pytest.raises(ValueError, match="seeds"):
        multi_turn_rollout(m, envs, vocab=VOCAB, seeds=np.arange(2), generator=torch.Generator())
    with pytest.raises(ValueError, match="vocabulary"):
        multi_turn_rollout(m, envs, vocab=AgentVocab(5, 9), seeds=[0], generator=torch.Generator())
    with pytest.raises(TypeError, match="generator"):
        multi_turn_rollout(m, envs, vocab=VOCAB, seeds=[0], generator=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="envs"):
        multi_turn_rollout(m, [], vocab=VOCAB, seeds=np.zeros(0, dtype=int), generator=torch.Generator())
