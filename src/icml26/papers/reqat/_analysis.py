"""The token-level analysis of [P11] (§2 of the notes, "Analysis") for a transformers causal LM: where does FP4
quantisation change the next-token distribution, measured against the full-precision model on the same text.

Per position t with full-precision distribution p_t and quantised q_t: the entropy H(p_t), KL(p_t ‖ q_t), the
top-1 mismatch, and the tail mass M = 1 − P(top-1 of p) under each model, whose ratio ρ_t = (M_q + ε) / (M_p + ε) is
the paper's measure of sampling errors (ρ ≫ 1: quantisation moves mass off a token the full-precision model was sure
of). Our text: few-shot lines ``a + b = c`` (:func:`arithmetic_documents`); an answer is right under greedy decoding
iff every answer token and the line's end are the argmax given the correct prefix (teacher forcing gives exactly the
greedy verdict, line by line).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

__all__ = ["ArithDoc", "arithmetic_documents", "encode_documents", "token_stats"]


@dataclass(frozen=True)
class ArithDoc:
    """A few-shot document of addition lines ``a + b = c``."""

    pairs: tuple[tuple[int, int], ...]

    @property
    def text(self) -> str:
        return "".join(f"{a} + {b} = {a + b}\n" for a, b in self.pairs)


def arithmetic_documents(n: int, *, lines: int, seed: int, max_a: int = 19, max_b: int = 9) -> list[ArithDoc]:
    """``n`` documents of ``lines`` additions, a uniform in 1..max_a, b in 1..max_b (our prompts), from ``seed``."""
    g = np.random.default_rng(seed)
    return [ArithDoc(tuple((int(g.integers(1, max_a + 1)), int(g.integers(1, max_b + 1))) for _ in range(lines)))
            for _ in range(n)]


def _ids(tok: object, text: str) -> list[int]:
    out = getattr(tok, "__call__")(text, add_special_tokens=False)["input_ids"]
    return [int(i) for i in out]


def encode_documents(tok: object, docs: Sequence[ArithDoc], *, length: int, shots: int
                     ) -> tuple[Tensor, list[list[tuple[int, int]]]]:
    """Token ids (n_docs, length) and, per document, the answer spans [start, end) (the answer's tokens and the
    line's end) of the lines after the first ``shots`` that fit in ``length`` tokens. Each piece (question, answer,
    line end) is tokenised on its own, so the spans are exact for any tokenizer."""
    rows, spans = [], []
    nl = _ids(tok, "\n")
    for d in docs:
        ids: list[int] = []
        sp = []
        for i, (a, b) in enumerate(d.pairs):
            ids += _ids(tok, f"{a} + {b} =")
            start = len(ids)
            ids += _ids(tok, f" {a + b}") + nl
            if len(ids) > length:
                break
            if i >= shots:
                sp.append((start, len(ids)))
        if len(ids) < length:
            raise ValueError(f"a document has {len(ids)} tokens < length {length}: give it more lines")
        rows.append(ids[:length])
        spans.append(sp)
    return torch.tensor(rows, dtype=torch.long), spans


@torch.no_grad()
def logits_of(model: nn.Module, ids: Tensor, *, batch: int) -> list[Tensor]:
    """float32 log-probabilities (length − 1, vocab) of every document, next-token positions 0..length−2."""
    out = []
    for i in range(0, ids.shape[0], batch):
        lg = getattr(model(ids[i:i + batch]), "logits").float()
        out.extend(F.log_softmax(lg[:, :-1], dim=-1).unbind(0))
    return out


def token_stats(ref: Tensor, test: Tensor, targets: Tensor, spans: Sequence[tuple[int, int]], *,
                eps: float = 1e-3) -> dict[str, np.ndarray]:
    """Per position of one document ([P11] analysis): ``entropy`` H(p), ``kl`` KL(p ‖ q), ``log_rho``
    log((M_q + ε)/(M_p + ε)), ``flip`` (top-1 mismatch), ``answer`` (the position predicts an answer token), and per
    scored line ``correct_ref``/``correct_test`` (greedy answer right under p / q).

    ``ref``, ``test``: (T − 1, vocab) log-probabilities; ``targets``: (T,) the document's tokens.
    """
    p = ref.exp()
    top = ref.argmax(-1)
    ent = -(p * ref).sum(-1)
    kl = (p * (ref - test)).sum(-1).clamp(min=0.0)
    m_p = 1.0 - p.gather(-1, top[:, None])[:, 0]
    m_q = 1.0 - test.exp().gather(-1, top[:, None])[:, 0]
    log_rho = torch.log((m_q.clamp(min=0.0) + eps) / (m_p.clamp(min=0.0) + eps))
    answer = torch.zeros(ref.shape[0], dtype=torch.bool)
    ok_ref, ok_test = [], []
    pred_ref, pred_test = top, test.argmax(-1)
    for s, e in spans:
        pos = torch.arange(s - 1, e - 1)  # position t predicts token t + 1
        answer[pos] = True
        ok_ref.append(bool((pred_ref[pos] == targets[s:e]).all()))
        ok_test.append(bool((pred_test[pos] == targets[s:e]).all()))
    return {"entropy": ent.numpy(), "kl": kl.numpy(), "log_rho": log_rho.numpy(),
            "flip": (pred_test != top).numpy(), "answer": answer.numpy(),
            "correct_ref": np.array(ok_ref, dtype=bool), "correct_test": np.array(ok_test, dtype=bool)}
