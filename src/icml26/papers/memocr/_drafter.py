"""The memory drafter and its layout policy ([P29], Sec. 3 "drafting" and Sec. 3.3 "budget-aware RL").

The drafter writes the memory as Markdown: facts it promotes become ``#`` headings (large type, which stays legible
when the page is shrunk), every other fact goes into one body paragraph (small type, compressed). Which facts it
promotes is the layout policy: a logistic model on features of each fact given the question,
``π(promote f | q) = σ(wᵀ φ(f, q))``, each fact decided independently.

Reconstructed: the paper's drafter is the 7B VLM itself writing rich-text Markdown; here the text of each fact is
fixed and only the layout decision (heading or body) is learned, on the features named below.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.common import validation
from icml26.papers.memocr._episodes import Episode, Question

__all__ = ["FEATURES", "LayoutPolicy", "draft_memory", "fact_features", "uniform_memory"]

#: φ(f, q): bias; f names q's subject; f names an entity one bridge fact away from the subject (not the subject);
#: f's relation is "from" (the relation every question ends with); q needs two hops
FEATURES = ("bias", "names_subject", "names_neighbour", "relation_from", "two_hop_question")


def fact_features(episode: Episode, question: Question) -> np.ndarray:
    """φ(f, q) for every fact of ``episode`` ([P29]'s drafter state, reconstructed): ``(n_facts, len(FEATURES))``.

    The drafter sees the whole memory and the question (as MemAgent-style agents do), so "one hop from the subject"
    is computed from the facts themselves (through ``founded`` facts, the bridge relation), not from the answer.
    """
    if not isinstance(episode, Episode) or not isinstance(question, Question):
        raise TypeError("episode and question must be an Episode and a Question (make_episode)")
    s = question.subject
    # one hop along a bridge: the entities a "founded" fact links to the subject (a city shared by many bands is
    # an answer, not a bridge)
    near = {f.tail if f.head == s else f.head for f in episode.facts if f.relation == "founded" and s in (f.head, f.tail)}
    rows = []
    for f in episode.facts:
        names = s in (f.head, f.tail)
        neighbour = not names and bool(near & {f.head, f.tail})
        rows.append((1.0, float(names), float(neighbour), float(f.relation == "from"), float(len(question.chain) > 1)))
    return np.asarray(rows, dtype=float)


def _promoted(promote: np.ndarray, n: int) -> np.ndarray:
    p = np.asarray(promote)
    if p.dtype != bool or p.shape != (n,):
        raise ValueError(f"promote must be a bool array of shape ({n},) (one entry per fact), got {p.dtype} {p.shape}")
    return p


def draft_memory(episode: Episode, promote: np.ndarray) -> str:
    """The layout-aware memory ([P29] Sec. 3): promoted facts as ``#`` headings, the rest as one body paragraph.

    Both parts keep the context order of the facts; ``promote`` is a bool mask over ``episode.facts``.
    """
    p = _promoted(promote, len(episode.facts))
    heads = [f"# {f.text}" for f, up in zip(episode.facts, p) if up]
    body = [f.text for f, up in zip(episode.facts, p) if not up]
    return "\n".join(heads + ([" ".join(body)] if body else []))


def uniform_memory(episode: Episode) -> str:
    """The memory without layout ([P29]'s uniform-rendering ablation): every fact in one paragraph."""
    return " ".join(f.text for f in episode.facts)


@dataclass(frozen=True)
class LayoutPolicy:
    """``π(promote f | q) = σ(wᵀ φ(f, q))`` over :data:`FEATURES` ([P29] Sec. 3.3's drafting policy, reconstructed).

    ``weights`` has one entry per feature; :meth:`zero` is the untrained policy (every fact promoted with p = 1/2).
    """

    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        w = validation.real_array(self.weights, "weights", ndim=1)
        if w.shape != (len(FEATURES),):
            raise ValueError(f"weights must have {len(FEATURES)} entries ({', '.join(FEATURES)}), got {w.shape[0]}")

    @classmethod
    def zero(cls) -> LayoutPolicy:
        """[P29]: the policy that promotes every fact with p = 1/2."""
        return cls(tuple(0.0 for _ in FEATURES))

    @classmethod
    def initial(cls, *, bias: float = -2.0) -> LayoutPolicy:
        """[P29] Sec. 3.3, the starting point of RL: a drafter that writes most facts as body text (``bias`` −2:
        p ≈ 0.12 per fact), as a plain-text memory writer would before learning to use headings."""
        return cls((validation.real(bias, "bias"),) + tuple(0.0 for _ in FEATURES[1:]))

    def probabilities(self, episode: Episode, question: Question) -> np.ndarray:
        """π(promote f | q) for every fact ([P29] drafting policy)."""
        z = fact_features(episode, question) @ np.asarray(self.weights)
        return 1.0 / (1.0 + np.exp(-z))

    def promote(self, episode: Episode, question: Question, *, rng: np.random.Generator | None = None) -> np.ndarray:
        """[P29] layout decision, a promotion mask: sampled from π with ``rng``, or greedy (p > 1/2) when ``rng`` is ``None``."""
        p = self.probabilities(episode, question)
        if rng is None:
            return p > 0.5
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy Generator or None, got {type(rng).__name__}")
        return rng.random(p.shape) < p
