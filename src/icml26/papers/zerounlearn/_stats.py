"""Retain statistics of [P27]: second moments of the MLP down-projection's inputs k and outputs v = W k over a retain
corpus (the paper: 100k Wikipedia samples; here any text the caller gives, e.g. Python's stdlib docstrings), and the
keys and values of a forget set at the subject's last token."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from icml26.common.validation import positive_int
from icml26.papers.zerounlearn._model import capture_at, check_layers, decoder_layers, down_proj, pad_rows
from icml26.papers.zerounlearn._prompts import Prompts

__all__ = ["RetainStats", "forget_keys", "residual_at", "retain_moments", "retain_statistics"]


@dataclass(frozen=True, eq=False)
class RetainStats:
    """Mean second moments of one model's down-projections over a retain corpus [P27] (Sec. 3, Σ_KK and Σ_VK).

    Attributes:
        kk: layer -> E[k kᵀ] (m × m, float64), k the down-projection's input at one token.
        vk: layer -> E[v kᵀ] (d × m, float64), v = W k its output.
        tokens: how many token positions the means are over.
    """

    kk: dict[int, Tensor]
    vk: dict[int, Tensor]
    tokens: int

    @property
    def layers(self) -> tuple[int, ...]:
        return tuple(sorted(self.kk))


def retain_moments(model: Any, rows: Sequence[Sequence[int]], *, layers: Sequence[int], pad_id: int,
                   batch: int = 8) -> RetainStats:
    """[P27] (Sec. 3): :class:`RetainStats` from token-id rows (each row one passage; padding is left out of the means)."""
    lays = check_layers(model, layers)
    dec = decoder_layers(model)
    if not rows:
        raise ValueError("rows (the retain corpus) must hold at least one passage")
    kk: dict[int, Tensor] = {}
    vk: dict[int, Tensor] = {}
    n = 0
    for i in range(0, len(rows), batch):
        ids, mask = pad_rows(rows[i:i + batch], pad_id)
        got = capture_at(model, ids, mask, {str(lay): down_proj(model, lay) for lay in lays}, stop=dec[lays[-1]])
        on = mask.bool()
        n += int(on.sum())
        for lay in lays:
            k, v = (x[on].double() for x in got[str(lay)])
            kk[lay] = kk.get(lay, 0) + k.T @ k  # type: ignore[operator]
            vk[lay] = vk.get(lay, 0) + v.T @ k  # type: ignore[operator]
    return RetainStats({lay: kk[lay] / n for lay in lays}, {lay: vk[lay] / n for lay in lays}, n)


def retain_statistics(model: Any, tokenizer: Any, texts: Sequence[str], *, layers: Sequence[int],
                      max_length: int = 128, batch: int = 8) -> RetainStats:
    """E[k kᵀ] and E[v kᵀ] of each edited layer's down-projection over ``texts`` [P27] (Sec. 3: the retain term).

    Each text is tokenised (cut at ``max_length`` tokens) and run through the model up to the last of ``layers``;
    the means are over every token position. The paper weights these moments by λ_w = 15000 in the edit.
    """
    if isinstance(texts, str) or not isinstance(texts, Sequence) or not texts:
        raise ValueError("texts must be a non-empty sequence of strings (the retain corpus)")
    if not all(isinstance(t, str) and t.strip() for t in texts):
        raise TypeError("texts must hold non-empty strings")
    max_length = positive_int(max_length, "max_length")
    batch = positive_int(batch, "batch")
    rows = [tuple(tokenizer(t, truncation=True, max_length=max_length)["input_ids"]) for t in texts]
    pid = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    return retain_moments(model, [r for r in rows if r], layers=layers, pad_id=int(pid or 0), batch=batch)


def _at_lookup(model: Any, prompts: Prompts, rows: Sequence[Any], modules: dict[str, Any], stop: Any
               ) -> dict[str, tuple[Tensor, Tensor]]:
    ids, mask = pad_rows([r.ids for r in rows], prompts.pad_id)
    got = capture_at(model, ids, mask, modules, stop=stop)
    r = torch.arange(len(rows))
    pos = torch.tensor([row.lookup for row in rows])
    return {k: (a[r, pos], b[r, pos]) for k, (a, b) in got.items()}


def forget_keys(model: Any, prompts: Prompts, layer: int) -> tuple[Tensor, Tensor]:
    """[P27] (Sec. 3) forget keys: K_f (n × m) and V_f (n × d): the down-projection's input and output of ``layer`` at each fact's subject, each
    averaged over the fact's context templates (MEMIT's ``compute_ks``), float64."""
    proj = down_proj(model, layer)
    got = _at_lookup(model, prompts, prompts.rewrite, {"w": proj}, stop=decoder_layers(model)[layer])
    k, v = got["w"]
    c = len(prompts.contexts)
    return (k.double().reshape(len(prompts), c, -1).mean(1), v.double().reshape(len(prompts), c, -1).mean(1))


def residual_at(model: Any, prompts: Prompts, layer: int) -> Tensor:
    """h^l (n × d, float64): decoder layer ``layer``'s output at the subject's last token of each plain prompt."""
    block = decoder_layers(model)[layer]
    return _at_lookup(model, prompts, prompts.plain, {"h": block}, stop=block)["h"][1].double()
