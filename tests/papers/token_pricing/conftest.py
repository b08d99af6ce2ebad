"""Shared fixtures of the [P13] tests: a BPE trained on stdlib docstrings and a tiny random Llama over it."""

import pytest

from icml26.papers.token_pricing import Vocabulary, docstring_corpus, tiny_bpe_lm, train_bpe, vocabulary


@pytest.fixture(scope="session")
def provider():
    model, tok = tiny_bpe_lm(seed=0, vocab_size=320, init_std=0.1)
    return model, tok, vocabulary(tok)


@pytest.fixture(scope="session")
def small_vocab() -> Vocabulary:
    return vocabulary(train_bpe(docstring_corpus(modules=("string", "textwrap")), vocab_size=300))
