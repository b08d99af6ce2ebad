"""The cold start of our [P25] reproduction: SFT on step-summary traces whose summaries are deliberately lossy.

Each training problem gives its full trace (the Unfold sequence, every output token trained) and, for every step
after the first whose previous summary kept the value, the Fold sequence of that step (the folded context of the
trace's own earlier summaries, then the step's output). A summary is lossy with probability ``lossy_rate``, drawn
per summary, and the same draw is used in both forms. A Fold step after a lossy summary is left out: its output is
not a function of its context (the state is gone), and training on it would only teach guessing.

Trained models are cached under ``<cache>/accordion/`` (``cache_dir``, else ``$ICML26_CACHE_DIR``), keyed by every
field of the task, the policy and the SFT spec, the seed and the torch version.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from icml26.common import validation
from icml26.common.cache import cache_root, materialise
from icml26.common.nn import TinyGPT
from icml26.papers.accordion._format import STEP, parse_step
from icml26.papers.accordion._policy import PolicySpec, Segment, make_policy
from icml26.papers.accordion._task import AccumulatorTask, make_problems

__all__ = ["SFTSpec", "sft_policy", "sft_segments", "train_sft"]

CACHE_VERSION = 1


@dataclass(frozen=True)
class SFTSpec:
    """The cold-start SFT of the [P25] reproduction (every field is part of the cache key)."""

    n_problems: int = 2000
    steps: int = 300
    batch_size: int = 16
    lr: float = 1e-2
    lossy_rate: float = 0.4

    def __post_init__(self) -> None:
        for name in ("n_problems", "steps", "batch_size"):
            validation.positive_int(getattr(self, name), name)
        validation.real(self.lr, "lr", lo=0.0, lo_open=True)
        validation.real(self.lossy_rate, "lossy_rate", lo=0.0, hi=1.0)


def sft_segments(task: AccumulatorTask, *, n_problems: int, lossy_rate: float, seed: int
                 ) -> tuple[list[Segment], list[Segment]]:
    """(Unfold segments, Fold segments) of ``n_problems`` training traces with lossy summaries ([P25] cold start)."""
    g = np.random.default_rng(validation.seed(seed))
    rate = validation.real(lossy_rate, "lossy_rate", lo=0.0, hi=1.0)
    mk = task.markers
    unfold, fold = [], []
    for p in make_problems(task, n_problems, split="train", seed=int(g.integers(0, 2**31 - 1))):
        lossy = tuple(bool(x) for x in g.random(p.steps - 1) < rate)
        outs = task.trace(p, lossy=lossy)
        prompt = task.prompt(p)
        unfold.append(Segment(prompt + sum(outs, ()), len(prompt)))
        ctx = list(prompt)
        for prev, out, lost in zip(outs[:-1], outs[1:], lossy):
            step = parse_step(prev, markers=mk, max_summary_tokens=1)
            assert step.kind == STEP  # the traces are well formed by construction
            ctx += [*mk.tldr, *step.summary]  # the Fold context: the previous thought becomes the TLDR marker
            if not lost:
                fold.append(Segment(tuple(ctx) + out, len(ctx)))
    return unfold, fold


def _batch_nll(model: TinyGPT, segs: list[Segment], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    T = max(len(s.tokens) for s in segs)
    toks = torch.full((len(segs), T), pad, dtype=torch.long)
    mask = torch.zeros(len(segs), T - 1)
    for r, s in enumerate(segs):
        toks[r, : len(s.tokens)] = torch.tensor(s.tokens)
        mask[r, s.n_context - 1: len(s.tokens) - 1] = 1.0
    logits = model(toks[:, :-1])
    nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), toks[:, 1:].reshape(-1), reduction="none")
    return (nll * mask.reshape(-1)).sum(), mask.sum()


def train_sft(model: TinyGPT, task: AccumulatorTask, spec: SFTSpec, *, seed: int) -> list[float]:
    """Cold-start SFT of [P25] (reconstructed: the authors fine-tune on synthetic step-summary traces first): AdamW
    with a cosine decay to lr/10, every step ``batch_size`` Unfold and ``batch_size`` Fold sequences, the token-mean
    cross-entropy of their output tokens. Returns the loss per step."""
    s = validation.seed(seed)
    unfold, fold = sft_segments(task, n_problems=spec.n_problems, lossy_rate=spec.lossy_rate, seed=s)
    g = torch.Generator().manual_seed(s + 1)
    opt = torch.optim.AdamW(model.parameters(), lr=spec.lr, weight_decay=0.0, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=spec.steps, eta_min=spec.lr / 10)
    pad = task.markers.eos
    losses = []
    model.train()
    for _ in range(spec.steps):
        total = torch.zeros(())
        count = torch.zeros(())
        for pool in (unfold, fold):
            if not pool:
                continue
            pick = torch.randint(0, len(pool), (min(spec.batch_size, len(pool)),), generator=g)
            nll, n = _batch_nll(model, [pool[int(i)] for i in pick], pad)
            total, count = total + nll, count + n
        loss = total / count.clamp_min(1.0)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
    model.eval()
    return losses


def fresh_policy(task: AccumulatorTask, policy: PolicySpec, *, seed: int) -> TinyGPT:
    """An untrained [P25] reproduction policy for ``task``, its thought embeddings factorised."""
    model = make_policy(policy, vocab_size=task.vocab_size, block_size=task.block_size, seed=seed)
    task.init_embeddings(model, seed=seed + 1)
    return model


def _build(task: AccumulatorTask, policy: PolicySpec, spec: SFTSpec, seed: int, folder: Path) -> None:
    model = fresh_policy(task, policy, seed=seed)
    losses = train_sft(model, task, spec, seed=seed)
    torch.save(model.state_dict(), folder / "model.pt")
    (folder / "losses.json").write_text(json.dumps(losses), encoding="utf-8")


def sft_policy(task: AccumulatorTask, policy: PolicySpec, spec: SFTSpec, *, seed: int,
               cache_dir: str | Path | None = None) -> tuple[TinyGPT, list[float]]:
    """The [P25] cold-start policy for ``seed`` and its SFT losses, trained once and cached (see the module
    docstring); with no cache folder it is trained in memory."""
    for name, obj, cls in (("task", task, AccumulatorTask), ("policy", policy, PolicySpec), ("spec", spec, SFTSpec)):
        if not isinstance(obj, cls):
            raise TypeError(f"{name} must be a {cls.__name__}, got {type(obj).__name__}")
    s = validation.seed(seed)
    root = cache_root(cache_dir)
    model = fresh_policy(task, policy, seed=s)
    if root is None:
        return model, train_sft(model, task, spec, seed=s)
    key = {"task": dataclasses.asdict(task), "policy": dataclasses.asdict(policy), "sft": dataclasses.asdict(spec),
           "seed": s, "torch": torch.__version__, "version": CACHE_VERSION}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    folder = materialise(root / "accordion" / f"sft-{digest}", key=key,
                         build=functools.partial(_build, task, policy, spec, s))
    model.load_state_dict(torch.load(folder / "model.pt", weights_only=True))
    model.eval()
    return model, json.loads((folder / "losses.json").read_text(encoding="utf-8"))
