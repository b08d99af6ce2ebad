"""The public entry points of [P02] for the bad-input conformance test."""

import numpy as np

from icml26.papers.monitorability import (
    BagOfWordsMonitor,
    OrganismConfig,
    PartialReadMonitor,
    SimulatedAgent,
    arithmetic_tasks,
    best_threshold,
    confusion_rates,
    crossfit_folds,
    g_mean2,
    g_mean2_ci,
    intervention_g_mean2,
    intervention_table,
    majority_vote_probability,
    organism_eval,
    organism_tasks,
)
from support.badinput import Entry

_Y = np.array([1, 0, 1, 0, 1, 0])
_M = np.array([1, 0, 0, 0, 1, 1])
_PID = np.array([0, 0, 0, 0, 1, 1, 1, 1])
_T = np.array([0, 0, 1, 1, 0, 0, 1, 1])
_MATCH = np.array([1, 0, 1, 1, 0, 1, 1, 1])
_FLAG = np.array([0, 0, 1, 0, 0, 0, 1, 1])
_FOLDS = np.array([0, 1, 0, 1, 0, 1, 0, 1])
_EV = organism_eval("intervention")
_PROMPTS = _EV.prompts(organism_tasks("intervention", 2, seed=0), samples=1)


def _act(seed):
    return SimulatedAgent(OrganismConfig()).act(_PROMPTS, seed=seed)


ENTRY_POINTS = [
    Entry("g_mean2", g_mean2, valid={"y_true": _Y, "y_pred": _M}, kinds={"y_true": "array", "y_pred": "array"}),
    Entry("confusion_rates", confusion_rates, valid={"y_true": _Y, "y_pred": _M},
          kinds={"y_true": "array", "y_pred": "array"}),
    Entry("g_mean2_ci", g_mean2_ci, valid={"y_true": _Y, "y_pred": _M, "n_boot": 20, "level": 0.9, "seed": 0},
          kinds={"y_true": "array", "y_pred": "array", "n_boot": "int", "level": "prob", "seed": "seed"}),
    Entry("majority_vote_probability", majority_vote_probability, valid={"p": 0.6, "k": 3},
          kinds={"p": "prob", "k": "int"}),
    Entry("crossfit_folds", crossfit_folds, valid={"prompt_ids": _PID, "treated": _T, "seed": 0},
          kinds={"prompt_ids": "array", "treated": "array", "seed": "seed"}),
    Entry("intervention_table", intervention_table,
          valid={"prompt_ids": _PID, "treated": _T, "match": _MATCH, "flag": _FLAG, "filter": "crossfit",
                 "min_effect": 0.0, "folds": _FOLDS},
          kinds={"prompt_ids": "array", "treated": "array", "match": "array", "flag": "array", "filter": "str",
                 "min_effect": "real", "folds": "array"}),
    Entry("intervention_g_mean2", intervention_g_mean2,
          valid={"prompt_ids": _PID, "treated": _T, "match": _MATCH, "flag": _FLAG, "filter": "none",
                 "n_boot": 20, "level": 0.9, "seed": 0},
          kinds={"prompt_ids": "array", "treated": "array", "match": "array", "flag": "array", "filter": "str",
                 "n_boot": "int", "level": "prob", "seed": "seed"}),
    Entry("best_threshold", best_threshold, valid={"scores": np.array([0.1, 0.5, 0.9, 0.3]),
                                                   "labels": np.array([0, 1, 1, 0])},
          kinds={"scores": "array", "labels": "array"}),
    Entry("organism_tasks", organism_tasks, valid={"archetype": "process", "n": 3, "seed": 0},
          kinds={"archetype": "str", "n": "int", "seed": "seed"}),
    Entry("organism_eval", organism_eval, valid={"archetype": "outcome"}, kinds={"archetype": "str"}),
    Entry("arithmetic_tasks", arithmetic_tasks, valid={"n": 2, "seed": 0}, kinds={"n": "int", "seed": "seed"}),
    Entry("OrganismConfig", OrganismConfig, valid={"cot_steps": 4, "verbalize": 0.2, "noise": 0.01},
          kinds={"cot_steps": "int", "verbalize": "real", "noise": "real"}),
    Entry("SimulatedAgent.act", _act, valid={"seed": 0}, kinds={"seed": "seed"}),
    Entry("BagOfWordsMonitor", BagOfWordsMonitor, valid={"scope": "cot", "C": 1.0}, kinds={"scope": "str",
                                                                                             "C": "posreal"}),
    Entry("PartialReadMonitor", PartialReadMonitor, valid={"base": BagOfWordsMonitor("all"), "reads": 3, "keep": 0.5},
          kinds={"reads": "int", "keep": "prob"}),
]
