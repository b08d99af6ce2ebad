"""Text helpers of the [P19] encoder: the regex module, the native-scanner choice, surrogates, special-token sets."""

from __future__ import annotations

import functools
from collections.abc import Collection, Mapping
from typing import Any

from icml26.papers.inc_bpe._backend import NATIVE
from icml26.papers.inc_bpe._vocab import CL100K_PAT, EXTRA_HINT, O200K_PAT

__all__ = ["allowed_set", "check_disallowed", "fix_surrogates", "native_pattern", "regex_module"]


def regex_module() -> Any:
    try:
        import regex
    except ImportError:  # pragma: no cover - regex comes with tiktoken
        raise ImportError(f"the regex package is needed for pre-tokenization; {EXTRA_HINT}") from None
    return regex


def native_pattern(pat_str: str) -> int:
    """1 / 2 when ``pat_str`` is the cl100k / o200k pattern and the native scanner is built, else 0 (regex split)."""
    if not NATIVE:
        return 0
    return {CL100K_PAT: 1, O200K_PAT: 2}.get(pat_str, 0)


def fix_surrogates(text: str) -> str:
    """Replace lone surrogates by U+FFFD, as tiktoken does before encoding."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def allowed_set(value: object, specials: Mapping[str, int]) -> set[str]:
    """``allowed_special`` as the set of this encoding's special tokens it allows: ``"all"``, or a collection of str
    whose names that are no special token of the encoding are ignored (as tiktoken does)."""
    if isinstance(value, str) and value == "all":
        return set(specials)
    if isinstance(value, (str, bytes)) or not isinstance(value, Collection):
        raise TypeError(f'allowed_special must be "all" or a collection of special-token strings, got {value!r}')
    out = set(value)
    if not all(isinstance(s, str) for s in out):
        raise TypeError(f"allowed_special must hold str, got {sorted(map(repr, out))}")
    return out & set(specials)


@functools.lru_cache(maxsize=64)
def _alternation(strings: frozenset[str]) -> Any:
    regex = regex_module()
    return regex.compile("|".join(regex.escape(s) for s in sorted(strings, key=len, reverse=True)))


def check_disallowed(text: str, value: object, allowed: set[str], specials: Mapping[str, int]) -> None:
    """Raise ``ValueError`` when ``text`` contains a string of ``disallowed_special`` (tiktoken's rule: any listed
    string counts, a special token of the encoding or not, and only its occurrence raises). ``"all"``: every special
    token not allowed."""
    if isinstance(value, str) and value == "all":
        disallowed = frozenset(set(specials) - allowed)
    elif isinstance(value, (str, bytes)) or not isinstance(value, Collection):
        raise TypeError(f'disallowed_special must be "all" or a collection of special-token strings, got {value!r}')
    else:
        disallowed = frozenset(value)
        if not all(isinstance(s, str) for s in disallowed):
            raise TypeError(f"disallowed_special must hold str, got {sorted(map(repr, disallowed))}")
    if not disallowed:
        return
    m = _alternation(disallowed).search(text)
    if m is not None:
        tok = m.group()
        hint = f"allowed_special={{{tok!r}}} to encode it as its special token, or " if tok in specials else ""
        raise ValueError(f"text contains {tok!r}, which disallowed_special disallows; pass {hint}"
                         "disallowed_special=() to encode it as ordinary text")
