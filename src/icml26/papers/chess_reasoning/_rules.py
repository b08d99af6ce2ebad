"""Verdict rules of the [P20] claims: pure functions of run rows, built from :mod:`icml26.verdicts`.

A row is one (arm, seed) run: ``{"arm", "seed", "sft_quality", "rl_quality", "sft_any_illegal",
"rl_any_illegal", "rl_faithful", "reward_jitter", "vs_random_score", ...}`` (``sft_*`` measured on the held-out
positions at the SFT checkpoint, ``rl_*`` after Dr.GRPO; ``any_illegal``: the share of responses with an illegal
answer or an illegal reasoning ply; ``reward_jitter``: the std of the iteration-to-iteration change of the mean
training reward). Seeds are the unit: every estimate is a bootstrap CI over seeds (paired where two numbers come
from one seed), and fewer than ``MIN_SEEDS`` seeds are inconclusive.

- ``rl_raises_quality``: per arm, ``rl_quality - sft_quality`` meets ``quality_gain``; both arms must hold.
- ``rl_reduces_hallucination``: per arm, ``sft_any_illegal - rl_any_illegal`` meets ``illegal_drop``; an arm with
  no illegal move at its SFT checkpoint in any seed has nothing to lower (inconclusive).
- ``bestline_faithful``: the best-line arm's post-RL faithfulness meets ``faithful_level`` and its paired excess
  over the best-move arm meets ``faithful_gap``.
- ``comparable_quality``: ``rl_quality(bestline) - rl_quality(bestmove)``, paired, lies within the two bars
  ``quality_low`` and ``quality_high``; inconclusive when in neither arm ``rl_quality - random_quality`` (a
  uniformly random legal move's quality on the same positions) meets ``above_random``.
- ``bestline_stabler_rl``: the paired ratio ``reward_jitter(bestline) / reward_jitter(bestmove)`` meets
  ``jitter_ratio``.
- ``beats_random``: per arm, the post-RL policy's game score against the random-legal-move player meets
  ``random_score``; a score that meets it while the share of replaced moves (``vs_random_replaced``) misses
  ``own_moves`` is inconclusive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci, ratio_ci
from icml26.verdicts import MIN_SEEDS, Judgement, against_bar, all_of, enough_seeds

__all__ = ["RULES", "judge_comparable", "judge_faithful", "judge_hallucination", "judge_quality",
           "judge_stability", "judge_strength"]

ARMS = ("bestmove", "bestline")
NAMES = {"bestmove": "best-move", "bestline": "best-line"}


def _values(rows: Sequence[dict[str, Any]], arm: str, metric: str) -> dict[int, float]:
    return {int(r["seed"]): float(r[metric]) for r in rows if r["arm"] == arm}


def _paired(rows: Sequence[dict[str, Any]], a: tuple[str, str], b: tuple[str, str]) -> tuple[list[float], list[float]]:
    """Values of (arm, metric) ``a`` and ``b`` over the seeds that have both, in seed order."""
    va, vb = _values(rows, *a), _values(rows, *b)
    seeds = sorted(set(va) & set(vb))
    return [va[s] for s in seeds], [vb[s] for s in seeds]


def _diff(name: str, x: list[float], y: list[float], bar: Bar, fail_bar: Bar | None = None) -> Judgement:
    few = enough_seeds(len(x), min_n=MIN_SEEDS, what="paired seeds")
    if few is not None:
        return few
    est = bootstrap_ci([p - q for p, q in zip(x, y)], seed=0)
    return against_bar(name, est, bar, n=len(x), min_n=MIN_SEEDS, fail_bar=fail_bar)


def judge_quality(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``rl_raises_quality``: post-RL minus SFT move quality meets ``quality_gain`` in both arms."""
    parts = {}
    for arm in ARMS:
        post, pre = _paired(rows, (arm, "rl_quality"), (arm, "sft_quality"))
        parts[arm] = _diff(f"{NAMES[arm]}: quality after RL - at SFT", post, pre, bars["quality_gain"])
    return all_of(parts, what="arms")


def judge_hallucination(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``rl_reduces_hallucination``: the SFT minus post-RL share of responses with an illegal move meets
    ``illegal_drop`` in both arms (nothing to lower: inconclusive)."""
    parts = {}
    for arm in ARMS:
        pre, post = _paired(rows, (arm, "sft_any_illegal"), (arm, "rl_any_illegal"))
        if pre and max(pre) == 0.0:
            parts[arm] = Judgement(Verdict.INCONCLUSIVE, f"{NAMES[arm]}: no illegal move at the SFT checkpoint in "
                                   "any seed: nothing for RL to lower")
            continue
        parts[arm] = _diff(f"{NAMES[arm]}: illegal-move share at SFT - after RL", pre, post, bars["illegal_drop"])
    return all_of(parts, what="arms")


def judge_faithful(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``bestline_faithful``: best-line faithfulness after RL meets ``faithful_level`` and exceeds the best-move
    arm's by ``faithful_gap`` (paired)."""
    bl, bm = _paired(rows, ("bestline", "rl_faithful"), ("bestmove", "rl_faithful"))
    few = enough_seeds(len(bl), min_n=MIN_SEEDS, what="paired seeds")
    level = few if few is not None else against_bar(
        "best-line faithfulness after RL", bootstrap_ci(bl, seed=0), bars["faithful_level"], n=len(bl),
        min_n=MIN_SEEDS)
    gap = _diff("faithfulness best-line - best-move after RL", bl, bm, bars["faithful_gap"])
    return all_of({"level": level, "gap": gap}, what="bars")


def judge_comparable(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``comparable_quality``: the paired post-RL quality difference best-line - best-move lies within
    [``quality_low``, ``quality_high``] with its whole CI; inconclusive when neither arm's post-RL quality is above
    a random legal move's (``above_random``): two policies at the floor are "comparable" without playing."""
    bl, bm = _paired(rows, ("bestline", "rl_quality"), ("bestmove", "rl_quality"))
    name = "quality best-line - best-move after RL"
    window = all_of({"low": _diff(name, bl, bm, bars["quality_low"]),
                     "high": _diff(name, bl, bm, bars["quality_high"])}, what="bars")
    floor = {}
    for arm in ARMS:
        q, rnd = _paired(rows, (arm, "rl_quality"), (arm, "random_quality"))
        floor[arm] = _diff(f"{NAMES[arm]}: quality after RL - a random legal move's", q, rnd, bars["above_random"])
    if window.verdict is not Verdict.INCONCLUSIVE and all(j.verdict is not Verdict.HOLDS for j in floor.values()):
        why = "; ".join(j.reason for j in floor.values())
        return Judgement(Verdict.INCONCLUSIVE, f"neither arm plays above a random legal move ({why}), so the window "
                         f"says nothing; the window alone: {window.verdict.value}: {window.reason}",
                         {"window": dict(window.measured), **{a: dict(j.measured) for a, j in floor.items()}})
    return window


def judge_stability(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``bestline_stabler_rl``: the paired ratio of reward-curve jitter best-line / best-move meets
    ``jitter_ratio``."""
    bl, bm = _paired(rows, ("bestline", "reward_jitter"), ("bestmove", "reward_jitter"))
    few = enough_seeds(len(bl), min_n=MIN_SEEDS, what="paired seeds")
    if few is not None:
        return few
    if sum(bm) == 0:
        return Judgement(Verdict.INCONCLUSIVE, "the best-move reward curve never moves: no ratio")
    return against_bar("reward jitter best-line / best-move", ratio_ci(bl, bm, paired=True, seed=0),
                       bars["jitter_ratio"], n=len(bl), min_n=MIN_SEEDS)


def judge_strength(rows: Sequence[dict[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``beats_random``: each arm's post-RL game score against the random-legal-move player meets
    ``random_score`` (CI over seeds); an arm whose own moves are not the majority of its moves (the share replaced
    by random legal moves misses ``own_moves``) cannot hold: its games measure the random fallback."""
    parts = {}
    for arm in ARMS:
        v = list(_values(rows, arm, "vs_random_score").values())
        few = enough_seeds(len(v), min_n=MIN_SEEDS)
        if few is not None:
            parts[arm] = few
            continue
        score = against_bar(f"{NAMES[arm]}: score against the random player", bootstrap_ci(v, seed=0),
                            bars["random_score"], n=len(v), min_n=MIN_SEEDS)
        rep = list(_values(rows, arm, "vs_random_replaced").values())
        own = against_bar(f"{NAMES[arm]}: share of its moves replaced by random ones", bootstrap_ci(rep, seed=0),
                          bars["own_moves"], n=len(rep), min_n=MIN_SEEDS)
        if score.verdict is Verdict.HOLDS and own.verdict is not Verdict.HOLDS:
            parts[arm] = Judgement(Verdict.INCONCLUSIVE, f"{score.reason}, but {own.reason}: the score is the "
                                   "random fallback's as much as the policy's", {**score.measured, **own.measured})
        else:
            parts[arm] = score
    return all_of(parts, what="arms")


RULES = {"rl_raises_quality": judge_quality, "rl_reduces_hallucination": judge_hallucination,
         "bestline_faithful": judge_faithful, "comparable_quality": judge_comparable,
         "bestline_stabler_rl": judge_stability, "beats_random": judge_strength}
