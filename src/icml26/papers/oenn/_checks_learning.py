"""What claims 3 and 4 of [P12] measure: the approximation trend in width, and heterophilic node classification.

The verdicts come from :mod:`._rules`; this module trains and draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context
from icml26.figures import new_figure, render
from icml26.papers.oenn._nodes import GCN, MLP, SheafOENNClassifier
from icml26.papers.oenn._rules import judge_sbm, judge_uat
from icml26.papers.oenn._sbm import heterophilic_sbm, train_node_classifier
from icml26.papers.oenn._uat import basis_operators, fit_width

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.oenn.claims import SBMConfig, UATConfig

MODELS = ("sheaf_oenn", "constant_oenn", "gcn", "mlp")


def check_uat(cfg: UATConfig, ctx: Context) -> ClaimResult:
    """[P12] (iii): finite-depth OENNs approximate continuous equivariant maps: test error falls with width."""
    ops = {s: basis_operators(cfg.case, s) for s in ctx.seeds}
    tasks = [(ops[s], cfg.case, w, s, cfg.n_train, cfg.n_test, cfg.iterations, cfg.terms, cfg.gain)
             for s in ctx.seeds for w in (0, *cfg.widths)]
    rows = ctx.map(fit_width, tasks)
    j = judge_uat(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for s in ctx.seeds:
        pts = sorted((r["width"], r["test_nmse"]) for r in rows if r["seed"] == s and r["width"] > 0)
        ax.plot(*zip(*pts), marker="o", alpha=0.6, label=f"seed {s}")
    lin = [r["test_nmse"] for r in rows if r["width"] == 0]
    ax.axhline(float(np.mean(lin)), color="gray", ls="--", lw=0.8, label="best linear equivariant map")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set(xlabel="width (channels of the hidden layer)", ylabel="test NMSE",
           title=f"fitting a gated equivariant target on {cfg.case}")
    ax.legend()
    m = j.measured
    ratio = (f"NMSE(4)/NMSE(32) = {m['ratio']:.2f} [{m['ratio_ci'][0]:.2f}, {m['ratio_ci'][1]:.2f}]; "
             if "ratio" in m else "")
    return ClaimResult.judged(
        j, summary=ratio + "mean test NMSE by width " + ", ".join(
            f"{w}: {v:.3g}" for w, v in m.get("mean_test_nmse", {}).items())
        + f"; best linear equivariant map {min(lin):.3g} (smallest over seeds)",
        rows=rows, figures=[render(fig, name="uat_width", caption="Test NMSE of a 2-layer OENN against its width, "
                                   "per seed; dashed: the best linear equivariant map (least squares).")])


def sbm_rows(task: tuple[Any, ...]) -> list[dict[str, Any]]:
    """One seed: one SBM graph, the four models trained with the same protocol."""
    (seed, n_nodes, homophily, degree, n_features, signal, hidden, layers, epochs, lr, wd) = task
    t = heterophilic_sbm(n_nodes, homophily=homophily, mean_degree=degree, n_features=n_features, signal=signal,
                         seed=seed)
    models = {
        "sheaf_oenn": SheafOENNClassifier(t.graph, n_features, 2, hidden=hidden, layers=layers, learn_sheaf=True,
                                          seed=seed),
        "constant_oenn": SheafOENNClassifier(t.graph, n_features, 2, hidden=hidden, layers=layers,
                                             learn_sheaf=False, seed=seed),
        "gcn": GCN(t.graph, n_features, 2, hidden=hidden, seed=seed),
        "mlp": MLP(n_features, 2, hidden=hidden, seed=seed),
    }
    rows = []
    for name, model in models.items():
        res = train_node_classifier(model, t, epochs=epochs, lr=lr, weight_decay=wd)
        rows.append({"seed": seed, "model": name, "homophily": t.homophily, "edges": t.graph.number_of_edges(), **res})
    return rows


def check_sbm(cfg: SBMConfig, ctx: Context) -> ClaimResult:
    """[P12] illustration: on heterophilic SBM node classification a sheaf-OENN beats GCN and an MLP."""
    tasks = [(s, cfg.n_nodes, cfg.homophily, cfg.mean_degree, cfg.n_features, cfg.signal, cfg.hidden, cfg.layers,
              cfg.epochs, cfg.lr, cfg.weight_decay) for s in ctx.seeds]
    rows = [r for rs in ctx.map(sbm_rows, tasks) for r in rs]
    j = judge_sbm(rows, bars=ctx.bars)
    fig, ax = new_figure()
    for i, m in enumerate(MODELS):
        accs = [r["test_acc"] for r in rows if r["model"] == m]
        ax.scatter(np.full(len(accs), i) + np.linspace(-0.1, 0.1, len(accs)), accs, color=f"C{i}")
        ax.errorbar(i, np.mean(accs), yerr=np.std(accs), fmt="_", color="black", capsize=6)
    ax.set_xticks(range(len(MODELS)), ["sheaf-OENN", "OENN (constant sheaf)", "GCN", "MLP"])
    ax.set(ylabel="test accuracy", title=f"2-class SBM, n={cfg.n_nodes}, homophily {cfg.homophily}, "
           f"degree {cfg.mean_degree:g}")
    means = j.measured.get("mean_test_acc", {})
    return ClaimResult.judged(
        j, summary="mean test accuracy " + ", ".join(f"{m} {means[m]:.3f}" for m in MODELS if m in means),
        rows=rows, findings={"constant-sheaf OENN (ours)": f"message passing on vertices and edges with separate "
                             f"relation weights: mean test accuracy {means.get('constant_oenn', float('nan')):.3f}"},
        figures=[render(fig, name="sbm_accuracy", caption="Test accuracy per seed (dots) and mean ± sd per model on "
                        "heterophilic SBM graphs.")])
