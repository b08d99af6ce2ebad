"""The public entry points of [P15] for the bad-input conformance test."""

import numpy as np
import torch

from icml26.papers.t2po import (
    AgentVocab,
    GridMaze,
    NumberHunt,
    ThinkingIntervention,
    TrainConfig,
    TurnResampler,
    entropy,
    gigpo_advantages,
    guess_information,
    make_maze,
    make_policy,
    maze_distances,
    multi_turn_rollout,
    step_returns,
    train_agent,
    turn_score,
    uncertainty,
)
from support.badinput import Entry

_LOGITS = np.array([[0.5, -1.0, 2.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
_GRID = make_maze(2, 2, seed=0)
_GOAL = (3, 3)
_VOCAB = AgentVocab(NumberHunt.n_observations, 4)
_MODEL = make_policy(_VOCAB, block_size=12, d_model=8, n_layer=1, n_head=1, seed=0)
_TINY = TrainConfig(n=4, max_turns=2, demo_episodes=8, sft_steps=1, sft_batch=8, iterations=1, prompts=1, group=2,
                    eval_every=1, eval_samples=1, block_size=16, d_model=8, n_layer=1, n_head=1)


def _rollout(seeds, weight):
    envs = [NumberHunt(n=4, max_turns=2) for _ in range(2)]
    return multi_turn_rollout(_MODEL, envs, vocab=_VOCAB, seeds=seeds, generator=torch.Generator().manual_seed(0),
                              weight=weight)


def _fires_batch(traces, lengths):
    return ThinkingIntervention(eps=0.05).fires_batch(traces, lengths)


def _mask(previous, current, tries):
    return TurnResampler().mask(previous, current, tries, has_previous=np.array([True, False]))


ENTRY_POINTS = [
    Entry("uncertainty", uncertainty, valid={"logits": _LOGITS, "weight": 0.5},
          kinds={"logits": "array", "weight": "real"},
          skip={"logits:extra_dim": "any leading batch shape is valid: the vocabulary is the last axis"}),
    Entry("entropy", entropy, valid={"logits": _LOGITS}, kinds={"logits": "array"},
          skip={"logits:extra_dim": "any leading batch shape is valid: the vocabulary is the last axis"}),
    Entry("turn_score", turn_score, valid={"values": np.array([0.2, 0.4])}, kinds={"values": "array"}),
    Entry("ThinkingIntervention", ThinkingIntervention, valid={"eps": 0.05, "window": 2, "max_think_tokens": 8},
          kinds={"eps": "posreal", "window": "int", "max_think_tokens": "int"}),
    Entry("ThinkingIntervention.fires", ThinkingIntervention(eps=0.05).fires,
          valid={"trace": np.array([0.5, 0.4, 0.4, 0.4])}, kinds={"trace": "array"}),
    Entry("ThinkingIntervention.fires_batch", _fires_batch,
          valid={"traces": np.array([[0.5, 0.4, 0.4], [0.3, 0.3, 0.3]]), "lengths": np.array([3, 2])},
          kinds={"traces": "array", "lengths": "array"}),
    Entry("TurnResampler", TurnResampler, valid={"eta": 0.3, "max_try": 2}, kinds={"eta": "posreal", "max_try": "int"}),
    Entry("TurnResampler.should_resample", TurnResampler().should_resample,
          valid={"previous": 1.0, "current": 1.1, "tries": 0},
          kinds={"previous": "real", "current": "real", "tries": "int"}),
    Entry("TurnResampler.mask", _mask,
          valid={"previous": np.array([1.0, 0.0]), "current": np.array([1.1, 0.5]), "tries": np.array([0, 0])},
          kinds={"previous": "array", "current": "array", "tries": "array"}),
    Entry("gigpo_advantages", gigpo_advantages,
          valid={"rewards": np.array([[0.0, 1.0], [0.0, 0.0]]), "anchors": np.array([[0, 1], [0, 2]]),
                 "groups": np.array([0, 0]), "lengths": np.array([2, 2]), "gamma": 0.95, "omega": 1.0, "eps": 1e-6},
          kinds={"rewards": "array", "anchors": "array", "groups": "array", "lengths": "array", "gamma": "real",
                 "omega": "nonneg", "eps": "posreal"}),
    Entry("step_returns", step_returns,
          valid={"rewards": np.array([[0.0, 1.0]]), "lengths": np.array([2]), "gamma": 0.9},
          kinds={"rewards": "array", "lengths": "array", "gamma": "real"}),
    Entry("guess_information", guess_information, valid={"lo": 0, "hi": 7, "guess": 3},
          kinds={"lo": "int", "hi": "int", "guess": "int"}),
    Entry("NumberHunt", NumberHunt, valid={"n": 8, "max_turns": 4, "invalid_penalty": 0.1},
          kinds={"n": "int", "max_turns": "int", "invalid_penalty": "nonneg"}),
    Entry("NumberHunt.reset", NumberHunt().reset, valid={"seed": 0}, kinds={"seed": "seed"}),
    Entry("NumberHunt.step", NumberHunt().step, valid={"action": 3}, kinds={"action": "int"}),
    Entry("make_maze", make_maze, valid={"rows": 2, "cols": 3, "seed": 0, "loops": 1},
          kinds={"rows": "int", "cols": "int", "seed": "seed", "loops": "int"}),
    Entry("maze_distances", maze_distances, valid={"grid": _GRID, "goal": _GOAL}, kinds={"grid": "array"}),
    Entry("GridMaze", GridMaze, valid={"grid": _GRID, "goal": _GOAL, "max_turns": 6, "invalid_penalty": 0.1},
          kinds={"grid": "array", "max_turns": "int", "invalid_penalty": "nonneg"}),
    Entry("GridMaze.reset", GridMaze(_GRID, goal=_GOAL).reset, valid={"seed": 0}, kinds={"seed": "seed"}),
    Entry("GridMaze.step", GridMaze(_GRID, goal=_GOAL).step, valid={"action": 1}, kinds={"action": "int"}),
    Entry("AgentVocab", AgentVocab, valid={"n_observations": 5, "n_actions": 4},
          kinds={"n_observations": "int", "n_actions": "int"}),
    Entry("make_policy", make_policy,
          valid={"vocab": _VOCAB, "block_size": 12, "d_model": 8, "n_layer": 1, "n_head": 1, "seed": 0},
          kinds={"block_size": "int", "d_model": "int", "n_layer": "int", "n_head": "int", "seed": "seed"}),
    Entry("multi_turn_rollout", _rollout, valid={"seeds": np.array([0, 1]), "weight": 0.5},
          kinds={"seeds": "array", "weight": "real"}),
    Entry("train_agent", train_agent, valid={"cfg": _TINY, "arm": "grpo", "seed": 0}, kinds={"arm": "str", "seed": "seed"}),
]
