"""Planted per-seed arm rows on both sides of each [P17] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def rows(resolve: dict[str, list[float]], completion: dict[str, list[float]] | None = None) -> list[dict]:
    """One row per (seed, arm): ``resolve[arm][seed]`` and ``completion[arm][seed]`` (0.5 where not given)."""
    completion = completion or {}
    return [{"seed": s, "arm": a, "resolve": v, "completion": completion.get(a, [0.5] * len(vs))[s]}
            for a, vs in resolve.items() for s, v in enumerate(vs)]


def _ordered(n: int, up: bool) -> dict[str, list[float]]:
    base = [0.20 + 0.01 * (i % 3) for i in range(n)]
    step = 0.1 if up else -0.1
    return {"static": base, "ctx": [b + step for b in base], "ctx_env": [b + 2 * step + 0.3 for b in base]}


def _half(n: int, good: bool) -> dict[str, list[float]]:
    base = [0.40 + 0.01 * (i % 3) for i in range(n)]
    return {"static": base, "ctx_env_half": [b + (0.05 if good else -0.25) for b in base]}


def _code(n: int, gain: bool) -> tuple[dict, dict]:
    res = {"ctx_env": [0.3] * n, "none": [0.1] * n}
    base = [0.30 + 0.02 * (i % 3) for i in range(n)]
    return res, {"none": base, "ctx_env": [b + (0.2 if gain else -0.2) for b in base]}


PLANTED = {
    "half_budget_beats_static": Planted(
        holds={"rows": rows(_half(3, True))}, fails={"rows": rows(_half(3, False))},
        budget_variants=(({"rows": rows(_half(8, True))}, {"rows": rows(_half(8, False))}),),
    ),
    "native_ordering": Planted(
        holds={"rows": rows(_ordered(3, True))}, fails={"rows": rows(_ordered(3, False))},
        budget_variants=(({"rows": rows(_ordered(8, True))}, {"rows": rows(_ordered(8, False))}),),
    ),
    "general_code": Planted(
        holds={"rows": rows(*_code(3, True))}, fails={"rows": rows(*_code(3, False))},
        budget_variants=(({"rows": rows(*_code(8, True))}, {"rows": rows(*_code(8, False))}),),
    ),
}
