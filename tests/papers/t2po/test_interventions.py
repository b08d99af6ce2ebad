"""The thinking intervention fires exactly when the windowed change drops below eps and at the cap; the turn
resampler's retry logic ([P15])."""

import numpy as np
import pytest

from icml26.papers.t2po import Resampled, ThinkingIntervention, TurnResampler


def _first_fire(tti: ThinkingIntervention, trace: list[float]) -> int | None:
    for t in range(1, len(trace) + 1):
        if tti.fires(trace[:t]):
            return t
    return None


def test_needs_two_windows_then_fires_below_eps() -> None:
    tti = ThinkingIntervention(eps=0.05, window=2)
    flat = [0.8, 0.8, 0.8, 0.8, 0.8]
    assert [tti.fires(flat[:t]) for t in range(1, 6)] == [False, False, False, True, True]
    assert np.isnan(tti.change(flat[:3])) and tti.change(flat[:4]) == 0.0


def test_change_is_the_difference_of_window_means() -> None:
    tti = ThinkingIntervention(eps=0.05, window=2)
    # windows (0.9, 0.7) and (0.5, 0.42): |0.46 - 0.8| = 0.34, then (0.7, 0.5) vs (0.42, 0.40): 0.19, ...
    trace = [0.9, 0.7, 0.5, 0.42, 0.40, 0.41]
    assert tti.change(trace[:4]) == pytest.approx(abs((0.5 + 0.42) / 2 - (0.9 + 0.7) / 2))
    assert tti.change(trace) == pytest.approx(abs((0.40 + 0.41) / 2 - (0.5 + 0.42) / 2))
    assert _first_fire(tti, trace) is None  # 0.34, 0.19, 0.055: never below 0.05
    assert _first_fire(ThinkingIntervention(eps=0.06, window=2), trace) == 6


def test_fires_exactly_at_the_threshold_crossing() -> None:
    tti = ThinkingIntervention(eps=0.1, window=1)
    trace = [1.0, 0.7, 0.5, 0.41, 0.35]  # changes 0.3, 0.2, 0.09 (< 0.1) at the 4th decision
    assert _first_fire(tti, trace) == 4
    assert not ThinkingIntervention(eps=0.09, window=1).fires(trace[:4])  # strict: 0.09 is not below 0.09


def test_the_cap_ends_every_segment() -> None:
    tti = ThinkingIntervention(eps=1e-9, window=1, max_think_tokens=3)
    rising = [0.1, 0.3, 0.5, 0.7, 0.9]
    assert [tti.fires(rising[:t]) for t in range(1, 6)] == [False, False, False, True, True]  # 3 tokens emitted
    with pytest.raises(ValueError, match="trace"):
        tti.fires([])


def test_batch_rule_equals_the_scalar_rule() -> None:
    g = np.random.default_rng(1)
    tti = ThinkingIntervention(eps=0.04, window=2, max_think_tokens=7)
    traces = np.clip(0.6 + np.cumsum(g.normal(scale=0.05, size=(200, 9)), axis=1), 0, 1)
    lengths = g.integers(1, 10, size=200)
    padded = np.where(np.arange(9)[None, :] < lengths[:, None], traces, np.nan)
    want = [tti.fires(traces[i, :lengths[i]]) for i in range(200)]
    assert list(tti.fires_batch(padded, lengths)) == want and any(want) and not all(want)


@pytest.mark.parametrize(("kw", "name"), [({"eps": 0.0}, "eps"), ({"eps": -1.0}, "eps"), ({"eps": float("nan")}, "eps"),
                                          ({"eps": 0.1, "window": 0}, "window"),
                                          ({"eps": 0.1, "max_think_tokens": 0}, "max_think_tokens")])
def test_bad_thinking_parameters(kw, name) -> None:
    with pytest.raises((ValueError, TypeError), match=name):
        ThinkingIntervention(**kw)


def test_resample_condition() -> None:
    tds = TurnResampler(eta=0.3, max_try=2)
    assert not tds.should_resample(None, 1.0, 0)  # the first turn is never resampled
    assert tds.should_resample(1.0, 1.2, 0) and tds.should_resample(1.0, 0.75, 1)
    assert not tds.should_resample(1.0, 1.0, 0)  # no change at all is kept (0 < delta)
    assert not tds.should_resample(1.0, 1.3, 0) and not tds.should_resample(1.0, 1.5, 0)  # delta >= eta
    assert not tds.should_resample(1.0, 1.2, 2)  # max_try regenerations made
    m = tds.mask(np.array([1.0, 1.0, 1.0, 1.0, 0.0]), np.array([1.2, 1.0, 1.5, 1.1, 0.1]), np.array([0, 0, 0, 2, 0]),
                 has_previous=np.array([True, True, True, True, False]))
    assert m.tolist() == [True, False, False, False, False]


def _scripted(scores: list[float]):
    calls: list[int] = []

    def generate(attempt: int) -> tuple[str, float]:
        calls.append(attempt)
        return f"sample{attempt}", scores[attempt]

    return generate, calls


def test_run_stops_when_the_score_moves_enough() -> None:
    gen, calls = _scripted([1.1, 1.5, 1.05])
    out = TurnResampler(eta=0.3, max_try=2).run(gen, previous=1.0)
    assert out == Resampled("sample1", 1.5, 1) and calls == [0, 1]


def test_run_keeps_the_last_sample_after_max_try() -> None:
    gen, calls = _scripted([1.1, 1.05, 1.2, 9.0])
    out = TurnResampler(eta=0.3, max_try=2).run(gen, previous=1.0)
    assert out == Resampled("sample2", 1.2, 2) and calls == [0, 1, 2]
    gen, calls = _scripted([1.1])
    assert TurnResampler(eta=0.3, max_try=0).run(gen, previous=1.0).tries == 0 and calls == [0]


def test_run_on_the_first_turn_and_on_an_unchanged_score() -> None:
    gen, calls = _scripted([1.1, 2.0])
    assert TurnResampler().run(gen, previous=None).tries == 0 and calls == [0]
    gen, calls = _scripted([1.0, 2.0])
    assert TurnResampler().run(gen, previous=1.0).tries == 0 and calls == [0]


@pytest.mark.parametrize(("kw", "name"), [({"eta": 0.0}, "eta"), ({"eta": float("inf")}, "eta"),
                                          ({"max_try": -1}, "max_try"), ({"max_try": True}, "max_try")])
def test_bad_resampling_parameters(kw, name) -> None:
    with pytest.raises((ValueError, TypeError), match=name):
        TurnResampler(**kw)
