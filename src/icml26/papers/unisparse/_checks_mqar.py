"""What the MQAR claims of [P30] measure: a tiny Llama trained on MQAR per seed, its accuracy with full attention,
with UniSparse at the density bound, and with every baseline at UniSparse's density (one shared run, group
``mqar``). Trained checkpoints are cached under ``$ICML26_CACHE_DIR`` keyed by every training field and the seed."""

from __future__ import annotations

import dataclasses
import importlib.metadata
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from icml26.claims import ClaimResult, Context
from icml26.common.cache import cache_root, materialise
from icml26.figures import new_figure, render
from icml26.papers.unisparse._methods import BASELINES, bisect_knob, make_method
from icml26.papers.unisparse._mqar import MQARTask, mqar_accuracy, mqar_batch, mqar_model, train_mqar
from icml26.papers.unisparse._rules import judge_baselines, judge_mqar

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.unisparse.claims import MQARConfig

_TRAIN_FIELDS = ("n", "pairs", "span", "short_n", "short_pairs", "short_steps", "short_batch", "long_steps",
                 "long_batch", "lr", "hidden", "layers", "heads")


def _tasks(cfg: MQARConfig) -> tuple[MQARTask, MQARTask]:
    return (MQARTask(n=cfg.short_n, pairs=cfg.short_pairs, span=cfg.span),
            MQARTask(n=cfg.n, pairs=cfg.pairs, span=cfg.span))


def _train(cfg: MQARConfig, seed: int) -> Any:
    short, long = _tasks(cfg)
    model = mqar_model(long, seed=seed, hidden=cfg.hidden, layers=cfg.layers, heads=cfg.heads)
    train_mqar(model, [(short, cfg.short_steps, cfg.short_batch), (long, cfg.long_steps, cfg.long_batch)],
               lr=cfg.lr, seed=seed)
    return model.eval()


def trained_model(cfg: MQARConfig, seed: int) -> Any:
    """The MQAR model of ``seed``: trained here, or read from the cache folder when one is set and holds it."""
    root = cache_root(None)
    if root is None:
        return _train(cfg, seed)
    key = {**{f: getattr(cfg, f) for f in _TRAIN_FIELDS}, "seed": seed, "torch": torch.__version__,
           "transformers": importlib.metadata.version("transformers"), "format": 1}
    tag = "-".join(str(key[f]) for f in _TRAIN_FIELDS) + f"-s{seed}"

    def build(folder: Any) -> None:
        torch.save(_train(cfg, seed).state_dict(), folder / "model.pt")

    folder = materialise(root / "unisparse" / "mqar" / tag, key=key, build=build)
    model = mqar_model(_tasks(cfg)[1], seed=seed, hidden=cfg.hidden, layers=cfg.layers, heads=cfg.heads)
    model.load_state_dict(torch.load(folder / "model.pt", weights_only=True))
    return model.eval()


def _seed_rows(cfg: MQARConfig, seed: int) -> list[dict[str, Any]]:
    """One seed: train (or load), then full attention, UniSparse at the bound, baselines at UniSparse's density."""
    model = trained_model(cfg, seed)
    long = _tasks(cfg)[1]
    x, y = mqar_batch(long, batch=cfg.eval_sequences, seed=10_000 + seed)
    results: dict[tuple[str, float], dict[str, Any]] = {}

    def run(name: str, fn: Any, knob: float) -> dict[str, Any]:
        if (name, knob) not in results:
            results[name, knob] = mqar_accuracy(model, long, x, y, method=fn(knob))
        return results[name, knob]

    picked: dict[str, tuple[float | None, dict[str, Any]]] = {"full": (None, mqar_accuracy(model, long, x, y,
                                                                                          method=None))}
    for name in ("unisparse", *BASELINES):
        fn, knob = make_method(name, block=cfg.block, cq=cfg.cq, ck=cfg.ck, granularities=cfg.granularities,
                               n=cfg.n, seed=seed)
        if name == "unisparse":
            k = bisect_knob(lambda t: run(name, fn, t)["density"], knob, cfg.target_density, steps=cfg.bisect_steps,
                            at_least=False)
        else:
            target = picked["unisparse"][1]["density"]
            k = bisect_knob(lambda t: run(name, fn, t)["density"], knob, target, steps=cfg.bisect_steps, at_least=True)
        picked[name] = (k, run(name, fn, k))
    return [{"seed": seed, "sequence": i, "method": m, "knob": k, "correct": r["correct"][i],
             "queries": r["queries"][i], "density": r["density"]}
            for m, (k, r) in picked.items() for i in range(cfg.eval_sequences)]


def run_mqar(cfg: MQARConfig, seeds: tuple[int, ...]) -> list[dict[str, Any]]:
    """Every seed's rows (shared by ``mqar_accuracy`` and ``beats_baselines`` through ``ctx.shared``)."""
    return [r for s in seeds for r in _seed_rows(cfg, s)]


def _summary(rows: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Method -> (accuracy, mean density) over all rows."""
    out = {}
    for m in dict.fromkeys(r["method"] for r in rows):
        rs = [r for r in rows if r["method"] == m]
        out[m] = (sum(r["correct"] for r in rs) / sum(r["queries"] for r in rs), float(np.mean([r["density"] for r in rs])))
    return out


def _figure(rows: list[dict[str, Any]], cfg: MQARConfig) -> Any:
    s = _summary(rows)
    fig, ax = new_figure()
    for i, (m, (acc, dens)) in enumerate(s.items()):
        ax.scatter([dens], [acc], color=f"C{i}", s=60 if m == "unisparse" else 30, label=m)
    ax.axvline(cfg.target_density, color="gray", lw=0.8, ls="--")
    ax.set(xlabel="block density", ylabel="query accuracy", ylim=(-0.02, 1.02),
           title=f"MQAR, n={cfg.n}, block={cfg.block}, {len({r['seed'] for r in rows})} seeds")
    ax.legend(fontsize=8)
    return render(fig, name="mqar_accuracy_vs_density",
                  caption="MQAR query accuracy against block density: full attention, UniSparse at the density bound, "
                          "baselines matched to UniSparse's density.")


def check_mqar_accuracy(cfg: MQARConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P30]: >= 99 % of full-attention accuracy; here on MQAR at a block density <= the bound."""
    rows = ctx.shared(run_mqar, cfg, tuple(ctx.seeds))
    j = judge_mqar(rows, bars=ctx.bars)
    s = _summary(rows)
    return ClaimResult.judged(
        j, summary=(f"accuracy full {s['full'][0]:.3f}, UniSparse {s['unisparse'][0]:.3f} at density "
                    f"{s['unisparse'][1]:.3f}"),
        rows=[r for r in rows if r["method"] in ("full", "unisparse")], figures=[_figure(rows, cfg)],
        notes=f"config {dataclasses.asdict(cfg)}; UniSparse's τ is the largest with density <= {cfg.target_density} "
              "on the evaluation inputs (bisection; density needs no labels)")


def check_beats_baselines(cfg: MQARConfig, ctx: Context) -> ClaimResult:
    """Abstract of [P30]: UniSparse surpasses MInference, XAttention, FlexPrefill in accuracy; here on MQAR, every
    baseline given at least UniSparse's block density."""
    rows = ctx.shared(run_mqar, cfg, tuple(ctx.seeds))
    j = judge_baselines(rows, bars=ctx.bars)
    s = _summary(rows)
    return ClaimResult.judged(
        j, summary="accuracy (density): " + ", ".join(f"{m} {a:.3f} ({d:.2f})" for m, (a, d) in s.items()),
        rows=rows, figures=[_figure(rows, cfg)])
