"""The misreporting heuristic with the plausibility check ([P13] §4, Alg. 1): what an unfaithful but transparent
provider bills."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.common.validation import int_array, int_at_least
from icml26.papers.token_pricing._plausible import check_sampling, plausibility
from icml26.papers.token_pricing._tokenizations import misreport, token_ids
from icml26.papers.token_pricing._vocab import vocabulary

__all__ = ["Overcharge", "overcharge"]


@dataclass(frozen=True)
class Overcharge:
    """The outcome of :func:`overcharge` ([P13] §4).

    Attributes:
        truthful: the generated tokens t.
        candidate: the heuristic's report t̃ after ``depth`` splits (the same string).
        plausible: whether every token of ``candidate`` lies in its top-p set at temperature T.
        billed: what the provider reports: ``candidate`` if plausible, else ``truthful`` (no suspicion raised).
        extra_tokens: len(billed) − len(truthful).
        forward_passes: model forward passes the heuristic ran (one: the check of ``candidate``).
        first_implausible: the index of the first token of ``candidate`` outside its top-p set (−1: none).
    """

    truthful: tuple[int, ...]
    candidate: tuple[int, ...]
    plausible: bool
    billed: tuple[int, ...]
    extra_tokens: int
    forward_passes: int
    first_implausible: int

    @property
    def overcharge(self) -> float:
        """extra_tokens / len(truthful): the fraction billed on top of the truthful count."""
        return self.extra_tokens / max(len(self.truthful), 1)


def overcharge(tokens: Sequence[int] | np.ndarray, model: Any, tokenizer: Any, *, depth: int, temperature: float,
               top_p: float, prompt: Sequence[int] | np.ndarray, strategy: str = "highest_id",
               seed: int = 0) -> Overcharge:
    """Misreport ``tokens`` by ``depth`` splits and keep the report only if it is plausible ([P13] §4, Alg. 1).

    The heuristic splits tokens into pairs of vocabulary tokens that stand for the same string
    (:func:`~icml26.papers.token_pricing.misreport`: the highest-id token first, or a random one), then runs
    ``model`` once over ``prompt + candidate`` and checks that every token lies in the top-p set at temperature T
    (:func:`~icml26.papers.token_pricing.plausibility`). A plausible candidate is billed; otherwise the provider
    bills the truthful tokens, so no report ever raises suspicion.

    Args:
        tokens: (L,) the tokens the model generated (the output only, no special tokens).
        model: the causal LM that generated them (any transformers ``*ForCausalLM``).
        tokenizer: its tokenizer (transformers, ``tokenizers``, tiktoken) or a prepared
            :class:`~icml26.papers.token_pricing.Vocabulary` (faster over many calls: its split table is kept).
        depth: splits m >= 0 before the check.
        temperature: the sampling temperature T the provider claims.
        top_p: the nucleus mass p in (0, 1] the provider claims.
        prompt: (P,) the token ids before the output (P >= 1).
        strategy: ``"highest_id"`` (the paper's) or ``"random"``.
        seed: seeds the ``"random"`` strategy.
    """
    vocab = vocabulary(tokenizer)
    seq = tuple(token_ids(tokens, vocab))
    depth = int_at_least(depth, "depth", 0)
    t, p = check_sampling(temperature, top_p)
    pr = int_array(prompt, "prompt", ndim=1)
    cand = misreport(seq, vocab, depth=depth, strategy=strategy, seed=seed)
    mask = plausibility(cand, model, prompt=pr, temperature=t, top_p=p)
    ok = bool(mask.all())
    bad = -1 if ok else int(np.argmin(mask))
    billed = cand if ok else seq
    return Overcharge(truthful=seq, candidate=cand, plausible=ok, billed=billed, extra_tokens=len(billed) - len(seq),
                      forward_passes=1, first_implausible=bad)
