"""[P34] online episodes: the model's own answers stay in the context, fits happen on schedule, a zero-step
fit changes nothing, and full TTT restores the weights after every episode."""

import numpy as np
import torch

from icml26.papers.moe_tta._adapt import logits_of
from icml26.papers.moe_tta._episodes import Fit, play, play_full_ttt, play_rerouting, query_accuracy


def _episodes(n=3, pairs=6):
    g = torch.Generator().manual_seed(7)
    return torch.randint(0, 32, (n, 2 * pairs + 1), generator=g)


def _manual(model, tok, query):
    """The episode written out: given pairs copied, queries answered by argmax and the answer kept."""
    out = np.full((tok.shape[0], len(query)), np.nan)
    for b in range(tok.shape[0]):
        ctx = tok[b : b + 1, :1]
        for j, q in enumerate(query):
            ctx = torch.cat([ctx, tok[b : b + 1, 1 + 2 * j : 2 + 2 * j]], 1)
            y = tok[b : b + 1, 2 + 2 * j : 3 + 2 * j]
            if q:
                with torch.no_grad():
                    pred = logits_of(model, ctx)[:, -1:].argmax(-1)
                out[b, j] = float(pred.item() == y.item())
                y = pred
            ctx = torch.cat([ctx, y], 1)
    return out


def test_no_adaptation_matches_the_episode_written_out(olmoe):
    tok, query = _episodes(), np.array([0, 0, 1, 1, 0, 1], dtype=bool)
    res = play(olmoe, tok, query, mode="none", fit=lambda ctx: None, refit_every=4)
    np.testing.assert_array_equal(res.correct, _manual(olmoe, tok, query))
    assert res.fits == 0 and np.isnan(res.correct[:, ~query]).all()
    assert query_accuracy(res, query).shape == (3,)


def test_fit_schedule():
    calls = []

    class Echo(torch.nn.Module):  # a stand-in model: uniform logits over 32 tokens
        def __init__(self):
            super().__init__()
            self.blocks = torch.nn.ModuleList()
            self.w = torch.nn.Parameter(torch.zeros(1))

        def forward(self, ids):
            return torch.zeros(*ids.shape, 32) + self.w

    query = np.array([0, 0, 1, 1, 1, 1, 1], dtype=bool)
    tok = _episodes(2, 7)
    for mode, want in (("none", []), ("prefill", [5]), ("continuous", [5, 9, 13])):
        calls.clear()
        play(Echo(), tok, query, mode=mode, fit=lambda ctx: calls.append(ctx.shape[1]), refit_every=4)
        assert calls == want, mode


def test_zero_steps_rerouting_is_no_adaptation(olmoe):
    tok, query = _episodes(), np.array([0, 0, 1, 1, 1, 1], dtype=bool)
    none = play(olmoe, tok, query, mode="none", fit=lambda ctx: None, refit_every=4)
    zero = play_rerouting(olmoe, tok, query, mode="continuous", fit=Fit(0, 0.1, 0.0, 4), k=1, by="entropy")
    np.testing.assert_array_equal(none.correct, zero.correct)
    assert zero.fits == 2 and len(zero.layers) == 3 and all(len(s) == 1 for s in zero.layers)


def test_full_ttt_episodes_restore_the_weights(olmoe):
    before = {k: v.clone() for k, v in olmoe.state_dict().items()}
    tok, query = _episodes(2), np.array([0, 0, 1, 1, 1, 1], dtype=bool)
    res = play_full_ttt(olmoe, tok, query, mode="prefill", fit=Fit(2, 1e-2, 0.0, 4))
    assert res.correct.shape == (2, 6) and res.fits == 1
    assert all(torch.equal(v, before[k]) for k, v in olmoe.state_dict().items())
