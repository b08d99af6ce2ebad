"""Claim checks of [P19] (Incremental BPE Tokenization): exactness, flat per-byte time, speed over HF, eager delay.

Timings are ratios measured in the same run (best of ``reps`` process CPU time, single thread); the corpus is the running Python's
stdlib source (nothing outside the installed Python and packages is read).
"""

from __future__ import annotations

import functools
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from icml26.claims import Budget, Claim, ClaimResult, Context, Verdict
from icml26.figures import new_figure, render

from ._baselines import (
    hf_tokenizer,
    stdlib_corpus,
    tiktoken_encoding,
    tiktoken_reference,
)
from ._encoding import load_encoding

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("RAYON_NUM_THREADS", "1")

# Fuzz strings are random sequences of these units (several code points each where a script needs it): ZWJ emoji and
# skin tones, combining marks, Latin/Cyrillic/Greek/CJK/Hangul/Arabic/Devanagari/Thai words, upper-case and curly-
# apostrophe contractions, ASCII / full-width / Arabic-Indic / Devanagari digits, and whitespace incl. '\r\n' runs.
FUZZ_UNITS: tuple[str, ...] = (
    "a", "b", "X", "Hello", "HELLO", "hELLo", "'s", "'S", "'LL", "'re", "'Ve", "\u2019s", "\u2019RE", "\u2019ll", "it's",
    "DON'T", "e\u0301", "n\u0303", "\u0301", "a\u0308\u0323", "\u00e9", "\u00df", "\u0130", "\u01c5",
    "\u041f\u0440\u0438\u0432\u0435\u0442", "\u03b1\u03b2\u03b3", "\u4f60\u597d", "\u4e16\u754c", "\u3053\u3093\u306b\u3061\u306f",
    "\ud55c\uad6d\uc5b4", "\u0645\u0631\u062d\u0628\u0627", "\u0627\u0644\u0639\u0631\u0628\u064a\u0629",
    "\u0928\u092e\u0938\u094d\u0924\u0947", "\u0915\u094d\u0937", "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35",
    "0", "7", "123", "2026", "\uff11\uff12\uff13", "\uff21\uff22", "\u0661\u0662\u0663", "\u0966\u0967", "\u00bd",
    "\U0001f600", "\U0001f469\u200d\U0001f469\u200d\U0001f467", "\U0001f44d\U0001f3fd", "\U0001f1e9\U0001f1ea", "\u2764\ufe0f",
    " ", "  ", "\t", "\n", "\n\n", "\r", "\r\n", "\r\n\r\n", " \r\n ", "\u00a0", "\u3000", "\u200b",
    ".", ",", "-", "--", "/", "//", "!?", "\"", "(", ")", "{}", "<|", "\\", "_", "$", "@",
)


def _fuzz_text(rng: random.Random, max_units: int) -> str:
    return "".join(rng.choice(FUZZ_UNITS) for _ in range(rng.randint(0, max_units)))


def _best(fn: Callable[[], object], reps: int) -> float:
    """Best-of-``reps`` process CPU seconds of ``fn()``.

    CPU time, not wall time: on a shared machine (load 10 on 2 cores when this was written) a call longer than a
    scheduler slice is preempted and its wall time inflates several-fold, which biases exactly the large-n end of a
    per-byte comparison. Every implementation here runs single-threaded, so CPU time is its work.
    """
    best = float("inf")
    for _ in range(reps):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


# ---------------------------------------------------------------------------------------------- 1. exactness
@dataclass(frozen=True)
class ExactConfig:
    corpus_bytes: int = 2_000_000
    n_fuzz: int = 3000
    n_prefix_docs: int = 20
    names: tuple[str, ...] = ("cl100k_base", "o200k_base")


def _is_utf8(b: bytes) -> bool:
    """Whether a byte prefix is text. With pre-tokenization, BPE of a prefix that ends inside a character is not
    defined by the pattern (it matches characters): tiktoken's ``_encode_bytes`` appends the cut bytes to the last
    regex piece, ours treats them as the start of the next character (so the split does not change as the character
    completes). Such prefixes are checked against our own one-shot encoding; their difference from tiktoken's
    heuristic is reported, not counted."""
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def check_exact(cfg: ExactConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P19]: a drop-in replacement for standard BPE: encode == tiktoken; tokens() after every prefix == BPE.

    The oracle is tiktoken's own definition of each encoding, loaded offline (:func:`tiktoken_reference`): its rank
    parsing, pattern and specials, not ours (o200k's rank file comes from ``bpe-openai``; see that function).
    """
    text = stdlib_corpus(cfg.corpus_bytes)
    rows, mism = [], 0
    for name in cfg.names:
        enc, pure = load_encoding(name), load_encoding(name, pretokenize=False)
        tk, tk_pure = tiktoken_reference(name), tiktoken_reference(name, pretokenize=False)
        ours = enc.encode_ordinary(text)
        n_corpus = int(ours != tk.encode_ordinary(text))
        n_pure = int(pure.encode_ordinary(text[:100_000]) != tk_pure.encode_ordinary(text[:100_000]))
        rng = random.Random(ctx.seeds[0])
        n_fuzz = 0
        for _ in range(cfg.n_fuzz):
            s = _fuzz_text(rng, 24)
            n_fuzz += enc.encode_ordinary(s) != tk.encode_ordinary(s)
            n_fuzz += pure.encode_ordinary(s) != tk_pure.encode_ordinary(s)
        n_prefix = n_prefix_checked = n_midchar_diff = 0
        for _ in range(cfg.n_prefix_docs):
            s = _fuzz_text(rng, 16).encode()
            for e, ref in ((enc, tk), (pure, tk_pure)):
                inc = e.incremental()
                for i in range(len(s)):  # byte by byte: most prefixes end inside a multi-byte character
                    inc.feed(s[i : i + 1])
                    got, prefix = inc.tokens(), s[: i + 1]
                    n_prefix_checked += 1
                    if e is pure or _is_utf8(prefix):  # pure BPE of any bytes, or split text: tiktoken defines it
                        n_prefix += got != ref._encode_bytes(prefix)
                    else:  # split + a cut character: no standard exists (see _is_utf8); stream == our one-shot encode
                        n_prefix += got != e.encode_bytes(prefix)
                        n_midchar_diff += got != ref._encode_bytes(prefix)
        rows.append({"encoding": name, "corpus_bytes": len(text.encode()), "corpus_tokens": len(ours),
                     "corpus_mismatch": n_corpus, "pure_mismatch": n_pure, "fuzz_mismatch": n_fuzz,
                     "prefix_mismatch": n_prefix, "fuzz_strings": cfg.n_fuzz, "prefixes": n_prefix_checked,
                     "split_midchar_differs_from_tiktoken": n_midchar_diff})
        mism += n_corpus + n_pure + n_fuzz + n_prefix
    fig, ax = new_figure(width=5, height=3)
    ax.bar([r["encoding"] for r in rows], [r["corpus_tokens"] for r in rows], color="tab:blue")
    ax.set_ylabel("tokens on the corpus (identical to tiktoken)" if mism == 0 else "tokens (MISMATCH)")
    ok = mism == 0
    return ClaimResult(
        verdict=Verdict.HOLDS if ok else Verdict.FAILS,
        reason=f"{mism} mismatches vs tiktoken over corpus, pure-BPE, {cfg.n_fuzz} fuzz strings (with and without the split) and every byte prefix of "
        f"{cfg.n_prefix_docs} docs per encoding (bar: 0); oracle: tiktoken's own offline definitions (split prefixes "
        f"cut inside a character: our one-shot encode; {sum(r['split_midchar_differs_from_tiktoken'] for r in rows)} "
        "of those differ from tiktoken's heuristic for cut characters, not counted)",
        summary=f"mismatches = {mism} ({', '.join(cfg.names)}; {len(text.encode())} corpus bytes)",
        measured={
            "mismatches": mism, "corpus_bytes": len(text.encode()), "prefixes": sum(r["prefixes"] for r in rows),
            "split_midchar_differs_from_tiktoken": sum(r["split_midchar_differs_from_tiktoken"] for r in rows),
        },
        rows=rows,
        figures=[render(fig, name="exact_tokens", caption="Tokens on the stdlib corpus; all equal to tiktoken")],
    )


# ---------------------------------------------------------------------------------------------- 2. worst case
@dataclass(frozen=True)
class FlatConfig:
    sizes: tuple[int, ...] = (10_000, 100_000, 1_000_000)
    inputs: tuple[str, ...] = ("a", "-", " ", "letters", "cjk")
    reps: int = 3
    baselines: tuple[str, ...] = ("tiktoken", "hf")
    bar: float = 1.5
    decide: bool = True  # False at smoke: toy sizes and noisy timings decide nothing (and are not reproducible)


def _patho(kind: str, n: int, seed: int) -> str:
    if kind == "letters":
        rng = random.Random(seed)
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))
    if kind == "cjk":
        return "你" * (n // 3)
    return kind * n


def _hf_ids(tok: object) -> Callable[[str], object]:
    return lambda s: tok.encode(s).ids  # type: ignore[attr-defined]


def check_flat(cfg: FlatConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P19]: worst-case per-byte cost independent of n (O(n log^2 t) total) on pathological inputs."""
    enc = load_encoding("cl100k_base")
    impls: dict[str, dict[bool, Callable[[str], object]]] = {
        "inc_bpe": {p: load_encoding("cl100k_base", pretokenize=p).encode_ordinary for p in (True, False)}
    }
    if "tiktoken" in cfg.baselines:
        impls["tiktoken"] = {p: tiktoken_encoding(enc, pretokenize=p).encode_ordinary for p in (True, False)}
    if "hf" in cfg.baselines:
        impls["hf"] = {p: _hf_ids(hf_tokenizer(enc, pretokenize=p)) for p in (True, False)}
    rows, ratios = [], {}
    for kind in cfg.inputs:
        texts = {n: _patho(kind, n, ctx.seeds[0]) for n in cfg.sizes}
        for pre in (True, False):
            for impl, fns in impls.items():
                per_byte = {}
                for n, s in texts.items():
                    nb = len(s.encode())
                    per_byte[n] = _best(functools.partial(fns[pre], s), cfg.reps) / nb * 1e9
                    rows.append({"input": kind, "pretokenize": pre, "impl": impl, "n": nb, "ns_per_byte": per_byte[n]})
                ratios[(kind, pre, impl)] = per_byte[max(cfg.sizes)] / per_byte[min(cfg.sizes)]
    ours = {k: v for k, v in ratios.items() if k[2] == "inc_bpe"}
    worst_key = max(ours, key=ours.get)
    worst = ours[worst_key]
    base = {impl: max(v for k, v in ratios.items() if k[2] == impl) for impl in impls if impl != "inc_bpe"}
    fig, ax = new_figure()
    for kind, pre, impl in ratios:
        if pre:
            continue
        xs = [r["n"] for r in rows if r["input"] == kind and r["impl"] == impl and not r["pretokenize"]]
        ys = [r["ns_per_byte"] for r in rows if r["input"] == kind and r["impl"] == impl and not r["pretokenize"]]
        ax.loglog(xs, ys, marker="o", color={"inc_bpe": "tab:blue", "tiktoken": "tab:orange", "hf": "tab:green"}[impl],
                  alpha=0.7, label=f"{impl}" if kind == cfg.inputs[0] else None)
    ax.set_xlabel("input bytes (no pre-tokenization)")
    ax.set_ylabel("ns per byte")
    ax.legend()
    ok = worst <= cfg.bar
    base_txt = ", ".join(f"{k} max {v:.2f}" for k, v in base.items())
    fig_data = render(fig, name="per_byte_time", caption="ns/byte vs input size on pathological runs (cl100k)")
    if not cfg.decide:
        return ClaimResult(Verdict.INCONCLUSIVE, reason=f"smoke sizes {cfg.sizes}: timing not decided; "
                           f"per-byte growth inc_bpe {worst:.2f}, {base_txt}", summary="not decided at smoke",
                           measured={"sizes": list(cfg.sizes), "inputs": list(cfg.inputs)}, figures=[fig_data],
                           timings={"inc_bpe_max_ratio": worst, **{f"{k}_max_ratio": v for k, v in base.items()}},
                           notes=f"inc_bpe max ratio {worst:.2f}; {base_txt}")
    return ClaimResult(
        verdict=Verdict.HOLDS if ok else Verdict.FAILS,
        reason=f"inc_bpe per-byte time ratio n={max(cfg.sizes)} vs n={min(cfg.sizes)} is at most {worst:.2f} "
        f"(worst: {worst_key[0]!r}, pretokenize={worst_key[1]}; bar <= {cfg.bar}); baselines: {base_txt}",
        summary=f"max per-byte growth: inc_bpe {worst:.2f}; {base_txt}",
        measured={"sizes": list(cfg.sizes), "inputs": list(cfg.inputs), "bar": cfg.bar},
        timings={"inc_bpe_max_ratio": worst, **{f"{k}_max_ratio": v for k, v in base.items()},
                 "ratios": {f"{k[0]}|{'pre' if k[1] else 'pure'}|{k[2]}": v for k, v in ratios.items()}},
        rows=rows,
        figures=[fig_data],
        notes="Candidate search: the longest candidate first (O(1)), then a longest-first scan when the candidate tree "
        "has <= 8 nodes, else the paper's centroid search (O(log^2 t)); automaton transitions are nibble tiles.",
    )


# ---------------------------------------------------------------------------------------------- 3. speed vs HF
@dataclass(frozen=True)
class SpeedConfig:
    corpus_bytes: int = 2_000_000
    reps: int = 3
    bar: float = 3.0
    decide: bool = True  # False at smoke (see FlatConfig)


def check_speed(cfg: SpeedConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P19]: ~3x speed-up over HF tokenizers (same vocabulary, same splits) on ordinary text."""
    enc = load_encoding("cl100k_base")
    hf, tk = hf_tokenizer(enc), tiktoken_encoding(enc)
    text = stdlib_corpus(cfg.corpus_bytes)
    nb = len(text.encode())
    same = enc.encode_ordinary(text) == hf.encode(text).ids
    t = {
        "inc_bpe": _best(lambda: enc.encode_ordinary(text), cfg.reps),
        "hf": _best(lambda: hf.encode(text).ids, cfg.reps),
        "tiktoken": _best(lambda: tk.encode_ordinary(text), cfg.reps),
    }
    mbs = {k: nb / v / 1e6 for k, v in t.items()}
    speedup = t["hf"] / t["inc_bpe"]
    fig, ax = new_figure(width=5, height=3)
    ax.bar(list(mbs), list(mbs.values()), color=["tab:blue", "tab:green", "tab:orange"])
    ax.set_ylabel("MB/s (cl100k, stdlib code, 1 thread)")
    ok = same and speedup >= cfg.bar
    fig_data = render(fig, name="throughput", caption="Throughput on ordinary text, same run")
    if not cfg.decide:
        return ClaimResult(Verdict.INCONCLUSIVE, reason=f"smoke corpus of {nb} bytes: timing not decided; "
                           f"speed-up over HF {speedup:.2f}x; outputs identical: {same}", summary="not decided at smoke",
                           measured={"bytes": nb, "identical": same}, figures=[fig_data],
                           timings={"speedup_vs_hf": speedup, "mb_per_s": mbs},
                           notes=f"speed-up over HF {speedup:.2f}x, over tiktoken {t['tiktoken'] / t['inc_bpe']:.2f}x")
    return ClaimResult(
        verdict=Verdict.HOLDS if ok else Verdict.FAILS,
        reason=f"inc_bpe / HF throughput = {speedup:.2f}x on {nb} bytes (bar >= {cfg.bar}); outputs identical: {same}; "
        f"vs tiktoken {t['tiktoken'] / t['inc_bpe']:.2f}x",
        summary=f"speed-up over HF = {speedup:.2f}x; over tiktoken = {t['tiktoken'] / t['inc_bpe']:.2f}x",
        measured={"bytes": nb, "identical": same},
        timings={"speedup_vs_hf": speedup, "speedup_vs_tiktoken": t["tiktoken"] / t["inc_bpe"], "mb_per_s": mbs,
                 "cpu_s": t},
        figures=[fig_data],
        notes="Pre-tokenization is the native cl100k scanner (C++), BPE the incremental core; HF uses its own "
        "Oniguruma split with the equivalent non-possessive pattern.",
    )


# ---------------------------------------------------------------------------------------------- 4. eager delay
@dataclass(frozen=True)
class EagerConfig:
    corpus_bytes: int = 300_000
    # Bars fixed by us before the first run (neither the paper nor the issue gives a number): a delay bounded by a
    # small multiple of the longest token, max <= 4 t, and a mean well below one token length, <= t / 8
    # (t = 128 bytes, cl100k's longest token).
    max_bar: int = 512
    mean_bar: float = 16.0


def check_eager(cfg: EagerConfig, ctx: Context) -> ClaimResult:
    """Sec. (eager output) of [P19]: tokens are emitted as soon as their boundary is determined: bounded delay."""
    enc = load_encoding("cl100k_base", pretokenize=False)
    data = stdlib_corpus(cfg.corpus_bytes).encode()
    inc = enc.incremental()
    pend, out = [], []
    for i in range(len(data)):  # byte by byte: the delay is the number of fed bytes not yet covered by a token
        out += inc.feed(data[i : i + 1])
        pend.append(inc.pending_bytes)
    out += inc.finish()
    exact = out == enc.encode_bytes(data)
    mx, mean = max(pend), sum(pend) / len(pend)
    fig, ax = new_figure(width=6, height=3)
    ax.hist(pend, bins=range(mx + 2), color="tab:blue", log=True)
    ax.set_xlabel("pending bytes after each fed byte (cl100k, no pre-tokenization)")
    ok = exact and mx <= cfg.max_bar and mean <= cfg.mean_bar
    return ClaimResult(
        verdict=Verdict.HOLDS if ok else Verdict.FAILS,
        reason=f"pending bytes: max {mx} (bar <= {cfg.max_bar}), mean {mean:.2f} (bar <= {cfg.mean_bar}) over "
        f"{len(data)} bytes fed one at a time; stream output exact: {exact}",
        summary=f"pending bytes max {mx}, mean {mean:.2f}",
        measured={"max_pending": mx, "mean_pending": mean, "exact": exact, "bytes": len(data)},
        figures=[render(fig, name="pending_bytes", caption="Delay of the eager output")],
    )


CLAIMS = [
    Claim("exact_vs_tiktoken", check=check_exact, budgets={
        "smoke": Budget(ExactConfig(corpus_bytes=30_000, n_fuzz=150, n_prefix_docs=3, names=("cl100k_base",)),
                        expected_s=3),
        "small": Budget(ExactConfig(), expected_s=60),
        "full": Budget(ExactConfig(corpus_bytes=10_000_000, n_fuzz=30_000, n_prefix_docs=200), expected_s=600),
    }),
    Claim("flat_per_byte", check=check_flat, budgets={
        "smoke": Budget(FlatConfig(sizes=(2_000, 20_000), inputs=("-", " "), reps=2, baselines=("tiktoken",),
                                   decide=False),
                        expected_s=3),
        "small": Budget(FlatConfig(), expected_s=200),
    }),
    Claim("speed_vs_hf", check=check_speed, budgets={
        "smoke": Budget(SpeedConfig(corpus_bytes=20_000, reps=1, decide=False), expected_s=4),
        "small": Budget(SpeedConfig(), expected_s=60),
        "full": Budget(SpeedConfig(corpus_bytes=10_000_000, reps=5), expected_s=300),
    }),
    Claim("eager_delay", check=check_eager, budgets={
        "smoke": Budget(EagerConfig(corpus_bytes=20_000), expected_s=2),
        "small": Budget(EagerConfig(), expected_s=30),
        "full": Budget(EagerConfig(corpus_bytes=5_000_000), expected_s=300),
    }),
]
