"""Multi-turn RL of a token policy with the arms of [P15]'s comparison, through :mod:`icml26.common.rl`.

Arms (:data:`ARMS`): ``grpo`` (episode-level group advantages, plain sampling), ``gigpo`` (GiGPO's anchor-state
advantages, plain sampling) and ``t2po`` (GiGPO's advantages with the thinking intervention and the turn
resampler in the rollouts: the interventions change the data, not the loss); the ablations ``gigpo_tti`` and
``gigpo_tds`` keep one intervention each. Every arm minimises the same
clipped PPO loss with a KL penalty to the cold-start policy (:func:`icml26.common.rl.ppo_clip_loss`), each
response token carrying its turn's advantage.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from icml26.common.nn import TinyGPT
from icml26.common.rl import grpo_advantages, ppo_clip_loss
from icml26.papers.t2po._envs import GridMaze, NumberHunt, make_maze
from icml26.papers.t2po._gigpo import gigpo_advantages
from icml26.papers.t2po._interventions import ThinkingIntervention, TurnResampler
from icml26.papers.t2po._policy import AgentVocab, token_logprobs
from icml26.papers.t2po._rollout import Episodes, multi_turn_rollout

__all__ = ["ARMS", "TrainConfig", "Task", "evaluate", "rl_iteration", "task_set"]

ARMS = ("grpo", "gigpo", "t2po", "gigpo_tti", "gigpo_tds")
_TTI = ("t2po", "gigpo_tti")
_TDS = ("t2po", "gigpo_tds")


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines one [P15] reproduction run (environment, policy, cold start, RL, hooks)."""

    env: str = "numberhunt"  # numberhunt | maze
    n: int = 16  # numberhunt: secrets in [0, n)
    max_turns: int = 6
    maze_rooms: int = 3  # maze: rooms x rooms, with extra openings
    maze_loops: int = 2
    block_size: int = 48  # the context budget of an episode, in tokens
    d_model: int = 32
    n_layer: int = 2
    n_head: int = 2
    demo_episodes: int = 1024
    demo_max_think: int = 6
    demo_idle: float = 0.3
    sft_steps: int = 250
    sft_lr: float = 3e-3
    sft_batch: int = 64
    iterations: int = 50
    prompts: int = 8
    group: int = 8
    lr: float = 1e-3
    epochs: int = 2
    clip: float = 0.2
    kl_coef: float = 0.01
    grad_clip: float = 1.0
    gamma: float = 0.95
    omega: float = 1.0
    eps: float = 0.05
    window: int = 2
    max_think_tokens: int = 450
    eta: float = 0.3
    max_try: int = 2
    weight: float = 0.5
    eval_every: int = 10
    eval_samples: int = 4
    collapse_drop: float = 0.3


@dataclass(frozen=True)
class Task:
    """An environment builder and the reset options of one task (a secret, a start cell)."""

    cfg: TrainConfig
    seed: int
    options: dict[str, Any]

    def make(self) -> Any:
        """A fresh environment of this run (the maze is drawn from the run's seed)."""
        c = self.cfg
        if c.env == "numberhunt":
            return NumberHunt(n=c.n, max_turns=c.max_turns)
        grid = make_maze(c.maze_rooms, c.maze_rooms, seed=self.seed, loops=c.maze_loops)
        return GridMaze(grid, goal=(grid.shape[0] - 2, grid.shape[1] - 2), max_turns=c.max_turns)


def task_set(cfg: TrainConfig, seed: int) -> list[Task]:
    """Every task of the run's environment: each secret, or each start cell of the run's maze."""
    if cfg.env not in ("numberhunt", "maze"):
        raise ValueError(f"env must be 'numberhunt' or 'maze', got {cfg.env!r}")
    if cfg.env == "numberhunt":
        return [Task(cfg, seed, {"secret": s}) for s in range(cfg.n)]
    env = Task(cfg, seed, {}).make()
    return [Task(cfg, seed, {"start": s}) for s in env.starts]


def vocab_of(cfg: TrainConfig, seed: int) -> AgentVocab:
    """The agent vocabulary of the run's environment."""
    env = task_set(cfg, seed)[0].make()
    return AgentVocab(env.n_observations, env.n_actions)


def hooks(cfg: TrainConfig, arm: str) -> tuple[ThinkingIntervention | None, TurnResampler | None]:
    """The rollout hooks of an arm: TTI and TDS for ``t2po``, one of them for an ablation, none otherwise."""
    if arm not in ARMS:
        raise ValueError(f"arm must be one of {ARMS}, got {arm!r}")
    tti = ThinkingIntervention(eps=cfg.eps, window=cfg.window, max_think_tokens=cfg.max_think_tokens)
    return (tti if arm in _TTI else None), (TurnResampler(eta=cfg.eta, max_try=cfg.max_try) if arm in _TDS else None)


def play(model: TinyGPT, tasks: list[Task], vocab: AgentVocab, *, seed: int, tti: ThinkingIntervention | None,
         tds: TurnResampler | None, weight: float) -> Episodes:
    """One rollout of ``tasks`` (one episode each), every token drawn from a generator seeded with ``seed``."""
    gen = torch.Generator().manual_seed(seed)
    seeds = np.random.default_rng(seed).integers(0, 2**31, size=len(tasks))
    return multi_turn_rollout(model, [t.make() for t in tasks], vocab=vocab, seeds=seeds, generator=gen, tti=tti,
                              tds=tds, weight=weight, options=[t.options for t in tasks])


def turn_stats(ep: Episodes) -> dict[str, float]:
    """Success, low-information turns per turn, kept think tokens per turn, TDS regenerations per turn, emitted
    tokens per episode, context overflows, forced ``</think>`` per turn and their mean log-probability under the
    sampling policy (0 when none was forced)."""
    turns = max(int(ep.n_turns.sum()), 1)
    done = np.arange(ep.low_info.shape[1])[None, :] < ep.n_turns[:, None]
    forced = ep.logp[ep.forced]
    return {"success": float(ep.success.mean()), "low_info": float(ep.low_info[done].sum() / turns),
            "think": float(ep.think[done].sum() / turns), "resample": float(ep.tries[done].sum() / turns),
            "tokens": float(ep.tokens_emitted.mean()), "overflow": float(ep.overflow.mean()),
            "turns": float(ep.n_turns.mean()), "forced": float(forced.size / turns),
            "forced_logp": float(forced.mean()) if forced.size else 0.0}


def evaluate(model: TinyGPT, cfg: TrainConfig, arm: str, vocab: AgentVocab, tasks: list[Task], *, seed: int
             ) -> dict[str, float]:
    """Every task ``eval_samples`` times, sampled with the arm's token-level hook (TTI, if it has it) and no turn
    resampling (the released evaluation loop has none); the same generator seed for every arm."""
    tti, _ = hooks(cfg, arm)
    return turn_stats(play(model, tasks * cfg.eval_samples, vocab, seed=seed, tti=tti, tds=None, weight=cfg.weight))


def _advantages(cfg: TrainConfig, arm: str, ep: Episodes) -> np.ndarray:
    """Per-turn advantages ``(B, K)``: GRPO's episode advantage on every turn, or GiGPO's total."""
    if arm == "grpo":
        a = grpo_advantages(ep.returns.reshape(cfg.prompts, cfg.group)).reshape(-1)
        return np.repeat(a[:, None], ep.rewards.shape[1], axis=1)
    steps = np.minimum(ep.n_turns + ep.overflow, ep.rewards.shape[1])
    groups = np.repeat(np.arange(cfg.prompts), cfg.group)
    return gigpo_advantages(ep.rewards, ep.anchors, groups, lengths=np.maximum(steps, 1), gamma=cfg.gamma,
                            omega=cfg.omega).total


def rl_iteration(model: TinyGPT, ref: TinyGPT, opt: torch.optim.Optimizer, cfg: TrainConfig, arm: str,
                 vocab: AgentVocab, tasks: list[Task], *, seed: int) -> dict[str, float]:
    """One [P15] RL iteration: ``prompts`` tasks x ``group`` episodes with the arm's hooks, the arm's advantages,
    ``epochs`` full-batch clipped-PPO steps with the KL penalty to ``ref``; returns the rollout's statistics."""
    tti, tds = hooks(cfg, arm)
    ep = play(model, tasks, vocab, seed=seed, tti=tti, tds=tds, weight=cfg.weight)
    adv_turn = _advantages(cfg, arm, ep)
    width = int(ep.lengths.max())
    tok = torch.as_tensor(ep.tokens[:, :width])
    turn = np.clip(ep.turn[:, :width], 0, adv_turn.shape[1] - 1)
    adv = torch.as_tensor(np.take_along_axis(adv_turn, turn, axis=1) * ep.response[:, :width], dtype=torch.float32)
    mask = torch.as_tensor(ep.response[:, :width])
    old = torch.as_tensor(ep.logp[:, :width], dtype=torch.float32)
    with torch.no_grad():
        lp_ref = token_logprobs(ref, tok)
    stats = turn_stats(ep)
    norms, kls = [], []
    for _ in range(cfg.epochs):
        out = ppo_clip_loss(token_logprobs(model, tok), old, adv, clip=cfg.clip, mask=mask, logp_ref=lp_ref,
                            kl_coef=cfg.kl_coef)
        opt.zero_grad(set_to_none=True)
        out.loss.backward()
        norms.append(float(torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)))
        kls.append(float(out.kl.detach()))
        opt.step()
    return {**stats, "grad_norm": max(norms), "kl": kls[-1]}


def rl_run(model: TinyGPT, cfg: TrainConfig, arm: str, *, seed: int) -> dict[str, Any]:
    """Train ``model`` (the cold-start policy, changed in place) for ``cfg.iterations`` [P15] RL iterations of
    ``arm``; returns the per-iteration statistics and the evaluation curve (every ``eval_every`` iterations and
    at the end, including before training)."""
    vocab = vocab_of(cfg, seed)
    every = task_set(cfg, seed)
    ref = copy.deepcopy(model).eval()
    for p in ref.parameters():
        p.requires_grad_(False)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0)
    rng = np.random.default_rng([seed, 7])
    train_curve: list[dict[str, float]] = []
    evals = [{"iteration": 0, **evaluate(model, cfg, arm, vocab, every, seed=10_000 + seed)}]
    for it in range(1, cfg.iterations + 1):
        picks = rng.choice(len(every), size=cfg.prompts, replace=len(every) < cfg.prompts)
        tasks = [every[int(j)] for j in picks for _ in range(cfg.group)]
        train_curve.append({"iteration": it, **rl_iteration(model, ref, opt, cfg, arm, vocab, tasks,
                                                            seed=int(rng.integers(2**31)))})
        if it % cfg.eval_every == 0 or it == cfg.iterations:
            evals.append({"iteration": it, **evaluate(model, cfg, arm, vocab, every, seed=10_000 + seed + it)})
    return {"train": train_curve, "evals": evals}
