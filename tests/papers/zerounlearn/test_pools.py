"""The three fact pools of [P27]'s experiment: disjoint by subject, of the sizes asked, the same for a fixed seed."""

import pytest
import torch

from icml26.papers.zerounlearn import Fact, candidate_triples, retain_moments
from icml26.papers.zerounlearn._pools import draw_sets, retain_split, subject_key

_FACTS = [Fact(s, "The x of {} is", " y" + str(i)) for i, s in
          enumerate(["France", "the France", "Peru", "Chile", "Iran", "Iraq", "Laos", "Mali", "Chad", "Peru", "Oman"]
                    + [f"S{i}" for i in range(30)])]


def test_pools_are_subject_disjoint_and_sized():
    pool, rest = retain_split(_FACTS, count=5)
    assert len(pool) == 5
    keys = {subject_key(f.subject) for f in pool}
    assert not keys & {subject_key(f.subject) for f in rest}
    for seed in range(4):
        forget, other = draw_sets(rest, forget=6, other=12, seed=seed)
        fk = [subject_key(f.subject) for f in forget]
        assert len(fk) == len(set(fk)) == 6
        assert len(other) == 12 and not set(fk) & {subject_key(f.subject) for f in other}
        assert not {id(f) for f in forget} & {id(f) for f in other}
        assert draw_sets(rest, forget=6, other=12, seed=seed) == (forget, other)


def test_subject_key_and_bad_input():
    assert subject_key("the  Netherlands") == subject_key("Netherlands")
    with pytest.raises(ValueError, match="forget"):
        draw_sets(_FACTS[:3], forget=5, other=1, seed=0)
    with pytest.raises(TypeError, match="pool"):
        draw_sets("France", forget=1, other=1, seed=0)


def test_candidate_list_is_large_and_unique():
    t = candidate_triples()
    assert len(t) >= 1000 and len(set(t)) == len(t)


def test_merged_moments_equal_one_pass_over_both_corpora(tiny):
    from icml26.papers.zerounlearn._experiment import _merge
    from icml26.papers.zerounlearn._tiny import filler_rows

    model, tok, facts, _ = tiny
    docs = filler_rows(tok, rows=9, length=12, seed=3, exclude=tuple(f.subject for f in facts))
    extra = [tok(f.text() + f.answer + ".")["input_ids"] for f in facts[:5]]  # shorter rows: padding differs
    a = retain_moments(model, docs, layers=(1, 2), pad_id=tok.pad_token_id)
    b = retain_moments(model, extra, layers=(1, 2), pad_id=tok.pad_token_id)
    both = retain_moments(model, docs + extra, layers=(1, 2), pad_id=tok.pad_token_id)
    merged = _merge(a, b)
    assert merged.tokens == both.tokens == a.tokens + b.tokens
    for lay in (1, 2):
        torch.testing.assert_close(merged.kk[lay], both.kk[lay], atol=1e-6, rtol=1e-4)  # float32 passes, other batches
        torch.testing.assert_close(merged.vk[lay], both.vk[lay], atol=1e-6, rtol=1e-4)  # float32 passes, other batches
