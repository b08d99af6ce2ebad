"""A batched multi-turn rollout of a token policy with [P15]'s hooks (:class:`ThinkingIntervention`,
:class:`TurnResampler`), over any environments with the API of :mod:`._envs`.

Each row plays one episode: ``BOS o_0 <think>``, then per turn the policy's think tokens, ``</think>`` and an
action token; the environment answers with an observation token and the next turn opens with ``<think>``. One
:meth:`KVDecoder.step` per loop iteration feeds one token to every live row. At every decision the fused
uncertainty ``M_t`` and the entropy ``H_t`` of the next-token distribution are recorded; the TTI hook may replace a think decision by
``</think>``; once a turn's response is complete, the TDS hook may rewind the row to the turn's start and sample
it again. An episode ends on success, on the environment's turn limit, or when the context (the model's
``block_size``) is full (``overflow``: a failure).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from icml26.common import validation
from icml26.common.nn import TinyGPT
from icml26.papers.t2po._interventions import ThinkingIntervention, TurnResampler
from icml26.papers.t2po._policy import AgentVocab, KVDecoder
from icml26.papers.t2po._uncertainty import fused_and_entropy

__all__ = ["Episodes", "multi_turn_rollout"]


@dataclass(frozen=True)
class Episodes:
    """What :func:`multi_turn_rollout` returns ([P15] rollouts), for ``B`` episodes of up to ``K`` turns.

    Per token ``(B, T)``: ``tokens`` (PAD after ``lengths``), ``response`` (emitted by the agent, forced tokens
    included), ``forced`` (``</think>`` put in by TTI), ``turn`` (the turn of a response token, -1 elsewhere),
    ``logp`` (log-probability under the sampling policy), ``m`` and ``h`` (the fused uncertainty and the entropy
    of the decision that produced the token). Per turn ``(B, K)``: ``rewards``, ``anchors`` (the state the action was taken in), ``low_info``,
    ``think`` (think tokens kept), ``tries`` (TDS regenerations), ``scores`` (``s_k``: the mean ``h`` of the turn),
    ``action`` (-1: malformed).
    Per episode ``(B,)``: ``n_turns``, ``success``, ``overflow``, ``returns``. ``think_emitted`` and
    ``tokens_emitted`` count every think / response token sampled, regenerated turns included.
    """

    tokens: np.ndarray
    lengths: np.ndarray
    response: np.ndarray
    forced: np.ndarray
    turn: np.ndarray
    logp: np.ndarray
    m: np.ndarray
    h: np.ndarray
    rewards: np.ndarray
    anchors: np.ndarray
    low_info: np.ndarray
    think: np.ndarray
    tries: np.ndarray
    scores: np.ndarray
    action: np.ndarray
    n_turns: np.ndarray
    success: np.ndarray
    overflow: np.ndarray
    returns: np.ndarray
    think_emitted: np.ndarray
    tokens_emitted: np.ndarray


class _Rows:
    """The per-row state of the loop (numpy arrays and lists; one row per episode)."""

    def __init__(self, b: int, t: int, k: int) -> None:
        self.tok = np.zeros((b, t), dtype=np.int64)
        self.resp = np.zeros((b, t), dtype=bool)
        self.forced = np.zeros((b, t), dtype=bool)
        self.turn_of = np.full((b, t), -1, dtype=np.int64)
        self.logp = np.zeros((b, t))
        self.m = np.zeros((b, t))
        self.h = np.zeros((b, t))
        self.length = np.zeros(b, dtype=np.int64)
        self.fed = np.zeros(b, dtype=np.int64)
        self.live = np.ones(b, dtype=bool)
        self.acting = np.zeros(b, dtype=bool)
        self.turn_start = np.zeros(b, dtype=np.int64)
        self.k = np.zeros(b, dtype=np.int64)
        self.tries = np.zeros(b, dtype=np.int64)
        self.prev_score = np.zeros(b)
        self.traces: list[list[float]] = [[] for _ in range(b)]
        self.anchor = np.zeros(b, dtype=np.int64)
        self.per_turn = {name: np.zeros((b, k), dtype=dt) for name, dt in (
            ("rewards", np.float64), ("anchors", np.int64), ("low_info", bool), ("think", np.int64),
            ("tries", np.int64), ("scores", np.float64), ("action", np.int64))}
        self.success = np.zeros(b, dtype=bool)
        self.overflow = np.zeros(b, dtype=bool)
        self.think_emitted = np.zeros(b, dtype=np.int64)
        self.tokens_emitted = np.zeros(b, dtype=np.int64)

    def push(self, i: int, token: int) -> bool:
        """Append ``token`` to row ``i``; False (and the row ends as an overflow) when the context is full."""
        if self.length[i] >= self.tok.shape[1]:
            self.live[i], self.overflow[i] = False, True
            if self.k[i] < self.per_turn["anchors"].shape[1]:  # the unfinished turn's state, for anchor groups
                self.per_turn["anchors"][i, self.k[i]] = self.anchor[i]
            return False
        self.tok[i, self.length[i]] = token
        self.length[i] += 1
        return True


def _decide(rows: _Rows, i: int, token: int, lp: float, mh: tuple[float, float], forced: bool) -> None:
    p = int(rows.length[i])
    if rows.push(i, token):
        rows.resp[i, p], rows.forced[i, p] = True, forced
        rows.turn_of[i, p], rows.logp[i, p], (rows.m[i, p], rows.h[i, p]) = rows.k[i], lp, mh
        rows.tokens_emitted[i] += 1


def _end_turn(rows: _Rows, i: int, env: Any, vocab: AgentVocab, tds: TurnResampler | None, max_turns: int) -> None:
    """Row ``i`` has its turn's response: resample it (TDS) or play its action in ``env``."""
    span = slice(int(rows.turn_start[i]), int(rows.length[i]))
    score = float(rows.h[i, span].mean())
    k = int(rows.k[i])
    if tds is not None and tds.should_resample(rows.prev_score[i] if k > 0 else None, score, int(rows.tries[i])):
        rows.tries[i] += 1
        rows.resp[i, span], rows.forced[i, span], rows.turn_of[i, span] = False, False, -1
        rows.logp[i, span], rows.m[i, span], rows.h[i, span] = 0.0, 0.0, 0.0
        rows.length[i], rows.fed[i] = rows.turn_start[i], rows.turn_start[i] - 1
        rows.acting[i], rows.traces[i] = False, []
        return
    action = vocab.action_of(int(rows.tok[i, rows.length[i] - 1]))
    obs, reward, terminated, truncated, info = env.step(action)
    pt = rows.per_turn
    pt["rewards"][i, k], pt["anchors"][i, k], pt["low_info"][i, k] = reward, rows.anchor[i], info["low_information"]
    pt["think"][i, k] = int(span.stop - span.start) - 2
    pt["tries"][i, k], pt["scores"][i, k], pt["action"][i, k] = rows.tries[i], score, action
    rows.k[i] += 1
    rows.prev_score[i], rows.tries[i], rows.anchor[i] = score, 0, int(info["anchor"])
    rows.acting[i], rows.traces[i] = False, []
    if terminated or truncated or rows.k[i] >= max_turns:
        rows.live[i], rows.success[i] = False, bool(info.get("success", False))
        return
    if rows.push(i, vocab.observation(obs)) and rows.push(i, vocab.THINK):
        rows.turn_start[i] = rows.length[i]


def _check(envs: Sequence[Any], seeds: Any, vocab: AgentVocab, model: TinyGPT) -> tuple[np.ndarray, int]:
    if not envs:
        raise ValueError("envs must hold at least one environment")
    s = validation.int_array(seeds, "seeds", shape=(len(envs),))
    if np.any(s < 0):
        raise ValueError("seeds must be >= 0")
    if model.cfg.vocab_size != vocab.size:
        raise ValueError(f"model's vocabulary ({model.cfg.vocab_size}) is not the agent's ({vocab.size})")
    turns = {int(e.max_turns) for e in envs}
    return s, max(turns)


def multi_turn_rollout(model: TinyGPT, envs: Sequence[Any], *, vocab: AgentVocab, seeds: Any, generator: torch.Generator,
                       tti: ThinkingIntervention | None = None, tds: TurnResampler | None = None,
                       weight: float = 0.5, options: Sequence[dict[str, Any] | None] | None = None) -> Episodes:
    """Play one episode per environment with ``model`` sampling at temperature 1 and [P15]'s hooks.

    Args:
        model: a pre-norm TinyGPT over ``vocab`` (:func:`make_policy`); its ``block_size`` is the context budget.
        envs: environments with the API of :mod:`._envs` (one per row; reset here).
        vocab: the agent's token layout.
        seeds: one reset seed per environment ``(B,)``.
        generator: the torch generator every token is sampled from.
        tti: the token-level thinking intervention (``None``: think until ``</think>`` or the context ends).
        tds: the turn-level resampler (``None``: never resample).
        weight: the entropy weight of the uncertainty (:func:`uncertainty`).
        options: per-environment reset options (e.g. ``{"secret": 3}``), or ``None``.

    Returns:
        :class:`Episodes`.
    """
    s, max_turns = _check(envs, seeds, vocab, model)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    weight = validation.real(weight, "weight", lo=0.0, hi=1.0)
    b, t = len(envs), model.cfg.block_size
    rows = _Rows(b, t, max_turns)
    for i, env in enumerate(envs):
        obs, info = env.reset(seed=int(s[i]), options=None if options is None else options[i])
        for tok in (vocab.BOS, vocab.observation(obs), vocab.THINK):
            rows.push(i, tok)
        rows.turn_start[i], rows.anchor[i] = rows.length[i], int(info["anchor"])
    dec = KVDecoder(model, batch=b)
    was_training = model.training
    model.eval()
    try:
        while rows.live.any():
            _advance(rows, dec, envs, vocab, generator, tti, tds, weight, max_turns)
    finally:
        model.train(was_training)
    return _episodes(rows)


def _advance(rows: _Rows, dec: KVDecoder, envs: Sequence[Any], vocab: AgentVocab, gen: torch.Generator,
             tti: ThinkingIntervention | None, tds: TurnResampler | None, weight: float, max_turns: int) -> None:
    """One loop iteration: feed one token to every live row, then decide for the rows that caught up."""
    idx = np.flatnonzero(rows.live)
    feed = torch.as_tensor(rows.tok[idx, rows.fed[idx]])
    logits = dec.step(torch.as_tensor(idx), feed, torch.as_tensor(rows.fed[idx]))
    rows.fed[idx] += 1
    ready = rows.fed[idx] == rows.length[idx]
    if not ready.any():
        return
    sel = idx[ready]
    lg = logits[torch.as_tensor(np.flatnonzero(ready))].double()
    mt, ht = fused_and_entropy(lg, weight=weight)
    m, h = mt.numpy(), ht.numpy()
    logp = torch.log_softmax(lg, dim=-1)
    draw = torch.multinomial(logp.exp(), 1, generator=gen).squeeze(1).numpy()
    lp = logp.numpy()
    for j, i in enumerate(sel):
        i = int(i)
        if rows.acting[i]:
            _decide(rows, i, int(draw[j]), float(lp[j, draw[j]]), (float(m[j]), float(h[j])), False)
            if rows.live[i]:
                _end_turn(rows, i, envs[i], vocab, tds, max_turns)
            continue
        rows.traces[i].append(float(m[j]))
        force = tti is not None and tti.fires(rows.traces[i])
        tok = vocab.END_THINK if force else int(draw[j])
        _decide(rows, i, tok, float(lp[j, tok]), (float(m[j]), float(h[j])), force)
        if tok == vocab.END_THINK:
            rows.acting[i] = True
        else:
            rows.think_emitted[i] += 1


def _episodes(rows: _Rows) -> Episodes:
    pt = rows.per_turn
    n_turns = rows.k.copy()
    return Episodes(tokens=rows.tok * (np.arange(rows.tok.shape[1])[None, :] < rows.length[:, None]),
                    lengths=rows.length.copy(), response=rows.resp.copy(), forced=rows.forced.copy(),
                    turn=rows.turn_of.copy(), logp=rows.logp.copy(), m=rows.m.copy(), h=rows.h.copy(), rewards=pt["rewards"],
                    anchors=pt["anchors"], low_info=pt["low_info"], think=pt["think"], tries=pt["tries"],
                    scores=pt["scores"], action=pt["action"], n_turns=n_turns, success=rows.success.copy(),
                    overflow=rows.overflow.copy(), returns=pt["rewards"].sum(axis=1),
                    think_emitted=rows.think_emitted.copy(), tokens_emitted=rows.tokens_emitted.copy())
