"""Planted rows on both sides of each [P30] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def mqar_rows(full: int, uni: int, *, base: int | None = None, seeds: int = 3, sequences: int = 4,
              density: float = 0.25, queries: int = 32) -> list[dict]:
    """Every (seed, sequence) with ``full`` / ``uni`` / ``base`` correct answers of ``queries``."""
    counts = {"full": full, "unisparse": uni} | ({} if base is None else {"xattention": base})
    return [{"seed": s, "sequence": i, "method": m, "correct": c, "queries": queries,
             "density": 1.0 if m == "full" else density}
            for s in range(seeds) for i in range(sequences) for m, c in counts.items()]


def ppl_rows(delta: float, n: int = 3) -> list[dict]:
    return [{"seed": s, "nll_full": 2.5 + 0.1 * s, "nll_sparse": 2.5 + 0.1 * s + delta * (1 + 0.1 * s),
             "density": 0.3} for s in range(n)]


def recall_rows(uni: float, base: float, n: int = 3, targets=(0.3, 0.4)) -> list[dict]:
    return [{"seed": s, "method": m, "density_target": t, "recall": v + 0.01 * s}
            for s in range(n) for t in targets for m, v in (("unisparse", uni), ("xattention", base))]


def exact_rows(err: float, share: float = 1.0) -> list[dict]:
    return [{"case": f"c{i}", "full_share": share, "rel_error": err * (1 + i)} for i in range(3)]


def speed(full: float, uni: float, rounds: int = 5) -> dict:
    return {"times": {"32768": {"full": [full * (1 + 0.01 * r) for r in range(rounds)],
                                "unisparse": [uni] * rounds}}}


PLANTED = {
    "mqar_accuracy": Planted(
        holds={"rows": mqar_rows(30, 30)}, fails={"rows": mqar_rows(30, 20)},
        budget_variants=(({"rows": mqar_rows(30, 30, seeds=5, sequences=16)},
                          {"rows": mqar_rows(30, 20, seeds=5, sequences=16)}),)),
    "beats_baselines": Planted(
        holds={"rows": mqar_rows(30, 28, base=20)}, fails={"rows": mqar_rows(30, 20, base=28)},
        budget_variants=(({"rows": mqar_rows(30, 28, base=20, seeds=5)}, {"rows": mqar_rows(30, 20, base=28, seeds=5)}),)),
    "lm_perplexity": Planted(holds={"rows": ppl_rows(0.001)}, fails={"rows": ppl_rows(0.1)},
                             budget_variants=(({"rows": ppl_rows(0.001, 10)}, {"rows": ppl_rows(0.1, 10)}),)),
    "mass_recall": Planted(holds={"rows": recall_rows(0.9, 0.8)}, fails={"rows": recall_rows(0.7, 0.9)},
                           budget_variants=(({"rows": recall_rows(0.9, 0.8, 10)}, {"rows": recall_rows(0.7, 0.9, 10)}),)),
    "tau_one_exact": Planted(holds={"rows": exact_rows(1e-7)}, fails={"rows": exact_rows(1e-2)}),
    "gpu_speedup": Planted(holds=speed(3.0, 1.0), fails=speed(1.5, 1.0),
                           budget_variants=((speed(3.0, 1.0, 10), speed(1.5, 1.0, 10)),)),
}
