"""The public entry points of [P29] for the bad-input conformance test."""

from icml26.papers.memocr import (
    answer_from_text,
    budget_scale,
    make_episode,
    render_memory,
    train_layout_policy,
)
from support.badinput import Entry

_ep = make_episode(n_bands=4, n_questions=1, seed=0)

ENTRY_POINTS = [
    Entry("render_memory", render_memory, valid={"markdown": "# Head\nbody text", "width": 64, "margin": 2},
          kinds={"width": "int", "margin": "int"}),
    Entry("budget_scale", budget_scale, valid={"width": 448, "height": 200, "visual_tokens": 16, "patch": 28},
          kinds={"width": "int", "height": "int", "visual_tokens": "int", "patch": "int"}),
    Entry("make_episode", make_episode,
          valid={"n_bands": 4, "n_cities": 3, "n_questions": 2, "two_hop": 0.5, "seed": 0},
          kinds={"n_bands": "int", "n_cities": "int", "n_questions": "int", "two_hop": "nonneg", "seed": "seed"}),
    Entry("answer_from_text", answer_from_text,
          valid={"text": "x", "question": _ep.questions[0], "episode": _ep, "min_match": 0.75, "window": 4},
          kinds={"min_match": "posreal", "window": "int"}),
    Entry("train_layout_policy", train_layout_policy,
          valid={"steps": 1, "group": 2, "lr": 0.5, "min_px": 6.5, "n_bands": 4, "seed": 0},
          kinds={"steps": "int", "group": "int", "lr": "posreal", "min_px": "posreal", "n_bands": "int",
                 "seed": "seed"}),
]
