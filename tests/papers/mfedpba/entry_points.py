"""The public entry points of [P09] for the bad-input conformance test."""

import numpy as np

from icml26.papers.mfedpba import (
    Client,
    Server,
    assign_modalities,
    class_distances,
    dirichlet_partition,
    entropy_weights,
    federate,
    gw_alignment,
    logit_distillation,
    make_digit_federation,
    mlp_encoder,
    multimodal_digits,
    proto_infonce,
)
from support.badinput import Entry

_g = np.random.default_rng(0)
_z = _g.standard_normal((6, 4)).astype(np.float32)
_y = np.array([0, 1, 2, 0, 1, 2])
_protos = _g.standard_normal((3, 4)).astype(np.float32)
_pts = _g.standard_normal((4, 3))
_d = np.sqrt(((_pts[:, None] - _pts[None]) ** 2).sum(-1))
_lp = _g.standard_normal((2, 3, 3))
_counts = np.array([[2.0, 0.0, 1.0], [1.0, 3.0, 0.0]])
_data = multimodal_digits(seed=0)


def client_entry(x_a: np.ndarray, x_b: np.ndarray, y: np.ndarray, n_classes: int, proj_dim: int, seed: int) -> Client:
    """A two-modality Client from plain arrays (the table spoils one argument at a time)."""
    enc = {"a": mlp_encoder(32, width=8, depth=1, out_dim=4, seed=0), "b": mlp_encoder(24, width=8, depth=1, out_dim=4,
                                                                                        seed=1)}
    return Client(enc, {"a": x_a, "b": x_b}, y, n_classes=n_classes, proj_dim=proj_dim, seed=seed)


def federate_entry(rounds: int, seed: int, local_epochs: int, batch_size: int, lr: float, method: str):
    """One tiny federation of two clients."""
    cs = [client_entry(_data.x["a"][i:i + 20], _data.x["b"][i:i + 20], _data.y[i:i + 20], 10, 8, 0) for i in (0, 20)]
    return federate(cs, rounds=rounds, seed=seed, local_epochs=local_epochs, batch_size=batch_size, lr=lr,
                    method=method)


ENTRY_POINTS = [
    Entry("proto_infonce", proto_infonce, valid={"z": _z, "y": _y, "prototypes": _protos, "tau": 0.1},
          kinds={"z": "array", "y": "array", "prototypes": "array", "tau": "posreal"}),
    Entry("gw_alignment", gw_alignment, valid={"d_client": _d, "d_global": _d[:3, :3]},
          kinds={"d_client": "array", "d_global": "array"}),
    Entry("class_distances", class_distances, valid={"prototypes": _protos}, kinds={"prototypes": "array"}),
    Entry("logit_distillation", logit_distillation,
          valid={"logits": _z[:, :3], "y": _y, "global_logits": _lp[0], "temperature": 2.0},
          kinds={"logits": "array", "y": "array", "global_logits": "array", "temperature": "posreal"}),
    Entry("entropy_weights", entropy_weights,
          valid={"logit_protos": _lp, "counts": _counts, "temperature": 1.0, "weighting": "entropy"},
          kinds={"logit_protos": "array", "counts": "array", "temperature": "posreal", "weighting": "str"}),
    Entry("Server", Server, valid={"n_classes": 3, "weighting": "entropy", "temperature": 1.0},
          kinds={"n_classes": "int", "weighting": "str", "temperature": "posreal"}),
    Entry("Server.aggregate", Server(3).aggregate,
          valid={"protos": _g.standard_normal((2, 3, 4)), "logit_protos": _lp, "counts": _counts},
          kinds={"protos": "array", "logit_protos": "array", "counts": "array"}),
    Entry("Client", client_entry,
          valid={"x_a": _data.x["a"][:20], "x_b": _data.x["b"][:20], "y": _data.y[:20], "n_classes": 10,
                 "proj_dim": 8, "seed": 0},
          kinds={"x_a": "array", "x_b": "array", "y": "array", "n_classes": "int", "proj_dim": "int", "seed": "seed"},
          match={"x_a": "x['a']", "x_b": "x['b']"}),
    Entry("federate", federate_entry,
          valid={"rounds": 1, "seed": 0, "local_epochs": 1, "batch_size": 16, "lr": 1e-2, "method": "mfedpba"},
          kinds={"rounds": "int", "seed": "seed", "local_epochs": "int", "batch_size": "int", "lr": "posreal",
                 "method": "str"}),
    Entry("mlp_encoder", mlp_encoder, valid={"in_dim": 4, "width": 8, "depth": 1, "out_dim": 2, "seed": 0},
          kinds={"in_dim": "int", "width": "int", "depth": "int", "out_dim": "int", "seed": "seed"}),
    Entry("dirichlet_partition", dirichlet_partition,
          valid={"y": _data.y, "n_clients": 5, "alpha": 0.5, "min_size": 10, "seed": 0},
          kinds={"y": "array", "n_clients": "int", "alpha": "posreal", "min_size": "int", "seed": "seed"}),
    Entry("assign_modalities", assign_modalities, valid={"n_clients": 10, "unimodal_fraction": 0.5},
          kinds={"n_clients": "int", "unimodal_fraction": "real"}),
    Entry("multimodal_digits", multimodal_digits, valid={"noise": 0.1, "seed": 0},
          kinds={"noise": "nonneg", "seed": "seed"}),
    Entry("make_digit_federation", make_digit_federation,
          valid={"n_clients": 3, "alpha": 0.5, "unimodal_fraction": 0.5, "noise": 0.1, "train_fraction": 0.5,
                 "proj_dim": 8, "seed": 0},
          kinds={"n_clients": "int", "alpha": "posreal", "unimodal_fraction": "real", "noise": "nonneg",
                 "train_fraction": "real", "proj_dim": "int", "seed": "seed"}),
]
