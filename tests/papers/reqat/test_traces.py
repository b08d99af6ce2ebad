"""[P11] reproduction task: traces, corruption, masks, sampling and the answer parser."""

import pytest
import torch

from icml26.papers.reqat import Problem, accuracy, make_problems, tiny_reasoner, traces_dataset
from icml26.papers.reqat._tiny import _answer, _top_p, fit
from icml26.papers.reqat._traces import decode, encode, trace_text


def test_trace_text_and_a_corrupted_step_carries_on():
    p = Problem((37, 85, 12))
    assert p.prompt + trace_text(p) == "37+85+12=;37+85=122;122+12=134;A134\n"
    assert trace_text(p, error_step=0, error=-3) == ";37+85=119;119+12=131;A131\n"
    assert trace_text(Problem((1, 2, 3)), error_step=0, error=-9) == ";1+2=12;12+3=15;A15\n"  # stays >= 0
    assert decode(encode("12+3=;A15\n")) == "12+3=;A15\n"


def test_problem_counts_are_checked():
    with pytest.raises(ValueError, match="n = 82"):
        make_problems(82, seed=0, low=1, high=9, min_terms=2, max_terms=2)
    with pytest.raises(ValueError, match="max_terms"):
        make_problems(5, seed=0, min_terms=3, max_terms=2)


def test_problems_are_distinct_disjoint_and_seeded():
    a = make_problems(50, seed=0, low=1, high=9, min_terms=3, max_terms=4)
    assert a == make_problems(50, seed=0, low=1, high=9, min_terms=3, max_terms=4)
    assert len({p.terms for p in a}) == 50 and all(3 <= len(p.terms) <= 4 for p in a)
    b = make_problems(50, seed=1, low=1, high=9, min_terms=3, max_terms=4, exclude=frozenset(p.terms for p in a))
    assert not {p.terms for p in a} & {p.terms for p in b}


def test_dataset_masks_only_the_completion():
    p = Problem((3, 4, 5))
    d = traces_dataset([p], length=24)
    full = p.prompt + trace_text(p)
    assert decode(d.x[0, : len(full) - 1].tolist()) == full[:-1]
    assert decode(d.y[0][d.mask[0]].tolist()) == trace_text(p)  # every completion token, nothing else
    assert d.tokens == len(trace_text(p))
    noisy = traces_dataset(make_problems(200, seed=0, low=1, high=9), length=40, corrupt=1.0, seed=0)
    clean = traces_dataset(make_problems(200, seed=0, low=1, high=9), length=40)
    assert not torch.equal(noisy.y, clean.y)


def test_answer_parser_and_nucleus_filter():
    assert _answer(";3+4=7;7+5=12;A12\n....") == 12
    assert _answer(";3+4=7;A\n") is None and _answer(";3+4=7") is None
    p = torch.tensor([[0.5, 0.3, 0.15, 0.05]])
    assert _top_p(p, 0.7)[0].tolist() == pytest.approx([0.625, 0.375, 0.0, 0.0])


def test_a_briefly_trained_model_learns_something_and_sampling_is_seeded():
    probs = make_problems(60, seed=0, low=1, high=9, min_terms=2, max_terms=2)
    data = traces_dataset(probs, length=20)
    m = tiny_reasoner(d_model=32, n_layer=1, n_head=2, block_size=20, seed=0)
    loss0 = fit(m, data, steps=1, lr=1e-3, batch_size=32, seed=0)
    loss1 = fit(m, data, steps=60, lr=3e-3, batch_size=32, seed=0)
    assert loss1 < loss0
    a = accuracy(m, probs[:20], samples=2, temperature=0.6, top_p=0.95, max_len=20, seed=3)
    assert a == accuracy(m, probs[:20], samples=2, temperature=0.6, top_p=0.95, max_len=20, seed=3)
    assert all(0.0 <= v <= 1.0 for v in a)
