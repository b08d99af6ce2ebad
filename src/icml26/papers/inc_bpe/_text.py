"""Text helpers of the [P19] encoder: the regex module, the native-scanner choice, surrogates, special-token sets."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from icml26.papers.inc_bpe._backend import NATIVE
from icml26.papers.inc_bpe._vocab import CL100K_PAT, EXTRA_HINT, O200K_PAT

__all__ = ["ERRORS", "fix_surrogates", "native_pattern", "regex_module", "special_set"]

ERRORS = ("replace", "strict", "ignore", "backslashreplace", "surrogateescape")


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


def special_set(value: object, specials: Mapping[str, int], arg: str, name: str) -> set[str]:
    """``"all"`` or a collection of special-token strings of this encoding, as a set; anything else raises."""
    if isinstance(value, str) and value == "all":
        return set(specials)
    if isinstance(value, (str, bytes)) or not isinstance(value, Collection):
        raise TypeError(f'{arg} must be "all" or a collection of special-token strings, got {value!r}')
    out = set(value)
    unknown = out - set(specials)
    if unknown:
        raise ValueError(f"{arg}: {sorted(map(repr, unknown))} are not special tokens of {name}")
    return out
