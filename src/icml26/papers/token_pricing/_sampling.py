"""Generation with temperature and nucleus (top-p) sampling, batched over prompts and settings, with an explicit
``torch.Generator`` ([P13] §6: the outputs the provider bills; the top-p set is the one the plausibility check uses).

Rows of a batch are left-padded; position ids follow the attention mask, so each row sees what it would see alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from icml26.common.validation import positive_int
from icml26.common.validation import seed as check_seed
from icml26.papers.token_pricing._plausible import check_sampling, forward_padded, model_device

__all__ = ["chat_prompt", "sample_outputs"]


def chat_prompt(tokenizer: Any, user: str, system: str) -> list[int]:
    """The token ids a chat model reads before answering ``user`` ([P13] §6: the prompt before the billed output;
    its chat template, plain text without one)."""
    if getattr(tokenizer, "chat_template", None):
        msgs = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        text = tokenizer.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
        return list(tokenizer(text, add_special_tokens=False)["input_ids"])
    bos = [tokenizer.bos_token_id] if getattr(tokenizer, "bos_token_id", None) is not None else []
    return bos + list(tokenizer(f"{system}\n\n{user}\n\n", add_special_tokens=False)["input_ids"])


def _sample(logits: Any, temps: Any, tops: Any, g: Any, *, head: int = 512) -> Any:
    """One token per row from its top-p set at its temperature (ties: lower id first, as in the check).

    The set is read off the ``head`` most probable tokens when they hold mass >= p (almost always); a row whose set
    is larger is sorted in full.
    """
    import torch

    probs = torch.softmax(logits.double() / temps[:, None], dim=-1)
    k = min(head, probs.shape[-1])
    vals, idx = torch.topk(probs, k, dim=-1)
    wide = (vals.sum(-1) < tops).nonzero().flatten().tolist()
    if wide:  # the nucleus does not fit in the head: these rows are sorted in full
        sp, order = torch.sort(probs[wide], dim=-1, descending=True, stable=True)
        vals, idx = vals.clone(), idx.clone()
        full_vals, full_idx = sp, order
    keep = (torch.cumsum(vals, dim=-1) - vals) < tops[:, None]
    pick = torch.multinomial(torch.where(keep, vals, torch.zeros_like(vals)), 1, generator=g)[:, 0]
    out = idx.gather(-1, pick[:, None])[:, 0]
    for j, r in enumerate(wide):
        kf = (torch.cumsum(full_vals[j], -1) - full_vals[j]) < tops[r]
        w = torch.where(kf, full_vals[j], torch.zeros_like(full_vals[j]))
        out[r] = full_idx[j, torch.multinomial(w, 1, generator=g)[0]]
    return out


def _batch(model: Any, prompts: Sequence[Sequence[int]], temps: Sequence[float], tops: Sequence[float], *,
           max_new_tokens: int, stop: set[int], pad: int, g: Any) -> list[list[int]]:
    import torch

    dev = model_device(model)
    width = max(len(p) for p in prompts)
    ids = torch.tensor([[pad] * (width - len(p)) + list(p) for p in prompts], device=dev)
    mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts], device=dev)
    t = torch.tensor(list(temps), dtype=torch.float64, device=dev)
    q = torch.tensor(list(tops), dtype=torch.float64, device=dev)
    logits, cache = forward_padded(model, ids, mask, None)
    out: list[list[int]] = [[] for _ in prompts]
    done = [False] * len(prompts)
    for _ in range(max_new_tokens):
        nxt = _sample(logits[:, -1], t, q, g)
        for i, tok in enumerate(nxt.tolist()):
            if not done[i]:
                if tok in stop:
                    done[i] = True
                else:
                    out[i].append(int(tok))
        if all(done):
            break
        mask = torch.cat([mask, torch.ones_like(mask[:, :1])], dim=1)
        logits, cache = forward_padded(model, nxt[:, None], mask, cache)
    return out


def sample_outputs(model: Any, prompts: Sequence[Sequence[int]], *, temperatures: Sequence[float],
                   top_ps: Sequence[float], max_new_tokens: int, stop_ids: Sequence[int], seed: int,
                   batch: int = 32) -> list[list[int]]:
    """Sample one output per row ([P13] §6: top-p sampling at temperature T, the generative process the plausibility
    check assumes): ``prompts[i]`` at ``temperatures[i]``, ``top_ps[i]`` (stop tokens dropped).

    Rows are run ``batch`` at a time in the given order from one ``torch.Generator`` seeded with ``seed``.
    """
    import torch

    if not (len(prompts) == len(temperatures) == len(top_ps)):
        raise ValueError("prompts, temperatures and top_ps must have one entry per row")
    for t, p in zip(temperatures, top_ps, strict=True):
        check_sampling(t, p)
    if any(len(p) == 0 for p in prompts):
        raise ValueError("prompts must each hold at least one token id")
    max_new_tokens = positive_int(max_new_tokens, "max_new_tokens")
    batch = positive_int(batch, "batch")
    seed = check_seed(seed)
    g = torch.Generator(device=model_device(model)).manual_seed(int(seed))
    stop = {int(s) for s in stop_ids}
    pad = min(stop) if stop else 0
    out: list[list[int]] = []
    for i in range(0, len(prompts), batch):
        out += _batch(model, prompts[i:i + batch], temperatures[i:i + batch], top_ps[i:i + batch],
                      max_new_tokens=max_new_tokens, stop=stop, pad=pad, g=g)
    return out
