"""The [P09] test bed: two modalities from the digits, Dirichlet label skew, the modality-imbalance knob."""

import numpy as np
import pytest

from icml26.papers.mfedpba import (
    ARCHITECTURES,
    assign_modalities,
    dirichlet_partition,
    make_digit_federation,
    multimodal_digits,
)


def test_two_standardised_modalities_deterministic_in_the_seed() -> None:
    a, b = multimodal_digits(seed=0), multimodal_digits(seed=0)
    assert a.x["a"].shape == (1797, 32) and a.x["b"].shape == (1797, 24) and a.n_classes == 10
    np.testing.assert_array_equal(a.x["b"], b.x["b"])
    np.testing.assert_allclose(a.x["a"].mean(0), 0.0, atol=1e-5)
    np.testing.assert_allclose(a.x["a"].std(0), 1.0, atol=1e-3)
    assert not np.array_equal(a.x["a"], multimodal_digits(seed=1).x["a"])  # the noise follows the seed
    clean = multimodal_digits(noise=0.0, seed=0)
    np.testing.assert_array_equal(clean.x["b"], multimodal_digits(noise=0.0, seed=5).x["b"])  # the "b" map is fixed


def test_dirichlet_partition_is_a_partition_with_label_skew() -> None:
    y = multimodal_digits(seed=0).y
    parts = dirichlet_partition(y, n_clients=10, alpha=0.5, min_size=10, seed=3)
    allidx = np.concatenate(parts)
    assert sorted(allidx.tolist()) == list(range(y.size)) and min(p.size for p in parts) >= 10
    assert [p.tolist() for p in parts] == [p.tolist() for p in dirichlet_partition(y, n_clients=10, alpha=0.5, seed=3)]

    def classes_held(alpha):  # mean number of classes holding >= 5 % of a client's samples
        ps = dirichlet_partition(y, n_clients=10, alpha=alpha, seed=0)
        return np.mean([(np.bincount(y[p], minlength=10) >= 0.05 * p.size).sum() for p in ps])

    assert classes_held(0.1) < classes_held(0.5) < classes_held(100.0) == 10


def test_dirichlet_partition_refuses_an_impossible_split() -> None:
    with pytest.raises(ValueError, match="exceeds"):
        dirichlet_partition(np.arange(10) % 2, n_clients=5, alpha=1.0, min_size=3, seed=0)
    with pytest.raises(ValueError, match="integer class labels"):
        dirichlet_partition(np.array([0.5, 1.0, 2.0]), n_clients=2, alpha=1.0, min_size=1, seed=0)


def test_modality_imbalance_knob() -> None:
    assert assign_modalities(10, unimodal_fraction=0.0) == [("a", "b")] * 10
    assert assign_modalities(10, unimodal_fraction=1.0) == [("a",), ("b",)] * 5
    mods = assign_modalities(10, unimodal_fraction=0.3)
    assert mods[:3] == [("a",), ("b",), ("a",)] and mods[3:] == [("a", "b")] * 7


def test_federation_has_heterogeneous_clients_with_their_own_test_sets() -> None:
    cs = make_digit_federation(n_clients=6, unimodal_fraction=0.5, seed=0)
    assert [c.modalities for c in cs] == [("a",), ("b",), ("a",), ("a", "b"), ("a", "b"), ("a", "b")]
    widths = {tuple(p.shape) for c in cs for m in c.modalities for p in c.model.encoders[m].parameters()}
    assert len(widths) > 6  # encoders of several shapes
    outs = {c.model.projections[m].in_features for c in cs for m in c.modalities}
    assert outs <= {a[2] for a in ARCHITECTURES} and len(outs) >= 3
    assert all(c.model.projections[m].out_features == 32 for c in cs for m in c.modalities)
    for c in cs:
        assert c.x_test is not None and c.y_test is not None
        assert set(c.y_test.tolist()) <= set(range(10)) and 0 < c.n_samples
    same = make_digit_federation(n_clients=4, heterogeneous=False, seed=0)
    shapes = [[tuple(p.shape) for p in c.model.encoders["a"].parameters()] for c in same if "a" in c.modalities]
    assert all(s == shapes[0] for s in shapes)
