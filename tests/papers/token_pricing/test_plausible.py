"""[P13] §4 plausibility: top-p set semantics by hand, the one-pass check against a token-by-token loop, the fast
re-checker against the plain check, exhaustive search against enumeration, and sampling inside the top-p set."""

import numpy as np
import pytest
import torch

from icml26.papers.token_pricing import (
    PrefixVerifier,
    alternative_tokenizations,
    longest_plausible_tokenization,
    misreport,
    overcharge,
    plausibility,
    sample_outputs,
    top_p_set,
)


def test_top_p_set_by_hand() -> None:
    logits = np.log([0.5, 0.3, 0.15, 0.05])
    assert top_p_set(logits, temperature=1.0, top_p=0.79).tolist() == [True, True, False, False]
    assert top_p_set(logits, temperature=1.0, top_p=0.81).tolist() == [True, True, True, False]
    assert top_p_set(logits, temperature=1.0, top_p=0.49).tolist() == [True, False, False, False]
    assert top_p_set(logits, temperature=1.0, top_p=1.0).all()
    # T -> small sharpens: only the argmax is left; T large flattens: the set grows
    assert top_p_set(logits, temperature=0.05, top_p=0.95).sum() == 1
    assert top_p_set(logits, temperature=3.0, top_p=0.8).sum() == 3
    tie = np.log([0.25, 0.25, 0.25, 0.25])
    assert top_p_set(tie, temperature=1.0, top_p=0.5).tolist() == [True, True, False, False]  # lower ids first
    rows = top_p_set(np.stack([logits, logits[::-1]]), temperature=1.0, top_p=0.79)
    assert rows.tolist() == [[True, True, False, False], [False, False, True, True]]


def test_top_p_set_against_sorted_definition() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        x = rng.normal(size=30) * 3
        t, p = rng.uniform(0.5, 2.0), rng.uniform(0.05, 1.0)
        prob = np.exp(x / t - (x / t).max())
        prob /= prob.sum()
        order = np.argsort(-prob, kind="stable")
        want = np.zeros(30, bool)
        mass = 0.0
        for i in order:
            if mass >= p:
                break
            want[i] = True
            mass += prob[i]
        assert (top_p_set(x, temperature=t, top_p=p) == want).all()


def test_plausibility_matches_token_by_token(provider) -> None:
    model, tok, _ = provider
    prompt = tok("Return the value")["input_ids"]
    seq = tok(" of the string argument, unchanged.")["input_ids"]
    one_pass = plausibility(seq, model, prompt=prompt, temperature=1.0, top_p=0.9)
    for i, t in enumerate(seq):
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([prompt + seq[:i]])).logits[0, -1]
        assert one_pass[i] == top_p_set(logits, temperature=1.0, top_p=0.9)[t]
    assert 0 < one_pass.mean() < 1  # the tiny model is peaked enough for the check to bite


def test_prefix_verifier_matches_plain_check(provider) -> None:
    model, tok, vocab = provider
    prompt = tok("Split the")["input_ids"]
    seq = tok(" string into a list of words, using sep as the delimiter.")["input_ids"]
    for t, p in ((1.0, 0.9), (1.3, 0.99), (0.7, 0.5)):
        ver = PrefixVerifier(model, prompt, seq, temperature=t, top_p=p, chunk=4)
        for d in (0, 1, 2, 4, 8, 16):
            for strategy in ("highest_id", "random"):
                cand = misreport(seq, vocab, depth=d, strategy=strategy, seed=d)
                assert ver.check(cand) == bool(plausibility(cand, model, prompt=prompt, temperature=t, top_p=p).all())


@pytest.mark.parametrize(("t", "p"), [(1.0, 0.9), (1.3, 0.99), (2.0, 0.999)])
def test_exhaustive_search_against_enumeration(provider, t, p) -> None:
    model, tok, vocab = provider
    prompt = tok("The")["input_ids"]
    for text in (" string", " the list"):
        plaus = [s for s in alternative_tokenizations(text, vocab)
                 if plausibility(s, model, prompt=prompt, temperature=t, top_p=p).all()]
        bf = longest_plausible_tokenization(text, model, vocab, prompt=prompt, temperature=t, top_p=p)
        assert bf.complete and bf.plausible == len(plaus)
        assert (bf.longest is None) == (not plaus)
        if plaus:
            assert len(bf.longest) == max(map(len, plaus)) and bf.longest in plaus


def test_overcharge_bills_only_plausible_reports(provider) -> None:
    model, tok, vocab = provider
    prompt = tok("Return the")["input_ids"]
    seq = tok(" number of items in the sequence.")["input_ids"]
    seen = set()
    for t, p in ((0.5, 0.3), (2.0, 0.9999)):
        for d in (1, 4):
            r = overcharge(seq, model, vocab, depth=d, temperature=t, top_p=p, prompt=prompt)
            ok = bool(plausibility(r.candidate, model, prompt=prompt, temperature=t, top_p=p).all())
            assert r.plausible == ok and vocab.text_of(r.candidate) == vocab.text_of(seq)
            assert r.billed == (r.candidate if ok else tuple(seq))
            assert r.extra_tokens == (d if ok else 0) and r.overcharge == r.extra_tokens / len(seq)
            seen.add(ok)
    assert seen == {True, False}


def test_samples_lie_in_their_top_p_set(provider) -> None:
    model, tok, _ = provider
    prompt = tok("Return a copy")["input_ids"]
    outs = sample_outputs(model, [prompt] * 3, temperatures=[1.0, 1.3, 0.8], top_ps=[0.9, 0.95, 0.5],
                          max_new_tokens=12, stop_ids=[0], seed=5, batch=1)
    for o, (t, p) in zip(outs, [(1.0, 0.9), (1.3, 0.95), (0.8, 0.5)], strict=True):
        assert len(o) == 12 and plausibility(o, model, prompt=prompt, temperature=t, top_p=p).all()
    again = sample_outputs(model, [prompt] * 3, temperatures=[1.0, 1.3, 0.8], top_ps=[0.9, 0.95, 0.5],
                           max_new_tokens=12, stop_ids=[0], seed=5, batch=1)
    assert again == outs


def test_bad_sampling_arguments(provider) -> None:
    model, _, _ = provider
    with pytest.raises(ValueError, match="top_p"):
        plausibility([1, 2], model, prompt=[3], temperature=1.0, top_p=0.0)
    with pytest.raises(ValueError, match="temperature"):
        top_p_set(np.zeros(3), temperature=-1.0, top_p=0.5)
    with pytest.raises((ValueError, TypeError), match="prompt"):
        plausibility([1, 2], model, prompt=[], temperature=1.0, top_p=0.5)
