"""The public entry points of [P16] for the bad-input conformance test."""

import numpy as np

from icml26.papers.agent0vl import (
    Feedback,
    RunConfig,
    SERCConfig,
    ToolBox,
    ToyVLM,
    Trajectory,
    accuracy,
    cold_start,
    evaluate_arithmetic,
    expression,
    make_tasks,
    measure_object,
    render_figure,
    repair_gate,
    run_seed,
    self_reward,
)
from icml26.papers.agent0vl._policy import Step
from support.badinput import Entry

_TASKS = make_tasks(3, seed=0)
_T = _TASKS[0]
_FB = [Feedback(1.0, 1.0, "ok"), Feedback(0.0, 0.2, "off by one")]
_TR = Trajectory((Step("read", 4, (0,)), Step("answer", 4)))
_TINY = RunConfig(n_train=4, n_test=3, sft_steps=2, eval_samples=1, loop=SERCConfig(iterations=1, steps=1, batch=2,
                                                                                     group=2), arms=("serc",))


def _accuracy(samples, seed):
    return accuracy(ToyVLM(hidden=8, seed=0), _TASKS, samples=samples, seed=seed)


def _cold_start(tool_rate, calc_rate, mental_accuracy, steps, lr, seed):
    return cold_start(ToyVLM(hidden=8, seed=0), _TASKS, tool_rate=tool_rate, calc_rate=calc_rate,
                      mental_accuracy=mental_accuracy, steps=steps, lr=lr, seed=seed)


ENTRY_POINTS = [
    Entry("make_tasks", make_tasks, valid={"n": 2, "seed": 0, "noise": 0.03},
          kinds={"n": "int", "seed": "seed", "noise": "nonneg"}),
    Entry("render_figure", render_figure, valid={"kind": "bars", "values": np.array([3.0, 5.0, 7.0]), "noise": 0.0,
                                                 "seed": 0},
          kinds={"kind": "str", "values": "array", "noise": "nonneg", "seed": "seed"}),
    Entry("measure_object", measure_object, valid={"image": _T.image, "layout": _T.layout, "index": 0},
          kinds={"image": "array", "index": "int"}),
    Entry("ToolBox", ToolBox, valid={"image": _T.image, "layout": _T.layout}, kinds={"image": "array"}),
    Entry("evaluate_arithmetic", evaluate_arithmetic, valid={"expr": "3 + 4 * 2", "timeout_s": 0.05},
          kinds={"expr": "str", "timeout_s": "posreal"}),
    Entry("expression", expression, valid={"kind": "sum", "a": 3, "b": 4},
          kinds={"kind": "str", "a": "int", "b": "int"}),
    Entry("repair_gate", repair_gate, valid={"feedback": _FB, "tau": 0.5}, kinds={"tau": "real"}),
    Entry("self_reward", self_reward,
          valid={"feedback": _FB, "trajectory": _TR, "repair_penalty": 0.1, "format_bonus": 0.1},
          kinds={"repair_penalty": "nonneg", "format_bonus": "nonneg"}),
    Entry("ToyVLM", ToyVLM, valid={"hidden": 8, "seed": 0}, kinds={"hidden": "int", "seed": "seed"}),
    Entry("SERCConfig", SERCConfig,
          valid={"iterations": 1, "steps": 1, "batch": 2, "group": 2, "tau": 0.5, "lr": 1e-3, "repair_penalty": 0.1},
          kinds={"iterations": "int", "steps": "int", "batch": "int", "group": "int", "tau": "real", "lr": "posreal",
                 "repair_penalty": "nonneg"}),
    Entry("cold_start", _cold_start,
          valid={"tool_rate": 0.3, "calc_rate": 0.3, "mental_accuracy": 0.6, "steps": 2, "lr": 1e-3, "seed": 0},
          kinds={"tool_rate": "real", "calc_rate": "real", "mental_accuracy": "real", "steps": "int",
                 "lr": "posreal", "seed": "seed"}),
    Entry("accuracy", _accuracy, valid={"samples": 1, "seed": 0}, kinds={"samples": "int", "seed": "seed"}),
    Entry("run_seed", run_seed, valid={"cfg": _TINY, "seed": 0}, kinds={"seed": "seed"}),
]
