"""Claim checks of [P19] (Incremental BPE Tokenization): exactness, flat per-byte time, speed over HF, eager delay.

Timings are ratios measured in the same run (best of ``reps`` process CPU time, single thread); the corpus is the running Python's
stdlib source (nothing outside the installed Python and packages is read).
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
import time
from collections.abc import Callable, Iterator
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

# HF tokenizers single-threaded while a timing check runs (set in the checks, not at import; see _one_thread)
_ONE_THREAD = {"TOKENIZERS_PARALLELISM": "false", "RAYON_NUM_THREADS": "1"}


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """Set :data:`_ONE_THREAD` where the caller has not set them, and restore the environment afterwards."""
    saved = {k: os.environ.get(k) for k in _ONE_THREAD}
    for k, v in _ONE_THREAD.items():
        os.environ.setdefault(k, v)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _single_threaded(check: Callable[..., ClaimResult]) -> Callable[..., ClaimResult]:
    """Run a timing check under :func:`_one_thread`."""

    @functools.wraps(check)
    def run(*args: object, **kwargs: object) -> ClaimResult:
        with _one_thread():
            return check(*args, **kwargs)

    return run

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


@_single_threaded
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


# The paper's ~3x (notes: the HF integration keeps HF's normalizer and pre-tokenizer and swaps the BPE Model) is a
# BPE-vs-BPE number. "pipeline" (our native split + core vs HF's Oniguruma split + BPE) also times the splitters, so
# the verdict needs the two BPE-only comparisons as well: "words" (the same pre-tokenized words on both sides, HF
# with is_pretokenized=True) and "pure" (no pre-tokenization on either side, the whole text as one string).
SPEED_COMPARISONS = ("words", "pure", "pipeline")


def speed_verdict(speedups: dict[str, float], identical: bool, bar: float, *, decide: bool = True) -> Verdict:
    """Rule fixed before the run: holds iff outputs are identical and every comparison in :data:`SPEED_COMPARISONS`
    is at least ``bar`` times faster than HF; fails otherwise; inconclusive when timings are not decided (smoke)."""
    if not decide:
        return Verdict.INCONCLUSIVE
    ok = identical and all(speedups[k] >= bar for k in SPEED_COMPARISONS)
    return Verdict.HOLDS if ok else Verdict.FAILS


@_single_threaded
def check_speed(cfg: SpeedConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P19]: ~3x speed-up over HF tokenizers as a drop-in BPE (same vocabulary, same splits)."""
    enc, pure = load_encoding("cl100k_base"), load_encoding("cl100k_base", pretokenize=False)
    hf, hf_pure, tk = hf_tokenizer(enc), hf_tokenizer(enc, pretokenize=False), tiktoken_encoding(enc)
    text = stdlib_corpus(cfg.corpus_bytes)
    nb = len(text.encode())
    words = [text[a:b] for a, b in enc._spans(text)]  # our split; HF's pattern splits this corpus the same way
    ours = enc.encode_ordinary(text)
    same = {
        "pipeline": ours == hf.encode(text).ids,
        "words": enc._core.encode_pieces(words) == ours == hf_pure.encode(words, is_pretokenized=True).ids,
        "pure": pure.encode_ordinary(text) == hf_pure.encode(text).ids,
    }
    identical = all(same.values())
    t = {
        "pipeline": _best(lambda: enc.encode_ordinary(text), cfg.reps),
        "hf_pipeline": _best(lambda: hf.encode(text).ids, cfg.reps),
        "words": _best(lambda: enc._core.encode_pieces(words), cfg.reps),
        "hf_words": _best(lambda: hf_pure.encode(words, is_pretokenized=True).ids, cfg.reps),
        "pure": _best(lambda: pure.encode_ordinary(text), cfg.reps),
        "hf_pure": _best(lambda: hf_pure.encode(text).ids, cfg.reps),
        "tiktoken": _best(lambda: tk.encode_ordinary(text), cfg.reps),
    }
    mbs = {k: nb / v / 1e6 for k, v in t.items()}
    speedups = {k: t[f"hf_{k}"] / t[k] for k in SPEED_COMPARISONS}
    vs_tk = t["tiktoken"] / t["pipeline"]
    verdict = speed_verdict(speedups, identical, cfg.bar, decide=cfg.decide)
    fig, ax = new_figure(width=6, height=3)
    x = range(len(SPEED_COMPARISONS))
    ax.bar([i - 0.2 for i in x], [mbs[k] for k in SPEED_COMPARISONS], width=0.4, color="tab:blue", label="inc_bpe")
    ax.bar([i + 0.2 for i in x], [mbs[f"hf_{k}"] for k in SPEED_COMPARISONS], width=0.4, color="tab:green", label="HF")
    ax.set_xticks(list(x), [f"{k}\n{speedups[k]:.1f}x" for k in SPEED_COMPARISONS])
    ax.set_ylabel("MB/s (cl100k, stdlib code, 1 thread)")
    ax.legend()
    fig_data = render(fig, name="throughput", caption="Throughput over HF: same words, pure BPE, whole pipeline; one run")
    ratios = ", ".join(f"{k} {speedups[k]:.2f}x" for k in SPEED_COMPARISONS)
    timings = {"speedup_vs_hf": speedups, "speedup_vs_tiktoken": vs_tk, "mb_per_s": mbs, "cpu_s": t}
    measured = {"bytes": nb, "words": len(words), "identical": same}
    if not cfg.decide:
        return ClaimResult(verdict, reason=f"smoke corpus of {nb} bytes: timing not decided; speed-ups over HF: "
                           f"{ratios}; outputs identical: {identical}", summary="not decided at smoke",
                           measured=measured, figures=[fig_data], timings=timings,
                           notes=f"speed-ups over HF: {ratios}; over tiktoken {vs_tk:.2f}x")
    return ClaimResult(
        verdict=verdict,
        reason=f"inc_bpe / HF throughput on {nb} bytes: {ratios} (bar >= {cfg.bar} on each; the paper's number is "
        f"BPE-vs-BPE with the split shared, i.e. 'words'); outputs identical: {identical}; pipeline vs tiktoken "
        f"{vs_tk:.2f}x",
        summary=f"speed-up over HF: {ratios}; pipeline over tiktoken = {vs_tk:.2f}x",
        measured=measured,
        timings=timings,
        figures=[fig_data],
        notes="words: both sides BPE the same pre-tokenized words (HF: is_pretokenized=True, byte-level mapping only, "
        "its word cache on); pure: no pre-tokenization on either side; pipeline: our native cl100k scanner + core vs "
        "HF's Oniguruma split (equivalent non-possessive pattern) + BPE.",
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
