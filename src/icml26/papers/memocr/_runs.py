"""One seed of the [P29] toy: train the layout policy, then answer held-out questions at every budget.

For each question and budget ``B`` (visual tokens) the memory is shown five ways:

- ``layout``: the trained drafter's memory (promoted facts as headings), rendered and shrunk to ``B``;
- ``uniform``: every fact in one paragraph at one font size (the paper's ablation without layout), shrunk to ``B``;
- ``text``: the same drafter's memory as plain text (its promoted facts first, then the rest in context order)
  truncated to ``B`` text tokens: the text-memory agent of the same budget, which chooses what to keep as the
  layout drafter does. One visual token is counted as one text token, and a text token as 4 characters (the usual
  rule of thumb for BPE tokenizers on English text);
- ``text_context_order``: the facts in context order truncated to ``B`` text tokens (raw-history truncation; shown,
  not judged: it keeps no question-relevant selection, so it loses by construction);
- ``random``: as ``layout`` but promoting as many facts as the trained policy does, chosen uniformly at random.

Evaluation episodes are drawn from a generator of their own, and a seed that one of the training episodes used
(:attr:`TrainResult.episode_seeds`) is drawn again, so no evaluation episode is a training episode.

The reader is Tesseract (``reader="ocr"``) or, where OCR is too slow (smoke), the geometric legibility reader of
:mod:`._train`. Text memories are read exactly (no OCR is needed to read text).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from icml26.papers.memocr._drafter import draft_memory, uniform_memory
from icml26.papers.memocr._episodes import Episode, Question, make_episode
from icml26.papers.memocr._reader import OcrReader, answer_from_text
from icml26.papers.memocr._render import render_memory, resize_to_budget
from icml26.papers.memocr._train import MIN_PX, legible, train_layout_policy

__all__ = ["CHARS_PER_TOKEN", "METHODS", "SHOWN", "UNIFORM_FONTS", "eval_seed", "run_seed"]

CHARS_PER_TOKEN = 4
METHODS = ("layout", "uniform", "text", "random")
#: shown beside the methods, never judged
SHOWN = ("text_context_order",)
#: the uniform rendering: every line at 12 px (notes of [P29])
UNIFORM_FONTS = {"h1": 12, "h2": 12, "body": 12}


def _visual(reader: OcrReader | None, ep: Episode, q: Question, md: str, mask: np.ndarray, fonts: dict[str, int],
            budget: int) -> bool:
    if reader is None:
        return legible(ep, mask, q.evidence, budget, fonts=fonts, min_px=MIN_PX)
    return reader.answer(resize_to_budget(render_memory(md, fonts=fonts), budget), q, ep) == q.answer


def _question_rows(reader: OcrReader | None, ep: Episode, q: Question, mask: np.ndarray, rand: np.ndarray,
                   cfg: Any) -> list[dict[str, Any]]:
    none = np.zeros(len(ep.facts), dtype=bool)
    md, md_rand, md_uni = draft_memory(ep, mask), draft_memory(ep, rand), uniform_memory(ep)
    ordered = " ".join([f.text for f, m in zip(ep.facts, mask) if m] + [f.text for f, m in zip(ep.facts, mask) if not m])
    rows = []
    for b in cfg.budgets:
        chars = CHARS_PER_TOKEN * b
        got = {"layout": _visual(reader, ep, q, md, mask, {}, b),
               "uniform": _visual(reader, ep, q, md_uni, none, UNIFORM_FONTS, b),
               "text": answer_from_text(ordered[:chars], q, ep) == q.answer,
               "text_context_order": answer_from_text(md_uni[:chars], q, ep) == q.answer}
        if b in cfg.random_budgets:
            got["random"] = _visual(reader, ep, q, md_rand, rand, {}, b)
        rows.extend({"budget": b, "method": m, "correct": bool(v), "hops": len(q.chain)} for m, v in got.items())
    return rows


def eval_seed(g: np.random.Generator, exclude: set[int]) -> int:
    """The seed of the next held-out episode: drawn from ``g``, redrawn while it is one of ``exclude``."""
    s = int(g.integers(1 << 31))
    while s in exclude:
        s = int(g.integers(1 << 31))
    return s


def run_seed(task: tuple[Any, int]) -> dict[str, Any]:
    """Train on seed ``s`` and evaluate on held-out episodes of the same seed: ``{"rows", "train"}``.

    ``task`` is ``(config, seed)``; the config carries the training and evaluation sizes and the reader.
    """
    cfg, seed = task
    tr = train_layout_policy(steps=cfg.train_steps, group=cfg.group, budgets=cfg.train_budgets, lr=cfg.lr,
                             n_bands=cfg.n_bands, seed=seed)
    reader = OcrReader() if cfg.reader == "ocr" else None
    g = np.random.default_rng([seed, 29])
    trained = set(tr.episode_seeds)
    rows: list[dict[str, Any]] = []
    for e in range(cfg.episodes):
        ep = make_episode(n_bands=cfg.n_bands, n_questions=cfg.questions, seed=eval_seed(g, trained))
        for qi, q in enumerate(ep.questions):
            mask = tr.policy.promote(ep, q)
            rand = np.zeros_like(mask)
            rand[g.choice(len(mask), size=int(mask.sum()), replace=False)] = True
            evidence_promoted = bool(all(mask[i] for i in q.evidence))
            for r in _question_rows(reader, ep, q, mask, rand, cfg):
                rows.append({"seed": seed, "episode": e, "question": qi, "promoted": int(mask.sum()),
                             "evidence_promoted": evidence_promoted, **r})
    return {"rows": rows, "weights": list(tr.policy.weights), "reward": list(tr.reward),
            "task_reward": {k: list(v) for k, v in tr.task_reward.items()}, "promoted": list(tr.promoted),
            "ocr_calls": 0 if reader is None else reader.calls}
