"""Plausibility ([P13] §4, transparency): a reported sequence is plausible when every token lies in the top-p set
of the model's next-token distribution at temperature T, given the prompt and the tokens reported before it.

The top-p set is the smallest set of the most probable tokens whose probability reaches p: with the tokens sorted by
probability (ties: lower id first), a token is in it iff the mass of the tokens before it is < p. Probabilities are
softmax(logits / T) in float64.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from icml26.common.validation import int_array, real, real_array

__all__ = ["PrefixVerifier", "check_sampling", "forward", "forward_padded", "in_top_p", "model_device", "plausibility",
           "top_p_mask", "top_p_set"]


def check_sampling(temperature: object, top_p: object) -> tuple[float, float]:
    """Temperature T > 0 and nucleus mass p in (0, 1], as floats (errors name the argument)."""
    t = real(temperature, "temperature", lo=0.0, lo_open=True)
    p = real(top_p, "top_p", lo=0.0, hi=1.0, lo_open=True)
    return t, p


def _probs(logits: Any, temperature: float) -> Any:
    import torch

    return torch.softmax(logits.double() / temperature, dim=-1)


def top_p_mask(logits: Any, *, temperature: float, top_p: float) -> Any:
    """Torch bool mask (…, V) of the top-p set of each row of ``logits`` (see the module docstring)."""
    import torch

    probs = _probs(logits, temperature)
    sp, order = torch.sort(probs, dim=-1, descending=True, stable=True)
    keep = (torch.cumsum(sp, dim=-1) - sp) < top_p
    return torch.zeros_like(keep).scatter(-1, order, keep)


def in_top_p(logits: Any, tokens: Any, *, temperature: float, top_p: float) -> Any:
    """Torch bool (L,): whether ``tokens[i]`` is in the top-p set of ``logits[i]`` (L, V), without a sort."""
    import torch

    probs = _probs(logits, temperature)
    pt = probs.gather(-1, tokens[:, None])
    ids = torch.arange(probs.shape[-1], device=probs.device)
    before = (probs > pt) | ((probs == pt) & (ids[None, :] < tokens[:, None]))
    return (probs * before).sum(-1) < top_p


def top_p_set(logits: Any, *, temperature: float, top_p: float) -> np.ndarray:
    """The top-p set at temperature T as a bool mask over the vocabulary ([P13] §4, the sampling condition a
    plausible token meets; the set nucleus sampling draws from).

    Args:
        logits: (V,) or (L, V) real next-token logits (numpy or torch).
        temperature: T > 0; probabilities are softmax(logits / T).
        top_p: p in (0, 1]: the smallest set of most probable tokens (ties: lower id first) whose mass reaches p.
    """
    import torch

    t, p = check_sampling(temperature, top_p)
    x = logits.detach().cpu().numpy() if isinstance(logits, torch.Tensor) else logits
    a = real_array(x, "logits", ndim=(1, 2))
    return top_p_mask(torch.from_numpy(a), temperature=t, top_p=p).numpy()


def model_device(model: Any) -> Any:
    """The device of a torch model's first parameter (CPU for a model without parameters)."""
    import torch

    try:
        return next(model.parameters()).device
    except (StopIteration, AttributeError, TypeError):
        return torch.device("cpu")


def _cache_kw(model: Any) -> str:
    params = inspect.signature(model.forward).parameters
    return "cache" if "cache" in params else "past_key_values"


def forward(model: Any, ids: Any, cache: Any = None, *, keep_cache: bool = False) -> tuple[Any, Any]:
    """Logits (B, n, V) of ``model`` on ``ids`` (B, n) after ``cache``, and the updated cache (``keep_cache``)."""
    import torch

    kw: dict[str, Any] = {"use_cache": bool(keep_cache or cache is not None)}
    if cache is not None:
        kw[_cache_kw(model)] = cache
    with torch.no_grad():
        out = model(input_ids=ids, **kw)
    new = getattr(out, "cache", None) if hasattr(out, "cache") else getattr(out, "past_key_values", None)
    return out.logits, new


def forward_padded(model: Any, ids: Any, mask: Any, cache: Any) -> tuple[Any, Any]:
    """Logits and cache for left-padded rows: ``mask`` (B, n_total) marks real tokens; ``ids`` are the newest
    ``ids.shape[1]`` positions; position ids count real tokens only."""
    import torch

    pos = (mask.cumsum(-1) - 1).clamp(min=0)[:, -ids.shape[1]:]
    kw: dict[str, Any] = {"use_cache": True, "attention_mask": mask, "position_ids": pos}
    if "logits_to_keep" in inspect.signature(model.forward).parameters:
        kw["logits_to_keep"] = 1
    if cache is not None:
        kw[_cache_kw(model)] = cache
    with torch.no_grad():
        out = model(input_ids=ids, **kw)
    return out.logits, (getattr(out, "cache", None) if hasattr(out, "cache") else getattr(out, "past_key_values", None))


def _context(prompt: Any, tokens: Any) -> tuple[list[int], list[int]]:
    p = [int(t) for t in int_array(prompt, "prompt", ndim=1)]
    s = [int(t) for t in int_array(tokens, "tokens", ndim=1)]
    if min(p + s) < 0:
        raise ValueError("prompt and tokens must hold non-negative token ids")
    return p, s


def plausibility(tokens: Sequence[int] | np.ndarray, model: Any, *, prompt: Sequence[int] | np.ndarray,
                 temperature: float, top_p: float) -> np.ndarray:
    """Per-token plausibility of a reported sequence ([P13] §4): ``out[i]`` is whether ``tokens[i]`` lies in the
    top-p set at temperature T given ``prompt + tokens[:i]``. One forward pass of ``model`` (a causal LM returning
    ``.logits``, e.g. any transformers ``*ForCausalLM``). The report is plausible iff ``out.all()``.

    Args:
        tokens: (L,) the reported token ids (the output only).
        model: the causal LM that generated the output.
        prompt: (P,) the token ids before the output (P >= 1: the first output token needs a context).
        temperature: T > 0 of the sampling that is claimed.
        top_p: p in (0, 1] of the sampling that is claimed.
    """
    import torch

    t, p = check_sampling(temperature, top_p)
    pr, seq = _context(prompt, tokens)
    ids = torch.tensor([pr + seq], device=model_device(model))
    logits, _ = forward(model, ids)
    rows = logits[0, len(pr) - 1:len(pr) + len(seq) - 1]
    return in_top_p(rows, ids[0, len(pr):], temperature=t, top_p=p).cpu().numpy()


class PrefixVerifier:
    """Plausibility of many candidate reports of one output, reusing the truthful run ([P13] §4 check, fast path).

    The truthful sequence is run once and its KV cache kept; a candidate is checked from its first token that
    differs from the truthful one (the context before it is the same), in chunks, stopping at the first implausible
    token. Gives the same answers as :func:`plausibility`; ``evaluated`` counts the tokens it ran.
    """

    def __init__(self, model: Any, prompt: Sequence[int], truthful: Sequence[int], *, temperature: float,
                 top_p: float, chunk: int = 16) -> None:
        import torch

        self.model, self.t, self.p, self.chunk = model, float(temperature), float(top_p), int(chunk)
        self.prompt, self.truthful = [int(x) for x in prompt], [int(x) for x in truthful]
        if not self.prompt:
            raise ValueError("prompt must hold at least one token id")
        self.device = model_device(model)
        ids = torch.tensor([self.prompt + self.truthful], device=self.device)
        logits, self.cache = forward(model, ids, keep_cache=True)
        n = len(self.prompt)
        rows = logits[0, n - 1:n + len(self.truthful) - 1]
        self.mask = in_top_p(rows, ids[0, n:], temperature=self.t, top_p=self.p).cpu().numpy()
        self.evaluated = len(ids[0])

    def check(self, candidate: Sequence[int]) -> bool:
        """Whether every token of ``candidate`` (the same string, another tokenization) is in its top-p set."""
        import torch

        seq = [int(x) for x in candidate]
        q = next((i for i, (a, b) in enumerate(zip(seq, self.truthful)) if a != b), min(len(seq), len(self.truthful)))
        if not self.mask[:q].all():
            return False
        if q == len(seq):  # a prefix of the truthful sequence: every token was checked above
            return True
        n = len(self.prompt)
        full = self.prompt + seq
        cache = copy.deepcopy(self.cache)
        cache.crop(-(n + len(self.truthful) - (n + q - 1)))  # negative: tokens to drop (every transformers version)
        start = n + q - 1  # the logits at position i predict token i + 1
        while start < len(full) - 1:
            stop = min(start + self.chunk, len(full) - 1)
            logits, cache = forward(self.model, torch.tensor([full[start:stop]], device=self.device), cache)
            target = torch.tensor(full[start + 1:stop + 1], device=self.device)
            self.evaluated += stop - start
            if not bool(in_top_p(logits[0], target, temperature=self.t, top_p=self.p).all()):
                return False
            start = stop
        return True
