"""Planted rows on both sides of each [P06] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted

CONTROLS = ("no norm patch", "only w_in")


def equiv_rows(diff64: float = 1e-14, diff32: float = 1e-6, effect: float = 2.0, n: int = 3) -> list[dict]:
    return [{"model": "gemma/L1/random", "diff64": diff64, "diff32": diff32, "effect": effect} for _ in range(n)]


def gen_rows(agree: float = 1.0, alone: float = 0.1, distinct: int = 12, n: int = 3) -> list[dict]:
    return [{"agree": agree, "agree_alone": alone, "distinct": distinct} for _ in range(n)]


def control_rows(full: float = 1e-14, rel: float = 0.4, n: int = 3) -> list[dict]:
    rows = [{"variant": "full patch", "diff": full, "rel": full / 2.0} for _ in range(n)]
    return rows + [{"variant": v, "diff": 2.0 * rel, "rel": rel} for v in CONTROLS for _ in range(n)]


def real_rows(gap: float = 1e-15, agree: float = 1.0, control: float = 0.4, effect: float = 0.3, n: int = 20) -> list[dict]:
    rows = [{"pair": k, "rel_gap": gap, "effect": effect, "control": control} for k in range(n)]
    for r in rows[:3]:
        r["agree"] = agree
    return rows


_equiv = Planted(
    holds={"rows": equiv_rows()},
    fails={"rows": equiv_rows(diff64=1e-6)},
    budget_variants=(({"rows": equiv_rows(n=90)}, {"rows": equiv_rows(diff32=1e-3, n=90)}),),
)

PLANTED = {
    "gemma_equivalence": _equiv,
    "general_equivalence": _equiv,
    "patched_generation": Planted(
        holds={"rows": gen_rows()},
        fails={"rows": gen_rows(agree=0.95)},
        budget_variants=(({"rows": gen_rows(n=21)}, {"rows": gen_rows(agree=0.95, n=21)}),),
    ),
    "negative_controls": Planted(
        holds={"rows": control_rows()},
        fails={"rows": control_rows(rel=1e-3)},  # a partial patch that reproduces the logits: the part is not needed
        budget_variants=(({"rows": control_rows(n=9)}, {"rows": control_rows(full=1e-6, n=9)}),),
    ),
    "llama_equivalence": Planted(
        holds={"rows": real_rows()},
        fails={"rows": real_rows(control=1e-6)},  # another context's patches reproduce the logits: not context-specific
        budget_variants=(({"rows": real_rows(n=2)}, {"rows": real_rows(gap=1e-6, n=2)}),
                         ({"rows": real_rows(n=2)}, {"rows": real_rows(agree=0.75, n=2)})),
    ),
}
