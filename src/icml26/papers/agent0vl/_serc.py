"""The outer loop of [P16]: the Self-Evolving Reasoning Cycle (SERC) — GRPO on the unified policy with the rewards
it gives itself — plus the supervised cold start it starts from, an oracle-reward GRPO for comparison, and the
evaluation that needs labels (kept out of the loop).

Zero external reward holds for the evolution phase only: the cold start fits programmatic traces built from labels
(the paper's cold-start SFT, assumed by the notes), and :func:`serc` receives views, never a label (a test passes
tasks whose labels raise on any use).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from icml26.common import validation
from icml26.common.rl import grpo_advantages, ppo_clip_loss
from icml26.common.train import train
from icml26.papers.agent0vl._agent import Trajectory, repair, repair_gate, self_reward, solve, verify
from icml26.papers.agent0vl._geometry import TRIANGLE_SHAPES, side_lengths
from icml26.papers.agent0vl._policy import ARITH_KINDS, MAX_OPERANDS, N_VALUES, ToyVLM, object_features
from icml26.papers.agent0vl._render import QUESTION_KINDS, Question, Task, View, answer_of

__all__ = ["SERCConfig", "accuracy", "cold_start", "family_accuracy", "oracle_grpo", "serc"]


@dataclass(frozen=True)
class SERCConfig:
    """[P16] Hyper-parameters of the evolution loop: ``iterations`` x ``steps`` GRPO updates of ``batch`` figures x
    ``group`` samples; the repair gate ``tau`` (at most ``max_repairs`` per trajectory, ``repair=False`` for the
    ablation), the reward weights, the verifier (tool-grounded, or text-only: ``tool_grounded=False``, believing
    the transcript's tool outputs with ``trust_tool_outputs``) and the learning rate."""

    iterations: int = 3
    steps: int = 20
    batch: int = 8
    group: int = 8
    tau: float = 0.5
    max_repairs: int = 2
    repair: bool = True
    repair_penalty: float = 0.1
    format_bonus: float = 0.1
    tool_grounded: bool = True
    trust_tool_outputs: bool = False
    lr: float = 3e-3

    def __post_init__(self) -> None:
        for name in ("iterations", "steps", "batch", "group"):
            validation.positive_int(getattr(self, name), name)
        validation.int_at_least(self.max_repairs, "max_repairs", 0)
        validation.real(self.tau, "tau", lo=0.0, hi=1.0)
        validation.real(self.lr, "lr", lo=0.0, lo_open=True)
        validation.real(self.repair_penalty, "repair_penalty", lo=0.0)
        validation.real(self.format_bonus, "format_bonus", lo=0.0)
        if self.group < 2:
            raise ValueError("group: GRPO needs at least 2 samples per figure")


def cold_start(policy: ToyVLM, tasks: Sequence[Task], *, tool_rate: float = 0.3, calc_rate: float = 0.3,
               mental_accuracy: float = 0.6, steps: int = 300, lr: float = 3e-3, seed: int) -> ToyVLM:
    """[P16] The supervised cold start (uses labels): the ``read`` head fits the true measures of the objects the
    questions name; the ``tool`` / ``calc`` heads fit traces that call a tool with probability ``tool_rate`` /
    ``calc_rate``; the ``mental`` head fits arithmetic drills (every operation of :data:`ARITH_KINDS`) that are
    right with probability ``mental_accuracy`` (else off by one or two). Returns ``policy``, trained in place."""
    if not isinstance(policy, ToyVLM):
        raise TypeError(f"policy must be a ToyVLM, got {type(policy).__name__}")
    if not tasks:
        raise ValueError("tasks: empty")
    tool_rate = validation.real(tool_rate, "tool_rate", lo=0.0, hi=1.0)
    calc_rate = validation.real(calc_rate, "calc_rate", lo=0.0, hi=1.0)
    mental_accuracy = validation.real(mental_accuracy, "mental_accuracy", lo=0.0, hi=1.0)
    steps = validation.positive_int(steps, "steps")
    lr = validation.real(lr, "lr", lo=0.0, lo_open=True)
    seed = validation.seed(seed)
    rng = np.random.default_rng([seed, 3])
    rows = [(object_features(t.view(), i), QUESTION_KINDS.index(t.question.kind), t.label.values[i])
            for t in tasks for i in t.question.objects]
    n = len(rows)
    operands, op, exact = _arithmetic_drill(n, rng)
    slip = rng.choice([-2, -1, 1, 2], size=n) * (rng.random(n) >= mental_accuracy)
    data = [torch.from_numpy(np.stack([r[0] for r in rows])), torch.tensor([r[1] for r in rows]),
            torch.tensor([r[2] for r in rows]), torch.from_numpy((rng.random(n) < tool_rate).astype(np.int64)),
            torch.from_numpy(operands), torch.from_numpy(op),
            torch.from_numpy(np.clip(exact + slip, 0, N_VALUES - 1)),
            torch.from_numpy((rng.random(n) < calc_rate).astype(np.int64))]
    train(policy, data, _sft_loss, steps=steps, lr=lr, batch_size=64, seed=seed, eval_every=steps)
    return policy


def _arithmetic_drill(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` random arithmetic exercises, the operation uniform over :data:`ARITH_KINDS`: chart operands are
    integers 1..15 (2 for sum and diff, 2 to 5 for max), triangle operands the sides of a random admissible
    triangle (the facing side drawn at random for an angle). Returns operands (padded with −1), ops, exact values."""
    operands = np.full((n, MAX_OPERANDS), -1, dtype=np.int64)
    op = rng.integers(0, len(ARITH_KINDS), size=n)
    exact = np.zeros(n, dtype=np.int64)
    for k in range(n):
        kind = ARITH_KINDS[int(op[k])]
        if kind in ("perimeter", "angle"):
            sides = [round(x) for x in side_lengths(TRIANGLE_SHAPES[int(rng.integers(len(TRIANGLE_SHAPES)))])]
            ops = [sides[i] for i in np.roll(np.arange(3), -int(rng.integers(3)))]
        else:
            m = 2 if kind in ("sum", "diff") else int(rng.integers(2, MAX_OPERANDS + 1))
            ops = [int(x) for x in rng.integers(1, 16, size=m)]
        operands[k, :len(ops)] = ops
        exact[k] = answer_of(Question(kind, tuple(range(len(ops)))), tuple(ops))
    return operands, op, exact


def _sft_loss(model: ToyVLM, feats: torch.Tensor, qk: torch.Tensor, value: torch.Tensor, tool: torch.Tensor,
              operands: torch.Tensor, op: torch.Tensor, mental: torch.Tensor, calc: torch.Tensor) -> torch.Tensor:
    ce = torch.nn.functional.cross_entropy
    t, r = model.read_logits(feats, qk)
    c, m = model.arith_logits(operands, op)
    return ce(r, value) + ce(t, tool) + ce(c, calc) + ce(m, mental)


Rollout = Callable[[int, View, torch.Generator], tuple[Trajectory, float]]
Callback = Callable[[int, ToyVLM], None]


def _self_rollout(policy: ToyVLM, cfg: SERCConfig) -> Rollout:
    """The inner loop: solve, verify, repair while the gate fires; the reward scores the sampled trajectory (its
    feedback, less the cost of the repairs it needed), which is what GRPO trains on."""
    def rollout(_: int, view: View, gen: torch.Generator) -> tuple[Trajectory, float]:
        first = solve(policy, view, generator=gen)
        fb0 = verify(policy, view, first, tool_grounded=cfg.tool_grounded,
                     trust_tool_outputs=cfg.trust_tool_outputs)
        tr, fb = first, fb0
        for _k in range(cfg.max_repairs if cfg.repair else 0):
            t = repair_gate(fb, tau=cfg.tau)
            if t is None:
                break
            tr = repair(policy, view, tr, t, fb[t], generator=gen)
            fb = verify(policy, view, tr, tool_grounded=cfg.tool_grounded,
                     trust_tool_outputs=cfg.trust_tool_outputs)
        scored = Trajectory(first.steps, tr.repairs)
        return scored, self_reward(fb0, scored, repair_penalty=cfg.repair_penalty, format_bonus=cfg.format_bonus)
    return rollout


def _grpo(policy: ToyVLM, views: list[View], rollout: Rollout, cfg: SERCConfig, seed: int,
          on_iteration: Callback | None) -> list[dict[str, float]]:
    """GRPO (group-relative advantages, one policy-gradient update per batch) over ``iterations`` x ``steps``."""
    rng = np.random.default_rng([seed, 5])
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(policy.parameters(), lr=cfg.lr)
    history: list[dict[str, float]] = []
    if on_iteration is not None:
        on_iteration(0, policy)
    for it in range(1, cfg.iterations + 1):
        stats = {"reward": 0.0, "tool_use": 0.0, "repairs": 0.0}
        for _ in range(cfg.steps):
            pick = rng.choice(len(views), size=min(cfg.batch, len(views)), replace=False)
            batch = [views[int(i)] for i in pick for _g in range(cfg.group)]
            outs = [rollout(int(i), views[int(i)], gen) for i in pick for _g in range(cfg.group)]
            rewards = np.array([r for _, r in outs]).reshape(len(pick), cfg.group)
            adv = torch.as_tensor(grpo_advantages(rewards).ravel(), dtype=torch.float32)
            logp, owner = policy.log_probs(batch, [tr.steps for tr, _ in outs])
            if logp.numel():
                loss = ppo_clip_loss(logp, logp.detach(), adv[owner]).loss
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
                opt.step()
            steps = [s for tr, _ in outs for s in tr.steps if s.kind != "answer"]
            stats["reward"] += float(rewards.mean()) / cfg.steps
            stats["tool_use"] += sum(bool(s.call) for s in steps) / max(1, len(steps)) / cfg.steps
            stats["repairs"] += float(np.mean([tr.repairs for tr, _ in outs])) / cfg.steps
        history.append({"iteration": float(it), **stats})
        if on_iteration is not None:
            on_iteration(it, policy)
    return history


def serc(policy: ToyVLM, tasks: Sequence[Task | View], cfg: SERCConfig, *, seed: int,
         on_iteration: Callback | None = None) -> list[dict[str, float]]:
    """[P16] The Self-Evolving Reasoning Cycle: for each figure, ``group`` Solver trajectories; each verified step by
    step (tool-grounded, or text-only with ``cfg.tool_grounded=False``), repaired where the gate fires, rewarded by
    :func:`self_reward`; then a GRPO update of the shared policy. No label is read: a :class:`Task` contributes
    only its :meth:`Task.view`. ``on_iteration(k, policy)`` is called before training (k = 0) and after each
    iteration. Returns per-iteration training statistics (mean self-reward, tool-call share, repairs)."""
    if not isinstance(policy, ToyVLM):
        raise TypeError(f"policy must be a ToyVLM, got {type(policy).__name__}")
    if not isinstance(cfg, SERCConfig):
        raise TypeError(f"cfg must be a SERCConfig, got {type(cfg).__name__}")
    views = [t.view() if isinstance(t, Task) else t for t in tasks]
    if not views or not all(isinstance(v, View) for v in views):
        raise ValueError("tasks: a non-empty sequence of Task or View")
    return _grpo(policy, views, _self_rollout(policy, cfg), cfg, validation.seed(seed), on_iteration)


def oracle_grpo(policy: ToyVLM, tasks: Sequence[Task], cfg: SERCConfig, *, seed: int,
                on_iteration: Callback | None = None) -> list[dict[str, float]]:
    """[P16] The upper-bound arm: the same GRPO with the external reward ``1[answer = label] + format_bonus ·
    well-formed`` (reads every label; no verification, no repair)."""
    if not isinstance(policy, ToyVLM):
        raise TypeError(f"policy must be a ToyVLM, got {type(policy).__name__}")
    if not isinstance(cfg, SERCConfig):
        raise TypeError(f"cfg must be a SERCConfig, got {type(cfg).__name__}")
    if not tasks:
        raise ValueError("tasks: empty")

    def rollout(i: int, view: View, gen: torch.Generator) -> tuple[Trajectory, float]:
        tr = solve(policy, view, generator=gen)
        return tr, float(tr.answer == tasks[i].label.answer) + cfg.format_bonus * float(tr.well_formed)

    return _grpo(policy, [t.view() for t in tasks], rollout, cfg, validation.seed(seed), on_iteration)


def accuracy(policy: ToyVLM, tasks: Sequence[Task], *, samples: int = 2, seed: int) -> float:
    """[P16] Evaluation (reads labels): the share of sampled Solver answers equal to the label, ``samples`` per task,
    without verification or repair."""
    samples = validation.positive_int(samples, "samples")
    if not tasks:
        raise ValueError("tasks: empty")
    gen = torch.Generator().manual_seed(validation.seed(seed))
    hits = [solve(policy, t.view(), generator=gen).answer == t.label.answer for t in tasks for _ in range(samples)]
    return float(np.mean(hits))


def family_accuracy(policy: ToyVLM, tasks: Sequence[Task], *, samples: int = 2, seed: int) -> dict[str, float]:
    """[P16] :func:`accuracy` (the same sampled answers for the same ``seed``) under ``"all"``, and per figure kind
    present in ``tasks`` (``"bars"``, ``"circles"``, ``"lines"``, ``"triangles"``)."""
    samples = validation.positive_int(samples, "samples")
    if not tasks:
        raise ValueError("tasks: empty")
    gen = torch.Generator().manual_seed(validation.seed(seed))
    hits = [(t.layout.kind, solve(policy, t.view(), generator=gen).answer == t.label.answer)
            for t in tasks for _ in range(samples)]
    out = {"all": float(np.mean([h for _, h in hits]))}
    for kind in dict.fromkeys(k for k, _ in hits):
        out[kind] = float(np.mean([h for k, h in hits if k == kind]))
    return out
