"""Planted measurements on both sides of each [P19] bar (used by test_rules.py and the conformance test)."""

from support.planted import Planted


def exact_rows(mismatches: int = 0, names: tuple[str, ...] = ("cl100k_base", "o200k_base")) -> list[dict]:
    """One row per encoding; ``mismatches`` fuzz mismatches in the first."""
    return [{"encoding": n, "corpus_mismatch": 0, "pure_mismatch": 0, "fuzz_mismatch": mismatches if i == 0 else 0,
             "prefix_mismatch": 0, "prefixes": 1166} for i, n in enumerate(names)]


def flat_rows(ours: dict[str, float], base: float = 4.0, sizes=(10_000, 100_000, 1_000_000)) -> list[dict]:
    """Per-byte times growing from 10 ns by ``ours[input]`` (inc_bpe) and ``base`` (tiktoken) across ``sizes``."""
    rows = []
    for kind, growth in ours.items():
        for pre in (True, False):
            for impl, g in (("inc_bpe", growth), ("tiktoken", base)):
                for i, n in enumerate(sizes):
                    for rep, jitter in enumerate(JITTER):
                        rows.append({"input": kind, "pretokenize": pre, "impl": impl, "n": n, "rep": rep,
                                     "ns_per_byte": 10.0 * g ** (i / (len(sizes) - 1)) * jitter})
    return rows


JITTER = (0.99, 1.0, 1.01, 1.0, 1.005)  # five repeated timings per size, within 1 %


SAME = {"words": True, "pure": True, "pipeline": True}


def speed(words: float = 25.9, pure: float = 38.2, pipeline: float = 36.4, differ: tuple[str, ...] = ()) -> dict:
    """Speed-ups over HF per comparison; the comparisons in ``differ`` gave other tokens than HF."""
    return {"speedups": {"words": words, "pure": pure, "pipeline": pipeline},
            "identical": {k: k not in differ for k in SAME}}


PLANTED = {
    "exact_vs_tiktoken": Planted(holds={"rows": exact_rows(0)}, fails={"rows": exact_rows(1)},
                                 budget_variants=(({"rows": exact_rows(0, ("cl100k_base",))},
                                                   {"rows": exact_rows(3, ("cl100k_base",))}),)),
    "flat_per_byte": Planted(
        holds={"rows": flat_rows({"a": 1.03, "letters": 1.41})},
        fails={"rows": flat_rows({"a": 1.03, "letters": 2.2})},
        budget_variants=(({"rows": flat_rows({"a": 1.03}, sizes=(10_000, 10_000_000))},
                          {"rows": flat_rows({"a": 1.9}, sizes=(10_000, 10_000_000))}),),
    ),
    "speed_vs_hf": Planted(holds=speed(), fails=speed(words=2.9)),
    "eager_delay": Planted(holds={"max_pending": 56, "mean_pending": 5.41, "exact": True},
                           fails={"max_pending": 600, "mean_pending": 5.41, "exact": True}),
}
