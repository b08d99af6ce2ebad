"""The public entry points of [P28] for the bad-input conformance test."""

import numpy as np

from icml26.papers.actg import (
    CorpusSchema,
    MSTSynth,
    Vocab,
    calibrate_dpsgd_sigma,
    calibrate_stage1,
    compose_epsilon,
    control_accuracy,
    gamma_schedule,
    gaussian_delta_exact,
    gaussian_epsilon_exact,
    make_corpus,
    make_generator,
    marginal_tv,
    mauve_score,
    mst_event,
    mst_parameters,
    opacus_dpsgd_epsilon,
    rubric_reward,
)
from support.badinput import Entry

_S = CorpusSchema()
_TAB, _TEXTS = make_corpus(_S, 40, seed=0)
_ROW = np.array([0, 1, 2, 3, 1])
_F = np.random.default_rng(0).normal(size=(30, 4))
_G = np.random.default_rng(1).normal(size=(30, 4))


def _synth_fit(table, seed):
    return MSTSynth(0.2, _S.cardinalities, iters=5).fit(table, seed=seed)


ENTRY_POINTS = [
    Entry("CorpusSchema", CorpusSchema, valid={"concentration": 0.5, "p_mention": 0.75, "world_seed": 1},
          kinds={"concentration": "posreal", "p_mention": "nonneg", "world_seed": "seed"}),
    Entry("make_corpus", make_corpus, valid={"schema": _S, "n": 5, "seed": 0}, kinds={"n": "int", "seed": "seed"}),
    Entry("rubric_reward", rubric_reward, valid={"text": _TEXTS[0], "row": _ROW}, kinds={"row": "array"}),
    Entry("MSTSynth", MSTSynth, valid={"rho": 0.2, "cardinalities": (3, 4), "iters": 5},
          kinds={"rho": "posreal", "iters": "int"}),
    Entry("mst_parameters", mst_parameters, valid={"rho": 0.2, "n_attributes": 5},
          kinds={"rho": "posreal", "n_attributes": "int"}),
    Entry("mst_event", mst_event, valid={"rho": 0.2, "n_attributes": 5}, kinds={"rho": "posreal", "n_attributes": "int"}),
    Entry("MSTSynth.fit", _synth_fit, valid={"table": _TAB, "seed": 0}, kinds={"table": "array", "seed": "seed"}),
    Entry("marginal_tv", marginal_tv, valid={"a": _TAB, "b": _TAB[::-1], "cardinalities": _S.cardinalities},
          kinds={"a": "array", "b": "array"}),
    Entry("control_accuracy", control_accuracy, valid={"texts": _TEXTS[:3], "rows": _TAB[:3]}, kinds={"rows": "array"}),
    Entry("mauve_score", mauve_score, valid={"p_features": _F, "q_features": _G, "seed": 0},
          kinds={"p_features": "array", "q_features": "array", "seed": "seed"}),
    Entry("compose_epsilon", compose_epsilon,
          valid={"stage1_rho": 0.1, "q": 0.1, "sigma": 1.5, "steps": 10, "delta": 1e-5, "accountant": "rdp",
                 "n_attributes": 5},
          kinds={"stage1_rho": "posreal", "n_attributes": "int", "q": "posreal", "sigma": "posreal", "steps": "int", "delta": "posreal",
                 "accountant": "str"}),
    Entry("calibrate_dpsgd_sigma", calibrate_dpsgd_sigma, valid={"q": 0.1, "steps": 10, "epsilon": 4.0, "delta": 1e-5},
          kinds={"q": "posreal", "steps": "int", "epsilon": "posreal", "delta": "posreal"}),
    Entry("calibrate_stage1", calibrate_stage1, valid={"q": 0.1, "sigma": 2.0, "steps": 10, "epsilon": 4.0,
                                                       "delta": 1e-5, "n_attributes": 5},
          kinds={"q": "posreal", "sigma": "posreal", "steps": "int", "epsilon": "posreal", "delta": "posreal",
                 "n_attributes": "int"}),
    Entry("gaussian_delta_exact", gaussian_delta_exact, valid={"epsilon": 1.0, "noise_multiplier": 2.0},
          kinds={"epsilon": "nonneg", "noise_multiplier": "posreal"}),
    Entry("gaussian_epsilon_exact", gaussian_epsilon_exact, valid={"delta": 1e-5, "noise_multiplier": 2.0},
          kinds={"delta": "posreal", "noise_multiplier": "posreal"}),
    Entry("opacus_dpsgd_epsilon", opacus_dpsgd_epsilon,
          valid={"q": 0.1, "sigma": 1.5, "steps": 10, "delta": 1e-5, "stage1_rho": 0.1},
          kinds={"q": "posreal", "sigma": "posreal", "steps": "int", "delta": "posreal", "stage1_rho": "posreal"}),
    Entry("gamma_schedule", gamma_schedule, valid={"step": 1, "steps": 5, "start": 2.0, "end": 0.2},
          kinds={"step": "int", "steps": "int", "start": "nonneg", "end": "nonneg"}),
    Entry("make_generator", make_generator, valid={"vocab": Vocab(), "block_size": 16, "n_layer": 1, "d_model": 8,
                                                   "n_head": 2, "seed": 0},
          kinds={"block_size": "int", "n_layer": "int", "d_model": "int", "n_head": "int", "seed": "seed"}),
]
