"""The public entry points of [P05] for the bad-input conformance test."""

import numpy as np

from icml26.papers.macko import (
    MackoMatrix,
    break_even_density,
    csr_bytes,
    dense_fp16_bytes,
    dense_fp16_gemv,
    macko_expected_bytes,
    perplexity,
    reference_spmv,
    sparsify_linear,
    wanda_prune,
    wanda_prune_model,
)
from support.badinput import Entry

_g = np.random.default_rng(0)
_W = np.where(_g.random((6, 40)) < 0.5, _g.standard_normal((6, 40)), 0).astype(np.float16)
_A = MackoMatrix.from_dense(_W)
_x = _g.standard_normal(40).astype(np.float32)

#: NaN and ±inf are fp16 values: a stored NaN/inf weight reaches its row of y, as in a dense product
_NONFINITE_WEIGHTS = {"W:nan": "a NaN weight is an fp16 value; it is stored and reaches its row, as in dense",
                      "W:inf": "±inf is an fp16 value and is stored as is (finite values beyond fp16 are refused)"}
#: NaN/inf in x reach y through stored entries only, as documented (dense 0 * inf would give NaN)
_NONFINITE_X = {"nan": "NaN in x propagates through the stored entries, as documented",
                "inf": "inf in x propagates through the stored entries, as documented"}


def _skip_x(arg: str) -> dict[str, str]:
    return {f"{arg}:{k}": v for k, v in _NONFINITE_X.items()}


def _tiny_llama():
    from icml26.common.models import tiny_causal_lm

    return tiny_causal_lm(seed=0, num_layers=1, hidden_size=16, num_heads=2, num_kv_heads=1, intermediate_size=32)[0]


def _prune_tiny(**kw):
    return wanda_prune_model(_tiny_llama(), **kw)


def _perplexity_tiny(**kw):
    return perplexity(_tiny_llama(), **kw)


def _sparsify(module_shape, **kw):
    import torch

    return sparsify_linear(torch.nn.Linear(*module_shape, bias=False), **kw)


ENTRY_POINTS = [
    Entry("MackoMatrix.from_dense", MackoMatrix.from_dense, valid={"W": _W}, kinds={"W": "array"},
          skip={**_NONFINITE_WEIGHTS, "W:empty": "a matrix with no rows is a valid (empty) operator"}),
    Entry("MackoMatrix.matvec", _A.matvec, valid={"x": _x, "threads": 1, "device": "cpu", "kernel": "native",
                                                  "isa": "scalar"},
          kinds={"x": "array", "threads": "int", "device": "str", "kernel": "str", "isa": "str"}, skip=_skip_x("x")),
    Entry("MackoMatrix.matmat", _A.matmat, valid={"X": np.stack([_x, _x], axis=1), "threads": 1},
          kinds={"X": "array", "threads": "int"}, skip=_skip_x("X")),
    Entry("reference_spmv", reference_spmv,
          valid={"values": _A.values, "deltas": _A.deltas, "row_ptr": _A.row_ptr, "shape": _A.shape, "X": _x[None]},
          kinds={"values": "array", "deltas": "array", "row_ptr": "array", "X": "array"},
          skip={"values:nan": "a NaN value is a stored fp16 weight (it reaches its row, as in dense)",
                "values:inf": "an inf value is a stored fp16 weight", **_skip_x("X"),
                "X:empty": "no input vectors: the product is (0, R)"}),
    Entry("dense_fp16_gemv", dense_fp16_gemv, valid={"W": _W, "x": _x, "threads": 1},
          kinds={"W": "array", "x": "array", "threads": "int"},
          skip={"W:nan": "a NaN weight propagates to its row, as in any GEMV",
                "W:inf": "an inf weight propagates to its row, as in any GEMV",
                "W:empty": "a matrix with no rows gives an empty product",
                "x:nan": "NaN in x propagates, as in any GEMV", "x:inf": "inf in x propagates, as in any GEMV",
                "x:extra_dim": "x of shape (B, C) is a batch of B vectors"}),
    Entry("wanda_prune", wanda_prune,
          valid={"weight": _g.standard_normal((6, 40)), "activations": _g.standard_normal((8, 40)), "sparsity": 0.5},
          kinds={"weight": "array", "activations": "array", "sparsity": "real"},
          skip={"activations:extra_dim": "leading dimensions of the calibration inputs are flattened (batches)"}),
    Entry("sparsify_linear", _sparsify, valid={"module_shape": (40, 6), "sparsity": 0.5, "threads": 1,
                                               "device": "cpu"},
          kinds={"sparsity": "real", "threads": "int", "device": "str"}),
    Entry("dense_fp16_bytes", dense_fp16_bytes, valid={"rows": 4, "cols": 8}, kinds={"rows": "int", "cols": "int"}),
    Entry("macko_expected_bytes", macko_expected_bytes, valid={"rows": 4, "cols": 8, "density": 0.5},
          kinds={"rows": "int", "cols": "int", "density": "real"}),
    Entry("csr_bytes", csr_bytes, valid={"rows": 4, "cols": 8, "nnz": 16, "value_bytes": 2, "index_bytes": 4},
          kinds={"rows": "int", "cols": "int", "nnz": "int", "value_bytes": "int", "index_bytes": "int"}),
    Entry("break_even_density", break_even_density,
          valid={"densities": np.array([0.5, 0.7, 0.9]), "ratios": np.array([0.6, 0.9, 1.2])},
          kinds={"densities": "array", "ratios": "array"}),
    Entry("wanda_prune_model", _prune_tiny, valid={"calibration_ids": np.array([[1, 2, 3, 4]]), "sparsity": 0.5},
          kinds={"calibration_ids": "array", "sparsity": "prob"}),
    Entry("perplexity", _perplexity_tiny, valid={"ids": np.array([[1, 2, 3, 4]])}, kinds={"ids": "array"}),
]
