"""[P29] toy episodes and the reader: the evidence chain is an oracle for the extractor; OCR round trips."""

import os

import numpy as np
import pytest

from icml26.papers.memocr import (
    Episode,
    OcrReader,
    Question,
    answer_from_text,
    draft_memory,
    make_episode,
    render_memory,
    resize_to_budget,
    tesseract_available,
    uniform_memory,
)

needs_ocr = pytest.mark.skipif(not tesseract_available(), reason="tesseract binary or pytesseract not installed "
                               "(Debian: apt install tesseract-ocr tesseract-ocr-eng)")


def _follow(ep, q):
    """Brute force: follow the question's chain through the fact list."""
    key = q.subject
    for rel in q.chain:
        key = next(f.tail for f in ep.facts if f.head == key and f.relation == rel)
    return key


@pytest.mark.parametrize("seed", range(5))
def test_questions_are_answered_by_their_evidence_chain(seed):
    ep = make_episode(seed=seed)
    assert len(ep.facts) == 40 and len({f.text for f in ep.facts}) == 40
    names = [*ep.bands, *ep.cities, *(f.head for f in ep.facts if f.relation == "founded")]
    assert len(set(names)) == len(ep.bands) + len(ep.cities) + len(ep.bands)  # names never collide across types
    for q in ep.questions:
        assert _follow(ep, q) == q.answer
        assert [ep.facts[i].relation for i in q.evidence] == list(q.chain)


def test_episodes_are_deterministic_per_seed():
    assert make_episode(seed=3) == make_episode(seed=3)
    assert make_episode(seed=3) != make_episode(seed=4)


@pytest.mark.parametrize("seed", range(5))
def test_extractor_answers_exactly_from_the_full_text_and_abstains_without_evidence(seed):
    ep = make_episode(seed=seed)
    text = uniform_memory(ep)
    for q in ep.questions:
        assert answer_from_text(text, q, ep) == q.answer
        without = " ".join(f.text for i, f in enumerate(ep.facts) if i not in q.evidence)
        assert answer_from_text(without, q, ep) is None


@pytest.mark.parametrize("seed", range(3))
def test_extractor_reads_only_the_text_not_the_ground_truth(seed):
    """The reader gets the episode for its candidate names only: blanking the facts, the questions and each
    question's answer and evidence changes nothing, and a text that states another city gives that city."""
    ep = make_episode(seed=seed)
    blind = Episode(facts=(), questions=(), bands=ep.bands, cities=ep.cities)
    text = uniform_memory(ep)
    for q in ep.questions:
        hidden = Question(q.subject, q.chain, answer="", evidence=())
        assert answer_from_text(text, hidden, blind) == answer_from_text(text, q, ep) == q.answer
        other = next(c for c in ep.cities if c != q.answer)
        lied = text.replace(f"is from {q.answer}.", f"is from {other}.")
        assert answer_from_text(lied, hidden, blind) == other


def test_extractor_tolerates_ocr_typos():
    ep = make_episode(seed=0)
    q = next(q for q in ep.questions if len(q.chain) == 1)
    city = q.answer
    noisy = f"Band {q.subject[:-1]}x is from {city[0]}{city[1:].replace(city[1], 'l', 1)}."
    assert answer_from_text(noisy, q, ep) == city


@needs_ocr
def test_ocr_reads_a_native_page_and_not_a_four_token_one():
    ep = make_episode(seed=1)
    q = ep.questions[0]
    mask = np.zeros(len(ep.facts), dtype=bool)
    mask[list(q.evidence)] = True
    page = render_memory(draft_memory(ep, mask))
    reader = OcrReader()
    before = os.environ.get("OMP_THREAD_LIMIT")
    assert reader.answer(page, q, ep) == q.answer
    assert os.environ.get("OMP_THREAD_LIMIT") == before  # the thread limit is the subprocess's only
    assert reader.answer(resize_to_budget(render_memory(uniform_memory(ep), fonts={"body": 12}), 4), q, ep) is None
    reader.answer(page, q, ep)  # the same pixels again: served from the cache
    assert reader.calls == 2


def test_reader_refuses_bad_input():
    with pytest.raises(TypeError, match="img"):
        OcrReader().read(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="upscale"):
        OcrReader(upscale=0)
    with pytest.raises(ValueError, match="threads"):
        OcrReader(threads=0)
    ep = make_episode(seed=0)
    with pytest.raises(TypeError, match="text"):
        answer_from_text(None, ep.questions[0], ep)
