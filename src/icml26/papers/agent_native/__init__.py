"""[P17] daVinci-Dev: Agent-native Mid-training for Software Engineering

What it is: mid-training a base LM on *agent-native* data before agentic post-training. Contextually-native
trajectories rebuild a pull request's workflow as one action-observation sequence (issue -> search and open with the
real file contents at the base commit -> edits), and environmentally-native trajectories are agent rollouts in
executable repositories whose observations are real tool outputs and test runs (kept when the tests pass). The paper
compares them with factorised static PR data (Kimi-Dev: localisation and edit tasks) at different token budgets.

Toy reproduction (basis ``reconstruction``): a generated world of small Python repositories (``make_task``: 2
modules x 2 functions from templates, one injected bug, a ``unittest`` file that really runs in a sandboxed
subprocess), an action language (SEARCH / OPEN / EDIT / RUN_TESTS / SUBMIT, ``RepoEnv``), the data arms
(``static_documents``, ``contextual_trajectory``, ``environmental_rollouts``) and a TinyGPT trained here:
pretraining on code, mid-training on one arm at an equal token budget, the same SFT on environmentally-native
trajectories, then the agent loop on held-out bugs and bugs in held-out function templates (``resolve``).

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``half_budget_beats_static`` — ctx+env mid-training at half the tokens is not worse than static at full.
  2. ``native_ordering`` — ctx+env > ctx > static at equal tokens.
  3. ``general_code`` — agent-native mid-training improves code completion on held-out templates.

Deviations / reconstructions:
  1. Everything is at toy scale: a 2-layer, d = 64 TinyGPT (about 0.1M parameters) over a closed word-level vocabulary,
     budgets of 10^5 tokens; the paper mid-trains 32B/72B models on 73.1B tokens and evaluates on SWE-Bench Verified.
  2. The repository world, the bug model (operator swaps, off-by-one constants), the windowed OPEN viewer, the
     factorised static format and the noisy scripted agent (p = 0.3 wrong open / wrong edit) are ours.
  3. One base model is pretrained per run; the seeds vary the mid-training, SFT and evaluation tasks and the order.
  4. "General code" is exact completion of held-out-template function bodies, our stand-in for HumanEval/EvalPlus;
     each model is asked in the three formats the training texts show code in (plain source, the static arm's
     numbered file, the agent's file viewer) and scored in its best.
  5. The sandbox (``run_unit_tests``) guards against accidents (hangs, network, growing files), not against code
     written to escape; the agent's edits come from a closed vocabulary that names no file, process or network call.
"""

from icml26.papers.agent_native._agent import completion_accuracy, resolve
from icml26.papers.agent_native._data import (
    contextual_trajectory,
    environmental_rollouts,
    pretrain_documents,
    static_documents,
)
from icml26.papers.agent_native._env import Action, RepoEnv, Trajectory, parse_action
from icml26.papers.agent_native._model import ModelSpec, make_model, train_on_tokens
from icml26.papers.agent_native._pipeline import ARMS, RunConfig, run_seeds
from icml26.papers.agent_native._repo import Bug, Repo, Task, heldout_templates, make_task, templates
from icml26.papers.agent_native._sandbox import TestCache, TestReport, run_unit_tests

__all__ = [
    "ARMS",
    "Action",
    "Bug",
    "ModelSpec",
    "Repo",
    "RepoEnv",
    "RunConfig",
    "Task",
    "TestCache",
    "TestReport",
    "Trajectory",
    "completion_accuracy",
    "contextual_trajectory",
    "environmental_rollouts",
    "heldout_templates",
    "make_model",
    "make_task",
    "parse_action",
    "pretrain_documents",
    "resolve",
    "run_seeds",
    "run_unit_tests",
    "static_documents",
    "templates",
    "train_on_tokens",
]
