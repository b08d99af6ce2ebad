"""What each [P13] claim measures: a provider's answers, the heuristic at every checked depth, the cost of its
forward passes, random re-tokenizations under both prices, the margin-preserving price on held-out answers, and
exhaustive search on short strings. Judged by :mod:`._rules`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.common.models import INSTALL_HINT, MissingExtraError
from icml26.figures import new_figure, render
from icml26.papers.token_pricing._pricing import margin_preserving_char_price, price
from icml26.papers.token_pricing._prompts import PROMPTS
from icml26.papers.token_pricing._rules import judge_bound, judge_ic, judge_margin, judge_overcharge, judge_profitable
from icml26.papers.token_pricing._runs import Provider, bound_rows, cost_rows, heuristic_rows, load_provider, outputs
from icml26.papers.token_pricing._tokenizations import random_tokenizations
from icml26.papers.token_pricing._vocab import Vocabulary, vocabulary

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.token_pricing.claims import (
        BoundConfig,
        ICConfig,
        MarginConfig,
        OverchargeConfig,
        ProfitConfig,
    )

PAPER_MAX = 0.112  # [P13] abstract: up to 11.2 % more tokens billed, plausibly
IC_NOTE = ("Per-character prices add up to the text's character count for every tokenization (the 'if' of the "
           "theorem is an identity), so the per-character bar checks that each re-tokenization spells the text; the "
           "incentive ('only if') shows in the per-token ratio and the affine counterexample.")


def _provider(name: str, ctx: Context) -> Provider | ClaimResult:
    try:
        return ctx.shared(load_provider, name)
    except MissingExtraError as exc:
        return ClaimResult(Verdict.UNSUPPORTED, f"{name} is not installed: {exc} ({INSTALL_HINT})")


def _heuristic(cfg: OverchargeConfig | ProfitConfig, ctx: Context, prov: Provider) -> list[dict[str, Any]]:
    return [r for s in ctx.seeds for r in ctx.shared(heuristic_rows, cfg.gen, cfg.depths, cfg.strategies, s, prov)]


def _per_output(rows: list[dict[str, Any]]) -> dict[tuple[int, int], dict[str, Any]]:
    """The provider's bill per output: the deepest plausible highest-id depth (else the truthful tokens)."""
    out: dict[tuple[int, int], dict[str, Any]] = {}
    for r in rows:
        key = (r["seed"], r["output"])
        o = out.setdefault(key, {**{k: r[k] for k in ("seed", "output", "language", "temperature", "top_p",
                                                         "length", "truthful_plausible")}, "extra": 0})
        if r["strategy"] == "highest_id" and r["plausible"]:
            o["extra"] = max(o["extra"], r["extra"])
    for o in out.values():
        o["plausible_any"] = o["extra"] > 0
        o["overcharge"] = o["extra"] / o["length"]
    return out


def _billed(row: dict[str, Any]) -> bool:
    """Whether the report of this row is longer than the truthful one and plausible."""
    return bool(row["plausible"]) and row["extra"] > 0


def _depth_figure(rows: list[dict[str, Any]], depths: tuple[int, ...], strategies: tuple[str, ...]) -> Any:
    fig, ax = new_figure()
    cells = sorted({(r["temperature"], r["top_p"]) for r in rows})
    for strategy in strategies:
        style = "-o" if strategy == "highest_id" else "--x"
        for t, p in cells:
            sel = [r for r in rows if r["strategy"] == strategy and (r["temperature"], r["top_p"]) == (t, p)]
            ax.plot(depths, [np.mean([_billed(r) for r in sel if r["depth"] == d]) for d in depths], style,
                    label=f"{strategy}, T={t}, p={p}")
    ax.set_xscale("log")
    ax.set_xlabel("splits m (depth)")
    ax.set_ylabel("share of answers billed longer (plausible)")
    ax.legend(fontsize=7)
    return render(fig, name="plausible_vs_depth", caption="Share of sampled answers whose misreported tokenization "
                  "after m splits is longer and passes the top-p check, per strategy and (T, p)")


def check_plausible_overcharge(cfg: OverchargeConfig, ctx: Context) -> ClaimResult:
    """[P13] abstract and §6: a provider can bill for longer tokenizations that pass the plausibility check."""
    prov = _provider(cfg.gen.model, ctx)
    if isinstance(prov, ClaimResult):
        return prov
    rows = _heuristic(cfg, ctx, prov)
    bills = list(_per_output(rows).values())
    judged = [o for o in bills if (o["temperature"], o["top_p"]) == cfg.cell]
    j = judge_overcharge(judged, bars=ctx.bars)
    cells = []
    for t, p in cfg.gen.settings:
        sel = [o for o in bills if (o["temperature"], o["top_p"]) == (t, p)]
        cells.append({"temperature": t, "top_p": p, "outputs": len(sel),
                      "plausible_share": float(np.mean([o["plausible_any"] for o in sel])) if sel else float("nan"),
                      "mean_overcharge": float(np.mean([o["overcharge"] for o in sel])) if sel else float("nan"),
                      "max_overcharge": max((o["overcharge"] for o in sel), default=float("nan"))})
    by_depth = {f"{s} m={d}": float(np.mean([_billed(r) for r in rows if r["strategy"] == s and r["depth"] == d]))
                for s in cfg.strategies for d in cfg.depths}
    c = next(x for x in cells if (x["temperature"], x["top_p"]) == cfg.cell)
    best = max(x["max_overcharge"] for x in cells)
    return ClaimResult.judged(
        j, summary=f"T={cfg.cell[0]}, p={cfg.cell[1]}: {c['plausible_share']:.0%} of answers billable longer, mean "
                   f"overcharge {c['mean_overcharge']:.1%} (max over answers {best:.1%}; paper: up to "
                   f"{PAPER_MAX:.1%})", rows=cells, measured={"cells": cells, "plausible_by_depth": by_depth},
        figures=[_depth_figure(rows, cfg.depths, cfg.strategies)],
        findings={"truthful outputs passing their own check": f"{np.mean([o['truthful_plausible'] for o in bills]):.1%}",
                  "plausible share by depth": ", ".join(f"{k}: {v:.2f}" for k, v in by_depth.items())})


def check_heuristic_profitable(cfg: ProfitConfig, ctx: Context) -> ClaimResult:
    """[P13] §6: running the heuristic costs the provider less than the extra tokens it bills."""
    prov = _provider(cfg.gen.model, ctx)
    if isinstance(prov, ClaimResult):
        return prov
    costs = []
    for s in ctx.seeds:
        heur = ctx.shared(heuristic_rows, cfg.gen, cfg.depths, cfg.strategies, s, prov)
        costs += cost_rows(cfg, s, prov, heur)
    j = judge_profitable(costs, bars=ctx.bars)
    rev = float(np.mean([r["revenue_tokens"] for r in costs]))
    cost = float(np.mean([r["cost_tokens"] for r in costs]))
    return ClaimResult.judged(
        j, summary=f"per answer: {rev:.2f} extra tokens billed vs checks costing {cost:.2f} generated tokens "
                   f"({len(cfg.depths)} forward passes)", rows=costs, measured={"mean_extra_tokens": rev},
        timings={"mean_cost_tokens": cost,
                 "decode_s_per_token": float(np.mean([r["decode_s_per_token"] for r in costs])),
                 "verify_s_per_answer": float(np.mean([r["verify_s"] for r in costs]))},
        notes="Cost is CPU wall-clock in units of the time to generate one token (the paper measures GPU energy); "
              "revenue counts each extra token at the cost of generating one (a zero-margin price).")


def _tokenizer(name: str) -> Any:
    if name == "tiny":
        from icml26.papers.token_pricing._tiny import docstring_corpus, train_bpe

        return train_bpe(docstring_corpus(), vocab_size=384)
    if name.startswith("tiktoken:"):
        import tiktoken

        return tiktoken.get_encoding(name.split(":", 1)[1])
    from icml26.common.models import tiny_causal_lm

    return tiny_causal_lm(seed=0, tokenizer=name)[1]


def _encode(tok: Any, text: str) -> list[int]:
    if hasattr(tok, "encode_ordinary"):
        return list(tok.encode_ordinary(text))
    return list(tok(text, add_special_tokens=False)["input_ids"])


def _ic_row(name: str, vocab: Vocabulary, texts: Sequence[tuple[str, list[int]]], cfg: ICConfig) -> dict[str, Any]:
    per = -(-cfg.retokenizations // len(texts))
    devs, ratios, affine = [], [], []
    for k, (text, canon) in enumerate(texts):
        c_char = price(canon, tokenizer=vocab, scheme="per_char")
        c_tok = price(canon, tokenizer=vocab, scheme="per_token")
        c_aff = len(canon) + c_char
        for alt in random_tokenizations(text, vocab, n=per, seed=cfg.seed + k):
            pc = price(alt, tokenizer=vocab, scheme="per_char")
            devs.append(abs(pc - c_char))
            ratios.append(price(alt, tokenizer=vocab, scheme="per_token") / c_tok)
            affine.append(abs(len(alt) + pc - c_aff))
    return {"tokenizer": name, "n": len(devs), "char_price_max_dev": float(max(devs)),
            "token_price_ratio": float(np.mean(ratios)), "token_price_min_ratio": float(min(ratios)),
            "affine_price_max_dev": float(max(affine)),
            "chars_per_token": float(np.mean([len(t) / len(c) for t, c in texts]))}


def check_char_pricing_ic(cfg: ICConfig, ctx: Context) -> ClaimResult:
    """[P13] §5 theorem: an additive price is incentive compatible iff linear in each token's character count."""
    from icml26.papers.token_pricing._tiny import docstring_corpus

    texts_raw = [p for lang in PROMPTS for p in PROMPTS[lang]] + docstring_corpus()[:cfg.docstrings]
    rows, skipped = [], []
    for name in cfg.tokenizers:
        try:
            tok = _tokenizer(name)
        except (MissingExtraError, ImportError, ValueError) as exc:
            skipped.append(f"{name}: {exc}")
            continue
        vocab = vocabulary(tok)
        texts = [(t, _encode(tok, t)) for t in texts_raw]
        rows.append(_ic_row(name, vocab, [(t, c) for t, c in texts if vocab.text_of(c) == t.encode()], cfg))
    j = judge_ic(rows, bars=ctx.bars)
    summ = "; ".join(f"{r['tokenizer']}: per-char max dev {r['char_price_max_dev']:g}, per-token x"
                     f"{r['token_price_ratio']:.2f}" for r in rows)
    return ClaimResult.judged(j, summary=summ or "no tokenizer available", rows=rows,
                              findings={"an affine (per-token + per-char) price is not invariant":
                                        ", ".join(f"{r['tokenizer']}: max dev {r['affine_price_max_dev']:g}"
                                                  for r in rows)},
                              notes="; ".join([IC_NOTE] + [f"skipped {s}" for s in skipped]))


def check_margin_preserving(cfg: MarginConfig, ctx: Context) -> ClaimResult:
    """[P13] §5: r_c = r_t E[#tokens]/E[#chars] keeps the provider's average revenue."""
    prov = _provider(cfg.gen.model, ctx)
    if isinstance(prov, ClaimResult):
        return prov
    vocab = prov[2]
    held, prices = [], {}
    for s in ctx.seeds:
        outs = outputs(cfg.gen, s, prov)
        for lang in cfg.gen.languages:
            mine = [o for o in outs if o["language"] == lang]
            cal = [o for o in mine if o["prompt_index"] < cfg.calibration_prompts]
            if not cal:
                continue
            rc = margin_preserving_char_price([len(o["tokens"]) for o in cal],
                                              [int(vocab.chars[o["tokens"]].sum()) for o in cal], token_price=1.0)
            prices[f"{lang} seed {s}"] = rc
            held += [{"seed": s, "language": lang, "token_revenue": float(len(o["tokens"])),
                      "char_revenue": price(o["tokens"], tokenizer=vocab, scheme="per_char", rate=rc)}
                     for o in mine if o["prompt_index"] >= cfg.calibration_prompts]
    j = judge_margin(held, bars=ctx.bars)
    tot_c, tot_t = sum(r["char_revenue"] for r in held), sum(r["token_revenue"] for r in held)
    return ClaimResult.judged(j, summary=f"held-out revenue per-char / per-token = "
                              f"{tot_c / tot_t if tot_t else float('nan'):.3f} over {len(held)} answers",
                              rows=held, measured={"char_price_per_token_price": prices})


def check_brute_force_bound(cfg: BoundConfig, ctx: Context) -> ClaimResult:
    """[P13] §4: the heuristic is a lower bound on the longest plausible tokenization (exact on short strings)."""
    prov = _provider(cfg.gen.model, ctx)
    if isinstance(prov, ClaimResult):
        return prov
    rows = [r for s in ctx.seeds for r in bound_rows(cfg, s, prov)]
    j = judge_bound(rows, bars=ctx.bars)
    gap = [r["brute_len"] - r["heuristic_len"] for r in rows if r["complete"]]
    return ClaimResult.judged(
        j, summary=f"{len(rows)} strings <= {cfg.max_chars} chars: optimum - heuristic = "
                   f"{np.mean(gap) if gap else float('nan'):.2f} tokens on average "
                   f"({sum(not r['complete'] for r in rows)} searches stopped at width {cfg.max_width})",
        rows=rows, findings={"strings where the heuristic is optimal": f"{sum(g == 0 for g in gap)} of {len(gap)}"})
