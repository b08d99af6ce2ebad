"""The small policy of our [P25] reproduction and the log-probabilities of step segments.

Training treats every step of a trajectory as a segment ``context ⊕ output`` whose output tokens are trained (a
Fold step's context is its folded context; an Unfold trajectory's steps nest, so it is one segment with every
output token trained: the same terms). :func:`segment_logprobs` runs the segments through the model, right-padded
and bucketed by length so that short Fold segments do not pay for long Unfold ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor
from torch.nn import functional as F

from icml26.common import validation
from icml26.common.nn import GPTConfig, TinyGPT
from icml26.papers.accordion._trace import Trajectory

__all__ = ["PolicySpec", "Segment", "make_policy", "segment_logprobs", "segments_of"]

POSITIONS = ("learned", "rope")


@dataclass(frozen=True)
class PolicySpec:
    """The TinyGPT of the [P25] reproduction (every field is part of a checkpoint's cache key)."""

    n_layer: int = 2
    n_head: int = 4
    d_model: int = 64
    pos: str = "learned"

    def __post_init__(self) -> None:
        for name in ("n_layer", "n_head", "d_model"):
            validation.positive_int(getattr(self, name), name)
        validation.choice(self.pos, "pos", POSITIONS)


def make_policy(spec: PolicySpec, *, vocab_size: int, block_size: int, seed: int) -> TinyGPT:
    """A fresh TinyGPT for the [P25] reproduction (pre-norm, GELU MLP, tied embeddings), initialised from ``seed``."""
    cfg = GPTConfig(vocab_size=validation.positive_int(vocab_size, "vocab_size"),
                    block_size=validation.positive_int(block_size, "block_size"), n_layer=spec.n_layer,
                    n_head=spec.n_head, d_model=spec.d_model, pos=spec.pos)
    return TinyGPT(cfg, seed=validation.seed(seed))


@dataclass(frozen=True)
class Segment:
    """A [P25] training segment: tokens ``context ⊕ output`` with ``n_context`` leading context tokens; the output
    tokens are trained (one per Fold step, one per Unfold trajectory)."""

    tokens: tuple[int, ...]
    n_context: int


def segments_of(trajectory: Trajectory) -> list[Segment]:
    """The training segments of a [P25] trajectory: one per Fold step, one for a whole Unfold trajectory (steps that
    generated nothing have nothing to train)."""
    if trajectory.mode == "unfold":
        last = trajectory.records[-1]
        toks = last.context + last.step.tokens
        return [Segment(toks, len(trajectory.prompt))] if len(toks) > len(trajectory.prompt) else []
    return [Segment(r.context + r.step.tokens, len(r.context)) for r in trajectory.records if r.step.tokens]


def _buckets(lengths: Sequence[int], max_tokens: int) -> list[list[int]]:
    """Indices grouped by length (longest first) into batches of at most ``max_tokens`` padded tokens."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    out: list[list[int]] = []
    for i in order:
        if out and (len(out[-1]) + 1) * lengths[out[-1][0]] <= max_tokens:
            out[-1].append(i)
        else:
            out.append([i])
    return out


def segment_logprobs(model: torch.nn.Module, segments: Sequence[Segment], *, pad: int, max_tokens: int = 8192
                     ) -> list[tuple[list[int], Tensor, Tensor]]:
    """Per bucket of segments: ``(indices, logp (n, T-1), mask (n, T-1))``, where ``logp[r, t]`` is the log-probability
    of token ``t + 1`` of segment ``indices[r]`` and ``mask`` marks its output tokens ([P25]: every step segment is
    trained). ``model(ids)`` returns logits (a TinyGPT) or an object with ``.logits`` (a transformers causal LM).
    Gradients flow (call under ``torch.no_grad()`` for the sampling policy's values)."""
    out = []
    for idx in _buckets([len(segments[i].tokens) for i in idx_all(segments)], max_tokens):
        T = len(segments[idx[0]].tokens)
        toks = torch.full((len(idx), T), pad, dtype=torch.long)
        mask = torch.zeros(len(idx), T - 1)
        for r, i in enumerate(idx):
            s = segments[i]
            toks[r, : len(s.tokens)] = torch.tensor(s.tokens)
            mask[r, s.n_context - 1: len(s.tokens) - 1] = 1.0
        res = model(toks[:, :-1])
        logits = res.logits if hasattr(res, "logits") else res  # a transformers model returns an output object
        logp = F.log_softmax(logits, dim=-1).gather(-1, toks[:, 1:, None])[..., 0]
        out.append((idx, logp, mask))
    return out


def idx_all(segments: Sequence[Segment]) -> range:
    """``range(len(segments))``, refusing an empty list or a segment without output tokens."""
    if not segments:
        raise ValueError("segments must not be empty")
    for i, s in enumerate(segments):
        if not 1 <= s.n_context < len(s.tokens):
            raise ValueError(f"segments[{i}] needs 1 <= n_context < len(tokens), got {s.n_context}, {len(s.tokens)}")
    return range(len(segments))
