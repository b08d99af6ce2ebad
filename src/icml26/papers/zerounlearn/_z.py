"""The value search of [P27] (ROME/MEMIT's ``compute_z``): the vector a layer should output at the subject's last
token so that the model continues each forget prompt with a given target.

One additive vector δ_i per fact is optimised with Adam on the output of one module (a decoder layer's residual
stream for the neutral target, the MLP down-projection for the true answer); all facts run in one batch, each with
its own early stop, and only the layers from the edited one on are re-run at each step (:class:`._model.Stack`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor, nn

from icml26.common.validation import choice, positive_int, real
from icml26.papers.zerounlearn._model import Stack, decoder_layers, down_proj, frozen, pad_rows
from icml26.papers.zerounlearn._prompts import Prompts, Row, target_ids

__all__ = ["SITES", "ZResult", "check_prompts", "compute_z"]

#: where the vector is read and written: a decoder layer's output (the residual stream h^l) or its MLP down-projection
SITES = ("block", "mlp")


@dataclass(frozen=True)
class ZResult:
    """What :func:`compute_z` found [P27] (Sec. 3).

    Attributes:
        z: ``(n, d)`` the target vectors ``z_i = v_i + δ_i`` (float32).
        init: ``(n, d)`` the module's output ``v_i`` at the subject's last token of fact ``i``'s first prompt.
        loss: ``(n,)`` the objective of each fact when its search stopped.
        steps: forward passes of each fact's search (at most ``steps``).
        passes: prompt rows run forward and backward in all (the search's compute budget).
    """

    z: Tensor
    init: Tensor
    loss: Tensor
    steps: tuple[int, ...]
    passes: int


def check_prompts(prompts: object) -> Prompts:
    if not isinstance(prompts, Prompts):
        raise TypeError(f"prompts must be Prompts (from make_prompts), got {type(prompts).__name__}")
    return prompts


def _hparams(steps: object, lr: object, clamp: object, kl: object, weight_decay: object, stop_loss: object
             ) -> tuple[int, float, float, float, float, float]:
    return (positive_int(steps, "steps"), real(lr, "lr", lo=0.0, lo_open=True),
            real(clamp, "clamp", lo=0.0, lo_open=True), real(kl, "kl", lo=0.0),
            real(weight_decay, "weight_decay", lo=0.0), real(stop_loss, "stop_loss", lo=0.0))


def _targets(prompts: Prompts, target: Any) -> tuple[list[Row], list[tuple[int, int, int]]]:
    """The rewriting rows extended by the target's teacher-forced prefix, and (row, position, token) to predict."""
    tgt = target_ids(prompts.tokenizer, target, len(prompts))
    rows, pred = [], []
    for j, r in enumerate(prompts.rewrite):
        t = tgt[r.fact]
        rows.append(Row(r.ids + t[:-1], r.lookup, r.fact))
        pred.extend((j, len(r.ids) - 1 + k, tok) for k, tok in enumerate(t))
    return rows, pred


@dataclass(frozen=True)
class _Batch:
    """Every row of one search in one padded batch: rewriting rows first (``n_ctx`` per fact), then KL rows."""

    stack: Stack
    fact: Tensor  # (R,) the fact of each row
    lookup: Tensor  # (R,) the subject's last token in each row
    pred: Tensor  # (P, 3) (row, position, token) of every target token to predict
    kl_row: Tensor  # (n,) each fact's KL row
    first: Tensor  # (n,) each fact's first rewriting row
    n: int


def _batch(model: Any, prompts: Prompts, target: Any, layer: int) -> _Batch:
    rows, pred = _targets(prompts, target)
    n_rw = len(rows)
    rows += list(prompts.kl)
    ids, mask = pad_rows([r.ids for r in rows], prompts.pad_id)
    n = len(prompts)
    return _Batch(Stack(model, ids, mask, layer), torch.tensor([r.fact for r in rows]),
                  torch.tensor([r.lookup for r in rows]), torch.tensor(pred, dtype=torch.long),
                  torch.arange(n) + n_rw, torch.arange(n) * len(prompts.contexts), n)


class _Adder:
    """A forward hook adding δ[fact of row] at each selected row's lookup position of a module's output."""

    def __init__(self, delta: Tensor, b: _Batch) -> None:
        self.delta, self.b = delta, b
        self.sel = torch.arange(b.fact.numel())
        self.seen = torch.empty(0)

    def __call__(self, module: nn.Module, inp: tuple[Any, ...], out: Any) -> Any:
        o = out[0] if isinstance(out, tuple) else out
        r = torch.arange(self.sel.numel())
        pos = self.b.lookup[self.sel]
        self.seen = o[r, pos].detach()
        o = o + torch.zeros_like(o).index_put((r, pos), self.delta[self.b.fact[self.sel]])
        return (o, *out[1:]) if isinstance(out, tuple) else o


def _losses(b: _Batch, final: Tensor, sel: Tensor, facts: Tensor) -> tuple[Tensor, Tensor]:
    """Mean NLL of the target per active fact (over its rows' target tokens) and the KL rows' log-probabilities."""
    local = torch.full((b.fact.numel(),), -1, dtype=torch.long)
    local[sel] = torch.arange(sel.numel())
    slot = torch.full((b.n,), -1, dtype=torch.long)
    slot[facts] = torch.arange(facts.numel())
    p = b.pred[local[b.pred[:, 0]] >= 0]
    logp = torch.log_softmax(b.stack.logits(final, local[p[:, 0]], p[:, 1]).float(), dim=-1)
    tok_nll = -logp.gather(1, p[:, 2:3]).squeeze(1)
    owner = slot[b.fact[p[:, 0]]]
    total = torch.zeros(facts.numel()).index_add(0, owner, tok_nll)
    count = torch.zeros(facts.numel()).index_add(0, owner, torch.ones_like(tok_nll))
    kr = b.kl_row[facts]
    kl_logp = torch.log_softmax(b.stack.logits(final, local[kr], b.lookup[kr]).float(), dim=-1)
    return total / count, kl_logp


def _loop(b: _Batch, adder: _Adder, delta: Tensor, *, steps: int, lr: float, clamp: float, kl: float,
          weight_decay: float, stop_loss: float) -> ZResult:
    opt = torch.optim.Adam([delta], lr=lr)
    active = torch.ones(b.n, dtype=torch.bool)
    loss_now = torch.zeros(b.n)
    taken = torch.zeros(b.n, dtype=torch.long)
    init = kl_init = torch.empty(0)
    passes = 0
    for it in range(steps):
        facts = active.nonzero().squeeze(1)
        sel = active[b.fact].nonzero().squeeze(1)
        adder.sel = sel
        final = b.stack.run(rows=sel)
        passes += int(sel.numel())
        if it == 0:  # every row is selected: local rows are the global ones
            init = adder.seen[b.first]
        nll, kl_logp = _losses(b, final, sel, facts)
        if it == 0:
            kl_init = kl_logp.detach()
        kl_term = (kl_logp.exp() * (kl_logp - kl_init[facts])).sum(-1)  # KL(p_δ ‖ p_0) on "{s} is a"
        decay = weight_decay * delta[facts].norm(dim=1) / init[facts].norm(dim=1).clamp_min(1e-12) ** 2
        loss = nll + kl * kl_term + decay
        loss_now[facts] = loss.detach()
        taken[facts] += 1
        done = loss.detach() < stop_loss
        if it == steps - 1:
            break
        active[facts[done]] = False
        if not bool(active.any()):
            break
        keep = delta.detach().clone()
        opt.zero_grad()
        loss[~done].sum().backward()
        opt.step()
        with torch.no_grad():
            delta[~active] = keep[~active]  # a stopped fact keeps its vector (Adam's momentum would move it)
            limit = clamp * init.norm(dim=1)
            norm = delta.norm(dim=1).clamp_min(1e-12)
            delta.mul_(torch.where(norm > limit, limit / norm, torch.ones_like(norm))[:, None])
    return ZResult((init + delta.detach()).float(), init.float(), loss_now, tuple(int(t) for t in taken), passes)


def _search(model: Any, prompts: Prompts, target: Any, *, layer: int, site: str, **hp: Any) -> ZResult:
    layers = decoder_layers(model)
    module = layers[layer] if site == "block" else down_proj(model, layer)
    with frozen(model):
        b = _batch(model, prompts, target, layer)
        delta = torch.zeros(b.n, b.stack.hidden.shape[-1], requires_grad=True)
        adder = _Adder(delta, b)
        handle = module.register_forward_hook(adder)
        try:
            return _loop(b, adder, delta, **hp)
        finally:
            handle.remove()


def compute_z(model: Any, prompts: Prompts, target: str | list[str], *, layer: int, site: str = "block",
              steps: int = 25, lr: float = 0.1, clamp: float = 0.75, kl: float = 0.0625, weight_decay: float = 0.5,
              stop_loss: float = 0.05) -> ZResult:
    """Target vectors at one module so that the model continues each forget prompt with ``target`` [P27] (Sec. 3).

    For fact i with prompts x_ij (its prompt in every context template), Adam minimises over δ_i
        mean_j NLL(target_i | x_ij; v_ij + δ_i) + kl · KL(p(· | "{s} is a"; δ_i) ‖ p(· | "{s} is a"))
        + weight_decay · ‖δ_i‖ / ‖v_i‖²,
    with ‖δ_i‖ projected onto the ball of radius ``clamp`` · ‖v_i‖ after each step, where v_ij is the module's
    output at the subject's last token; a fact whose objective is below ``stop_loss`` stops. This is ROME/MEMIT's
    ``compute_z``, which [P27] runs twice: at the last edited layer's residual stream with the neutral target (EOS),
    and at each edited layer's down-projection with the true answer (the sensitive directions Z_true).

    Args:
        model: a Llama-style transformers causal LM (not modified).
        prompts: the forget set from :func:`make_prompts`.
        target: one continuation for every fact (e.g. ``tokenizer.eos_token``) or one per fact (the answers).
        layer: the decoder layer whose output or down-projection is searched.
        site: ``"block"`` (the decoder layer's output, the residual stream) or ``"mlp"`` (its down-projection).
        steps: Adam steps (the paper: 25).
        lr: Adam's learning rate (0.1).
        clamp: ‖δ‖ <= clamp · ‖v‖ (0.75).
        kl: the KL weight (0.0625).
        weight_decay: the weight of ‖δ‖ / ‖v‖² (0.5).
        stop_loss: a fact's search ends once its objective is below this (0.05).
    """
    prompts = check_prompts(prompts)
    layers = decoder_layers(model)
    if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer < len(layers):
        raise ValueError(f"layer must be a decoder layer index in [0, {len(layers)}), got {layer!r}")
    site = choice(site, "site", list(SITES))
    steps, lr, clamp, kl, weight_decay, stop_loss = _hparams(steps, lr, clamp, kl, weight_decay, stop_loss)
    return _search(model, prompts, target, layer=layer, site=site, steps=steps, lr=lr, clamp=clamp, kl=kl,
                   weight_decay=weight_decay, stop_loss=stop_loss)
