"""The three disjoint pools of known facts of [P27]'s experiment: a fixed retain pool whose facts become factual
retain text (the paper's retain moments come from Wikipedia, which states facts), and per seed a forget set and
the specificity facts, drawn from the rest. The pools are subject-disjoint: a subject (a country, say) that has
several relations in the candidate list never sits in two pools, and no specificity fact shares a forget subject.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from icml26.common.validation import int_at_least, positive_int
from icml26.common.validation import seed as check_seed
from icml26.papers.zerounlearn._prompts import Fact

__all__ = ["RETAIN_POOL_SEED", "draw_sets", "fact_rows", "retain_split", "subject_key"]

#: the fixed draw of the retain pool (the same for every seed, so every seed's sets avoid it)
RETAIN_POOL_SEED = 2026


def subject_key(subject: str) -> str:
    """[P27] pools: the subject as compared across relations (case-folded, a leading "the " dropped)."""
    s = " ".join(subject.split()).casefold()
    return s[4:] if s.startswith("the ") else s


def _facts(facts: Any, name: str) -> list[Fact]:
    if isinstance(facts, Fact) or not isinstance(facts, Sequence) or isinstance(facts, str):
        raise TypeError(f"{name} must be a sequence of Fact, got {type(facts).__name__}")
    for i, f in enumerate(facts):
        if not isinstance(f, Fact):
            raise TypeError(f"{name}[{i}] must be a Fact, got {type(f).__name__}")
    return list(facts)


def retain_split(known: Sequence[Fact], *, count: int, seed: int = RETAIN_POOL_SEED
                 ) -> tuple[list[Fact], list[Fact]]:
    """[P27] (our protocol): (retain pool, evaluation pool). The retain pool holds ``count`` facts of whole subjects
    taken in an order drawn from ``seed``; the facts of the subject where the count is reached that do not fit are
    left out of both pools, so that no subject of the retain pool reaches the evaluation pool."""
    facts = _facts(known, "known")
    count = int_at_least(count, "count", 0)
    subjects = list(dict.fromkeys(subject_key(f.subject) for f in facts))
    order = np.random.default_rng(check_seed(seed)).permutation(len(subjects))
    taken: set[str] = set()
    size = 0
    for i in order:
        if size >= count:
            break
        taken.add(subjects[i])
        size += sum(subject_key(f.subject) == subjects[i] for f in facts)
    pool = [f for f in facts if subject_key(f.subject) in taken]
    rank = {subjects[i]: r for r, i in enumerate(order)}
    pool.sort(key=lambda f: rank[subject_key(f.subject)])
    return pool[:count], [f for f in facts if subject_key(f.subject) not in taken]


def draw_sets(pool: Sequence[Fact], *, forget: int, other: int, seed: int) -> tuple[list[Fact], list[Fact]]:
    """[P27] (our protocol): one seed's forget set (``forget`` facts of distinct subjects, in an order drawn from
    ``seed``) and up to ``other`` specificity facts from the rest of ``pool`` whose subjects are no forget subject."""
    facts = _facts(pool, "pool")
    forget, other = positive_int(forget, "forget"), int_at_least(other, "other", 0)
    order = np.random.default_rng(check_seed(seed)).permutation(len(facts))
    chosen: list[Fact] = []
    seen: set[str] = set()
    for i in order:
        key = subject_key(facts[i].subject)
        if key not in seen and len(chosen) < forget:
            chosen.append(facts[i])
            seen.add(key)
    if len(chosen) < forget:
        raise ValueError(f"pool has only {len(chosen)} distinct subjects; forget = {forget} are needed")
    rest = [facts[i] for i in order if subject_key(facts[i].subject) not in seen]
    return chosen, rest[:other]


def fact_rows(tokenizer: Any, facts: Sequence[Fact], *, length: int) -> list[list[int]]:
    """[P27] factual retain text: each fact as a sentence (canonical prompt, answer, full stop), joined by spaces,
    cut into windows of ``length`` tokens (the last, shorter window kept when it has at least two tokens)."""
    facts = _facts(facts, "facts")
    length = int_at_least(length, "length", 2)
    if not facts:
        return []
    ids = list(tokenizer(" ".join(f.text() + f.answer + "." for f in facts), add_special_tokens=False)["input_ids"])
    rows = [ids[i:i + length] for i in range(0, len(ids), length)]
    return [r for r in rows if len(r) >= 2]
