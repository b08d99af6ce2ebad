"""Budget-aware GRPO for the layout policy ([P29], Sec. 3.3), with a geometric legibility reader as the reward.

Each step draws an episode and a question, samples a group of ``G`` layouts (promotion masks) from π, and scores
each layout on the paper's three task variants:

- ``T_std``: the question, on the memory shrunk to a budget ``b`` drawn from the mixed budgets;
- ``T_augM``: the question, on the memory shrunk a further 4× per side (``b/16`` visual tokens): the crucial
  evidence has to survive heavy compression;
- ``T_augQ``: a detail question about a fact that is not evidence, at the same budget ``b``: auxiliary facts have to
  stay readable, which penalises promoting everything.

A task's reward is the share of its evidence facts that are read (per-hop credit: a two-hop answer needs both, and
without partial credit the two promotions would have to be found together by chance). The drafting reward is the
mean over the three tasks; its group-relative advantage (GRPO,
:func:`icml26.common.rl.grpo_advantages`) weights the score function of the sampled layout,
``∇ log π(a | q) = Σ_f (a_f − p_f) φ_f``. One on-policy update per group (the PPO ratio is 1, so the clipped
surrogate's gradient is this one).

Reconstructed: the paper scores answers of the VLM reader; calling Tesseract inside the RL loop would take hours
here, so the reward reads a fact as answered iff its glyphs stay at least ``min_px`` pixels tall after the budget
resize (the same area law, :func:`budget_scale`). The reading policy of the paper is not trained (the OCR reader is
fixed), so only the drafting advantage exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icml26.common import validation
from icml26.common.rl import grpo_advantages
from icml26.papers.memocr._drafter import LayoutPolicy, draft_memory, fact_features
from icml26.papers.memocr._episodes import Episode, make_episode
from icml26.papers.memocr._render import DEFAULT_FONTS, budget_scale, page_size

__all__ = ["MIN_PX", "TrainResult", "legible", "train_layout_policy"]

#: glyph height (px, after the budget resize) from which the geometric reader counts a fact as read; set once from
#: Tesseract 5 on DejaVu pages before any claim ran (6-7 px lines read, 5 px lines did not)
MIN_PX = 6.5


def legible(episode: Episode, promote: np.ndarray, facts: Sequence[int], visual_tokens: int, *,
            fonts: dict[str, int] | None = None, min_px: float = MIN_PX, page: tuple[int, int] | None = None) -> bool:
    """The geometric reader ([P29] area law, reconstructed): are all ``facts`` readable at ``visual_tokens``?

    A promoted fact is set at ``fonts["h1"]`` px, any other at ``fonts["body"]``; after :func:`budget_scale` a fact
    is read iff its size times the scale is at least ``min_px``. ``page`` (width, height) skips the layout.
    """
    sizes = {**DEFAULT_FONTS, **(fonts or {})}
    min_px = validation.real(min_px, "min_px", lo=0.0, lo_open=True)
    w, h = page if page is not None else page_size(draft_memory(episode, promote), fonts=sizes)
    s = budget_scale(w, h, visual_tokens)
    return all((sizes["h1"] if promote[i] else sizes["body"]) * s >= min_px for i in facts)


@dataclass(frozen=True)
class TrainResult:
    """[P29] Sec. 3.3: the trained policy, its learning curve (mean group reward per step, and per task) and the
    seeds of the training episodes (so that evaluation can exclude them)."""

    policy: LayoutPolicy
    reward: tuple[float, ...]
    task_reward: dict[str, tuple[float, ...]]
    promoted: tuple[float, ...]
    episode_seeds: tuple[int, ...] = ()


def _group_rewards(ep: Episode, qi: int, masks: np.ndarray, budgets: Sequence[int], g: np.random.Generator,
                   min_px: float) -> np.ndarray:
    """(G, 3) rewards of the three task variants for each sampled layout; one budget ``b`` and one detail question
    per group (a group shares its prompt, as in GRPO), so rewards differ only through the layouts."""
    q = ep.questions[qi]
    others = [i for i in range(len(ep.facts)) if i not in q.evidence]
    b = int(g.choice(budgets))
    detail = (int(g.choice(others)),)
    out = np.zeros((len(masks), 3))
    for k, m in enumerate(masks):
        page = page_size(draft_memory(ep, m))
        out[k] = (np.mean([legible(ep, m, (i,), b, page=page, min_px=min_px) for i in q.evidence]),
                  np.mean([legible(ep, m, (i,), max(1, b // 16), page=page, min_px=min_px) for i in q.evidence]),
                  legible(ep, m, detail, b, page=page, min_px=min_px))
    return out


def train_layout_policy(*, steps: int = 200, group: int = 8, budgets: Sequence[int] = (16, 64, 256),
                        lr: float = 1.0, init_bias: float = -2.0, min_px: float = MIN_PX, n_bands: int = 20,
                        seed: int) -> TrainResult:
    """Train the layout policy with GRPO under mixed budgets and the three task variants ([P29] Sec. 3.3).

    Args:
        steps: policy updates (one episode and question each).
        group: layouts sampled per question (GRPO's group size G).
        budgets: the mixed visual-token budgets ``b`` of ``T_std`` (drawn uniformly per rollout).
        lr: step size of the gradient ascent on the group-relative surrogate.
        init_bias: the starting policy's bias (:meth:`LayoutPolicy.initial`).
        min_px: the geometric reader's legibility threshold (see :data:`MIN_PX`).
        n_bands: episode size (``2·n_bands`` facts).
        seed: seeds the episodes (their seeds are returned in ``episode_seeds``), the sampled layouts and the
            budgets.
    """
    steps = validation.positive_int(steps, "steps", hi=100_000)
    group = validation.int_at_least(group, "group", 2, hi=1024)
    if isinstance(budgets, (str, bytes)) or not isinstance(budgets, Sequence) or not budgets:
        raise TypeError("budgets must be a non-empty sequence of positive ints")
    budgets = [validation.positive_int(b, "budgets", hi=1 << 20) for b in budgets]
    lr = validation.real(lr, "lr", lo=0.0, lo_open=True)
    min_px = validation.real(min_px, "min_px", lo=0.0, lo_open=True)
    g = np.random.default_rng(validation.seed(seed))
    w = np.asarray(LayoutPolicy.initial(bias=init_bias).weights)
    curve, tasks, promoted, seeds = [], [], [], []
    for _ in range(steps):
        seeds.append(int(g.integers(1 << 31)))
        ep = make_episode(n_bands=n_bands, n_questions=1, seed=seeds[-1])
        x = fact_features(ep, ep.questions[0])
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        masks = g.random((group, len(p))) < p
        r3 = _group_rewards(ep, 0, masks, budgets, g, min_px)
        r = r3.mean(axis=1)
        adv = grpo_advantages(r)
        # Σ_i A_i ∇ log π(a_i | q) / G, with ∇ log π(a | q) = Σ_f (a_f − p_f) φ_f for independent Bernoulli choices
        grad = ((masks - p[None, :]) * adv[:, None]).sum(axis=0) @ x / group
        w = w + lr * grad
        curve.append(float(r.mean()))
        tasks.append(r3.mean(axis=0))
        promoted.append(float(masks.sum(axis=1).mean()))
    t = np.asarray(tasks)
    return TrainResult(LayoutPolicy(tuple(float(v) for v in w)), tuple(curve),
                       {name: tuple(float(v) for v in t[:, i]) for i, name in enumerate(("T_std", "T_augM", "T_augQ"))},
                       tuple(promoted), tuple(seeds))
