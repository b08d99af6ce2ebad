"""GiGPO's anchor-state advantages against hand-computed groups ([P15]'s base estimator)."""

import numpy as np
import pytest

from icml26.common.rl import grpo_advantages
from icml26.papers.t2po import gigpo_advantages, step_returns


def test_step_returns_by_hand_and_by_brute_force() -> None:
    r = np.array([[0.0, 0.0, 1.0], [0.5, 2.0, 7.0]])
    g = step_returns(r, lengths=np.array([3, 2]), gamma=0.5)
    np.testing.assert_allclose(g, [[0.25, 0.5, 1.0], [1.5, 2.0, 0.0]])  # row 2 stops after 2 steps
    rng = np.random.default_rng(0)
    r = rng.normal(size=(5, 6))
    n = rng.integers(1, 7, size=5)
    got = step_returns(r, lengths=n, gamma=0.9)
    for i in range(5):
        for t in range(6):
            want = sum(0.9 ** (k - t) * r[i, k] for k in range(t, n[i])) if t < n[i] else 0.0
            assert got[i, t] == pytest.approx(want)


def test_hand_computed_anchor_groups() -> None:
    # one group of 3 trajectories; anchor 0 is the start; 5 an intermediate state met by trajectories 0 and 1
    rewards = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    anchors = np.array([[0, 5, 0], [0, 5, 5], [0, 7, 8]])
    lengths = np.array([2, 3, 3])
    out = gigpo_advantages(rewards, anchors, np.zeros(3, dtype=int), lengths=lengths, gamma=0.5, omega=1.0,
                           scale="none")
    # episode level: R = (1, 1, 0), mean 2/3
    np.testing.assert_allclose(out.episode, [1 / 3, 1 / 3, -2 / 3])
    # returns: tr0 (0.5, 1), tr1 (0.25, 0.5, 1), tr2 (0, 0, 0)
    np.testing.assert_allclose(out.returns[:, :3], [[0.5, 1.0, 0.0], [0.25, 0.5, 1.0], [0.0, 0.0, 0.0]])
    # anchor 0 (the start): returns 0.5, 0.25, 0 -> mean 0.25; anchor 5: tr0 t1 = 1, tr1 t1 = 0.5, tr1 t2 = 1
    # -> mean 2.5 / 3; anchors 7 and 8 are met once -> 0
    want_step = np.array([[0.25, 1 - 2.5 / 3, 0.0], [0.0, 0.5 - 2.5 / 3, 1 - 2.5 / 3], [-0.25, 0.0, 0.0]])
    np.testing.assert_allclose(out.step, want_step, atol=1e-12)
    np.testing.assert_array_equal(out.anchor_size, [[3, 3, 0], [3, 3, 3], [3, 1, 1]])
    np.testing.assert_allclose(out.total, np.where(np.arange(3) < lengths[:, None], out.episode[:, None] + want_step, 0))


def test_std_scale_and_separate_groups() -> None:
    rewards = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0], [0.0, 2.0]])
    anchors = np.array([[0, 1], [0, 1], [0, 1], [0, 1]])
    groups = np.array([3, 3, 9, 9])
    out = gigpo_advantages(rewards, anchors, groups, lengths=np.array([1, 1, 2, 2]), gamma=1.0, omega=0.5)
    # episode groups are separate: (1, 0) and (1, 2) -> GRPO within each
    np.testing.assert_allclose(out.episode, np.concatenate([grpo_advantages(np.array([1.0, 0.0])),
                                                            grpo_advantages(np.array([1.0, 2.0]))]))
    # the same anchor id in different groups is a different state: group 9's anchor 0 holds returns 1 and 2
    np.testing.assert_allclose(out.step[2:, 0], grpo_advantages(np.array([1.0, 2.0])))
    np.testing.assert_allclose(out.step[:2, 0], grpo_advantages(np.array([1.0, 0.0])))
    np.testing.assert_allclose(out.total[:, 0], out.episode + 0.5 * out.step[:, 0])


def test_unique_anchors_reduce_to_grpo() -> None:
    rng = np.random.default_rng(3)
    rewards = rng.normal(size=(8, 4))
    anchors = np.arange(32).reshape(8, 4)
    groups = np.repeat([0, 1], 4)
    out = gigpo_advantages(rewards, anchors, groups, lengths=np.full(8, 4))
    assert np.all(out.step == 0)
    np.testing.assert_allclose(out.episode, grpo_advantages(rewards.sum(1).reshape(2, 4)).reshape(-1), rtol=1e-10)


@pytest.mark.parametrize(("kw", "name"), [
    ({"rewards": np.zeros((0, 3))}, "rewards"),
    ({"rewards": np.array([[np.nan, 0, 0], [0, 0, 0]])}, "rewards"),
    ({"anchors": np.zeros((2, 2), dtype=int)}, "anchors"),
    ({"anchors": np.zeros((2, 3))}, "anchors"),
    ({"groups": np.array([0])}, "groups"),
    ({"lengths": np.array([0, 3])}, "lengths"),
    ({"lengths": np.array([1, 4])}, "lengths"),
    ({"gamma": 1.5}, "gamma"),
    ({"omega": -1.0}, "omega"),
    ({"scale": "median"}, "scale"),
])
def test_bad_inputs_are_refused(kw, name) -> None:
    args = {"rewards": np.zeros((2, 3)), "anchors": np.zeros((2, 3), dtype=int), "groups": np.array([0, 0]),
            "lengths": np.array([3, 2]), **kw}
    with pytest.raises((ValueError, TypeError), match=name):
        gigpo_advantages(args.pop("rewards"), args.pop("anchors"), args.pop("groups"), **args)
