"""Anchored RL (ARL) of [P28]: RL on the rubric reward plus an SFT anchor on best-of-N samples, γ decayed 2.0 -> 0.2.

The paper runs PPO (KL-controlled, LoRA) with loss L_PPO + γ_t·L_SFT, where L_SFT is next-token cross-entropy on
the highest-reward of N generations per synthetic prompt. At toy scale we use group-relative REINFORCE (GRPO
advantages over G samples per prompt, :mod:`icml26.common.rl`) with a fixed-coefficient k3 KL penalty to the
starting model in place of PPO with an adaptive KL controller (our reconstruction). ``bon_sft`` is the anchor
without RL (best-of-N SFT only), an ablation of the paper's list of baselines. Everything here is post-processing of
the DP generator on DP synthetic rows: no privacy cost.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch

from icml26.common.nn import TinyGPT
from icml26.common.rl import grpo_advantages, kl_penalty, reinforce_loss
from icml26.common.validation import int_array, int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.actg._corpus import rubric_reward
from icml26.papers.actg._lm import PAD, Vocab, _masked_mean_nll, encode_pairs, generate, sequence_logprobs

__all__ = ["RLLog", "anchored_rl", "best_of_n", "bon_sft", "gamma_schedule"]


def gamma_schedule(step: int, steps: int, *, start: float = 2.0, end: float = 0.2) -> float:
    """[P28] ARL anchor weight γ_t: linear from ``start`` at step 0 to ``end`` at the last step."""
    steps = positive_int(steps, "steps")
    step = int_at_least(step, "step", 0, hi=steps - 1)
    start, end = real(start, "start", lo=0.0), real(end, "end", lo=0.0)
    return start if steps == 1 else start + (end - start) * step / (steps - 1)


def best_of_n(model: TinyGPT, vocab: Vocab, rows: np.ndarray, *, n_candidates: int, max_words: int, seed: int
              ) -> tuple[list[list[str]], np.ndarray]:
    """[P28] best-of-N anchor data: for each row, ``n_candidates`` samples and the one of highest rubric reward
    (the first among ties). Returns the chosen texts and their rewards."""
    rows = int_array(rows, "rows", ndim=2)
    k = positive_int(n_candidates, "n_candidates")
    rep = np.repeat(rows, k, axis=0)
    texts, _ = generate(model, vocab, rep, n=len(rep), max_words=max_words, seed=check_seed(seed))
    rewards = np.array([rubric_reward(t, r) for t, r in zip(texts, rep)]).reshape(len(rows), k)
    pick = rewards.argmax(axis=1)
    return [texts[i * k + j] for i, j in enumerate(pick)], rewards[np.arange(len(rows)), pick]


@dataclass(frozen=True)
class RLLog:
    """[P28] ARL log: per-step mean rubric reward, mean KL to the starting model and γ of one :func:`anchored_rl` run."""

    rewards: tuple[float, ...]
    kls: tuple[float, ...]
    gammas: tuple[float, ...]


def anchored_rl(model: TinyGPT, vocab: Vocab, rows: np.ndarray, *, anchor: tuple[np.ndarray, list[list[str]]] | None,
                steps: int, prompts: int = 16, group: int = 4, lr: float = 1e-3, kl_coef: float = 0.05,
                gamma: tuple[float, float] = (2.0, 0.2), max_words: int = 32, seed: int) -> RLLog:
    """[P28] ARL, in place on ``model``: each step draws ``prompts`` synthetic rows, samples ``group`` texts per row,
    and minimises REINFORCE(GRPO advantages of the rubric reward) + ``kl_coef``·KL(π‖π_start) + γ_t·NLL(anchor batch).
    ``anchor=None`` is RL without the anchor (the ablation the paper shows reward-hacking)."""
    rows = int_array(rows, "rows", ndim=2)
    steps, prompts = positive_int(steps, "steps"), positive_int(prompts, "prompts")
    group = int_at_least(group, "group", 2)
    lr, kl_coef = real(lr, "lr", lo=0.0, lo_open=True), real(kl_coef, "kl_coef", lo=0.0)
    g = np.random.default_rng(check_seed(seed))
    ref = copy.deepcopy(model).eval()
    for p in ref.parameters():
        p.requires_grad_(False)
    anchor_data = None if anchor is None else encode_pairs(vocab, anchor[0], anchor[1], block_size=model.cfg.block_size)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    plen = len(vocab.prompt(rows[0]))
    log_r, log_kl, log_g = [], [], []
    for t in range(steps):
        batch = np.repeat(rows[g.choice(len(rows), size=prompts)], group, axis=0)
        model.eval()
        texts, seqs = generate(model, vocab, batch, n=len(batch), max_words=max_words, seed=int(g.integers(2**31)))
        reward = torch.tensor([rubric_reward(x, r) for x, r in zip(texts, batch)]).view(prompts, group)
        adv = grpo_advantages(reward).reshape(-1)
        model.train()
        lp = sequence_logprobs(model, seqs, plen, vocab.stoi[PAD])
        mask = (lp != 0).float()
        with torch.no_grad():
            lp_ref = sequence_logprobs(ref, seqs, plen, vocab.stoi[PAD])
        kl = (kl_penalty(lp, lp_ref) * mask).sum(1).mean()
        loss = reinforce_loss(lp, adv) + kl_coef * kl
        gam = gamma_schedule(t, steps, start=gamma[0], end=gamma[1]) if anchor_data is not None else 0.0
        if anchor_data is not None:
            j = torch.from_numpy(g.choice(anchor_data[0].shape[0], size=prompts * group))
            loss = loss + gam * _masked_mean_nll(model, *(d[j] for d in anchor_data)).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        log_r.append(float(reward.mean()))
        log_kl.append(float(kl.detach()))
        log_g.append(gam)
    model.eval()
    return RLLog(rewards=tuple(log_r), kls=tuple(log_kl), gammas=tuple(log_g))


def bon_sft(model: TinyGPT, vocab: Vocab, anchor: tuple[np.ndarray, list[list[str]]], *, steps: int, batch: int = 64,
            lr: float = 1e-3, gamma: tuple[float, float] = (2.0, 0.2), seed: int) -> tuple[float, ...]:
    """The [P28] anchor without RL, in place on ``model``: ``steps`` Adam steps on γ_t·NLL of a batch of the
    best-of-N data ``anchor`` (rows, texts), γ_t the ARL schedule: ARL's loss with the RL and KL terms removed.
    Returns the per-step anchor NLL."""
    steps, batch = positive_int(steps, "steps"), positive_int(batch, "batch")
    lr = real(lr, "lr", lo=0.0, lo_open=True)
    g = np.random.default_rng(check_seed(seed))
    data = encode_pairs(vocab, anchor[0], anchor[1], block_size=model.cfg.block_size)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    model.train()
    losses = []
    for t in range(steps):
        j = torch.from_numpy(g.choice(data[0].shape[0], size=batch))
        nll = _masked_mean_nll(model, *(d[j] for d in data)).mean()
        loss = gamma_schedule(t, steps, start=gamma[0], end=gamma[1]) * nll
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(float(nll.detach()))
    model.eval()
    return tuple(losses)
