"""The public entry points of [P17] for the bad-input conformance test."""

from icml26.papers.agent_native import (
    ModelSpec,
    completion_accuracy,
    environmental_rollouts,
    make_model,
    make_task,
    parse_action,
    resolve,
    run_unit_tests,
    train_on_tokens,
)
from support.badinput import Entry

_task = make_task(seed=0)
_spec = ModelSpec(n_layer=1, n_head=2, d_model=16, block_size=320, batch_size=2)
_model = make_model(_spec, seed=0)
_func = _task.functions[0]

ENTRY_POINTS = [
    Entry("make_task", make_task, valid={"seed": 0, "n_modules": 2, "n_funcs": 2},
          kinds={"seed": "seed", "n_modules": "int", "n_funcs": "int"}),
    Entry("run_unit_tests", run_unit_tests, valid={"repos": [_task.clean], "timeout_s": 30.0, "per_repo_s": 1.0},
          kinds={"timeout_s": "posreal", "per_repo_s": "posreal"}),
    Entry("environmental_rollouts", environmental_rollouts, valid={"tasks": [_task], "seed": 0, "p_wrong": 0.3},
          kinds={"seed": "seed", "p_wrong": "real"}),
    Entry("make_model", make_model, valid={"spec": _spec, "seed": 0}, kinds={"seed": "seed"}),
    Entry("train_on_tokens", train_on_tokens,
          valid={"model": _model, "docs": ["<issue> fails <eos>"], "tokens": 4, "spec": _spec, "seed": 0},
          kinds={"tokens": "int", "seed": "seed"}),
    Entry("resolve", resolve, valid={"model": _model, "tasks": [_task], "max_actions": 1},
          kinds={"max_actions": "int"}),
    Entry("completion_accuracy", completion_accuracy,
          valid={"model": _model, "functions": [_func], "fmt": "viewer", "max_new": 8},
          kinds={"fmt": "str", "max_new": "int"}),
    Entry("parse_action", parse_action, valid={"text": "RUN_TESTS"}, kinds={}),
]
