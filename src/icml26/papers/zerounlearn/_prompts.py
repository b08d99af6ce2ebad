"""Facts and their encoded prompts: what [P27] edits and what it measures.

A :class:`Fact` is a (subject, relation prompt, answer) triple such as ("France", "The capital of {} is", " Paris"),
with paraphrased prompts for generalisation. :func:`make_prompts` encodes a forget set for one tokenizer: each
fact's prompt inside every context template (the rewriting prompts of ROME/MEMIT's ``compute_z``), one KL prompt
per fact ("{} is a"), and the plain prompt, each with the index of the subject's last token (where MEMIT-style
edits read their key and write their value).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_CONTEXTS", "Fact", "Prompts", "Row", "encode", "make_prompts", "target_ids"]

#: context templates wrapping a fact's prompt ("{}" is the prompt). ROME/MEMIT sample short prefixes from the model;
#: a fixed prefix keeps the edit deterministic (reconstruction)
DEFAULT_CONTEXTS: tuple[str, ...] = ("{}", "Here is a fact. {}")


def _template(x: object, name: str) -> str:
    if not isinstance(x, str):
        raise TypeError(f"{name} must be a str with one '{{}}', got {type(x).__name__} {x!r}")
    if x.count("{}") != 1:
        raise ValueError(f"{name} must contain '{{}}' exactly once, got {x!r}")
    return x


def _text(x: object, name: str) -> str:
    if not isinstance(x, str):
        raise TypeError(f"{name} must be a str, got {type(x).__name__} {x!r}")
    if not x.strip():
        raise ValueError(f"{name} must be a non-empty string")
    return x


@dataclass(frozen=True)
class Fact:
    """One piece of knowledge a causal LM may hold [P27] (Sec. 3: a forget request (s, r, o)).

    Attributes:
        subject: ``s``, e.g. ``"France"``.
        prompt: the relation's prompt with ``"{}"`` where the subject goes, e.g. ``"The capital of {} is"``.
        answer: the true object as the model would continue, leading space included (``" Paris"``).
        paraphrases: other prompts of the same relation (each with one ``"{}"``), for generalisation.
        relation: a label (``"capital"``), only for reporting.
    """

    subject: str
    prompt: str
    answer: str
    paraphrases: tuple[str, ...] = ()
    relation: str = ""

    def __post_init__(self) -> None:
        _text(self.subject, "subject")
        _template(self.prompt, "prompt")
        _text(self.answer, "answer")
        if isinstance(self.paraphrases, str) or not isinstance(self.paraphrases, (tuple, list)):
            raise TypeError(f"paraphrases must be a tuple of templates, got {type(self.paraphrases).__name__}")
        for i, p in enumerate(self.paraphrases):
            _template(p, f"paraphrases[{i}]")
        object.__setattr__(self, "paraphrases", tuple(self.paraphrases))

    def text(self, template: str | None = None) -> str:
        """``template`` (default: the prompt) with the subject filled in."""
        return (self.prompt if template is None else template).replace("{}", self.subject, 1)


@dataclass(frozen=True)
class Row:
    """One encoded prompt: its token ids, the index of the subject's last token, and the fact it belongs to."""

    ids: tuple[int, ...]
    lookup: int
    fact: int


def encode(tokenizer: Any, template: str, subject: str, fact: int = 0) -> Row:
    """``template`` with ``subject`` filled in, tokenised, with the position of the subject's last token."""
    start = template.index("{}")
    text = template.replace("{}", subject, 1)
    end = start + len(subject)  # the subject spans characters [start, end)
    try:
        enc = tokenizer(text, return_offsets_mapping=True)
        offsets = enc["offset_mapping"]
    except (NotImplementedError, KeyError, TypeError, ValueError):
        offsets = None
        enc = tokenizer(text)
    ids = tuple(int(i) for i in enc["input_ids"])
    if offsets is not None:
        hits = [t for t, (a, b) in enumerate(offsets) if a <= end - 1 < b]  # the token holding the last character
        lookup = hits[-1] if hits else max(t for t, (a, b) in enumerate(offsets) if b > a and a < end)
    else:  # a slow tokenizer: the last token of the text up to the subject's end
        lookup = len(tokenizer(text[:end])["input_ids"]) - 1
    if not ids:
        raise ValueError(f"the tokenizer produced no tokens for {text!r}")
    return Row(ids, int(lookup), fact)


def target_ids(tokenizer: Any, target: str | Sequence[str], n: int) -> list[tuple[int, ...]]:
    """Token ids of the target continuation of each of ``n`` facts (one string for all, or one per fact)."""
    if isinstance(target, str):
        targets = [target] * n
    elif isinstance(target, Sequence) and len(target) == n and all(isinstance(t, str) for t in target):
        targets = list(target)
    else:
        raise TypeError(f"target must be a str or a sequence of {n} str (one per fact), got {target!r}"[:200])
    out = []
    for t in targets:
        ids = tuple(int(i) for i in tokenizer(t, add_special_tokens=False)["input_ids"])
        if not ids:
            raise ValueError(f"target {t!r} tokenises to nothing")
        out.append(ids)
    return out


@dataclass(frozen=True, eq=False)
class Prompts:
    """A forget set encoded for one tokenizer (built by :func:`make_prompts`) [P27] (Sec. 3).

    ``rewrite``: every fact's prompt inside every context template (fact-major, ``len(contexts)`` rows per fact);
    ``kl``: one ``kl_template`` row per fact; ``plain``: each fact's prompt alone.
    """

    tokenizer: Any
    facts: tuple[Fact, ...]
    contexts: tuple[str, ...]
    kl_template: str
    rewrite: tuple[Row, ...]
    kl: tuple[Row, ...]
    plain: tuple[Row, ...]

    @property
    def pad_id(self) -> int:
        tok = self.tokenizer
        pid = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        return int(pid if pid is not None else 0)

    @property
    def eos(self) -> str:
        if self.tokenizer.eos_token is None:
            raise ValueError("forget: the tokenizer has no eos_token; give the neutral target explicitly")
        return str(self.tokenizer.eos_token)

    def __len__(self) -> int:
        return len(self.facts)


def make_prompts(tokenizer: Any, facts: Sequence[Fact], *, contexts: Sequence[str] = DEFAULT_CONTEXTS,
                 kl_template: str = "{} is a") -> Prompts:
    """Encode a forget set: the rewriting, KL and plain prompts of each fact [P27] (Sec. 3; ROME/MEMIT compute_z).

    Args:
        tokenizer: the model's tokenizer (a fast one gives exact subject positions through its offsets).
        facts: the facts to forget (at least one).
        contexts: templates wrapping each prompt ("{}" is the prompt), e.g. ``("{}", "Here is a fact. {}")``.
        kl_template: the prompt whose next-token distribution the value search keeps (``"{} is a"``).
    """
    if isinstance(facts, Fact) or not isinstance(facts, Sequence):
        raise TypeError(f"facts must be a sequence of Fact, got {type(facts).__name__}")
    if not facts:
        raise ValueError("facts (the forget set) must not be empty")
    for i, f in enumerate(facts):
        if not isinstance(f, Fact):
            raise TypeError(f"facts[{i}] must be a Fact, got {type(f).__name__}")
    if isinstance(contexts, str) or not isinstance(contexts, Sequence) or not contexts:
        raise ValueError("contexts must be a non-empty sequence of templates")
    ctx = tuple(_template(c, "contexts") for c in contexts)
    kl_template = _template(kl_template, "kl_template")
    if not callable(tokenizer):
        raise TypeError(f"tokenizer must be a transformers tokenizer, got {type(tokenizer).__name__}")
    rewrite = tuple(encode(tokenizer, c.replace("{}", f.prompt, 1), f.subject, i)
                    for i, f in enumerate(facts) for c in ctx)
    kl = tuple(encode(tokenizer, kl_template, f.subject, i) for i, f in enumerate(facts))
    plain = tuple(encode(tokenizer, f.prompt, f.subject, i) for i, f in enumerate(facts))
    return Prompts(tokenizer, tuple(facts), ctx, kl_template, rewrite, kl, plain)
