"""What the [P02] claims measure, one seed at a time (module-level functions, so the runner may fan them out).

Each function returns plain rows (dicts of numbers); the checks in ``_checks.py`` hand them to ``_rules.py``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.papers.monitorability._evals import episodes_of, organism_eval, run_eval
from icml26.papers.monitorability._intervention import intervention_g_mean2
from icml26.papers.monitorability._monitors import BagOfWordsMonitor, PartialReadMonitor
from icml26.papers.monitorability._organism import OrganismConfig, SimulatedAgent
from icml26.papers.monitorability._types import Episode, Monitor

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.monitorability.claims import EstimatorConfig, SuiteConfig

__all__ = ["compute_rows", "estimator_rows", "length_rows", "planted_intervention", "suite_rows"]


def _episodes(org: OrganismConfig, archetype: str, cfg: SuiteConfig, seed: int
              ) -> tuple[Any, list[Episode], list[Episode]]:
    ev = organism_eval(archetype)
    agent = SimulatedAgent(org)
    train_t = ev.tasks(cfg.train_tasks, seed=seed * 3 + 1)
    test_t = [replace(t, id=t.id + cfg.train_tasks) for t in ev.tasks(cfg.test_tasks, seed=seed * 3 + 2)]
    train = episodes_of(agent, ev, train_t, samples=cfg.samples, followup=True, seed=seed)
    test = episodes_of(agent, ev, test_t, samples=cfg.samples, followup=True, seed=seed + 10_007)
    return ev, train, test


def _score_rows(ev: Any, monitors: dict[str, Monitor], train: list[Episode], test: list[Episode], seed: int,
                n_boot: int, **keys: Any) -> list[dict[str, Any]]:
    run = run_eval(ev, monitors, train=train, test=test, n_boot=n_boot, seed=seed)
    return [{**keys, "seed": seed, "monitor": n, "g_mean2": float(run.scores[n].g_mean2),
             "tpr": float(run.scores[n].tpr), "tnr": float(run.scores[n].tnr), "lo": float(run.scores[n].lo),
             "hi": float(run.scores[n].hi)} for n in run.names]


def suite_rows(cfg: SuiteConfig, seed: int) -> list[dict[str, Any]]:
    """[P02] g-mean² of the action-only, CoT-only, CoT+action and CoT+action+follow-up monitors, per archetype."""
    rows: list[dict[str, Any]] = []
    for arch in cfg.archetypes:
        ev, train, test = _episodes(cfg.organism, arch, cfg, seed)
        monitors: dict[str, Monitor] = {s: BagOfWordsMonitor(s) for s in ("action", "cot", "all", "all+followup")}
        rows += _score_rows(ev, monitors, train, test, seed, cfg.n_boot, archetype=arch)
    return rows


def length_rows(cfg: SuiteConfig, lengths: tuple[int, ...], seed: int) -> list[dict[str, Any]]:
    """[P02] g-mean² of the CoT+action and action-only monitors as the organism's CoT length ``K`` varies."""
    rows: list[dict[str, Any]] = []
    for arch in cfg.archetypes:
        for k in lengths:
            ev, train, test = _episodes(replace(cfg.organism, cot_steps=k), arch, cfg, seed)
            monitors: dict[str, Monitor] = {"all": BagOfWordsMonitor("all"), "action": BagOfWordsMonitor("action")}
            rows += _score_rows(ev, monitors, train, test, seed, cfg.n_boot, archetype=arch, cot_steps=k)
    return rows


def compute_rows(cfg: SuiteConfig, reads: tuple[int, ...], keep: float, seed: int) -> list[dict[str, Any]]:
    """[P02] g-mean² of majority votes over ``reads`` partial reads (each keeping a share ``keep`` of the words),
    with and without CoT access."""
    rows: list[dict[str, Any]] = []
    for arch in cfg.archetypes:
        ev, train, test = _episodes(cfg.organism, arch, cfg, seed)
        monitors: dict[str, Monitor] = {}
        for scope in ("action", "all"):
            for k in reads:
                monitors[f"{scope}@{k}"] = PartialReadMonitor(BagOfWordsMonitor(scope), reads=k, keep=keep)
        for r in _score_rows(ev, monitors, train, test, seed, cfg.n_boot, archetype=arch):
            scope, k = r["monitor"].split("@")
            rows.append({**r, "scope": scope, "reads": int(k)})
    return rows


def planted_intervention(cfg: EstimatorConfig, seed: int) -> tuple[np.ndarray, ...]:
    """[P02] A planted intervention experiment with known rates: per prompt a control match rate ``base_rate``; a
    share ``null_share`` of the prompts has no effect, the others turn a non-matching answer into the target with
    probability ``effect``; the monitor flags caused matches with probability ``tpr`` and uncaused ones with
    ``1 − tnr``. Returns ``(prompt_ids, treated, match, flag)``."""
    g = np.random.default_rng([seed, 11])
    pid = np.repeat(np.arange(cfg.prompts), 2 * cfg.samples)
    t = np.tile(np.r_[np.zeros(cfg.samples), np.ones(cfg.samples)], cfg.prompts).astype(np.int8)
    null = g.random(cfg.prompts) < cfg.null_share
    eff = np.where(null, 0.0, cfg.effect)[pid]
    base = g.random(pid.size) < cfg.base_rate
    caused = (t == 1) & ~base & (g.random(pid.size) < eff)
    match = caused | base
    flag = np.where(caused, g.random(pid.size) < cfg.tpr, g.random(pid.size) < 1.0 - cfg.tnr) & match
    return pid, t, match.astype(np.int8), flag.astype(np.int8)


def _oracle(test: list[Episode], flags: np.ndarray, idx: np.ndarray) -> tuple[float, float]:
    """The monitor's true TPR (flagged share of caused treated matches) and TNR (unflagged share of control
    matches), from the organism's hidden ground truth."""
    caused = np.array([bool(test[i].transcript.meta["property"]) for i in idx])
    control = np.array([test[i].prompt.arm == "control" for i in idx])
    return float(flags[caused].mean()), float(1.0 - flags[control].mean())


def estimator_rows(cfg: EstimatorConfig, seed: int) -> list[dict[str, Any]]:
    """[P02] Estimated vs true TPR and TNR of the intervention estimator: on the planted experiment (truth =
    ``cfg.tpr``, ``cfg.tnr``) under each filter, and on the organism's intervention eval with a CoT monitor (truth
    from the hidden ground truth)."""
    rows = []
    pid, t, y, f = planted_intervention(cfg, seed)
    for filt in ("crossfit", "none", "insample"):
        m = intervention_g_mean2(pid, t, y, f, filter=filt, n_boot=cfg.n_boot, seed=seed)
        rows.append({"source": "planted", "filter": filt, "seed": seed, "tpr": m.tpr, "tnr": m.tnr,
                     "true_tpr": cfg.tpr, "true_tnr": cfg.tnr, "g_mean2": m.g_mean2})
    ev, train, test = _episodes(cfg.suite.organism, "intervention", cfg.suite, seed)
    run = run_eval(ev, {"all": BagOfWordsMonitor("all")}, train=train, test=test, n_boot=cfg.n_boot, seed=seed)
    idx, _ = ev.cases(test)
    true_tpr, true_tnr = _oracle(test, run.flags["all"], idx)
    m = run.scores["all"]
    rows.append({"source": "organism", "filter": "crossfit", "seed": seed, "tpr": m.tpr, "tnr": m.tnr,
                 "true_tpr": true_tpr, "true_tnr": true_tnr, "g_mean2": m.g_mean2})
    return rows
