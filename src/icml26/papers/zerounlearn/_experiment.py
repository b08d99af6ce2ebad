"""The edit experiment behind every [P27] claim: one forget set per seed, every method applied to the same model in
turn (and undone), each measured by efficacy, generalisation, specificity and held-out perplexity.

The subject model is SmolLM2-135M-Instruct (``model="smollm2-135m"``, the ``[models]`` extra) or, for smoke runs,
a tiny Llama trained here on made-up facts (``model="tiny"``). On the real model the candidate facts are the shipped
list (:mod:`._factlist`), kept when the model's own greedy answer is right, and split into three subject-disjoint
pools (:mod:`._pools`): a fixed retain pool stated as sentences in the retain text (beside docstrings of stdlib
modules), and per seed a forget set and the specificity facts; the held-out text is docstrings of other modules. The known-fact list and each seed's rows are cached under the
cache folder (keyed by every config field), so the claims of the ``edits`` group share one computation.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch

from icml26.common.cache import cache_root, materialise
from icml26.papers.zerounlearn._baselines import alphaedit_eos, finetune_eos, gradient_ascent, memit_eos
from icml26.papers.zerounlearn._corpus import HELDOUT_MODULES, RETAIN_MODULES, corpus_digest, docstrings, passages
from icml26.papers.zerounlearn._edit import UnlearnResult, zero_unlearn
from icml26.papers.zerounlearn._eval import AnswerProbe, TextProbe, knows
from icml26.papers.zerounlearn._factlist import RELATIONS, candidate_triples
from icml26.papers.zerounlearn._pools import draw_sets, fact_rows, retain_split
from icml26.papers.zerounlearn._prompts import Fact, make_prompts
from icml26.papers.zerounlearn._stats import RetainStats, retain_moments
from icml26.papers.zerounlearn._tiny import TinySpec, filler_rows, tiny_model
from icml26.papers.zerounlearn._z import ZResult, compute_z

__all__ = ["METHODS", "EditConfig", "edit_rows"]

log = logging.getLogger(__name__)

#: the methods one seed runs, in order (the rows' ``method``)
METHODS = ("base", "zerounlearn", "zerounlearn_no_op", "zerounlearn_docs", "memit", "alphaedit", "ft", "ga")
#: the methods that start from the neutral-value search z_new (run once per seed on the unedited model and shared)
Z_NEW_METHODS = ("zerounlearn", "zerounlearn_no_op", "zerounlearn_docs", "memit", "alphaedit")


@dataclass(frozen=True)
class EditConfig:
    """One edit experiment of [P27]'s protocol. ``model``: ``"smollm2-135m"`` or ``"tiny"`` (then ``tiny`` gives its size)."""

    model: str = "smollm2-135m"
    tiny: TinySpec = field(default_factory=TinySpec)
    layers: tuple[int, ...] = (18, 19)
    forget: int = 20
    other: int = 200
    retain_facts: int = 100  # known facts of the third pool, stated as sentences in the retain text
    contexts: tuple[str, ...] = ("{}",)
    retain_passages: int = 100
    heldout_passages: int = 10
    passage_length: int = 64
    z_steps: int = 12
    z_lr: float = 0.5
    retain_weight: float = 15000.0
    forget_weight: float = 50.0
    lam: float = 1.0
    eps: float = 0.01
    ft_lr: float = 5e-4
    ga_lr: float = 5e-3
    ga_max_steps: int = 40
    target_efficacy: float = 5.0  # GA runs until the forget set's efficacy (%) is at most this
    methods: tuple[str, ...] = ("zerounlearn", "zerounlearn_no_op", "memit", "alphaedit", "ft", "ga")


def _real_facts() -> list[Fact]:
    return [Fact(s, RELATIONS[r][0], " " + a, RELATIONS[r][1], r) for r, s, a in candidate_triples()]


def _known(model: Any, tok: Any, cfg: EditConfig) -> list[Fact]:
    """The candidate facts the real model answers correctly (greedy, canonical prompt), cached."""
    facts = _real_facts()
    root = cache_root(None)
    if root is None:
        return [f for f, k in zip(facts, knows(model, tok, [f.text() for f in facts], [f.answer for f in facts])) if k]
    key = {"model": cfg.model, "facts": corpus_digest([f"{f.subject}|{f.prompt}|{f.answer}" for f in facts]),
           "transformers": importlib.metadata.version("transformers"), "format": 1}

    def build(folder: Path) -> None:
        k = knows(model, tok, [f.text() for f in facts], [f.answer for f in facts])
        (folder / "known.json").write_text(json.dumps([bool(x) for x in k]), encoding="utf-8")

    folder = materialise(root / "zerounlearn" / f"known-{cfg.model}", key=key, build=build)
    flags = json.loads((folder / "known.json").read_text(encoding="utf-8"))
    return [f for f, k in zip(facts, flags) if k]


@dataclass
class _Setup:
    model: Any
    tok: Any
    known: list[Fact]  # the evaluation pool: forget and specificity facts are drawn from it
    retain: RetainStats  # docstrings and the retain pool's fact sentences
    heldout: list[list[int]]
    retain_facts: list[Fact]
    docs_only: RetainStats  # docstrings alone (the ``zerounlearn_docs`` variant)
    ppl_probe: TextProbe  # the held-out text, shared by every seed (nothing below the first edited layer changes)
    base_ppl: float  # the unedited model's held-out perplexity (the same for every seed)


def _merge(a: RetainStats, b: RetainStats) -> RetainStats:
    """The moments over the union of two corpora (token-weighted means of the two, as one pass over both gives)."""
    n = a.tokens + b.tokens
    return RetainStats({k: (a.kk[k] * a.tokens + b.kk[k] * b.tokens) / n for k in a.kk},
                       {k: (a.vk[k] * a.tokens + b.vk[k] * b.tokens) / n for k in a.vk}, n)


def _perplexity(probe: TextProbe) -> float:
    nll, n = probe.nll()
    return float(np.exp(nll.sum() / n.sum()))


def _setup(cfg: EditConfig) -> _Setup:
    if cfg.model == "tiny":
        model, tok, facts = tiny_model(cfg.tiny, seed=0)
        words = tuple(f.subject for f in facts)
        ret = filler_rows(tok, rows=cfg.retain_passages, length=cfg.passage_length, seed=1, exclude=words)
        held = filler_rows(tok, rows=cfg.heldout_passages, length=cfg.passage_length, seed=2, exclude=words)
        pad = tok.pad_token_id
        known = list(facts)
    else:
        from icml26.common.models import load_causal_lm

        model, tok = load_causal_lm(cfg.model)
        known = _known(model, tok, cfg)
        ret = passages(tok, docstrings(RETAIN_MODULES), length=cfg.passage_length, count=cfg.retain_passages)
        held = passages(tok, docstrings(HELDOUT_MODULES), length=cfg.passage_length, count=cfg.heldout_passages)
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
    pool, known = retain_split(known, count=cfg.retain_facts)
    pad_id = int(cast(int, pad))
    docs = retain_moments(model, ret, layers=cfg.layers, pad_id=pad_id)
    fact_text = fact_rows(tok, pool, length=cfg.passage_length)
    stats = _merge(docs, retain_moments(model, fact_text, layers=cfg.layers, pad_id=pad_id)) if fact_text else docs
    held_probe = TextProbe(model, held, start=cfg.layers[0], pad_id=pad_id)
    return _Setup(model, tok, known, stats, held, pool, docs, held_probe, _perplexity(held_probe))


class _Probes:
    """Every measurement of one seed, the forward pass below the first edited layer cached."""

    def __init__(self, s: _Setup, forget: list[Fact], other: list[Fact], start: int) -> None:
        m, t = s.model, s.tok
        self.eff = AnswerProbe(m, t, [f.text() for f in forget], [f.answer for f in forget], start=start)
        para = [(f.text(p), f.answer) for f in forget for p in f.paraphrases]
        self.gen = AnswerProbe(m, t, [p for p, _ in para], [a for _, a in para], start=start)
        self.spe = AnswerProbe(m, t, [f.text() for f in other], [f.answer for f in other], start=start)
        self.ppl_probe = s.ppl_probe

    def efficacy(self) -> float:
        return 100.0 * float(self.eff.score()[0].mean())

    def measure(self, ppl: float | None = None) -> dict[str, float]:
        """Every metric of the model as it is now; ``ppl``: its held-out perplexity when already known."""
        known, eos = self.eff.score()
        return {"efficacy": 100.0 * float(known.mean()), "eos": 100.0 * float(eos.mean()),
                "generalisation": 100.0 * float(self.gen.score()[0].mean()),
                "specificity": 100.0 * float(self.spe.score()[0].mean()),
                "perplexity": _perplexity(self.ppl_probe) if ppl is None else ppl}


def _apply(method: str, s: _Setup, prompts: Any, probes: _Probes, cfg: EditConfig, z_new: ZResult | None
           ) -> tuple[UnlearnResult, dict]:
    kw = {"layers": cfg.layers, "retain_stats": s.docs_only if method == "zerounlearn_docs" else s.retain,
          "steps": cfg.z_steps, "lr": cfg.z_lr, "z_new": z_new}
    extra: dict[str, Any] = {}
    if method in ("zerounlearn", "zerounlearn_no_op", "zerounlearn_docs"):
        res = zero_unlearn(s.model, prompts, **kw, retain_weight=cfg.retain_weight, forget_weight=cfg.forget_weight,
                           lam=cfg.lam, eps=cfg.eps, projector=method != "zerounlearn_no_op")
        res.method = method
    elif method == "memit":
        res = memit_eos(s.model, prompts, **kw, retain_weight=cfg.retain_weight)
    elif method == "alphaedit":
        res = alphaedit_eos(s.model, prompts, **kw)
    elif method == "ft":
        res = finetune_eos(s.model, prompts, layers=cfg.layers, steps=cfg.z_steps, lr=cfg.ft_lr)
    elif method == "ga":
        trace: list[tuple[int, float]] = []

        def stop(step: int) -> bool:
            trace.append((step, probes.efficacy()))
            return trace[-1][1] <= cfg.target_efficacy

        res = gradient_ascent(s.model, prompts, layers=cfg.layers, steps=cfg.ga_max_steps, lr=cfg.ga_lr,
                              on_step=stop)
        extra = {"steps_taken": trace[-1][0], "reached": trace[-1][1] <= cfg.target_efficacy}
    else:
        raise ValueError(f"methods: unknown method {method!r} (one of {METHODS[1:]})")
    return res, extra


def _seed_rows(s: _Setup, cfg: EditConfig, seed: int) -> list[dict[str, Any]]:
    if len(s.known) < cfg.forget + 1:
        raise ValueError(f"the model knows only {len(s.known)} of the candidate facts outside the retain pool; "
                         f"{cfg.forget + 1} are needed")
    forget, other = draw_sets(s.known, forget=cfg.forget, other=cfg.other, seed=seed)
    if not other:
        raise ValueError("no specificity fact is left: give fewer forget or retain facts")
    probes = _Probes(s, forget, other, start=cfg.layers[0])
    prompts = make_prompts(s.tok, forget, contexts=cfg.contexts)
    base = {"seed": seed, "forget": len(forget), "other": len(other), "retain_facts": len(s.retain_facts)}
    rows = [{**base, "method": "base", **probes.measure(s.base_ppl), "seconds": 0.0}]
    z_new, z_sec = None, 0.0
    if any(m in Z_NEW_METHODS for m in cfg.methods):  # one search on the unedited model, shared by those methods
        t0 = time.perf_counter()
        z_new = compute_z(s.model, prompts, prompts.eos, layer=cfg.layers[-1], site="block", steps=cfg.z_steps,
                          lr=cfg.z_lr)
        z_sec = time.perf_counter() - t0
    for method in cfg.methods:
        t0 = time.perf_counter()
        res, extra = _apply(method, s, prompts, probes, cfg, z_new)
        spent = time.perf_counter() - t0 + (z_sec if method in Z_NEW_METHODS else 0.0)
        try:
            rows.append({**base, "method": method, **probes.measure(), "seconds": spent, "passes": res.passes,
                         **extra})
        finally:
            res.restore(s.model)
        log.info("seed %d %s: %s", seed, method, rows[-1])
    return rows


def _key(cfg: EditConfig, seed: int) -> dict[str, Any]:
    facts = corpus_digest(["|".join(t) for t in candidate_triples()])
    return {"config": json.loads(json.dumps(asdict(cfg))), "seed": seed, "facts": facts, "format": 3, "torch": torch.__version__,
            "transformers": importlib.metadata.version("transformers")}


@lru_cache(maxsize=1)
def _setup_once(cfg: EditConfig) -> _Setup:
    """The model, pools and probes of ``cfg``, built once per process (a ``ctx.map`` worker runs several seeds)."""
    return _setup(cfg)


def _cached_seed_rows(cfg: EditConfig, seed: int) -> list[dict[str, Any]]:
    """The rows of one seed (forget set) of :func:`edit_rows`, cached under the cache folder when there is one."""
    root = cache_root(None)
    if root is None:
        return _seed_rows(_setup_once(cfg), cfg, seed)
    name = f"rows-{cfg.model}-{corpus_digest([json.dumps(_key(cfg, seed), sort_keys=True)])[:16]}"

    def build(folder: Path) -> None:
        (folder / "rows.json").write_text(json.dumps(_seed_rows(_setup_once(cfg), cfg, seed)), encoding="utf-8")

    folder = materialise(root / "zerounlearn" / name, key=_key(cfg, seed), build=build)
    return json.loads((folder / "rows.json").read_text(encoding="utf-8"))


def edit_rows(cfg: EditConfig, seeds: tuple[int, ...], mapper: Any = None) -> list[dict[str, Any]]:
    """Rows ``{seed, method, efficacy, generalisation, specificity, perplexity, eos, seconds, ...}`` for every seed
    (forget set) and method of ``cfg`` [P27] (Sec. 4's protocol at our scale); cached per seed under the cache folder
    when there is one. ``mapper`` (``map(fn, items) -> list``, e.g. a claim's ``ctx.mapper``) runs the seeds in
    parallel; each worker builds the model and probes once."""
    fn = partial(_cached_seed_rows, cfg)
    per_seed = mapper(fn, list(seeds)) if mapper is not None else [fn(s) for s in seeds]
    return [row for rows in per_seed for row in rows]
