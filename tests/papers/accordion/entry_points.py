"""The public entry points of [P25] for the bad-input conformance test."""

import numpy as np
import torch

from icml26.common.nn import GPTConfig, TinyGPT
from icml26.papers.accordion import (
    AccumulatorTask,
    KVSampler,
    Markers,
    PolicySpec,
    RLSpec,
    SFTSpec,
    broadcast_to_steps,
    fold_context,
    fold_rollout,
    leaf_advantages,
    leaf_reward,
    make_problems,
    parse_step,
    sample_from_logits,
    split_steps,
    unfold_rollout,
)
from support.badinput import Entry

MK = Markers(step_open=10, step_close=11, end_think=12, eos=13, tldr=(14,))
_STEP = parse_step([1, 2, 10, 3, 11], markers=MK, max_summary_tokens=2)
_LEAF = parse_step([1, 12, 5, 13], markers=MK, max_summary_tokens=2)
_MODEL = TinyGPT(GPTConfig(vocab_size=16, block_size=24, n_layer=1, n_head=1, d_model=8), seed=0)
_TASK = AccumulatorTask(modulus=5, updates_per_step=3, min_steps=2, max_steps=3)
_EMPTY_OK = "an empty output is a valid (malformed) step"


def _sample(logits, temperature):
    return sample_from_logits(logits, temperature=temperature, generator=torch.Generator().manual_seed(0))


def _fold(prompts, max_steps, max_step_tokens, max_summary_tokens):
    return fold_rollout(KVSampler(_MODEL), prompts, markers=MK, max_steps=max_steps, max_step_tokens=max_step_tokens,
                        max_summary_tokens=max_summary_tokens, generator=torch.Generator().manual_seed(0))


def _unfold(prompts, max_steps, max_step_tokens, max_summary_tokens):
    return unfold_rollout(KVSampler(_MODEL), prompts, markers=MK, max_steps=max_steps,
                          max_step_tokens=max_step_tokens, max_summary_tokens=max_summary_tokens,
                          generator=torch.Generator().manual_seed(0))


def _fold_ctx(prompt):
    return fold_context(prompt, [_STEP], markers=MK)


def _parse(tokens, max_summary_tokens):
    return parse_step(tokens, markers=MK, max_summary_tokens=max_summary_tokens)


def _split(tokens, max_steps, max_step_tokens, max_summary_tokens):
    return split_steps(tokens, markers=MK, max_steps=max_steps, max_step_tokens=max_step_tokens,
                       max_summary_tokens=max_summary_tokens)


def _reward(target, format_penalty, correct_reward):
    return leaf_reward(_LEAF, target, format_penalty=format_penalty, correct_reward=correct_reward)


_ROLL_VALID = {"prompts": np.array([[1, 2, 3], [4, 5, 6]]), "max_steps": 2, "max_step_tokens": 4,
               "max_summary_tokens": 2}
_ROLL_KINDS = {"prompts": "array", "max_steps": "int", "max_step_tokens": "int", "max_summary_tokens": "int"}
_ROLL_SKIP = {"prompts:extra_dim": "prompts are a batch of token sequences of any shape (B, T)"}

ENTRY_POINTS = [
    Entry("leaf_advantages", leaf_advantages, valid={"rewards": np.array([1.0, 0.0, 1.0]), "groups": np.array([0, 0, 1])},
          kinds={"rewards": "array", "groups": "array"}, skip={"rewards:extra_dim": "(P, G) rewards are valid without ids"}),
    Entry("broadcast_to_steps", broadcast_to_steps, valid={"advantages": np.array([0.5, -0.5]),
                                                            "n_steps": np.array([2, 1])},
          kinds={"advantages": "array", "n_steps": "array"}),
    Entry("leaf_reward", _reward, valid={"target": np.array([5]), "format_penalty": 0.0, "correct_reward": 1.0},
          kinds={"target": "array", "format_penalty": "real", "correct_reward": "real"},
          skip={"target:empty": "an empty answer is a valid target"}),
    Entry("fold_context", _fold_ctx, valid={"prompt": np.array([1, 2, 3])}, kinds={"prompt": "array"}),
    Entry("parse_step", _parse, valid={"tokens": np.array([1, 2, 10, 3, 11]), "max_summary_tokens": 2},
          kinds={"tokens": "array", "max_summary_tokens": "int"}, skip={"tokens:empty": _EMPTY_OK}),
    Entry("split_steps", _split, valid={"tokens": np.array([1, 10, 3, 11, 2, 12, 5, 13]), "max_steps": 3,
                                        "max_step_tokens": 6, "max_summary_tokens": 2},
          kinds={"tokens": "array", "max_steps": "int", "max_step_tokens": "int", "max_summary_tokens": "int"},
          skip={"tokens:empty": "nothing generated gives no steps"}),
    Entry("sample_from_logits", _sample, valid={"logits": np.array([[0.0, 1.0, -1.0]]), "temperature": 1.0},
          kinds={"logits": "array", "temperature": "nonneg"}),
    Entry("fold_rollout", _fold, valid=_ROLL_VALID, kinds=_ROLL_KINDS, skip=_ROLL_SKIP),
    Entry("unfold_rollout", _unfold, valid=_ROLL_VALID, kinds=_ROLL_KINDS, skip=_ROLL_SKIP),
    Entry("make_problems", make_problems, valid={"task": _TASK, "n": 4, "split": "train", "seed": 0},
          kinds={"n": "int", "split": "str", "seed": "seed"}),
    Entry("AccumulatorTask", AccumulatorTask, valid={"modulus": 5, "updates_per_step": 3, "min_steps": 2,
                                                      "max_steps": 3},
          kinds={"modulus": "int", "updates_per_step": "int", "min_steps": "int", "max_steps": "int"}),
    Entry("PolicySpec", PolicySpec, valid={"n_layer": 1, "n_head": 1, "d_model": 8, "pos": "learned"},
          kinds={"n_layer": "int", "n_head": "int", "d_model": "int", "pos": "str"}),
    Entry("SFTSpec", SFTSpec, valid={"n_problems": 4, "steps": 1, "batch_size": 2, "lr": 1e-3, "lossy_rate": 0.4},
          kinds={"n_problems": "int", "steps": "int", "batch_size": "int", "lr": "posreal", "lossy_rate": "nonneg"}),
    Entry("RLSpec", RLSpec, valid={"iterations": 1, "prompts": 1, "group_size": 2, "fold_share": 0.5, "lr": 1e-3,
                                   "clip": 0.2, "epochs": 1},
          kinds={"iterations": "int", "prompts": "int", "group_size": "int", "fold_share": "nonneg", "lr": "posreal",
                 "clip": "posreal", "epochs": "int"}),
    Entry("KVSampler", KVSampler, valid={"model": _MODEL, "temperature": 1.0, "max_batch": 4},
          kinds={"temperature": "nonneg", "max_batch": "int"}),
]
