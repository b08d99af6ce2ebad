"""The edit experiment behind every [P27] claim: one forget set per seed, every method applied to the same model in
turn (and undone), each measured by efficacy, generalisation, specificity and held-out perplexity.

The subject model is SmolLM2-135M-Instruct (``model="smollm2-135m"``, the ``[models]`` extra) or, for smoke runs,
a tiny Llama trained here on made-up facts (``model="tiny"``). On the real model the candidate facts are the shipped
list (:mod:`._factlist`), kept when the model's own greedy answer is right; the retain moments and the held-out text
are docstrings of two disjoint sets of stdlib modules. The known-fact list and each seed's rows are cached under the
cache folder (keyed by every config field), so the claims of the ``edits`` group share one computation.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import time
from dataclasses import asdict, dataclass, field
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
from icml26.papers.zerounlearn._prompts import Fact, make_prompts
from icml26.papers.zerounlearn._stats import RetainStats, retain_moments
from icml26.papers.zerounlearn._tiny import TinySpec, filler_rows, tiny_model

__all__ = ["METHODS", "EditConfig", "edit_rows"]

log = logging.getLogger(__name__)

#: the methods one seed runs, in order (the rows' ``method``)
METHODS = ("base", "zerounlearn", "zerounlearn_no_op", "memit", "alphaedit", "ft", "ga")


@dataclass(frozen=True)
class EditConfig:
    """One edit experiment of [P27]'s protocol. ``model``: ``"smollm2-135m"`` or ``"tiny"`` (then ``tiny`` gives its size)."""

    model: str = "smollm2-135m"
    tiny: TinySpec = field(default_factory=TinySpec)
    layers: tuple[int, ...] = (18, 19)
    forget: int = 10
    other: int = 200
    contexts: tuple[str, ...] = ("{}",)
    retain_passages: int = 100
    heldout_passages: int = 20
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
    methods: tuple[str, ...] = ("zerounlearn", "zerounlearn_no_op", "ft", "ga")


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
    known: list[Fact]
    retain: RetainStats
    heldout: list[list[int]]


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
    stats = retain_moments(model, ret, layers=cfg.layers, pad_id=int(cast(int, pad)))
    return _Setup(model, tok, known, stats, held)


class _Probes:
    """Every measurement of one seed, the forward pass below the first edited layer cached."""

    def __init__(self, s: _Setup, forget: list[Fact], other: list[Fact], start: int) -> None:
        m, t = s.model, s.tok
        self.eff = AnswerProbe(m, t, [f.text() for f in forget], [f.answer for f in forget], start=start)
        para = [(f.text(p), f.answer) for f in forget for p in f.paraphrases]
        self.gen = AnswerProbe(m, t, [p for p, _ in para], [a for _, a in para], start=start)
        self.spe = AnswerProbe(m, t, [f.text() for f in other], [f.answer for f in other], start=start)
        pad = t.pad_token_id if t.pad_token_id is not None else t.eos_token_id
        self.ppl_probe = TextProbe(m, s.heldout, start=start, pad_id=int(pad))

    def efficacy(self) -> float:
        return 100.0 * float(self.eff.score()[0].mean())

    def ppl(self) -> float:
        nll, n = self.ppl_probe.nll()
        return float(np.exp(nll.sum() / n.sum()))

    def measure(self) -> dict[str, float]:
        known, eos = self.eff.score()
        return {"efficacy": 100.0 * float(known.mean()), "eos": 100.0 * float(eos.mean()),
                "generalisation": 100.0 * float(self.gen.score()[0].mean()),
                "specificity": 100.0 * float(self.spe.score()[0].mean()), "perplexity": self.ppl()}


def _apply(method: str, s: _Setup, prompts: Any, probes: _Probes, cfg: EditConfig) -> tuple[UnlearnResult, dict]:
    kw = {"layers": cfg.layers, "retain_stats": s.retain, "steps": cfg.z_steps, "lr": cfg.z_lr}
    extra: dict[str, Any] = {}
    if method in ("zerounlearn", "zerounlearn_no_op"):
        res = zero_unlearn(s.model, prompts, **kw, retain_weight=cfg.retain_weight, forget_weight=cfg.forget_weight,
                           lam=cfg.lam, eps=cfg.eps, projector=method == "zerounlearn")
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
    need = cfg.forget + 1
    if len(s.known) < need:
        raise ValueError(f"the model knows only {len(s.known)} of the candidate facts; {need} are needed")
    order = np.random.default_rng(seed).permutation(len(s.known))
    forget = [s.known[i] for i in order[:cfg.forget]]
    other = [s.known[i] for i in order[cfg.forget:cfg.forget + cfg.other]]
    probes = _Probes(s, forget, other, start=cfg.layers[0])
    prompts = make_prompts(s.tok, forget, contexts=cfg.contexts)
    base = {"seed": seed, "forget": len(forget), "other": len(other)}
    rows = [{**base, "method": "base", **probes.measure(), "seconds": 0.0}]
    for method in cfg.methods:
        t0 = time.perf_counter()
        res, extra = _apply(method, s, prompts, probes, cfg)
        try:
            rows.append({**base, "method": method, **probes.measure(), "seconds": time.perf_counter() - t0,
                         "passes": res.passes, **extra})
        finally:
            res.restore(s.model)
        log.info("seed %d %s: %s", seed, method, rows[-1])
    return rows


def _key(cfg: EditConfig, seed: int) -> dict[str, Any]:
    return {"config": json.loads(json.dumps(asdict(cfg))), "seed": seed, "format": 1, "torch": torch.__version__,
            "transformers": importlib.metadata.version("transformers")}


def edit_rows(cfg: EditConfig, seeds: tuple[int, ...]) -> list[dict[str, Any]]:
    """Rows ``{seed, method, efficacy, generalisation, specificity, perplexity, eos, seconds, ...}`` for every seed
    (forget set) and method of ``cfg`` [P27] (Sec. 4's protocol at our scale); cached per seed under the cache folder
    when there is one."""
    root = cache_root(None)
    setup: list[_Setup] = []

    def run(seed: int) -> list[dict[str, Any]]:
        if not setup:
            setup.append(_setup(cfg))
        return _seed_rows(setup[0], cfg, seed)

    out: list[dict[str, Any]] = []
    for seed in seeds:
        if root is None:
            out += run(seed)
            continue
        name = f"rows-{cfg.model}-{corpus_digest([json.dumps(_key(cfg, seed), sort_keys=True)])[:16]}"

        def build(folder: Path, seed: int = seed) -> None:
            (folder / "rows.json").write_text(json.dumps(run(seed)), encoding="utf-8")

        folder = materialise(root / "zerounlearn" / name, key=_key(cfg, seed), build=build)
        out += json.loads((folder / "rows.json").read_text(encoding="utf-8"))
    return out
