"""Planted run tables on both sides of each [P15] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

BASE = ("grpo", "gigpo")


def rows(values: dict[str, list[float]], metric: str, env: str = "numberhunt") -> list[dict]:
    """One row per (arm, seed): ``values[arm][seed]`` is the arm's ``metric`` in that seed."""
    return [{"env": env, "arm": arm, "seed": s, metric: v} for arm, vs in values.items() for s, v in enumerate(vs)]


def _case(values: dict[str, list[float]], metric: str) -> dict:
    return {"rows": rows(values, metric), "baselines": BASE}


PLANTED = {
    "higher_success": Planted(
        holds=_case({"t2po": [0.8, 0.85, 0.9], "grpo": [0.6, 0.7, 0.65], "gigpo": [0.7, 0.75, 0.8]}, "final_success"),
        fails=_case({"t2po": [0.5, 0.55, 0.5], "grpo": [0.6, 0.7, 0.65], "gigpo": [0.7, 0.75, 0.8]}, "final_success"),
        budget_variants=((
            _case({"t2po": [0.8, 0.85, 0.9, 0.82, 0.88], "grpo": [0.6, 0.7, 0.65, 0.6, 0.7],
                   "gigpo": [0.7, 0.75, 0.8, 0.7, 0.74]}, "final_success"),
            _case({"t2po": [0.5, 0.55, 0.5, 0.52, 0.5], "grpo": [0.6, 0.7, 0.65, 0.6, 0.7],
                   "gigpo": [0.7, 0.75, 0.8, 0.7, 0.74]}, "final_success")),),
    ),
    "fewer_low_info_turns": Planted(
        holds=_case({"t2po": [0.10, 0.12, 0.11], "grpo": [0.30, 0.32, 0.31], "gigpo": [0.25, 0.27, 0.26]}, "low_info"),
        fails=_case({"t2po": [0.30, 0.31, 0.29], "grpo": [0.30, 0.32, 0.31], "gigpo": [0.25, 0.27, 0.26]}, "low_info"),
        budget_variants=((
            _case({"t2po": [0.10, 0.12, 0.11, 0.1], "grpo": [0.30, 0.32, 0.31, 0.3], "gigpo": [0.25, 0.27, 0.26, 0.25]},
                  "low_info"),
            _case({"t2po": [0.30, 0.31, 0.29, 0.3], "grpo": [0.30, 0.32, 0.31, 0.3],
                   "gigpo": [0.25, 0.27, 0.26, 0.25]}, "low_info")),),
    ),
    "fewer_think_tokens": Planted(
        holds=_case({"t2po": [1.0, 1.1, 0.9], "grpo": [2.0, 2.2, 2.1], "gigpo": [1.8, 1.9, 2.0]}, "think"),
        fails=_case({"t2po": [2.0, 2.1, 1.9], "grpo": [2.0, 2.2, 2.1], "gigpo": [1.8, 1.9, 2.0]}, "think"),
        budget_variants=((
            _case({"t2po": [1.0, 1.1, 0.9, 1.0, 1.0], "grpo": [2.0, 2.2, 2.1, 2.0, 2.0],
                   "gigpo": [1.8, 1.9, 2.0, 1.9, 1.9]}, "think"),
            _case({"t2po": [2.0, 2.1, 1.9, 2.0, 2.0], "grpo": [2.0, 2.2, 2.1, 2.0, 2.0],
                   "gigpo": [1.8, 1.9, 2.0, 1.9, 1.9]}, "think")),),
    ),
    "fewer_collapses": Planted(
        holds=_case({"t2po": [0, 0, 0], "grpo": [1, 1, 1], "gigpo": [1, 1, 1]}, "collapsed"),
        fails=_case({"t2po": [1, 1, 1], "grpo": [0, 0, 0], "gigpo": [0, 0, 0]}, "collapsed"),
        budget_variants=((
            _case({"t2po": [0] * 6, "grpo": [1] * 6, "gigpo": [1] * 6}, "collapsed"),
            _case({"t2po": [1] * 6, "grpo": [0] * 6, "gigpo": [0] * 6}, "collapsed")),),
    ),
}
