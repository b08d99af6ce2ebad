"""The closed token vocabulary of the MiniRepo world and the tokenizer ([P17] toy: a word-level vocabulary).

Tokens are markers (``<issue>`` ...), four-space indents, identifiers (``m0.py`` and ``self.assertEqual`` are one
token), single digits, ``\"\"\"``, ``!=``, newlines and single punctuation; anything outside the vocabulary maps to
``<unk>``. Decoding an action joins its tokens with single spaces, which restores the token-spaced source exactly.
"""

from __future__ import annotations

import re

from icml26.papers.agent_native._env import ACTIONS, MARKERS
from icml26.papers.agent_native._repo import KINDS, NAMES, TEST_FILE

__all__ = ["VOCAB", "decode", "encode", "tokenize"]

_TOKEN = re.compile(r"<[a-z]+>| {4}|[A-Za-z_][A-Za-z_0-9.]*|\d|\"\"\"|!=|\n|\S")
_WORDS = (
    "def x y return max min self self.assertEqual unittest unittest.TestCase import from class TestRepo then "
    "fails returned expected passed failed error no matches such file line ok submitted bad action AssertionError "
    "SyntaxError NameError TypeError TimeoutError ZeroDivisionError ImportError IndentationError "
    "ModuleNotFoundError AttributeError ValueError UnboundLocalError Exception Traceback"
).split()
_PUNCT = list("()[]{},:.=+-*/%|!;<>'\"^&#@~?") + ['"""', "!="]
SPECIALS = ("<pad>", "<unk>", *MARKERS, "<file>", "<patch>", "<repo>", "<locate>", "\n", "    ")
_DOC = sorted({w for phrase, _ in KINDS.values() for w in phrase.split()})
VOCAB: tuple[str, ...] = tuple(dict.fromkeys([
    *SPECIALS, *ACTIONS, *_WORDS, *_DOC, *NAMES, *(f"test_{n}" for n in NAMES), *(f"m{i}.py" for i in range(4)),
    TEST_FILE, *(str(d) for d in range(10)), *_PUNCT]))
INDEX = {t: i for i, t in enumerate(VOCAB)}
PAD, UNK = INDEX["<pad>"], INDEX["<unk>"]


def tokenize(text: str) -> list[str]:
    """The tokens of ``text`` (single spaces separate tokens and are dropped; four spaces are an indent token)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return _TOKEN.findall(text)


def encode(text: str) -> list[int]:
    """Token ids of ``text`` (``<unk>`` for words outside :data:`VOCAB`)."""
    return [INDEX.get(t, UNK) for t in tokenize(text)]


def decode(ids: list[int]) -> str:
    """Text of token ids joined by single spaces (exact for token-spaced source and for actions)."""
    return " ".join(VOCAB[i] for i in ids)
