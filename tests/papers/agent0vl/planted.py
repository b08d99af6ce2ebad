"""Planted run tables on both sides of each [P16] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def arm_rows(curves: dict[str, list[list[float]]]) -> list[dict]:
    """One row per (arm, seed): ``curves[arm][seed]`` is the accuracy curve over iterations 0..K."""
    return [{"arm": arm, "seed": s, "curve": c, "gain": c[-1] - c[0]} for arm, cs in curves.items()
            for s, c in enumerate(cs)]


def verifier_rows(tool: list[float], text: list[float]) -> list[dict]:
    """One ``verifier`` row per seed with the two AUROCs."""
    return [{"arm": "verifier", "seed": s, "auroc_tool": a, "auroc_text": b} for s, (a, b) in enumerate(zip(tool, text))]


RISING = [[0.30, 0.40, 0.48, 0.55], [0.32, 0.41, 0.50, 0.56], [0.31, 0.38, 0.47, 0.57]]
FLAT = [[0.30, 0.29, 0.30, 0.28], [0.32, 0.31, 0.30, 0.30], [0.31, 0.30, 0.29, 0.29]]
ORACLE = [[0.30, 0.45, 0.52, 0.58], [0.32, 0.46, 0.55, 0.60], [0.31, 0.44, 0.53, 0.59]]
TEXT_FLAT = [[0.30, 0.31, 0.30, 0.31], [0.32, 0.31, 0.33, 0.32], [0.31, 0.30, 0.31, 0.31]]
TEXT_HIGH = [[0.30, 0.45, 0.55, 0.70], [0.32, 0.47, 0.56, 0.72], [0.31, 0.46, 0.58, 0.71]]


def _more(curves: list[list[float]]) -> list[list[float]]:
    return curves + [[x + 0.01 for x in c] for c in curves]


PLANTED = {
    "self_evolution_gain": Planted(
        holds={"rows": arm_rows({"serc": RISING})},
        fails={"rows": arm_rows({"serc": FLAT})},
        budget_variants=(({"rows": arm_rows({"serc": _more(RISING)})}, {"rows": arm_rows({"serc": _more(FLAT)})}),),
    ),
    "tool_grounded_verification": Planted(
        holds={"rows": verifier_rows([0.98, 0.97, 0.99], [0.70, 0.72, 0.68])},
        fails={"rows": verifier_rows([0.75, 0.74, 0.76], [0.72, 0.73, 0.74])},
        budget_variants=((
            {"rows": verifier_rows([0.98, 0.97, 0.99, 0.98, 0.97], [0.70, 0.72, 0.68, 0.7, 0.71])},
            {"rows": verifier_rows([0.75, 0.74, 0.76, 0.75, 0.74], [0.72, 0.73, 0.74, 0.73, 0.72])}),),
    ),
    "zero_reward_recovery": Planted(
        holds={"rows": arm_rows({"serc": RISING, "oracle": ORACLE})},
        fails={"rows": arm_rows({"serc": FLAT, "oracle": ORACLE})},
        budget_variants=(({"rows": arm_rows({"serc": _more(RISING), "oracle": _more(ORACLE)})},
                          {"rows": arm_rows({"serc": _more(FLAT), "oracle": _more(ORACLE)})}),),
    ),
    "text_only_gains_less": Planted(  # fails: the text-only arm that trusts tool outputs gains more than SERC
        holds={"rows": arm_rows({"serc": RISING, "text_only": TEXT_FLAT, "text_trusting": TEXT_FLAT})},
        fails={"rows": arm_rows({"serc": RISING, "text_only": TEXT_FLAT, "text_trusting": TEXT_HIGH})},
        budget_variants=((
            {"rows": arm_rows({"serc": _more(RISING), "text_only": _more(TEXT_FLAT), "text_trusting": _more(TEXT_FLAT)})},
            {"rows": arm_rows({"serc": _more(RISING), "text_only": _more(TEXT_HIGH)})}),),
    ),
}
