"""The private corpus of [P28] at toy scale: texts with a known attribute table, and the rubric extractor.

The paper annotates each private text (bioRxiv abstracts) with an LLM into a row of a categorical schema and scores
control with an LLM extractor. Here both roles are played by known structure (our reconstruction): attributes are
drawn from a small Bayesian network, each value owns a bank of keywords, and a text is a list of short sentences,
one per attribute in schema order, that names a keyword with probability ``p_mention`` and is vague otherwise (the field is
then not recoverable from the text, like an implicit feature of a real abstract). The extractor reads the first
keyword of each attribute, so the rubric reward is exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.common.validation import int_array, int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed

__all__ = ["ATTRIBUTES", "NONE", "CorpusSchema", "extract_attributes", "make_corpus", "rubric_reward",
           "vocabulary_words"]

NONE = "none"  # the extractor's answer for an attribute the text does not name

#: attribute -> value -> its keywords (each keyword names one value of one attribute only)
ATTRIBUTES: dict[str, dict[str, tuple[str, ...]]] = {
    "area": {"genomics": ("genome", "sequencing"), "neuroscience": ("neurons", "cortex"),
             "ecology": ("habitat", "species"), "immunology": ("antibody", "tcells"),
             "oncology": ("tumour", "cancer"), "microbiology": ("bacteria", "microbiome")},
    "organism": {"human": ("patients", "humans"), "mouse": ("mice", "murine"), "fly": ("drosophila", "larvae"),
                 "plant": ("arabidopsis", "seedlings"), "yeast": ("yeast", "saccharomyces")},
    "approach": {"experimental": ("assays", "knockout"), "computational": ("simulations", "algorithm"),
                 "clinical": ("cohort", "trial"), "imaging": ("microscopy", "imaging")},
    "data": {"rnaseq": ("transcriptomes", "rnaseq"), "images": ("micrographs", "scans"),
             "records": ("records", "registry"), "sequences": ("reads", "alignments"),
             "measurements": ("measurements", "recordings")},
    "scale": {"small": ("pilot", "handful"), "medium": ("hundreds", "dozens"), "large": ("thousands", "atlas")},
}
#: the Bayesian network: each attribute's parent (None: a root)
PARENTS: dict[str, str | None] = {"area": None, "organism": "area", "approach": "area", "data": "approach",
                                  "scale": "organism"}
_OPENERS = (("we", "study"), ("this", "work", "uses"), ("our", "analysis", "covers"), ("here", "we", "report"),
            ("results", "involve"), ("the", "project", "examines"))
_VAGUE = (("details", "follow", "below"), ("the", "setting", "is", "standard"), ("see", "methods"),
          ("as", "described", "previously"))
_FILLERS = ("carefully", "together", "again", "broadly", "in", "detail", "overall")


@dataclass(frozen=True)
class CorpusSchema:
    """The attribute world of the toy corpus (reconstruction of [P28]'s schema + annotation step).

    ``concentration``: Dirichlet concentration of the conditional tables (small: strongly correlated attributes);
    ``p_mention``: probability that a text names an attribute's keyword; ``world_seed`` fixes the tables.
    """

    concentration: float = 0.5
    p_mention: float = 0.75
    world_seed: int = 2026

    def __post_init__(self) -> None:
        real(self.concentration, "concentration", lo=1e-3)
        real(self.p_mention, "p_mention", lo=0.0, hi=1.0)
        check_seed(self.world_seed, "world_seed")

    @property
    def names(self) -> tuple[str, ...]:
        """Attribute names in table order."""
        return tuple(ATTRIBUTES)

    @property
    def cardinalities(self) -> tuple[int, ...]:
        """Number of values of each attribute."""
        return tuple(len(v) for v in ATTRIBUTES.values())

    def tables(self) -> dict[str, np.ndarray]:
        """Conditional probability tables: ``(parent values, values)`` for a child, ``(1, values)`` for a root."""
        g = np.random.default_rng(self.world_seed)
        out: dict[str, np.ndarray] = {}
        for a, vals in ATTRIBUTES.items():
            p = PARENTS[a]
            rows = 1 if p is None else len(ATTRIBUTES[p])
            alpha = 2.0 if p is None else self.concentration  # roots near-uniform, children correlated
            out[a] = g.dirichlet(np.full(len(vals), alpha), size=rows)
        return out

    def sample_table(self, n: int, *, seed: int) -> np.ndarray:
        """``n`` attribute rows (value indices, shape ``(n, attributes)``) drawn from the network."""
        n = positive_int(n, "n")
        g = np.random.default_rng(check_seed(seed))
        cpt = self.tables()
        names = self.names
        out = np.zeros((n, len(names)), dtype=np.int64)
        for j, a in enumerate(names):
            p = PARENTS[a]
            probs = cpt[a][np.zeros(n, dtype=np.int64) if p is None else out[:, names.index(p)]]
            u = g.random(n)[:, None]
            out[:, j] = np.minimum((u > np.cumsum(probs, axis=1)).sum(axis=1), probs.shape[1] - 1)
        return out

    def joint(self) -> np.ndarray:
        """The exact joint distribution over all attribute combinations (the brute-force oracle for tests)."""
        cpt = self.tables()
        names = self.names
        grids = np.stack(np.meshgrid(*[np.arange(k) for k in self.cardinalities], indexing="ij"), -1)
        flat = grids.reshape(-1, len(names))
        p = np.ones(len(flat))
        for j, a in enumerate(names):
            par = PARENTS[a]
            p *= cpt[a][0 if par is None else flat[:, names.index(par)], flat[:, j]]
        return p.reshape(self.cardinalities)

    def write(self, row: np.ndarray, g: np.random.Generator) -> list[str]:
        """One text (a list of words) for one attribute row: a sentence per attribute, in schema order."""
        sentences: list[list[str]] = []
        for j, (a, vals) in enumerate(ATTRIBUTES.items()):
            if g.random() < self.p_mention:
                kws = list(vals.values())[int(row[j])]
                s = [*_OPENERS[g.integers(len(_OPENERS))], kws[g.integers(len(kws))]]
                if g.random() < 0.4:
                    s.append(_FILLERS[g.integers(len(_FILLERS))])
            else:
                s = list(_VAGUE[g.integers(len(_VAGUE))])
            sentences.append([*s, "."])
        return [w for s in sentences for w in s]


def make_corpus(schema: CorpusSchema, n: int, *, seed: int) -> tuple[np.ndarray, list[list[str]]]:
    """``n`` private texts and their attribute table (the corpus of [P28]'s pipeline, our synthetic stand-in)."""
    n = positive_int(n, "n")
    seed = check_seed(seed)
    table = schema.sample_table(n, seed=seed)
    g = np.random.default_rng([seed, 1])
    return table, [schema.write(r, g) for r in table]


_KEYWORD: dict[str, tuple[int, int]] = {kw: (j, i) for j, vals in enumerate(ATTRIBUTES.values())
                                        for i, kws in enumerate(vals.values()) for kw in kws}


def extract_attributes(text: list[str] | str) -> np.ndarray:
    """The rubric extractor of [P28] (an LLM there, a keyword parser here): for each attribute, the value index of
    the first keyword of that attribute in ``text``, or -1 when the text names none."""
    if isinstance(text, str):
        text = text.split()
    if not isinstance(text, list) or not all(isinstance(w, str) for w in text):
        raise TypeError("text must be a string or a list of words")
    out = np.full(len(ATTRIBUTES), -1, dtype=np.int64)
    for w in text:
        hit = _KEYWORD.get(w)
        if hit is not None and out[hit[0]] < 0:
            out[hit[0]] = hit[1]
    return out


def rubric_reward(text: list[str] | str, row: np.ndarray) -> float:
    """[P28] ARL rubric reward: the fraction of the requested fields in ``row`` recovered from ``text`` (0 to 1)."""
    r = int_array(row, "row", shape=(len(ATTRIBUTES),))
    for j, k in enumerate(len(v) for v in ATTRIBUTES.values()):
        int_at_least(int(r[j]), f"row[{j}]", 0, hi=k - 1)
    return float(np.mean(extract_attributes(text) == r))


def vocabulary_words() -> list[str]:
    """Every word a toy [P28] text can hold, in a fixed order (the generator's word vocabulary)."""
    words = [kw for vals in ATTRIBUTES.values() for kws in vals.values() for kw in kws]
    for group in (*_OPENERS, *_VAGUE, _FILLERS, (".",)):
        words += [w for w in group if w not in words]
    return words
