"""What the [P34] accuracy claims measure: online episodes on the trained OLMoE model under each adaptation, and
their figures. The verdicts come from :mod:`._rules`; the timed overhead is in :mod:`._checks_speed`.

Episode draws are seeded by (claim seed, split); the model is trained once per config (``train_seed``), so the seeds
resample episodes, not training runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from icml26.claims import ClaimResult, Context
from icml26.figures import FigureData, new_figure, render
from icml26.papers.moe_tta._episodes import Fit, play, play_full_ttt, play_rerouting, query_accuracy
from icml26.papers.moe_tta._model import split_of, trained_olmoe
from icml26.papers.moe_tta._rules import judge_confident_layers, judge_heldout_gain, judge_overadapts, judge_switch
from icml26.papers.moe_tta._tasks import make_sequences, make_switch_sequences

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.moe_tta.claims import RerouteConfig, SwitchConfig, TTTConfig

SPLITS = ("held_out", "train")


def episode_seed(seed: int, what: int) -> int:
    """The draw of one claim seed and one episode set (``what``), apart from the training data's seed stream."""
    return 10_000 + 16 * int(seed) + int(what)


def _fit(cfg: Any) -> Fit:
    return Fit(steps=cfg.steps, lr=cfg.lr, l2=cfg.l2, refit_every=cfg.refit_every)


def _no_fit(_ctx: torch.Tensor) -> None:
    raise AssertionError("mode 'none' never fits")


def _episodes(cfg: Any, tasks: Any, seed: int) -> tuple[torch.Tensor, np.ndarray, np.ndarray]:
    tok, which = make_sequences(tasks, n=cfg.episodes, pairs=cfg.demos + cfg.queries,
                                table_seed=cfg.model.table_seed, seed=seed)
    query = np.arange(cfg.demos + cfg.queries) >= cfg.demos
    return torch.from_numpy(tok), query, which


def _rows(seed: int, split: str, tasks: Any, which: np.ndarray, **acc: np.ndarray) -> list[dict[str, Any]]:
    return [{"seed": seed, "episode": i, "split": split, "task": f"{tasks[w].family}-{tasks[w].key}",
             **{k: float(v[i]) for k, v in acc.items()}} for i, w in enumerate(which)]


def heldout_runs(cfg: RerouteConfig, seeds: tuple[int, ...]) -> dict[str, Any]:
    """No adaptation, rerouting on the k selected layers and on every layer, on held-out and training tasks."""
    model = trained_olmoe(cfg.model)
    split = split_of(cfg.model)
    rows: list[dict[str, Any]] = []
    chosen: dict[str, int] = {}
    for seed in seeds:
        for w, name in enumerate(SPLITS):
            tasks = split.held_out if name == "held_out" else split.train
            tok, query, which = _episodes(cfg, tasks, episode_seed(seed, w))
            none = play(model, tok, query, mode="none", fit=_no_fit, refit_every=cfg.refit_every)
            sel = play_rerouting(model, tok, query, mode="continuous", fit=_fit(cfg), k=cfg.k, by=cfg.by)
            every = play_rerouting(model, tok, query, mode="continuous", fit=_fit(cfg), k=None, by=cfg.by)
            rows += _rows(seed, name, tasks, which, none=query_accuracy(none, query),
                          selected=query_accuracy(sel, query), all=query_accuracy(every, query))
            for s in sel.layers:
                chosen[",".join(map(str, s))] = chosen.get(",".join(map(str, s)), 0) + 1
    return {"rows": rows, "chosen": dict(sorted(chosen.items()))}


def _bars(ax: Any, rows: list[dict[str, Any]], keys: tuple[str, ...], labels: tuple[str, ...], x0: float,
          color: str, label: str) -> None:
    from icml26.common.stats import bootstrap_ci

    for i, k in enumerate(keys):
        e = bootstrap_ci([r[k] for r in rows], seed=0)
        ax.bar(x0 + i, e.value, width=0.38, color=color, label=label if i == 0 else None)
        ax.errorbar(x0 + i, e.value, yerr=[[e.value - e.lo], [e.hi - e.value]], color="black", capsize=3)
    ax.set_xticks(np.arange(len(keys)) + 0.2, labels)


def _accuracy_figure(rows: list[dict[str, Any]], name: str, caption: str) -> FigureData:
    fig, ax = new_figure()
    for j, (split, color) in enumerate((("held_out", "C0"), ("train", "C1"))):
        sel = [r for r in rows if r["split"] == split]
        if sel:
            _bars(ax, sel, ("none", "selected", "all"), ("no adaptation", "δ on selected layers", "δ on all layers"),
                  0.4 * j, color, split.replace("_", "-") + " tasks")
    ax.set(ylabel="query accuracy (95% CI over episodes)", ylim=(0, 1))
    ax.legend()
    return render(fig, name=name, caption=caption)


def _summary(j: Any, keys: tuple[str, ...]) -> str:
    m = j.measured.get("means", {})
    return ", ".join(f"{k} {m[k]:.3f}" for k in keys if k in m) + f" over {j.measured.get('episodes', 0)} episodes"


def check_heldout_gain(cfg: RerouteConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P34] (+5.5 points HumanEval on OLMoE): rerouting lifts accuracy on held-out tasks."""
    runs = ctx.shared(heldout_runs, cfg, ctx.seeds)
    j = judge_heldout_gain(runs["rows"], bars=ctx.bars)
    train = [r for r in runs["rows"] if r["split"] == "train"]
    tm = {k: float(np.mean([r[k] for r in train])) for k in ("none", "selected")} if train else {}
    return ClaimResult.judged(
        j, summary="held-out accuracy: " + _summary(j, ("none", "selected", "all")), rows=runs["rows"],
        figures=[_accuracy_figure(runs["rows"], "accuracy_by_condition",
                                  "Query accuracy per adaptation, held-out and training tasks (95% CI).")],
        findings={"training tasks": f"no adaptation {tm.get('none', float('nan')):.3f}, rerouting "
                                    f"{tm.get('selected', float('nan')):.3f} (not judged)",
                  "selected layers": ", ".join(f"[{k}] ×{v}" for k, v in runs["chosen"].items())})


def check_confident_layers(cfg: RerouteConfig, ctx: Context) -> ClaimResult:
    """Fig. 1a of [P34]: δ on the high-confidence layers does at least as well as δ on every layer."""
    runs = ctx.shared(heldout_runs, cfg, ctx.seeds)
    j = judge_confident_layers(runs["rows"], bars=ctx.bars)
    return ClaimResult.judged(
        j, summary="held-out accuracy: " + _summary(j, ("selected", "all", "none")), rows=runs["rows"],
        figures=[_accuracy_figure(runs["rows"], "selected_vs_all_layers",
                                  "Query accuracy with δ on the k lowest-entropy layers vs on all layers.")],
        findings={"selected layers": ", ".join(f"[{k}] ×{v}" for k, v in runs["chosen"].items())})


def check_full_ttt(cfg: TTTConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P34] ("preventing over-adaptation"): full-parameter TTT, same steps, over-adapts."""
    model = trained_olmoe(cfg.model)
    tasks = split_of(cfg.model).train
    rows: list[dict[str, Any]] = []
    full_fit = Fit(steps=cfg.steps, lr=cfg.full_lr, l2=0.0, refit_every=cfg.refit_every)
    for seed in ctx.seeds:
        tok, query, which = _episodes(cfg, tasks, episode_seed(seed, 2))
        none = play(model, tok, query, mode="none", fit=_no_fit, refit_every=cfg.refit_every)
        router = play_rerouting(model, tok, query, mode="continuous", fit=_fit(cfg), k=cfg.k, by=cfg.by)
        full = play_full_ttt(model, tok, query, mode="continuous", fit=full_fit)
        rows += _rows(seed, "train", tasks, which, none=query_accuracy(none, query),
                      router=query_accuracy(router, query), full=query_accuracy(full, query),
                      ce_none=none.prompt_ce, ce_router=router.prompt_ce, ce_full=full.prompt_ce)
    j = judge_overadapts(rows, bars=ctx.bars)
    fig1, a1 = new_figure()
    _bars(a1, rows, ("none", "router", "full"), ("none", "rerouting", "full TTT"), 0.0, "C0", "accuracy")
    a1.set(ylabel="query accuracy, training tasks (95% CI)", ylim=(0, 1))
    fig2, a2 = new_figure()
    _bars(a2, rows, ("ce_none", "ce_router", "ce_full"), ("none", "rerouting", "full TTT"), 0.0, "C2", "prompt CE")
    a2.set(ylabel="prompt CE after the prefill fit (nats)")
    return ClaimResult.judged(
        j, summary=_summary(j, ("none", "router", "full", "ce_none", "ce_router", "ce_full")), rows=rows,
        figures=[render(fig1, name="full_ttt_accuracy", caption="Query accuracy on training tasks: no adaptation, "
                        "rerouting and full-parameter TTT with the same steps (95% CI over episodes)."),
                 render(fig2, name="full_ttt_prompt_ce", caption="Context cross-entropy of the prompt after the "
                        "prefill fit, per adaptation (95% CI over episodes).")],
        findings={"full TTT learning rate": f"{cfg.full_lr:g} (Adam, every weight; one value, not tuned)"})


def check_switch(cfg: SwitchConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P34] ("robustness to context shifts"): continuous re-adaptation beats prefill-only adaptation
    after the task switches mid-sequence."""
    model = trained_olmoe(cfg.model)
    tasks = split_of(cfg.model).train
    pattern = [False] * cfg.demos_a + [True] * cfg.queries_a + [False] * cfg.demos_b + [True] * cfg.queries_b
    query = np.array(pattern)
    after = np.arange(len(pattern)) >= cfg.demos_a + cfg.queries_a
    rows: list[dict[str, Any]] = []
    curves: dict[str, list[np.ndarray]] = {"none": [], "prefill": [], "continuous": []}
    for seed in ctx.seeds:
        tok, which = make_switch_sequences(tasks, n=cfg.episodes, first=cfg.demos_a + cfg.queries_a,
                                           second=cfg.demos_b + cfg.queries_b, table_seed=cfg.model.table_seed,
                                           seed=episode_seed(seed, 3))
        t = torch.from_numpy(tok)
        res = {"none": play(model, t, query, mode="none", fit=_no_fit, refit_every=cfg.refit_every)}
        for mode in ("prefill", "continuous"):
            res[mode] = play_rerouting(model, t, query, mode=mode, fit=_fit(cfg), k=cfg.k, by=cfg.by)
        for k, v in res.items():
            curves[k].append(v.correct[:, query])
        acc = {k: query_accuracy(v, query & after) for k, v in res.items()}
        rows += [{"seed": seed, "episode": i, "split": "switch", "task": f"{tasks[a].family}-{tasks[a].key} → "
                  f"{tasks[b].family}-{tasks[b].key}", **{k: float(v[i]) for k, v in acc.items()}}
                 for i, (a, b) in enumerate(which)]
    j = judge_switch(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for k, v in curves.items():
        ax.plot(np.arange(1, query.sum() + 1), np.concatenate(v).mean(0), marker="o", label=k)
    ax.axvline(cfg.queries_a + 0.5, color="gray", ls="--", lw=0.8)
    ax.set(xlabel="query (the task switches at the dashed line)", ylabel="accuracy", ylim=(0, 1.02))
    ax.legend()
    return ClaimResult.judged(
        j, summary="accuracy after the switch: " + _summary(j, ("none", "prefill", "continuous")), rows=rows,
        figures=[render(fig, name="switch_accuracy_per_query",
                        caption="Accuracy per query before and after the mid-sequence task switch.")])
