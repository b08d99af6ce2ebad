"""Multi-query associative recall (MQAR) for [P30]'s accuracy claim: the task, a tiny Llama trained on it, accuracy.

A sequence of ``n`` tokens, laid out like a long-context retrieval benchmark (facts in the context, the questions at
its end): ``pairs`` key-value facts are written at random places in the first ``context`` share of the sequence, each
as a span of ``span`` copies of one fact token ``(key, value)`` (``keys · values`` such tokens); the rest of the
sequence holds each fact's key once as a span of ``span`` query tokens, in random order at random places. At every
query token the model must name the value. Between the spans runs filler in which each token repeats the one two
places back (``a b a b ...``, a fresh random pair after each span), so that a model trained on every predictable
position learns the local attention of a language model at filler positions and a long-range, content-based lookup
at query positions; a block mask answers right only if it keeps the fact's block for the query's block.
(One token per fact lets a one-step lookup solve the task, so that a tiny model learns it in about a minute on one
CPU thread; the two-token ``key value`` form needs an induction circuit and far more training.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import Tensor

from icml26.common.validation import int_at_least
from icml26.common.validation import seed as check_seed
from icml26.papers.unisparse._mask import BlockMask
from icml26.papers.unisparse._patch import sparse_prefill

__all__ = ["MQARTask", "mqar_accuracy", "mqar_batch", "mqar_model", "train_mqar"]


@dataclass(frozen=True)
class MQARTask:
    """The MQAR task of [P30]'s accuracy claim (see the module docstring): sequence length, facts per sequence and
    vocabulary sizes."""

    n: int = 1024
    pairs: int = 8
    keys: int = 16
    values: int = 16
    noise: int = 16
    span: int = 4
    context: float = 0.75

    def __post_init__(self) -> None:
        for name in ("n", "pairs", "keys", "values", "noise", "span"):
            int_at_least(getattr(self, name), name, 1)
        if self.noise < 2:
            raise ValueError(f"noise must be >= 2 (filler alternates two tokens), got {self.noise}")
        if self.pairs > self.keys:
            raise ValueError(f"pairs ({self.pairs}) must not exceed keys ({self.keys}): keys are unique per sequence")
        if not 0.0 < self.context < 1.0:
            raise ValueError(f"context must be in (0, 1), got {self.context}")
        slots = min(self.n_context - 1, self.n - self.n_context) // (self.span + 2)
        if slots < self.pairs:
            raise ValueError(f"n = {self.n} holds {slots} spans of {self.span} (with gaps of 2) per part, fewer than "
                             f"pairs = {self.pairs}")

    @property
    def n_context(self) -> int:
        """Length of the part that holds the facts (the rest holds the queries)."""
        return int(self.n * self.context)

    @property
    def query0(self) -> int:
        """First query token id (fact tokens are ``key * values + value``)."""
        return self.keys * self.values

    @property
    def noise0(self) -> int:
        """First filler token id."""
        return self.query0 + self.keys

    @property
    def answer0(self) -> int:
        """First answer (value) token id."""
        return self.noise0 + self.noise

    @property
    def vocab(self) -> int:
        """Vocabulary size."""
        return self.answer0 + self.values


def _span_starts(g: torch.Generator, b: int, lo: int, hi: int, task: MQARTask) -> Tensor:
    """``(b, pairs)`` starts of non-overlapping spans in ``[lo, hi)``, each with filler on both sides."""
    width = task.span + 2
    slots = torch.argsort(torch.rand(b, (hi - lo) // width, generator=g), dim=1)[:, : task.pairs]
    return lo + slots * width + 1


def _fill(x: Tensor, filler: Tensor, g: torch.Generator, task: MQARTask) -> tuple[Tensor, Tensor]:
    """Filler runs ``a b a b ...`` (a fresh random pair per run) at the ``filler`` positions of ``x``, and the labels
    of the predictable filler positions (the next token, where it repeats the one two places back)."""
    b, n = x.shape
    start = filler & ~torch.nn.functional.pad(filler[:, :-1], (1, 0))
    run = torch.cumsum(start.long(), dim=1) * filler  # run id per filler position (0: not filler)
    pos = torch.arange(n).expand(b, n)
    first = torch.cummax(torch.where(start, pos, torch.zeros_like(pos)), dim=1).values
    pairs = torch.randint(task.noise0, task.noise0 + task.noise, (b, n + 1, 2), generator=g)
    parity = (pos - first) % 2
    x = torch.where(filler, torch.gather(pairs.flatten(1), 1, run * 2 + parity), x)
    nxt = torch.nn.functional.pad(x[:, 1:], (0, 1), value=-100)
    predictable = filler & torch.nn.functional.pad(filler[:, 1:], (0, 1)) & (pos + 1 - first >= 2)
    return x, torch.where(predictable, nxt, torch.full_like(x, -100))


def mqar_batch(task: MQARTask, *, batch: int, seed: int) -> tuple[Tensor, Tensor]:
    """``batch`` MQAR sequences of [P30]'s accuracy task (module docstring): inputs ``(batch, n)`` and labels
    ``(batch, n)``: the value's answer token at each query token, the next token at each predictable filler position,
    -100 elsewhere; drawn from a generator seeded with ``seed``."""
    if not isinstance(task, MQARTask):
        raise TypeError(f"task must be an MQARTask, got {type(task).__name__}")
    b = int_at_least(batch, "batch", 1)
    g = torch.Generator().manual_seed(check_seed(seed))
    p, r, n = task.pairs, task.span, task.n
    x = torch.zeros(b, n, dtype=torch.long)
    y = torch.full((b, n), -100, dtype=torch.long)
    keys = torch.argsort(torch.rand(b, task.keys, generator=g), dim=1)[:, :p]
    vals = torch.randint(0, task.values, (b, p), generator=g)
    facts = _span_starts(g, b, 1, task.n_context, task)
    queries = _span_starts(g, b, task.n_context, n, task)[:, torch.randperm(p, generator=g)]
    rows = torch.arange(b)[:, None, None].expand(b, p, r)
    within = torch.arange(r)[None, None, :]
    x[rows, facts[:, :, None] + within] = (keys * task.values + vals)[:, :, None].expand(b, p, r)
    x[rows, queries[:, :, None] + within] = (task.query0 + keys)[:, :, None].expand(b, p, r)
    y[rows, queries[:, :, None] + within] = (task.answer0 + vals)[:, :, None].expand(b, p, r)
    filler = torch.ones(b, n, dtype=torch.bool)
    filler[rows, facts[:, :, None] + within] = False
    filler[rows, queries[:, :, None] + within] = False
    x, y_fill = _fill(x, filler, g, task)
    return x, torch.where(filler, y_fill, y)


def mqar_model(task: MQARTask, *, seed: int, hidden: int = 64, layers: int = 2, heads: int = 2,
               init_std: float = 0.02) -> Any:
    """A randomly initialised transformers ``LlamaForCausalLM`` sized for ``task`` ([P30]'s tiny transformer):
    every weight from a generator seeded with ``seed`` (norms 1, the rest N(0, init_std²)); global RNGs untouched."""
    from transformers import LlamaConfig, LlamaForCausalLM

    s = check_seed(seed)
    h, nl, nh = (int_at_least(v, k, 1) for k, v in (("hidden", hidden), ("layers", layers), ("heads", heads)))
    if h % nh:
        raise ValueError(f"hidden ({h}) must be a multiple of heads ({nh})")
    cfg = LlamaConfig(vocab_size=task.vocab, hidden_size=h, num_hidden_layers=nl, num_attention_heads=nh,
                      num_key_value_heads=nh, intermediate_size=2 * h, max_position_embeddings=max(task.n, 2048),
                      tie_word_embeddings=False, attn_implementation="sdpa")  # pyright: ignore[reportCallIssue]
    with torch.random.fork_rng(devices=[]):
        model = LlamaForCausalLM(cfg)
    g = torch.Generator().manual_seed(s)
    with torch.no_grad():
        for _, p in sorted(model.named_parameters()):
            if p.ndim == 1:
                p.fill_(1.0)
            else:
                p.copy_(torch.randn(p.shape, generator=g) * init_std)
    return model.eval()


def _loss(model: Any, x: Tensor, y: Tensor, is_query: Tensor) -> Tensor:
    """Mean cross-entropy over the query tokens plus that over the predictable filler positions."""
    logits = model(input_ids=x).logits.reshape(-1, model.config.vocab_size)
    ce = torch.nn.functional.cross_entropy(logits, y.reshape(-1).clamp_min(0), reduction="none")
    q, f = is_query.reshape(-1), (y.reshape(-1) >= 0) & ~is_query.reshape(-1)
    return (ce * q).sum() / q.sum().clamp_min(1) + (ce * f).sum() / f.sum().clamp_min(1)


@dataclass(frozen=True)
class _Phase:
    task: MQARTask
    steps: int
    batch: int


def train_mqar(model: Any, phases: list[tuple[MQARTask, int, int]], *, lr: float, seed: int) -> list[float]:
    """Train ``model`` on MQAR ([P30]'s tiny transformer) through ``phases`` of ``(task, steps, batch)`` in turn
    (a short-sequence phase, then the evaluation length): AdamW (:func:`icml26.common.train.train`) on freshly drawn
    sequences, one set per phase. Returns the training loss per step."""
    from icml26.common.train import train

    s = check_seed(seed)
    losses: list[float] = []
    for k, (task, steps, batch) in enumerate(phases):
        ph = _Phase(task, int_at_least(steps, "steps", 1), int_at_least(batch, "batch", 1))
        x, y = mqar_batch(ph.task, batch=ph.steps * ph.batch, seed=s * 1000 + k)
        res = train(model, [x, y, y >= ph.task.answer0], _loss, steps=ph.steps, lr=lr, batch_size=ph.batch, seed=s * 1000 + k,
                    eval_every=ph.steps, eval_fn=_no_eval)
        losses += res.losses
    return losses


def _no_eval(model: Any) -> float:
    return 0.0


def mqar_accuracy(model: Any, task: MQARTask, x: Tensor, y: Tensor, *,
                  method: Callable[[Tensor, Tensor], BlockMask] | None, chunk: int = 16) -> dict[str, Any]:
    """Per sequence, the query tokens answered right (argmax over the whole vocabulary) with ``method``'s
    block-sparse prefill attention ([P30]; ``None``: full attention), and the mean block density."""
    correct, densities = [], []
    with torch.no_grad():
        for start in range(0, x.shape[0], chunk):
            xb, yb = x[start:start + chunk], y[start:start + chunk]
            with sparse_prefill(model, method) as log:
                pred = model(input_ids=xb).logits.argmax(dim=-1)
            correct += ((pred == yb) & (yb >= task.answer0)).sum(dim=1).tolist()
            densities += [d for _, d in log.densities]
    return {"correct": correct, "queries": (y >= task.answer0).sum(dim=1).tolist(),
            "density": float(sum(densities) / len(densities)) if densities else 1.0}


def task_key(task: MQARTask) -> dict[str, int]:
    """The task's fields (part of a cached checkpoint's key)."""
    return asdict(task)
