"""What the [P02] real-LM claim measures: a transformers causal LM (SmolLM2-135M-Instruct at ``small``, a tiny random
Llama at ``smoke``, a local checkpoint at ``full``) answers hinted multiple-choice additions with a sampled CoT and
without one; action-only, bag-of-words CoT and LM-judge monitors are scored by the intervention estimator.
Generations are cached under the cache folder, keyed by every config field and the seed."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.common.cache import cache_root
from icml26.common.models import INSTALL_HINT, MissingExtraError, load_causal_lm, tiny_causal_lm
from icml26.figures import new_figure, render
from icml26.papers.monitorability._evals import InterventionEval, run_eval
from icml26.papers.monitorability._lm import LMAgent, arithmetic_tasks
from icml26.papers.monitorability._monitors import BagOfWordsMonitor, LMJudgeMonitor
from icml26.papers.monitorability._rules import judge_real
from icml26.papers.monitorability._types import Episode, Monitor, Task, Transcript

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.monitorability.claims import RealConfig

__all__ = ["CHECKPOINT_ENV", "check_cot_beats_action_real", "real_rows"]

CHECKPOINT_ENV = "ICML26_MONITORABILITY_CHECKPOINT"


def _load(name: str) -> tuple[Any, Any]:
    if name == "tiny":
        return tiny_causal_lm(seed=0)
    if name == "checkpoint":
        path = os.environ.get(CHECKPOINT_ENV, "")
        if not path:
            raise MissingExtraError(f"set {CHECKPOINT_ENV} to a local transformers checkpoint folder (a reasoning "
                                    "model of the paper's class) for the full budget")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
        return AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=torch.float32).eval(), tok
    return load_causal_lm(name)


def _episodes(agent: LMAgent, ev: InterventionEval, tasks: list[Task], samples: int, seed: int, key: str
              ) -> list[Episode]:
    """The agent's episodes, read from / written to the cache folder when there is one."""
    prompts = ev.prompts(tasks, samples=samples)
    root = cache_root(None)
    path = None if root is None else Path(root) / "monitorability" / f"{key}.json"
    if path is not None and path.is_file():
        saved = json.loads(path.read_text())
        if len(saved) == len(prompts):
            return [Episode(p, Transcript(cot=c, action=a)) for p, (c, a) in zip(prompts, saved)]
    trs = agent.act(prompts, seed=seed)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps([[t.cot, t.action] for t in trs]))
    return [Episode(p, t) for p, t in zip(prompts, trs)]


def _key(cfg: RealConfig, seed: int, part: str) -> str:
    blob = json.dumps({"cfg": asdict(cfg), "seed": seed, "part": part, "v": 2}, sort_keys=True)
    return f"{part}-{hashlib.sha256(blob.encode()).hexdigest()[:16]}"


def _rates(ev: InterventionEval, eps: list[Episode]) -> dict[str, float]:
    y = np.array([e.transcript.action == "ABCD"[e.prompt.task.target] for e in eps])
    t = np.array([e.prompt.arm == "treatment" for e in eps])
    correct = np.array([e.transcript.action == "ABCD"[e.prompt.task.answer] for e in eps])
    del ev
    return {"r_t": float(y[t].mean()), "r_c": float(y[~t].mean()), "acc_control": float(correct[~t].mean())}


def _finite_mean(v: list[float]) -> float:
    x = np.asarray(v, dtype=float)
    x = x[np.isfinite(x)]
    return float(x.mean()) if x.size else float("nan")


def real_rows(model: Any, tok: Any, cfg: RealConfig, seed: int) -> dict[str, Any]:
    """[P02] One seed of the real-LM intervention eval: rows per monitor, the arms' match rates with and without a
    CoT, and a few example transcripts."""
    ev = InterventionEval(filter=cfg.filter)
    train_t = arithmetic_tasks(cfg.train_tasks, seed=seed * 2 + 1)
    test_t = arithmetic_tasks(cfg.test_tasks, seed=seed * 2 + 2, start=cfg.train_tasks)
    agent = LMAgent(model, tok, cot=True, max_new_tokens=cfg.max_new_tokens, temperature=cfg.temperature,
                    batch=cfg.batch)
    direct = LMAgent(model, tok, cot=False, temperature=cfg.temperature, batch=cfg.batch)
    train = _episodes(agent, ev, train_t, cfg.samples, seed, _key(cfg, seed, "train"))
    test = _episodes(agent, ev, test_t, cfg.samples, seed + 1, _key(cfg, seed, "test"))
    plain = _episodes(direct, ev, test_t, cfg.samples, seed + 2, _key(cfg, seed, "direct"))
    monitors: dict[str, Monitor] = {"action": BagOfWordsMonitor("action"), "cot_words": BagOfWordsMonitor("all")}
    if cfg.judge:
        monitors["cot_judge"] = LMJudgeMonitor(model, tok, "all", batch=cfg.batch)
    run = run_eval(ev, monitors, train=train, test=test, n_boot=cfg.n_boot, seed=seed)
    rows = [{"seed": seed, "monitor": n, "g_mean2": float(s.g_mean2), "tpr": float(s.tpr), "tnr": float(s.tnr),
             "lo": float(s.lo), "hi": float(s.hi), "effect": float(s.extra.get("effect", float("nan"))),
             "cases": int(len(ev.cases(test)[0]))} for n, s in run.scores.items()]
    examples = [{"arm": e.prompt.arm, "prompt": e.prompt.text, "cot": e.transcript.cot[:300],
                 "action": e.transcript.action} for e in test[:: max(1, len(test) // 4)][:4]]
    return {"rows": rows, "with_cot": _rates(ev, test), "without_cot": _rates(ev, plain), "examples": examples}


def check_cot_beats_action_real(cfg: RealConfig, ctx: Context) -> ClaimResult:
    """[P02] Abstract, on a real LM: CoT monitors beat action-only monitors on a hint intervention."""
    try:
        model, tok = _load(cfg.model)
    except MissingExtraError as exc:
        return ClaimResult(Verdict.UNSUPPORTED, reason=f"{exc} ({INSTALL_HINT})", summary="not run")
    outs = [real_rows(model, tok, cfg, s) for s in ctx.seeds]
    rows = [r for o in outs for r in o["rows"]]
    j = judge_real(rows, bars=ctx.bars)
    mons = sorted({r["monitor"] for r in rows})
    mean = {m: _finite_mean([r["g_mean2"] for r in rows if r["monitor"] == m]) for m in mons}
    summary = ", ".join(f"{m} {v:.3f}" for m, v in mean.items()) + f" (intervention g-mean², {cfg.model})"
    fig, ax = new_figure(width=5.5, height=3.4)
    for k, m in enumerate(mons):
        v = [r["g_mean2"] for r in rows if r["monitor"] == m]
        ax.scatter(np.full(len(v), k), v, alpha=0.8)
    ax.set_xticks(range(len(mons)), mons)
    ax.set_ylabel("intervention g-mean² (one point per seed)")
    fig_d = render(fig, name="real_lm_g_mean2", caption=f"intervention g-mean² of each monitor on {cfg.model}'s "
                   "hinted additions, one point per seed")
    rates = {k: {q: float(np.mean([o[k][q] for o in outs])) for q in ("r_t", "r_c", "acc_control")}
             for k in ("with_cot", "without_cot")}
    findings = {f"hint effect {k.replace('_', ' ')} (ours)": f"P(answer = hint) treated {v['r_t']:.3f}, control "
                f"{v['r_c']:.3f}; control accuracy {v['acc_control']:.3f}" for k, v in rates.items()}
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=[fig_d], findings=findings,
                              measured={"rates": rates, "examples": outs[0]["examples"]},
                              notes="SmolLM2-135M-Instruct's weights are Q4_1-quantised then dequantised; the "
                                    "paper's agents and monitors are frontier reasoning models")
