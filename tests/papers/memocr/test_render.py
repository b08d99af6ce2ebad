"""Rendering and the area-per-budget law of [P29]: determinism, page geometry, and the resize's pixel count."""

import math

import numpy as np
import pytest
from PIL import Image

from icml26.papers.memocr import PATCH, budget_scale, page_size, render_memory, resize_to_budget

MD = "# Kovar founded band Lumeta.\nBand Lumeta is from Tarsk. Band Rofi is from Baze.\nMore body text here."


def test_rendering_is_deterministic_pixel_for_pixel():
    a, b = render_memory(MD), render_memory(MD)
    assert a.mode == "L" and a.size == b.size
    assert a.tobytes() == b.tobytes()
    assert np.asarray(a).min() == 0 and np.asarray(a).max() == 255  # ink on a white page


def test_page_size_matches_the_drawn_page():
    for fonts in ({}, {"h1": 40, "body": 12}, {"body": 6}):
        assert page_size(MD, fonts=fonts) == render_memory(MD, fonts=fonts).size


def test_heading_costs_more_area_than_the_same_text_as_body():
    _, h_head = page_size("# " + "word " * 30)
    _, h_body = page_size("word " * 30)
    assert h_head > 2 * h_body


def test_area_grows_with_font_size_squared():
    """The O(L·s²) law: doubling the body font size about quadruples the area of a long paragraph."""
    text = " ".join(["Band Lumeta is from Tarsk."] * 60)
    w, h1 = page_size(text, fonts={"body": 10}, margin=0)
    _, h2 = page_size(text, fonts={"body": 20}, margin=0)
    assert 3.4 < h2 / h1 < 4.6


@pytest.mark.parametrize("tokens", [1, 4, 16, 64, 100])
def test_resize_fits_the_budget_and_keeps_the_aspect(tokens):
    img = render_memory(MD * 4)
    out = resize_to_budget(img, tokens)
    cap = tokens * PATCH * PATCH
    assert out.width * out.height <= cap
    s = budget_scale(*img.size, tokens)
    if s < 1:
        # floor rounding loses at most one pixel per side
        assert out.width * out.height >= (img.width * s - 1) * (img.height * s - 1) - 1
        assert abs(out.width / out.height - img.width / img.height) < 0.5 * img.width / img.height


def test_budget_scale_closed_form_and_native_cap():
    assert budget_scale(448, 448, 64) == pytest.approx(math.sqrt(64 * 784 / 448**2))
    assert budget_scale(100, 100, 1024) == 1.0
    img = Image.new("L", (50, 40), 255)
    assert resize_to_budget(img, 1024).size == (50, 40)


def _area_violations(scale_fn) -> list[tuple[int, int]]:
    """Pages (w, h) and budgets for which ``scale_fn`` would put more than B·28² pixels on the page."""
    bad = []
    for w, h in [(448, 300), (448, 1200), (200, 90)]:
        for b in (4, 16, 64):
            s = scale_fn(w, h, b)
            if math.floor(w * s) * math.floor(h * s) > b * PATCH * PATCH:
                bad.append((w, b))
    return bad


def test_area_check_catches_an_injected_bug_and_passes_the_real_law():
    assert _area_violations(budget_scale) == []
    assert _area_violations(lambda w, h, b: min(1.0, b * PATCH * PATCH / (w * h)) ** 0.25)  # wrong exponent


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"markdown": ""}, "no text"), ({"markdown": 3}, "markdown must be a str"),
    ({"fonts": {"h3": 10}}, "unknown block kinds"), ({"fonts": {"body": 2}}, "fonts\\['body'\\]"),
    ({"fonts": [9]}, "fonts must be a mapping"), ({"width": 8}, "width"),
])
def test_bad_render_input_is_refused(kwargs, match):
    args = {"markdown": MD} | kwargs
    with pytest.raises((ValueError, TypeError), match=match):
        render_memory(args.pop("markdown"), **args)


def test_resize_refuses_non_images_and_bad_budgets():
    with pytest.raises(TypeError, match="img"):
        resize_to_budget(np.zeros((4, 4)), 4)
    with pytest.raises(ValueError, match="visual_tokens"):
        resize_to_budget(render_memory(MD), 0)
