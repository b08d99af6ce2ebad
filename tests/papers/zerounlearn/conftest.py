import pytest


@pytest.fixture(scope="session")
def tiny():
    """The tiny Llama of the smoke runs (trained once per session) with its facts and retain moments of layers 1-2."""
    from icml26.papers.zerounlearn import TinySpec, retain_moments, tiny_model
    from icml26.papers.zerounlearn._tiny import filler_rows

    model, tok, facts = tiny_model(TinySpec(subjects=12, unknown=4, layers=4, steps=60, lr=6e-3), seed=0)
    rows = filler_rows(tok, rows=32, length=16, seed=1, exclude=tuple(f.subject for f in facts))
    stats = retain_moments(model, rows, layers=(1, 2), pad_id=tok.pad_token_id)
    return model, tok, facts, stats
