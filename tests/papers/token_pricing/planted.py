"""Planted rows on both sides of each [P13] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def outputs(overcharges_by_seed: list[list[float]]) -> list[dict]:
    """One row per output: ``overcharge`` > 0 means a plausible longer report was billed."""
    return [{"seed": s, "plausible_any": oc > 0, "overcharge": oc}
            for s, ocs in enumerate(overcharges_by_seed) for oc in ocs]


def costs(pairs_by_seed: list[list[tuple[float, float]]]) -> list[dict]:
    """One row per timed output: (revenue tokens, cost tokens)."""
    return [{"seed": s, "revenue_tokens": r, "cost_tokens": c} for s, ps in enumerate(pairs_by_seed) for r, c in ps]


def tokenizers(dev: float, ratio: float) -> list[dict]:
    return [{"tokenizer": "a", "n": 1000, "char_price_max_dev": 0.0, "token_price_ratio": 2.0},
            {"tokenizer": "b", "n": 1000, "char_price_max_dev": dev, "token_price_ratio": ratio}]


def held_out(pairs_by_seed: list[list[tuple[float, float]]]) -> list[dict]:
    """One row per held-out output: (per-char revenue, per-token revenue)."""
    return [{"seed": s, "char_revenue": c, "token_revenue": t} for s, ps in enumerate(pairs_by_seed) for c, t in ps]


def strings(pairs: list[tuple[int, int]], complete: bool = True) -> list[dict]:
    """One row per string: (brute-force length, heuristic length)."""
    return [{"brute_len": b, "heuristic_len": h, "complete": complete} for b, h in pairs]


GOOD_OC = [[0.05, 0.08, 0.0, 0.06]] * 3
BAD_OC = [[0.0, 0.0, 0.01, 0.0]] * 3
GOOD_COST = [[(4.0, 1.0), (5.0, 1.2), (3.0, 0.9)]] * 3
BAD_COST = [[(0.5, 1.0), (0.4, 1.2), (0.6, 0.9)]] * 3
GOOD_REV = [[(100.0, 100.0), (101.0, 101.0), (99.0, 99.0)]] * 3
BAD_REV = [[(110.0, 100.0), (112.0, 101.0), (109.0, 99.0)]] * 3

PLANTED = {
    "plausible_overcharge": Planted(
        holds={"outputs": outputs(GOOD_OC)}, fails={"outputs": outputs(BAD_OC)},
        budget_variants=(({"outputs": outputs(GOOD_OC * 3)}, {"outputs": outputs(BAD_OC * 3)}),),
    ),
    "heuristic_profitable": Planted(
        holds={"costs": costs(GOOD_COST)}, fails={"costs": costs(BAD_COST)},
        budget_variants=(({"costs": costs(GOOD_COST * 4)}, {"costs": costs(BAD_COST * 4)}),),
    ),
    "char_pricing_ic": Planted(
        holds={"tokenizers": tokenizers(0.0, 1.5)}, fails={"tokenizers": tokenizers(1.0, 1.5)},
        budget_variants=(({"tokenizers": tokenizers(0.0, 1.01)}, {"tokenizers": tokenizers(0.0, 1.0)}),),
    ),
    "margin_preserving": Planted(
        holds={"held_out": held_out(GOOD_REV)}, fails={"held_out": held_out(BAD_REV)},
        budget_variants=(({"held_out": held_out(GOOD_REV * 3)}, {"held_out": held_out(BAD_REV * 3)}),),
    ),
    "brute_force_bound": Planted(
        holds={"strings": strings([(5, 4), (3, 3), (6, 2)])}, fails={"strings": strings([(5, 4), (3, 4), (6, 2)])},
        budget_variants=(({"strings": strings([(5, 4)] * 50)}, {"strings": strings([(5, 4)] * 49 + [(2, 3)])}),),
    ),
}
