"""[P16] rendered figures: determinism, the layout's pixel arithmetic, the questions' answers."""

import numpy as np
import pytest

from icml26.papers.agent0vl import Question, answer_of, make_tasks, render_figure
from icml26.papers.agent0vl._render import HEIGHT, SCALE, WIDTH


def test_render_is_deterministic_and_seeded():
    a, _ = render_figure("bars", np.array([3.0, 9.0, 5.0]), seed=1)
    b, _ = render_figure("bars", np.array([3.0, 9.0, 5.0]), seed=1)
    c, _ = render_figure("bars", np.array([3.0, 9.0, 5.0]), seed=2)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert a.shape == (HEIGHT, WIDTH) and a.min() >= 0 and a.max() <= 1
    t1, t2 = make_tasks(6, seed=4), make_tasks(6, seed=4)
    assert all(np.array_equal(x.image, y.image) and x.label == y.label for x, y in zip(t1, t2))


def test_bar_pixels_match_the_layout():
    """A bar of height v covers v * px_per_unit rows at its centre column, from the bottom (no noise)."""
    img, lay = render_figure("bars", np.array([2.0, 15.0, 7.0, 1.0]), noise=0.0, seed=0)
    assert lay.px_per_unit == SCALE["bars"] and lay.centres == (12.0, 36.0, 60.0, 84.0)
    for c, v in zip(lay.centres, (2, 15, 7, 1)):
        assert int((img[:, int(c)] < 0.5).sum()) == v * lay.px_per_unit


def test_circle_pixels_match_the_layout():
    img, lay = render_figure("circles", np.array([10.0, 4.0]), noise=0.0, seed=0)
    row = img[int(HEIGHT - lay.row)]
    assert abs(int((row[:48] < 0.5).sum()) - 10 * lay.px_per_unit) <= 1


@pytest.mark.parametrize("kind,objects,want", [("value", (1,), 9), ("sum", (0, 2), 8), ("diff", (2, 1), 4),
                                               ("diff", (1, 2), 4)])
def test_answers(kind, objects, want):
    assert answer_of(Question(kind, objects), (3, 9, 5)) == want


def test_tasks_hold_their_answers_and_questions_read_well():
    for t in make_tasks(30, seed=2):
        assert t.label.answer == answer_of(t.question, t.label.values)
        assert t.view().prompt.endswith("?") and not hasattr(t.view(), "label")


@pytest.mark.parametrize("values", [[0.0, 3.0, 4.0], [3.0, 16.0, 4.0], [3.0, 4.0], [2.5, 3.0, 4.0]])
def test_render_refuses_values_outside_the_figure(values):
    with pytest.raises(ValueError, match="values"):
        render_figure("bars", np.array(values), seed=0)
