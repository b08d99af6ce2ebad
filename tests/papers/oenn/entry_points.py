"""The public entry points of [P12] for the bad-input conformance test."""

import networkx as nx
import numpy as np

from icml26.papers.oenn import (
    GCN,
    MLP,
    OENN,
    OENNLayer,
    SheafOENNClassifier,
    commutant_dimension,
    constant_sheaf,
    edge_homophily,
    equivariant_basis,
    face_poset,
    face_poset_from_graph,
    heterophilic_sbm,
    message_passing,
    random_orthogonal_sheaf,
    relation_operators,
    sheaf_diffusion,
    sheaf_symmetries,
    train_node_classifier,
)
from support.badinput import Entry

_edges = np.array([[0, 1], [1, 2], [2, 3], [3, 0]])
_P = face_poset(_edges)
_F = constant_sheaf(_P, 2)
_ops = relation_operators(_F)
_acts = np.array([a.matrix(_F.offsets) for a in sheaf_symmetries(_F).sample(2, seed=0)])
_task = heterophilic_sbm(20, homophily=0.2, mean_degree=3.0, n_features=3, signal=1.0, seed=0)
_G = nx.cycle_graph(6)

ENTRY_POINTS = [
    Entry("face_poset", face_poset, valid={"edges": _edges, "n_vertices": 5},
          kinds={"edges": "array", "n_vertices": "int"}),
    Entry("face_poset_from_graph", face_poset_from_graph, valid={"graph": _G, "faces": [[0, 1, 2]]}, kinds={}),
    Entry("constant_sheaf", constant_sheaf, valid={"poset": _P, "d": 2}, kinds={"d": "int"}),
    Entry("random_orthogonal_sheaf", random_orthogonal_sheaf, valid={"poset": _P, "d": 2, "seed": 0},
          kinds={"d": "int", "seed": "seed"}),
    Entry("sheaf_symmetries", sheaf_symmetries, valid={"sheaf": _F, "max_automorphisms": 100},
          kinds={"max_automorphisms": "int"}),
    Entry("equivariant_basis", equivariant_basis, valid={"poset": _P, "sheaf": _F, "max_automorphisms": 100},
          kinds={"max_automorphisms": "int"}),
    Entry("commutant_dimension", commutant_dimension, valid={"actions": _acts, "tol": 1e-9},
          kinds={"actions": "array", "tol": "posreal"}),
    Entry("OENNLayer", OENNLayer, valid={"operators": _ops, "in_channels": 2, "out_channels": 3, "nonlinearity": "gate",
                                         "seed": 0},
          kinds={"in_channels": "int", "out_channels": "int", "nonlinearity": "str", "seed": "seed"}),
    Entry("OENN", OENN, valid={"operators": _ops, "in_channels": 2, "hidden_channels": 4, "out_channels": 1,
                               "layers": 2, "nonlinearity": "gate", "seed": 0},
          kinds={"in_channels": "int", "hidden_channels": "int", "out_channels": "int", "layers": "int",
                 "nonlinearity": "str", "seed": "seed"}),
    Entry("message_passing", message_passing, valid={"poset": _P, "in_channels": 2, "hidden_channels": 3,
                                                     "out_channels": 1, "layers": 2, "seed": 0},
          kinds={"in_channels": "int", "hidden_channels": "int", "out_channels": "int", "layers": "int", "seed": "seed"}),
    Entry("sheaf_diffusion", sheaf_diffusion, valid={"sheaf": _F, "channels": 2, "layers": 2, "seed": 0},
          kinds={"channels": "int", "layers": "int", "seed": "seed"}),
    Entry("heterophilic_sbm", heterophilic_sbm,
          valid={"n_nodes": 20, "homophily": 0.2, "mean_degree": 3.0, "n_features": 3, "signal": 1.0, "seed": 0},
          kinds={"n_nodes": "int", "homophily": "real", "mean_degree": "posreal", "n_features": "int",
                 "signal": "nonneg", "seed": "seed"}),
    Entry("edge_homophily", edge_homophily, valid={"graph": _G, "labels": np.array([0, 1, 0, 1, 0, 1])},
          kinds={"labels": "array"}),
    Entry("MLP", MLP, valid={"n_features": 3, "n_classes": 2, "hidden": 4, "seed": 0},
          kinds={"n_features": "int", "n_classes": "int", "hidden": "int", "seed": "seed"}),
    Entry("GCN", GCN, valid={"graph": _G, "n_features": 3, "n_classes": 2, "hidden": 4, "seed": 0},
          kinds={"n_features": "int", "n_classes": "int", "hidden": "int", "seed": "seed"}),
    Entry("SheafOENNClassifier", SheafOENNClassifier,
          valid={"graph": _G, "n_features": 3, "n_classes": 2, "hidden": 4, "layers": 1, "seed": 0},
          kinds={"n_features": "int", "n_classes": "int", "hidden": "int", "layers": "int", "seed": "seed"}),
    Entry("train_node_classifier", train_node_classifier,
          valid={"model": MLP(3, 2, hidden=4, seed=0), "task": _task, "epochs": 2, "lr": 0.01, "weight_decay": 0.0},
          kinds={"epochs": "int", "lr": "posreal", "weight_decay": "nonneg"}),
]
