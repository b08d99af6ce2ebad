"""[P16] rendered figures: determinism, the layout's pixel arithmetic for the four kinds, the triangle family, the
questions' answers (angles against an independent vector computation)."""

import math

import numpy as np
import pytest

from icml26.papers.agent0vl import (
    FIGURE_KINDS,
    QUESTIONS,
    TRIANGLE_SHAPES,
    Question,
    angle_degrees,
    answer_of,
    make_tasks,
    render_figure,
)
from icml26.papers.agent0vl._render import HEIGHT, SCALE, WIDTH


def _vector_angle(p, q, r):
    """The angle at ``p`` of triangle pqr in degrees, from the dot product of the two edge vectors (the oracle)."""
    u, w = np.subtract(q, p), np.subtract(r, p)
    return math.degrees(math.acos(np.dot(u, w) / (np.linalg.norm(u) * np.linalg.norm(w))))


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


def test_line_markers_sit_at_the_values():
    """A line chart's marker at point k is a dark disc centred on row v_k * px_per_unit at the marked column; the
    joining line is lighter than the tool's threshold (no noise). Anti-aliasing moves the disc's centre by at most a
    pixel, a quarter of a unit."""
    values = (3, 15, 1, 8)
    img, lay = render_figure("lines", np.array(values, dtype=float), noise=0.0, seed=0)
    assert lay.centres == (12.0, 36.0, 60.0, 84.0) and lay.px_per_unit == SCALE["lines"]
    for c, v in zip(lay.centres, values):
        rows = np.nonzero(img[:, int(c)] < 0.5)[0]
        centre = HEIGHT - (rows.min() + rows.max() + 1) / 2
        assert abs(centre - v * lay.px_per_unit) <= 1.0 and 4 <= rows.size <= 8
    between = img[:, 24]  # halfway between points 1 and 2: only the light joining line
    assert between.min() >= 0.5 and between.min() < 0.95


def test_triangle_fills_its_polygon():
    """The dark pixels of a triangle cover its area (shoelace formula) to within its anti-aliased rim."""
    xy = np.array([2.0, 3.0, 9.0, 14.0, 20.0, 5.0])
    img, lay = render_figure("triangles", xy, noise=0.0, seed=0)
    p = xy.reshape(3, 2) * lay.px_per_unit
    area = 0.5 * abs((p[1, 0] - p[0, 0]) * (p[2, 1] - p[0, 1]) - (p[1, 1] - p[0, 1]) * (p[2, 0] - p[0, 0]))
    perimeter = sum(np.linalg.norm(p[k] - p[(k + 1) % 3]) for k in range(3))
    assert abs(int((img < 0.5).sum()) - area) <= 0.5 * perimeter
    assert lay.kind == "triangles" and len(lay.centres) == 3


@pytest.mark.parametrize("xy", [[1, 1, 1, 9, 12, 4], [0, 1, 5, 9, 12, 4], [1, 1, 5, 5, 9, 9], [1, 1, 5, 9, 24, 4],
                                [1.5, 1, 5, 9, 12, 4], [1, 1, 5, 9]])
def test_render_refuses_bad_triangles(xy):
    with pytest.raises(ValueError, match="values"):
        render_figure("triangles", np.array(xy, dtype=float), seed=0)


def test_triangle_shapes_have_integer_sides_and_fit():
    assert len(TRIANGLE_SHAPES) >= 20
    for shape in TRIANGLE_SHAPES:
        xs = [x for x, _ in shape]
        assert xs == sorted(xs) and min(np.diff(xs)) >= 1 and max(xs) <= 22 and max(y for _, y in shape) <= 14
        sides = [math.dist(shape[k], shape[(k + 1) % 3]) for k in range(3)]
        assert all(s == round(s) for s in sides)
        assert min(_vector_angle(shape[k], shape[k - 1], shape[k - 2]) for k in range(3)) >= 25.0


def test_angle_answers_match_the_vertex_geometry():
    """For every admissible triangle, the law-of-cosines answer from its sides equals the angle between its edge
    vectors, rounded."""
    for shape in TRIANGLE_SHAPES:
        ab, bc, ca = (round(math.dist(shape[k], shape[(k + 1) % 3])) for k in range(3))
        want = [round(_vector_angle(shape[k], shape[(k + 1) % 3], shape[(k + 2) % 3])) for k in range(3)]
        assert [angle_degrees(bc, ab, ca), angle_degrees(ca, ab, bc), angle_degrees(ab, bc, ca)] == want
        assert sum(want) in (179, 180, 181)
    with pytest.raises(ValueError, match="triangle"):
        angle_degrees(10, 2, 3)


def test_every_family_and_question_kind_is_drawn():
    tasks = make_tasks(120, seed=3)
    seen = {(t.layout.kind, t.question.kind) for t in tasks}
    assert seen == {(k, q) for k in FIGURE_KINDS for q in QUESTIONS[k]}
    for t in tasks:
        if t.layout.kind == "triangles":
            assert len(t.label.vertices) == 3 and t.label.values == tuple(
                round(math.dist(sorted(t.label.vertices)[k], sorted(t.label.vertices)[(k + 1) % 3])) for k in range(3))
        if t.question.kind == "angle":
            k = t.question.objects[0]
            assert t.question.objects == (k, (k + 1) % 3, (k + 2) % 3) and "ABC"[(k + 2) % 3] in t.view().prompt


@pytest.mark.parametrize("kind,objects,want", [("value", (1,), 9), ("sum", (0, 2), 8), ("diff", (2, 1), 4),
                                               ("diff", (1, 2), 4), ("max", (0, 1, 2), 9),
                                               ("perimeter", (0, 1, 2), 17)])
def test_answers(kind, objects, want):
    assert answer_of(Question(kind, objects), (3, 9, 5)) == want


def test_tasks_hold_their_answers_and_questions_read_well():
    for t in make_tasks(40, seed=2):
        assert t.label.answer == answer_of(t.question, t.label.values)
        assert t.view().prompt.endswith("?") and not hasattr(t.view(), "label")


@pytest.mark.parametrize("values", [[0.0, 3.0, 4.0], [3.0, 16.0, 4.0], [3.0, 4.0], [2.5, 3.0, 4.0]])
def test_render_refuses_values_outside_the_figure(values):
    with pytest.raises(ValueError, match="values"):
        render_figure("bars", np.array(values), seed=0)
