"""Planted episode rows on both sides of each [P38] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def episodes(agent: str, p_fuzzy: float, p_explicit: float, *, seeds: int = 3, pairs: int = 8) -> list[dict]:
    """Rows of ``agent`` on ``seeds`` x ``pairs`` twin pairs: the first round(p * pairs) pairs of each seed succeed."""
    rows = []
    for s in range(seeds):
        for k in range(pairs):
            for variant, p in (("fuzzy", p_fuzzy), ("explicit", p_explicit)):
                ok = int(k < round(p * pairs))
                rows.append({"seed": s, "agent": agent, "pair": f"s{s}-{k:03d}", "app": "forum", "variant": variant,
                             "reference": "mine_latest" if variant == "fuzzy" else "explicit",
                             "transport": "inprocess", "success": ok, "calls": 3, "valid_calls": 3 if ok else 1,
                             "turns": 4, "error_results": 0 if ok else 2, "exceptions": 0})
    return rows


def probes(*, clean: bool = True, exceptions: int = 0) -> list[dict]:
    return [{"seed": 0, "agent": "oracle", "pair": f"probe-{a}", "app": a, "variant": "probe", "reference": "probe",
             "transport": "inprocess", "success": int(clean), "calls": 4, "valid_calls": 0, "turns": 5,
             "error_results": 4 - exceptions, "exceptions": exceptions} for a in ("chat", "forum", "notes", "mail")]


def gap(agent: str, fz: float, ex: float, **kw) -> dict:
    return {"rows": episodes("oracle", 1.0, 1.0, **kw) + episodes(agent, fz, ex, **kw), "agent": agent}


PLANTED = {
    "harness_oracle": Planted(
        holds={"rows": episodes("oracle", 1.0, 1.0) + probes()},
        fails={"rows": episodes("oracle", 1.0, 1.0) + probes(exceptions=1)},
        budget_variants=((
            {"rows": episodes("oracle", 1.0, 1.0, seeds=10, pairs=24) + probes()},
            {"rows": episodes("oracle", 0.9, 1.0, seeds=10, pairs=24) + probes()}),),
    ),
    "blind_gap": Planted(
        holds=gap("blind", 0.125, 1.0),
        fails=gap("blind", 0.75, 0.75),
        budget_variants=((gap("blind", 0.125, 1.0, seeds=5, pairs=24), gap("blind", 0.75, 0.75, seeds=5, pairs=24)),),
    ),
    "llm_gap": Planted(
        holds=gap("llm", 0.0, 0.5),
        fails=gap("llm", 0.5, 0.5),
        budget_variants=((gap("llm", 0.0, 0.5, seeds=5, pairs=12), gap("llm", 0.5, 0.5, seeds=5, pairs=12)),),
    ),
}
