"""What the [P13] claims measure on a provider (a causal LM and its tokenizer): sampled answers to the shipped
prompts, the heuristic's candidate reports at each checked depth with their plausibility, and the wall-clock of the
forward passes the heuristic costs. Generations are cached under the cache folder, keyed by the config and the seed.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.common.cache import cache_root, materialise
from icml26.papers.token_pricing._plausible import PrefixVerifier, forward, model_device
from icml26.papers.token_pricing._prompts import PROMPTS, SYSTEM
from icml26.papers.token_pricing._sampling import chat_prompt, sample_outputs
from icml26.papers.token_pricing._tokenizations import misreport
from icml26.papers.token_pricing._vocab import Vocabulary, vocabulary

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.token_pricing.claims import BoundConfig, GenConfig, ProfitConfig

Provider = tuple[Any, Any, Vocabulary]

CACHE_VERSION = 1


def load_provider(name: str) -> Provider:
    """``(model, tokenizer, vocabulary)``: ``"tiny"`` (a random Llama over a BPE trained here, for smoke) or a
    model of :func:`icml26.common.models.load_causal_lm` (raises ``MissingExtraError`` without the extra)."""
    if name == "tiny":
        from icml26.papers.token_pricing._tiny import tiny_bpe_lm

        model, tok = tiny_bpe_lm(seed=0)
    else:
        from icml26.common.models import load_causal_lm

        model, tok = load_causal_lm(name)
    return model, tok, vocabulary(tok)


def _generate(cfg: GenConfig, seed: int, provider: Provider) -> list[dict[str, Any]]:
    model, tok, vocab = provider
    meta, prompts = [], []
    for lang in cfg.languages:
        for k, user in enumerate(PROMPTS[lang][:cfg.prompts_per_language]):
            ids = chat_prompt(tok, user, SYSTEM[lang])
            for t, p in cfg.settings:
                meta.append({"language": lang, "prompt_index": k, "temperature": t, "top_p": p, "prompt": ids})
                prompts.append(ids)
    stop = sorted(set(getattr(tok, "all_special_ids", [])) | vocab.special)
    outs = sample_outputs(model, prompts, temperatures=[m["temperature"] for m in meta],
                          top_ps=[m["top_p"] for m in meta], max_new_tokens=cfg.max_new_tokens, stop_ids=stop,
                          seed=seed, batch=cfg.batch)
    return [{**m, "tokens": o} for m, o in zip(meta, outs, strict=True) if len(o) >= 2]


def outputs(cfg: GenConfig, seed: int, provider: Provider) -> list[dict[str, Any]]:
    """Sampled answers of ``cfg.model`` to the first ``cfg.prompts_per_language`` prompts of each language at every
    (T, p) of ``cfg.settings`` ([P13] §6), one generator seeded with ``seed``; cached when there is a cache folder."""
    key = {"config": dataclasses.asdict(cfg), "seed": seed}
    return _cached("outputs", key, functools.partial(_generate, cfg, seed, provider))


def _cached(name: str, key: dict[str, Any], make: Any) -> Any:
    """``make()`` (JSON-able), kept in ``<cache>/token_pricing/<name>-<digest of key>/`` when there is a cache."""
    root = cache_root(None)
    if root is None:
        return make()
    import torch
    import transformers

    key = {**key, "torch": torch.__version__, "transformers": transformers.__version__, "version": CACHE_VERSION}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    folder = materialise(root / "token_pricing" / f"{name}-{digest}", key=key,
                         build=functools.partial(_dump, make))
    return json.loads((folder / "data.json").read_text(encoding="utf-8"))


def _dump(make: Any, folder: Path) -> None:
    (folder / "data.json").write_text(json.dumps(make()), encoding="utf-8")


def heuristic_rows(cfg: GenConfig, depths: tuple[int, ...], strategies: tuple[str, ...], seed: int,
                   provider: Provider) -> list[dict[str, Any]]:
    """One row per (output, strategy, depth): the candidate's extra tokens and whether it is plausible at the
    output's own (T, p) ([P13] §4, Alg. 1 at every checked depth; checked with :class:`PrefixVerifier`); cached."""
    key = {"config": dataclasses.asdict(cfg), "depths": list(depths), "strategies": list(strategies), "seed": seed}
    return _cached("heuristic", key, functools.partial(_heuristic_rows, cfg, depths, strategies, seed, provider))


def _heuristic_rows(cfg: GenConfig, depths: tuple[int, ...], strategies: tuple[str, ...], seed: int,
                    provider: Provider) -> list[dict[str, Any]]:
    model, _, vocab = provider
    rows = []
    for i, out in enumerate(outputs(cfg, seed, provider)):
        truthful = [int(t) for t in out["tokens"]]
        ver = PrefixVerifier(model, out["prompt"], truthful, temperature=out["temperature"], top_p=out["top_p"],
                             chunk=32)
        base = {"seed": seed, "output": i, "language": out["language"], "prompt_index": out["prompt_index"],
                "temperature": out["temperature"], "top_p": out["top_p"], "length": len(truthful),
                "chars": int(vocab.chars[truthful].sum()), "truthful_plausible": bool(ver.mask.all())}
        for strategy in strategies:
            for d in depths:
                cand = misreport(truthful, vocab, depth=d, strategy=strategy, seed=seed * 1000 + i)
                rows.append({**base, "strategy": strategy, "depth": d, "extra": len(cand) - len(truthful),
                             "plausible": ver.check(cand)})
    return rows


def _decode_seconds(model: Any, prompt: list[int], tokens: list[int], steps: int) -> tuple[float, int]:
    """Seconds per token of incremental decoding (one token per forward pass, KV cache), over ``steps`` tokens."""
    import torch

    dev = model_device(model)
    _, cache = forward(model, torch.tensor([prompt], device=dev), keep_cache=True)
    n = min(steps, len(tokens))
    start = time.perf_counter()
    for t in tokens[:n]:
        _, cache = forward(model, torch.tensor([[t]], device=dev), cache)
    return (time.perf_counter() - start) / n, n


def cost_rows(cfg: ProfitConfig, seed: int, provider: Provider, heur: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For ``cfg.timed_outputs`` outputs drawn without replacement (a generator seeded with ``seed``, so every
    language and (T, p) setting can be drawn): the wall-clock of the heuristic's checks (one full forward pass over
    prompt + candidate per checked depth, as in the authors' code) against what it earns (the extra tokens of the
    deepest plausible depth, each worth the time of generating one token) ([P13] §6, cost vs revenue)."""
    import torch

    model, _, vocab = provider
    outs = outputs(cfg.gen, seed, provider)
    picks = np.random.default_rng(seed).choice(len(outs), size=min(cfg.timed_outputs, len(outs)), replace=False)
    rows = []
    for i in sorted(int(k) for k in picks):
        out = outs[i]
        truthful = [int(t) for t in out["tokens"]]
        mine = [r for r in heur if r["output"] == i and r["strategy"] == "highest_id"]
        extra = max([r["extra"] for r in mine if r["plausible"]], default=0)
        per_token, n = _decode_seconds(model, list(out["prompt"]), truthful, cfg.decode_steps)
        start = time.perf_counter()
        for d in cfg.depths:
            cand = list(misreport(truthful, vocab, depth=d, seed=0))
            forward(model, torch.tensor([list(out["prompt"]) + cand], device=model_device(model)))
        verify = time.perf_counter() - start
        rows.append({"seed": seed, "output": i, "extra": extra, "decode_s_per_token": per_token, "decode_steps": n,
                     "verify_s": verify, "passes": len(cfg.depths), "revenue_tokens": float(extra),
                     "cost_tokens": verify / per_token})
    return rows


def _prefix(tokens: list[int], vocab: Vocabulary, *, max_chars: int, max_bytes: int) -> list[int]:
    """The longest prefix of ``tokens`` whose string has at most ``max_chars`` characters and ``max_bytes`` bytes."""
    j = 0
    while (j < len(tokens) and int(vocab.chars[tokens[:j + 1]].sum()) <= max_chars
           and len(vocab.text_of(tokens[:j + 1])) <= max_bytes):
        j += 1
    return tokens[:j]


def bound_rows(cfg: BoundConfig, seed: int, provider: Provider) -> list[dict[str, Any]]:
    """On the first <= ``cfg.max_chars`` characters of each answer: the length the heuristic bills (its longest
    plausible report over every depth, the truthful one included) and the exhaustive optimum
    (:func:`~icml26.papers.token_pricing.longest_plausible_tokenization`) ([P13] §4)."""
    from icml26.papers.token_pricing._brute import longest_plausible_tokenization

    model, _, vocab = provider
    rows = []
    for i, out in enumerate(outputs(cfg.gen, seed, provider)[:cfg.outputs]):
        prefix = _prefix([int(t) for t in out["tokens"]], vocab, max_chars=cfg.max_chars, max_bytes=cfg.max_bytes)
        if int(vocab.chars[prefix].sum()) < 2:
            continue
        t, p = out["temperature"], out["top_p"]
        ver = PrefixVerifier(model, out["prompt"], prefix, temperature=t, top_p=p)
        best = len(prefix) if ver.mask.all() else 0
        cand, d = tuple(prefix), 0
        while True:
            d += 1
            nxt = misreport(prefix, vocab, depth=d)
            if len(nxt) == len(cand):
                break
            cand = nxt
            if ver.check(cand):
                best = max(best, len(cand))
        bf = longest_plausible_tokenization(vocab.text_of(prefix), model, vocab, prompt=out["prompt"],
                                            temperature=t, top_p=p, max_width=cfg.max_width)
        rows.append({"seed": seed, "output": i, "language": out["language"], "temperature": t, "top_p": p,
                     "chars": int(vocab.chars[prefix].sum()), "bytes": len(vocab.text_of(prefix)),
                     "truthful_len": len(prefix), "heuristic_len": best,
                     "brute_len": 0 if bf.longest is None else len(bf.longest), "complete": bf.complete,
                     "plausible_count": bf.plausible, "max_depth": d - 1})
    return rows
