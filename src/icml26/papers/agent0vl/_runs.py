"""One seed of [P16]'s comparison: render the figures, fit the cold start, score both verifiers on the cold start's
own trajectories, then evolve every arm from the cold start and evaluate after each iteration.

The verifiers are scored on the test figures re-rendered with heavier pixel noise (``verify_noise``), where the pixel
tool misreads some objects, so that neither verifier's AUROC is fixed by construction; the same scores on the clean
test figures are kept beside them.

Arms: ``serc`` (tool-grounded verifier, the paper's loop), ``text_only`` (the same loop, the policy verifying itself
without tools), ``text_trusting`` (the same, believing the transcript's tool outputs: the stronger text-only
baseline), ``oracle`` (GRPO with the label reward, the upper bound), ``no_repair`` (``serc`` without the repair
gate; an ablation). A seed's rows are cached under ``<cache>/agent0vl/`` keyed by every field of the run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import torch

from icml26.common import validation
from icml26.common.cache import cached_value
from icml26.papers.agent0vl._agent import solve, verify
from icml26.papers.agent0vl._policy import ToyVLM
from icml26.papers.agent0vl._render import FIGURE_KINDS, Question, Task, answer_of, make_tasks
from icml26.papers.agent0vl._serc import SERCConfig, cold_start, family_accuracy, oracle_grpo, serc
from icml26.papers.agent0vl._tools import measure_object

__all__ = ["ARMS", "RunConfig", "run_seed", "verifier_scores"]

ARMS = ("serc", "text_only", "text_trusting", "oracle", "no_repair")
FORMAT = 3


@dataclass(frozen=True)
class RunConfig:
    """[P16] One seed's run: figures, cold start, evolution loop, evaluation and the arms to train; the verifiers
    are scored on the test figures rendered with pixel noise of std ``verify_noise`` (the figures' own is 0.03)."""

    n_train: int = 200
    n_test: int = 300
    verify_noise: float = 0.1
    sft_steps: int = 200
    hidden: int = 64
    eval_samples: int = 2
    loop: SERCConfig = field(default_factory=lambda: SERCConfig(steps=12))
    arms: tuple[str, ...] = ("serc", "text_only", "text_trusting", "oracle")


def verifier_scores(policy: ToyVLM, tasks: list[Task], *, samples: int, seed: int) -> dict[str, list[float]]:
    """[P16] Step-level scores of both verifiers on the policy's own trajectories over ``tasks``, with each step's
    true correctness from the labels (evaluation only): a reading is right when it equals the object's measure (a
    tool's reading too: a misreading tool makes a wrong step), an arithmetic step when it equals its expression's
    value on the operands the trajectory claimed (left out where those form no triangle); ``answer`` steps are left
    out. ``trusting``: the text-only score, except that a step whose value an
    executed tool call returned gets the top score (a text verifier that believes the transcript's tool outputs)."""
    gen = torch.Generator().manual_seed(validation.seed(seed))
    out: dict[str, list[float]] = {"correct": [], "tool": [], "text": [], "trusting": []}
    for t in tasks:
        view = t.view()
        for _ in range(samples):
            tr = solve(policy, view, generator=gen)
            grounded = verify(policy, view, tr, tool_grounded=True)
            text = verify(policy, view, tr, tool_grounded=False)
            trusting = verify(policy, view, tr, tool_grounded=False, trust_tool_outputs=True)
            ops: list[int] = []  # the operands as the trajectory claimed them
            for s, g, x, u in zip(tr.steps, grounded, text, trusting):
                if s.kind in ("measure", "read"):
                    truth = t.label.values[s.objects[0]]
                    ops.append(-1 if s.value is None else s.value)
                elif s.kind in ("calc", "mental") and len(ops) == len(t.question.objects) >= 2:
                    try:
                        truth = answer_of(Question(t.question.kind, tuple(range(len(ops)))), tuple(ops))
                    except (ValueError, ZeroDivisionError):
                        continue
                else:
                    continue
                out["correct"].append(float(s.value == truth))
                out["tool"].append(g.score)
                out["text"].append(x.score)
                out["trusting"].append(u.score)
    return out


def _auroc(correct: list[float], score: list[float]) -> float:
    from sklearn.metrics import roc_auc_score

    if len(set(correct)) < 2:
        return float("nan")
    return float(roc_auc_score(correct, score))


def _arm(cfg: RunConfig, arm: str, seed: int, start: dict[str, torch.Tensor], train: list[Task],
         test: list[Task]) -> dict[str, Any]:
    policy = ToyVLM(hidden=cfg.hidden, seed=seed)
    policy.load_state_dict(start)
    curve: list[float] = []
    by_kind: dict[str, list[float]] = {}

    def evaluate(_: int, p: ToyVLM) -> None:
        acc = family_accuracy(p, test, samples=cfg.eval_samples, seed=seed + 7919)
        curve.append(acc.pop("all"))
        for kind, a in acc.items():
            by_kind.setdefault(kind, []).append(a)

    loop = cfg.loop
    if arm == "text_only":
        loop = replace(loop, tool_grounded=False)
    elif arm == "text_trusting":
        loop = replace(loop, tool_grounded=False, trust_tool_outputs=True)
    elif arm == "no_repair":
        loop = replace(loop, repair=False)
    if arm == "oracle":
        hist = oracle_grpo(policy, train, loop, seed=seed, on_iteration=evaluate)
    else:
        hist = serc(policy, train, loop, seed=seed, on_iteration=evaluate)
    return {"arm": arm, "seed": seed, "curve": curve, "gain": curve[-1] - curve[0],
            "curve_by_kind": {k: by_kind[k] for k in FIGURE_KINDS if k in by_kind},
            "tool_use": [h["tool_use"] for h in hist], "reward": [h["reward"] for h in hist],
            "repairs": [h["repairs"] for h in hist]}


def _compute(cfg: RunConfig, seed: int) -> list[dict[str, Any]]:
    train = make_tasks(cfg.n_train, seed=2 * seed)
    test = make_tasks(cfg.n_test, seed=2 * seed + 1)
    noisy = make_tasks(cfg.n_test, seed=2 * seed + 1, noise=cfg.verify_noise)  # the same figures, noisier pixels
    policy = cold_start(ToyVLM(hidden=cfg.hidden, seed=seed), train, steps=cfg.sft_steps, seed=seed)
    start = {k: v.clone() for k, v in policy.state_dict().items()}
    sc = verifier_scores(policy, noisy, samples=cfg.eval_samples, seed=seed + 104729)
    clean = verifier_scores(policy, test, samples=cfg.eval_samples, seed=seed + 104729)
    misread = [(t.layout.kind, measure_object(t.image, t.layout, i) != t.label.values[i]) for t in noisy
               for i in t.question.objects]
    by_kind = {k: float(np.mean([m for kk, m in misread if kk == k])) for k in FIGURE_KINDS
               if any(kk == k for kk, _ in misread)}
    rows: list[dict[str, Any]] = [{
        "arm": "verifier", "seed": seed, "auroc_tool": _auroc(sc["correct"], sc["tool"]),
        "auroc_text": _auroc(sc["correct"], sc["text"]), "auroc_trusting": _auroc(sc["correct"], sc["trusting"]),
        "auroc_tool_clean": _auroc(clean["correct"], clean["tool"]),
        "auroc_text_clean": _auroc(clean["correct"], clean["text"]), "tool_misread_share": float(np.mean([m for _, m in misread])),
        "tool_misread_by_kind": by_kind,
        "n_steps": len(sc["correct"]),
        "correct_share": float(np.mean(sc["correct"])) if sc["correct"] else float("nan"), "scores": sc}]
    rows += [_arm(cfg, arm, seed, start, train, test) for arm in cfg.arms]
    return rows


def run_seed(cfg: RunConfig, seed: int) -> list[dict[str, Any]]:
    """[P16] The rows of one seed (module docstring): one ``verifier`` row (both AUROCs on the cold start's steps)
    and one row per arm (the accuracy curve over iterations 0..K, its gain, tool-call share, self-reward)."""
    if not isinstance(cfg, RunConfig):
        raise TypeError(f"cfg must be a RunConfig, got {type(cfg).__name__}")
    seed = validation.seed(seed)
    unknown = set(cfg.arms) - set(ARMS)
    if unknown:
        raise ValueError(f"cfg.arms: unknown arms {sorted(unknown)}; known: {ARMS}")
    validation.real(cfg.verify_noise, "cfg.verify_noise", lo=0.0, hi=0.2)
    key = {"format": FORMAT, "what": "seed", "seed": seed, **asdict(cfg)}
    return cached_value("agent0vl", key, "rows.json", lambda: _compute(cfg, seed))
