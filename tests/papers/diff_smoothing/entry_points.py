"""The public entry points of [P32] for the bad-input conformance test."""

import numpy as np
import torch

from icml26.papers.diff_smoothing import (
    LMConfig,
    categorical_pass_at_k,
    correct_set_entropy,
    decode,
    differential_smoothing,
    differential_smoothing_reward,
    encode_prompt,
    entropy_bonus,
    entropy_minimization,
    evaluate,
    expected_distinct_correct,
    grpo_train,
    kl_optimum,
    make_instances,
    make_model,
    make_toy_tasks,
    pass_at_k,
    sample,
    sft,
    sft_targets,
    smoothed_advantages,
    train_toy,
    vanilla,
    variant_pass_at_k,
)
from support.badinput import Entry

R, LP = np.array([1.0, 0.0, 1.0, 0.0]), np.array([-1.0, -2.0, -3.0, -0.5])
PI = np.array([0.4, 0.3, 0.2, 0.1])
C = np.array([True, False, True, False])
TASKS = make_toy_tasks(3, n_answers=8, seed=0)
INST = make_instances(4, seed=0)
MODEL = make_model(LMConfig(n_layer=1, n_head=1, d_model=8), seed=0)
PROMPTS = torch.tensor([encode_prompt(i) for i in INST[:2]])

ENTRY_POINTS = [
    Entry("differential_smoothing", differential_smoothing, valid={"gamma_p": 0.1, "gamma_n": 0.1},
          kinds={"gamma_p": "real", "gamma_n": "real"}),
    Entry("entropy_bonus", entropy_bonus, valid={"gamma": 0.1}, kinds={"gamma": "real"}),
    Entry("entropy_minimization", entropy_minimization, valid={"gamma": 0.1}, kinds={"gamma": "real"}),
    Entry("smoothed_advantages", smoothed_advantages,
          valid={"rewards": R, "logp": LP, "coef_correct": 0.1, "coef_incorrect": -0.1},
          kinds={"rewards": "array", "logp": "array", "coef_correct": "real", "coef_incorrect": "real"}),
    Entry("differential_smoothing_reward", differential_smoothing_reward,
          valid={"rewards": R, "logp_base": LP, "gamma_p": 0.1, "gamma_n": 0.1},
          kinds={"rewards": "array", "logp_base": "array", "gamma_p": "real", "gamma_n": "real"}),
    Entry("vanilla transform", vanilla(), valid={"rewards": R, "logp": LP}, kinds={"rewards": "array", "logp": "array"}),
    Entry("pass_at_k", pass_at_k, valid={"n": 32, "c": 5, "k": 16}, kinds={"n": "int", "c": "int", "k": "int"}),
    Entry("categorical_pass_at_k", categorical_pass_at_k, valid={"policy": PI, "correct": C, "k": 4},
          kinds={"policy": "prob", "k": "int"}),
    Entry("variant_pass_at_k", variant_pass_at_k, valid={"policy": PI, "correct": C, "k": 4, "keep_prob": 0.5},
          kinds={"policy": "prob", "k": "int", "keep_prob": "real"}),
    Entry("correct_set_entropy", correct_set_entropy, valid={"policy": PI, "correct": C}, kinds={"policy": "prob"}),
    Entry("expected_distinct_correct", expected_distinct_correct, valid={"policy": PI, "correct": C, "k": 4},
          kinds={"policy": "prob", "k": "int"}),
    Entry("kl_optimum", kl_optimum, valid={"base": PI, "correct": C, "beta": 0.5, "gamma_p": 0.1, "gamma_n": 0.1},
          kinds={"base": "prob", "beta": "real", "gamma_p": "real", "gamma_n": "real"}),
    Entry("make_toy_tasks", make_toy_tasks, valid={"n_prompts": 3, "n_answers": 8, "zipf": 1.1, "seed": 0},
          kinds={"n_prompts": "int", "n_answers": "int", "zipf": "real", "seed": "seed"}),
    Entry("train_toy", train_toy,
          valid={"tasks": TASKS, "transform": vanilla(), "steps": 2, "lr": 0.1, "mode": "sampled", "group_size": 4,
                 "seed": 0, "ks": (4,), "keep_prob": 0.5, "kl_coef": 0.0},
          kinds={"steps": "int", "lr": "real", "mode": "str", "group_size": "int", "seed": "seed",
                 "keep_prob": "real", "kl_coef": "real"}),
    Entry("make_instances", make_instances, valid={"n": 3, "seed": 0}, kinds={"n": "int", "seed": "seed"}),
    Entry("decode", decode, valid={"ids": np.array([1, 10, 2, 12, 3])}, kinds={"ids": "array"},
          skip={"ids:empty": "no ids decode to the empty string"}),
    Entry("sft_targets", sft_targets, valid={"instances": INST, "zipf": 1.5, "seed": 0},
          kinds={"zipf": "real", "seed": "seed"}),
    Entry("make_model", make_model, valid={"cfg": LMConfig(n_layer=1, n_head=1, d_model=8), "seed": 0},
          kinds={"seed": "seed"}),
    Entry("sft", sft, valid={"model": MODEL, "instances": INST, "steps": 1, "lr": 1e-3, "batch_size": 2, "seed": 0},
          kinds={"steps": "int", "lr": "real", "batch_size": "int", "seed": "seed"}),
    Entry("sample", sample,
          valid={"model": MODEL, "prompts": PROMPTS, "n": 2, "generator": torch.Generator().manual_seed(0),
                 "temperature": 1.0},
          kinds={"n": "int", "temperature": "real"}),
    Entry("grpo_train", grpo_train,
          valid={"base": MODEL, "instances": INST, "transform": vanilla(), "steps": 1, "prompts_per_step": 2,
                 "group_size": 2, "lr": 1e-3, "clip": 0.2, "seed": 0},
          kinds={"steps": "int", "prompts_per_step": "int", "group_size": "int", "lr": "real", "clip": "real",
                 "seed": "seed"}),
    Entry("evaluate", evaluate, valid={"model": MODEL, "instances": INST, "n": 4, "ks": (1, 2), "seed": 0},
          kinds={"n": "int", "seed": "seed"}),
]
