"""[P13] §5 pricing: per-character prices are the same for every tokenization (exhaustively, on short strings),
per-token prices are not, character counts survive tokens that cut UTF-8 characters, and the prescription by hand."""

import pytest

from icml26.papers.token_pricing import (
    Vocabulary,
    alternative_tokenizations,
    char_count,
    margin_preserving_char_price,
    price,
)


@pytest.mark.parametrize("text", ["the string", "naïve café", "为什么 the", "hojas, ¿por qué?"])
def test_per_char_price_is_invariant_over_every_tokenization(small_vocab, text) -> None:
    alts = list(alternative_tokenizations(text, small_vocab))
    chars = {price(a, tokenizer=small_vocab, scheme="per_char", rate=0.5) for a in alts}
    assert chars == {0.5 * len(text)}
    tokens = {price(a, tokenizer=small_vocab, scheme="per_token") for a in alts}
    assert len(tokens) > 1 and max(tokens) == len(text.encode())
    assert all(char_count(a, small_vocab) == len(text) for a in alts)


def test_char_count_of_tokens_cutting_a_character() -> None:
    e = "é".encode()  # 2 bytes
    v = Vocabulary([e[:1], e[1:], b"x", e + b"x"])
    assert char_count([0, 1, 2], v) == char_count([3], v) == 2
    assert char_count([1], v) == 0


def test_margin_preserving_price_by_hand() -> None:
    assert margin_preserving_char_price([10, 30], [40, 80], token_price=2.0) == pytest.approx(2.0 * 40 / 120)
    with pytest.raises(ValueError, match="char_counts"):
        margin_preserving_char_price([1, 2], [0, 0], token_price=1.0)
    with pytest.raises(ValueError, match="token_price"):
        margin_preserving_char_price([1, 2], [3, 4], token_price=-1.0)


def test_price_rejects_bad_scheme(small_vocab) -> None:
    with pytest.raises(ValueError, match="scheme"):
        price([1], tokenizer=small_vocab, scheme="per_byte")
    with pytest.raises(ValueError, match="rate"):
        price([1], tokenizer=small_vocab, rate=float("nan"))
