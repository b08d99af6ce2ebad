"""Synthetic multi-hop QA episodes standing in for [P29]'s padded HotpotQA/2Wiki contexts (Sec. 4.1).

An episode is a long "context" of facts about invented people, bands and cities::

    Kovar founded band Lumeta.      (person → band)
    Band Lumeta is from Tarsk.      (band → city)

and a few questions, each answered by one fact ("Which city is band Lumeta from?", 1 hop) or by a chain of two
("Which city is the band founded by Kovar from?", 2 hops). Every other fact is a distractor. Names are drawn from
syllables, so an answer is never guessable from an OCR reader's language prior.

Reconstructed: the paper pads real QA datasets to 10K-100K tokens; this toy keeps only the mechanism (a few crucial
facts hidden among many distractors) at a size an OCR reader can process in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.common import validation

__all__ = ["Episode", "Fact", "Question", "make_episode"]

_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z")
_VOWELS = ("a", "e", "i", "o", "u")


@dataclass(frozen=True)
class Fact:
    """One fact of a [P29] toy episode: ``relation`` is ``"founded"`` (head = person, tail = band) or ``"from"`` (head = band, tail = city)."""

    head: str
    relation: str
    tail: str

    @property
    def text(self) -> str:
        """The fact as a sentence of the context."""
        if self.relation == "founded":
            return f"{self.head} founded band {self.tail}."
        return f"Band {self.head} is from {self.tail}."


@dataclass(frozen=True)
class Question:
    """A [P29] toy question: start at ``subject`` and follow ``chain`` (relations); ``answer`` is where the chain ends.

    ``evidence`` are the indices (into the episode's facts) of the facts the chain passes through.
    """

    subject: str
    chain: tuple[str, ...]
    answer: str
    evidence: tuple[int, ...]

    @property
    def text(self) -> str:
        """The question in words."""
        if self.chain == ("from",):
            return f"Which city is band {self.subject} from?"
        return f"Which city is the band founded by {self.subject} from?"


@dataclass(frozen=True)
class Episode:
    """A [P29] toy episode: facts in context order, the questions asked about them and the candidate answers of each entity type."""

    facts: tuple[Fact, ...]
    questions: tuple[Question, ...]
    bands: tuple[str, ...]
    cities: tuple[str, ...]


def _names(g: np.random.Generator, n: int, taken: set[str]) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        k = int(g.integers(2, 4))
        word = "".join(str(g.choice(_ONSETS)) + str(g.choice(_VOWELS)) for _ in range(k))
        word = word + str(g.choice(("n", "r", "s", "k", ""))) if len(word) < 6 else word
        if word not in taken and len(word) >= 4:
            taken.add(word)
            out.append(word.capitalize())
    return out


def make_episode(*, n_bands: int = 20, n_cities: int = 8, n_questions: int = 4, two_hop: float = 0.5,
                 seed: int) -> Episode:
    """Draw one episode ([P29] Sec. 4.1, reconstructed as a toy): ``2·n_bands`` facts, ``n_questions`` questions.

    Args:
        n_bands: bands (each founded by its own person and from one of the cities): the context has ``2·n_bands``
            facts in random order.
        n_cities: distinct cities (answers repeat across bands).
        n_questions: questions, about distinct bands.
        two_hop: the probability that a question needs two facts (person → band → city) rather than one.
        seed: the episode's seed.
    """
    n_bands = validation.int_at_least(n_bands, "n_bands", 2, hi=200)
    n_cities = validation.int_at_least(n_cities, "n_cities", 2, hi=200)
    n_questions = validation.int_at_least(n_questions, "n_questions", 1, hi=n_bands)
    two_hop = validation.real(two_hop, "two_hop", lo=0.0, hi=1.0)
    g = np.random.default_rng(validation.seed(seed))
    taken: set[str] = set()
    people, bands, cities = _names(g, n_bands, taken), _names(g, n_bands, taken), _names(g, n_cities, taken)
    home = [cities[int(i)] for i in g.integers(0, n_cities, size=n_bands)]
    facts = [Fact(p, "founded", b) for p, b in zip(people, bands)] + [Fact(b, "from", c) for b, c in zip(bands, home)]
    order = g.permutation(len(facts))
    facts = [facts[int(i)] for i in order]
    where = {(f.head, f.relation): i for i, f in enumerate(facts)}
    questions = []
    for j in g.choice(n_bands, size=n_questions, replace=False):
        b = bands[int(j)]
        if g.random() < two_hop:
            p = people[int(j)]
            questions.append(Question(p, ("founded", "from"), home[int(j)], (where[p, "founded"], where[b, "from"])))
        else:
            questions.append(Question(b, ("from",), home[int(j)], (where[b, "from"],)))
    return Episode(tuple(facts), tuple(questions), tuple(bands), tuple(cities))
