"""Training and evaluating the tiny reasoning model of the [P11] reproduction: SFT / QAT / SEM steps through
:func:`icml26.common.train.train`, and answer accuracy of sampled traces (temperature 0.6, top-p 0.95, the paper's
decoding for reasoning models)."""

from __future__ import annotations

import copy
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.common.train import train
from icml26.papers.reqat._sem import sem_loss
from icml26.papers.reqat._traces import VOCAB, Problem, TraceData, decode, encode

__all__ = ["accuracy", "fit", "sample", "tiny_reasoner"]

_EOS = VOCAB.index("\n")


def tiny_reasoner(*, d_model: int, n_layer: int, n_head: int, block_size: int, seed: int) -> TinyGPT:
    """The tiny reasoning model of the [P11] reproduction: a RoPE / RMSNorm / SwiGLU TinyGPT over the 16-token trace vocabulary."""
    cfg = GPTConfig(vocab_size=len(VOCAB), block_size=block_size, n_layer=n_layer, n_head=n_head, d_model=d_model,
                    norm="rmsnorm", mlp="swiglu", pos="rope", tie_weights=True)
    return TinyGPT(cfg, seed=seed)


def _constant(_model: nn.Module) -> float:
    return 0.0


def fit(model: nn.Module, data: TraceData, *, steps: int, lr: float, batch_size: int, seed: int,
        sem_lambda: float = 0.0) -> float:
    """``steps`` AdamW steps of the SFT loss (plus SEM with weight ``sem_lambda``, [P11] §2) on ``data``'s
    completion tokens; the model may be fake-quantised (QAT through the straight-through estimator). Returns the
    mean training loss of the last tenth of the steps."""
    if steps == 0:
        return float("nan")

    def loss_fn(m: nn.Module, x: Tensor, y: Tensor, mask: Tensor) -> Tensor:
        return sem_loss(m(x), y, mask, lam=sem_lambda)

    res = train(model, [data.x, data.y, data.mask], loss_fn, steps=steps, lr=lr, batch_size=batch_size, seed=seed,
                weight_decay=0.0, eval_every=steps, eval_fn=_constant)
    tail = res.losses[-max(1, steps // 10):]
    return float(sum(tail) / len(tail))


def _top_p(probs: Tensor, top_p: float) -> Tensor:
    """Nucleus filtering: keep the smallest set of tokens whose mass reaches ``top_p``, renormalised."""
    sorted_p, order = probs.sort(dim=-1, descending=True)
    keep = (sorted_p.cumsum(-1) - sorted_p) < top_p
    sorted_p = torch.where(keep, sorted_p, torch.zeros_like(sorted_p))
    out = torch.zeros_like(probs).scatter(-1, order, sorted_p)
    return out / out.sum(-1, keepdim=True)


@torch.no_grad()
def sample(model: nn.Module, prompts: Tensor, *, max_len: int, temperature: float, top_p: float,
           generator: torch.Generator) -> Tensor:
    """Sampled continuations of equal-length ``prompts`` (B, P) up to ``max_len`` tokens in all; after the
    end-of-trace token a row only repeats it. ``temperature = 0`` is greedy decoding."""
    model.eval()
    max_new = max_len - prompts.shape[1]
    seq = prompts
    done = torch.zeros(prompts.shape[0], dtype=torch.bool)
    out = []
    for _ in range(max_new):
        logits = model(seq)[:, -1].float()
        if temperature == 0:
            nxt = logits.argmax(-1)
        else:
            probs = _top_p(torch.softmax(logits / temperature, dim=-1), top_p)
            nxt = torch.multinomial(probs, 1, generator=generator)[:, 0]
        nxt = torch.where(done, torch.full_like(nxt, _EOS), nxt)
        out.append(nxt)
        done |= nxt == _EOS
        seq = torch.cat([seq, nxt[:, None]], dim=1)
        if bool(done.all()):
            break
    return torch.stack(out, dim=1)


def _answer(text: str) -> int | None:
    """The number after the last ``A`` up to the end of the trace, or None if there is none."""
    body = text.split("\n", 1)[0]
    if "A" not in body:
        return None
    digits = body.rsplit("A", 1)[1]
    return int(digits) if digits.isdigit() else None


def accuracy(model: nn.Module, problems: Sequence[Problem], *, samples: int, temperature: float, top_p: float,
             max_len: int, seed: int) -> list[float]:
    """[P11] evaluation: per problem, the share of ``samples`` sampled traces whose final answer is right (problems are batched by
    prompt length; one generator seeded with ``seed`` draws every sample)."""
    g = torch.Generator().manual_seed(seed)
    score = [0.0] * len(problems)
    by_len: dict[int, list[int]] = {}
    for i, p in enumerate(problems):
        by_len.setdefault(len(p.prompt), []).append(i)
    for _, idx in sorted(by_len.items()):
        prompts = torch.tensor([encode(problems[i].prompt) for i in idx], dtype=torch.long)
        for _ in range(samples):
            gen = sample(model, prompts, max_len=max_len, temperature=temperature, top_p=top_p, generator=g)
            for row, i in zip(gen.tolist(), idx):
                score[i] += float(_answer(decode(row)) == problems[i].answer) / samples
    return score


def clone(model: nn.Module) -> nn.Module:
    """A deep copy (independent parameters) of ``model``."""
    return copy.deepcopy(model)
