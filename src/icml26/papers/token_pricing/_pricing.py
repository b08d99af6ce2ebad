"""Pricing mechanisms ([P13] §5): pay-per-token, pay-per-character (the incentive-compatible one), and the
prescription that keeps a provider's average revenue when switching from the first to the second."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from icml26.common.validation import choice, paired_vectors, real
from icml26.papers.token_pricing._tokenizations import token_ids
from icml26.papers.token_pricing._vocab import vocabulary

__all__ = ["SCHEMES", "char_count", "margin_preserving_char_price", "price"]

SCHEMES = ("per_token", "per_char")


def char_count(tokens: Sequence[int] | np.ndarray, tokenizer: Any) -> int:
    """Characters of the string a token sequence stands for, summed token by token ([P13] §5, len(τ) of each token).

    A token's count is its number of bytes that start a UTF-8 character, so the sum over any tokenization of a text
    is the text's character count, also when byte-level tokens cut a character.
    """
    vocab = vocabulary(tokenizer)
    ids = token_ids(tokens, vocab, allow_empty=True)
    return int(vocab.chars[ids].sum()) if ids else 0


def price(tokens: Sequence[int] | np.ndarray, *, tokenizer: Any, scheme: str = "per_token", rate: float = 1.0) -> float:
    """What a user pays for a reported token sequence under an additive pricing mechanism ([P13] §3, §5).

    ``scheme="per_token"``: rate · |t̃| (today's pay-per-token); ``"per_char"``: Σ_i rate · len(t̃_i), a price
    linear in each token's character count: the only additive mechanism under which no re-tokenization of the same
    string changes the price (incentive compatibility, [P13] Thm. in §5). Counts are summed as integers and
    multiplied by ``rate`` once, so equal strings cost exactly the same.
    """
    scheme = choice(scheme, "scheme", SCHEMES)
    r = real(rate, "rate", lo=0.0)
    vocab = vocabulary(tokenizer)
    ids = token_ids(tokens, vocab, allow_empty=True)
    units = len(ids) if scheme == "per_token" else (int(vocab.chars[ids].sum()) if ids else 0)
    return r * units


def margin_preserving_char_price(token_counts: Sequence[float] | np.ndarray, char_counts: Sequence[float] | np.ndarray,
                                 *, token_price: float) -> float:
    """The per-character price that keeps a provider's average revenue ([P13] §5 prescription):
    r_c = r_t · E[#tokens] / E[#characters], estimated over outputs of the model (and language) it applies to.

    Args:
        token_counts: (n,) tokens of each output (the truthful counts billed per token today).
        char_counts: (n,) characters of each output.
        token_price: r_t, the price of a token today (>= 0).
    """
    tok, ch = paired_vectors(token_counts, "token_counts", char_counts, "char_counts")
    if (tok < 0).any() or (ch < 0).any():
        raise ValueError("token_counts and char_counts must be >= 0")
    if ch.sum() <= 0:
        raise ValueError("char_counts must not all be 0")
    r = real(token_price, "token_price", lo=0.0)
    return r * float(tok.sum()) / float(ch.sum())
