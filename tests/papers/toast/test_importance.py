"""[P35] SCWP head importance against a brute-force numpy reference, and what each coupling ties together."""

import numpy as np
import pytest
import torch

from icml26.papers.toast import COUPLINGS, SCORES, head_importance


def _ref_score(w: np.ndarray, score: str) -> np.ndarray:
    """Row by row, with the lower median taken by sorting each column by hand."""
    d = w.shape[0]
    if score == "gm":
        med = np.array([sorted(w[:, j])[(d - 1) // 2] for j in range(w.shape[1])])
        return np.array([np.sqrt(sum((w[i, j] - med[j]) ** 2 for j in range(w.shape[1]))) for i in range(d)])
    if score == "l1":
        return np.array([sum(abs(v) for v in row) for row in w])
    return np.array([np.sqrt(sum(v * v for v in row)) for row in w])


def _mats(d=6, c=5, seed=0):
    g = np.random.default_rng(seed)
    return [g.normal(size=(d, c)) for _ in range(4)]


@pytest.mark.parametrize("score", SCORES)
@pytest.mark.parametrize("d", [5, 6])  # odd and even: the median is the lower one for even d
def test_scores_match_a_brute_force_reference(score, d):
    q, k, v, o = _mats(d=d)
    s = head_importance(q, k, v, o, score=score, coupling="coupled")
    np.testing.assert_allclose(s.q.numpy(), _ref_score(np.hstack([q, k]), score), rtol=1e-12)
    np.testing.assert_allclose(s.v.numpy(), _ref_score(np.hstack([v, o]), score), rtol=1e-12)
    ind = head_importance(q, k, v, o, score=score, coupling="independent")
    for got, m in zip((ind.q, ind.k, ind.v, ind.o), (q, k, v, o)):
        np.testing.assert_allclose(got.numpy(), _ref_score(m, score), rtol=1e-12)


def test_the_median_is_torchs_lower_median():
    w = torch.tensor([[0.0, 4.0], [1.0, 3.0], [2.0, 2.0], [3.0, 1.0]], dtype=torch.float64)
    s = head_importance(w, w, w, w, score="gm", coupling="q_only")
    med = torch.median(w, dim=0).values  # (1, 2): torch's lower median
    assert torch.allclose(s.q, torch.linalg.vector_norm(w - med, dim=1))
    assert s.q.tolist() == pytest.approx([np.sqrt(1 + 4), np.sqrt(0 + 1), np.sqrt(1 + 0), np.sqrt(4 + 1)])


def test_couplings_tie_the_pairs_and_read_the_right_sides():
    q, k, v, o = _mats()
    by = {c: head_importance(q, k, v, o, score="l2", coupling=c) for c in COUPLINGS}
    for c in ("coupled", "average", "q_only", "k_only"):
        assert by[c].tied
    assert not by["independent"].tied
    ind = by["independent"]
    assert torch.equal(by["q_only"].q, ind.q) and torch.equal(by["q_only"].v, ind.v)
    assert torch.equal(by["k_only"].q, ind.k) and torch.equal(by["k_only"].v, ind.o)
    assert torch.allclose(by["average"].q, (ind.q + ind.k) / 2)
    # coupled l2 of the concatenation is the root of the summed squares
    assert torch.allclose(by["coupled"].q, torch.sqrt(ind.q ** 2 + ind.k ** 2))


def test_a_dimension_only_one_side_uses_scores_low_when_coupled():
    """Dimension 0 has the largest Q row but a zero K row (it adds nothing to the logits q·k): the coupled score
    of [Q|K] ranks dimension 1, used by both sides, first; scoring Q alone ranks dimension 0 first."""
    q = np.array([[5.0, 0], [3.0, 0], [0.1, 0]])
    k = np.array([[0.0, 0], [3.0, 0], [0.1, 0]])
    z = np.ones((3, 2))
    c = head_importance(q, k, z, z, score="l1", coupling="coupled").q
    assert c.tolist() == pytest.approx([5.0, 6.0, 0.2])
    assert int(torch.argmax(c)) == 1
    qo = head_importance(q, k, z, z, score="l1", coupling="q_only").q
    assert int(torch.argmax(qo)) == 0


def test_bad_shapes_and_names_are_refused():
    q, k, v, o = _mats()
    with pytest.raises(ValueError, match="o_t"):
        head_importance(q, k, v, o[:, :3])
    with pytest.raises(ValueError, match="coupling"):
        head_importance(q, k, v, o, coupling="proj_only")
    with pytest.raises(TypeError, match="q"):
        head_importance(torch.ones(3, 2, dtype=torch.complex64), k, v, o)
