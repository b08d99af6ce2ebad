"""How [P27] is measured: whether the model's greedy answer to a prompt is the fact's answer (top-1 of every answer
token, teacher-forced: the efficacy, generalisation and specificity metrics), whether its next token is EOS, and
the perplexity of held-out text. The probes cache the forward pass below the first edited layer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from icml26.common.validation import positive_int
from icml26.papers.zerounlearn._model import Stack, decoder_layers, pad_rows

__all__ = ["AnswerProbe", "TextProbe", "knows"]


def _pad_id(tokenizer: Any) -> int:
    pid = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    return int(pid if pid is not None else 0)


class AnswerProbe:
    """(prompt, answer) pairs scored by teacher forcing, the forward pass below layer ``start`` computed once.

    Rows are sorted by length and cut into chunks of ``chunk`` rows (little padding); results come back in the
    order given. Valid while no parameter below ``start`` changes.
    """

    def __init__(self, model: Any, tokenizer: Any, prompts: Sequence[str], answers: Sequence[str], *, start: int,
                 chunk: int = 64) -> None:
        if len(prompts) != len(answers) or not prompts:
            raise ValueError(f"prompts and answers must be non-empty and of one length, got {len(prompts)} and "
                             f"{len(answers)}")
        rows, spans = [], []
        for p, a in zip(prompts, answers):
            pi = list(tokenizer(p)["input_ids"])
            ai = list(tokenizer(a, add_special_tokens=False)["input_ids"])
            if not pi or not ai:
                raise ValueError(f"prompt {p!r} or answer {a!r} tokenises to nothing")
            rows.append(pi + ai)
            spans.append((len(pi), len(ai)))
        self.n = len(rows)
        self.eos = tokenizer.eos_token_id
        order = sorted(range(self.n), key=lambda i: len(rows[i]))
        self.chunks = []
        with torch.no_grad():
            for c in range(0, self.n, chunk):
                idx = order[c:c + chunk]
                ids, mask = pad_rows([rows[i] for i in idx], _pad_id(tokenizer))
                self.chunks.append((idx, Stack(model, ids, mask, start), [spans[i] for i in idx], ids))

    @torch.no_grad()
    def score(self) -> tuple[np.ndarray, np.ndarray]:
        """(known, eos): every answer token is the argmax given what precedes it; the first predicted token is EOS."""
        known = np.zeros(self.n, dtype=bool)
        eos = np.zeros(self.n, dtype=bool)
        for idx, stack, spans, ids in self.chunks:
            final = stack.run()
            row = torch.tensor([j for j, (p, a) in enumerate(spans) for _ in range(a)])
            pos = torch.tensor([p - 1 + k for p, a in spans for k in range(a)])
            pred = stack.logits(final, row, pos).argmax(-1)
            hit = (pred == ids[row, pos + 1]).tolist()
            first = pred[torch.tensor([sum(a for _, a in spans[:j]) for j in range(len(spans))])].tolist()
            at = 0
            for j, (i, (_, a)) in enumerate(zip(idx, spans)):
                known[i] = all(hit[at:at + a])
                eos[i] = self.eos is not None and first[j] == self.eos
                at += a
        return known, eos


class TextProbe:
    """Per-passage next-token NLL of held-out token rows, the forward pass below layer ``start`` computed once."""

    def __init__(self, model: Any, rows: Sequence[Sequence[int]], *, start: int, pad_id: int, batch: int = 8) -> None:
        if not rows or any(len(r) < 2 for r in rows):
            raise ValueError("held-out passages need at least two tokens each")
        self.batches = []
        with torch.no_grad():
            for b in range(0, len(rows), batch):
                ids, mask = pad_rows(rows[b:b + batch], pad_id)
                self.batches.append((Stack(model, ids, mask, start), ids, mask))

    @torch.no_grad()
    def nll(self) -> tuple[np.ndarray, np.ndarray]:
        """(summed NLL in nats, number of predicted tokens) per passage."""
        sums, counts = [], []
        for stack, ids, mask in self.batches:
            final = stack.run()
            logits = stack.model.get_output_embeddings()(final[:, :-1]).float()
            lp = torch.log_softmax(logits, dim=-1).gather(2, ids[:, 1:, None]).squeeze(2)
            on = mask[:, 1:].bool()
            sums.extend((-(lp * on)).sum(1).double().tolist())
            counts.extend(on.sum(1).tolist())
        return np.array(sums), np.array(counts)


def knows(model: Any, tokenizer: Any, prompts: Sequence[str], answers: Sequence[str], *, batch: int = 32
          ) -> np.ndarray:
    """Whether the model's greedy continuation of each prompt starts with its answer ([P27]: the top-1 metric behind
    efficacy, generalisation and specificity): every answer token is the argmax given the prompt and the answer
    tokens before it (one teacher-forced pass). Returns a bool array, one entry per prompt."""
    decoder_layers(model)
    if isinstance(prompts, str) or isinstance(answers, str):
        raise TypeError("prompts and answers must be sequences of strings, not one string")
    if not all(isinstance(x, str) for x in (*prompts, *answers)):
        raise TypeError("prompts and answers must hold strings")
    batch = positive_int(batch, "batch")
    return AnswerProbe(model, tokenizer, list(prompts), list(answers), start=0, chunk=batch).score()[0]
