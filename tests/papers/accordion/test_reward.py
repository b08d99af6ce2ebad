"""[P25] leaf rewards (format punish) and leaf advantages broadcast to every step, against hand-computed values."""

import numpy as np
import pytest

from icml26.papers.accordion import Markers, broadcast_to_steps, leaf_advantages, leaf_reward, parse_step

MK = Markers(step_open=90, step_close=91, end_think=92, eos=93, tldr=(80,))


def _leaf(tokens):
    return parse_step(tokens, markers=MK, max_summary_tokens=4)


def test_only_a_properly_ended_leaf_is_graded():
    assert leaf_reward(_leaf([1, 2, 92, 7, 93]), [7]) == 1.0
    assert leaf_reward(_leaf([1, 2, 92, 6, 93]), [7]) == 0.0            # ended, wrong answer
    assert leaf_reward(_leaf([1, 2, 92, 7, 8, 93]), [7]) == 0.0         # extra answer token: not equal
    assert leaf_reward(_leaf([1, 2, 92, 7]), [7]) == 0.0                # right answer, never closed: punished
    assert leaf_reward(_leaf([1, 2, 92, 7]), [7], format_penalty=-1.0) == -1.0
    assert leaf_reward(_leaf([1, 2, 3]), [7], format_penalty=-0.5) == -0.5       # malformed
    assert leaf_reward(_leaf([1, 90, 7, 91]), [7], format_penalty=-0.5) == -0.5  # step limit reached on a step
    assert leaf_reward(_leaf([1, 2, 92, 7, 93]), [7], correct_reward=2.0) == 2.0


def test_leaf_advantages_subtract_the_group_mean_without_std():
    r = [1, 0, 0, 0, 1, 1, 0, 0]
    g = [0, 0, 0, 0, 1, 1, 1, 1]
    a = leaf_advantages(r, g)
    # group 0: mean 1/4; group 1: mean 1/2 (GRPO's std division would give ±1.732 and ±1.0)
    np.testing.assert_allclose(a, [0.75, -0.25, -0.25, -0.25, 0.5, 0.5, -0.5, -0.5])
    assert abs(a[:4].sum()) < 1e-15 and abs(a[4:].sum()) < 1e-15


def test_groups_may_be_ragged_and_interleaved():
    a = leaf_advantages([1.0, 0.0, 1.0, 0.5, 0.0], [3, 7, 3, 9, 9])
    np.testing.assert_allclose(a, [0.0, 0.0, 0.0, 0.25, -0.25])  # group 7 has one rollout: advantage 0


def test_rows_are_groups_without_ids():
    np.testing.assert_allclose(leaf_advantages([[1, 0], [0, 0]]), [[0.5, -0.5], [0.0, 0.0]])
    np.testing.assert_allclose(leaf_advantages([2.0, 0.0, -1.0]), [5 / 3, -1 / 3, -4 / 3])


def test_every_step_gets_its_leaf_advantage():
    np.testing.assert_array_equal(broadcast_to_steps([0.5, -0.25, 0.0], [3, 2, 1]),
                                  [0.5, 0.5, 0.5, -0.25, -0.25, 0.0])


@pytest.mark.parametrize(("call", "name"), [
    (lambda: leaf_advantages([], []), "rewards"),
    (lambda: leaf_advantages(np.zeros((2, 0))), "rewards"),
    (lambda: leaf_advantages([1.0, 0.0], [0]), "groups"),
    (lambda: leaf_advantages([1.0, np.nan], [0, 0]), "rewards"),
    (lambda: leaf_advantages([1.0, 0.0], [0.5, 1.0]), "groups"),
    (lambda: broadcast_to_steps([1.0], [0]), "n_steps"),
    (lambda: broadcast_to_steps([1.0, 2.0], [1]), "n_steps"),
    (lambda: leaf_reward((1, 92, 7, 93), [7]), "leaf"),
    (lambda: leaf_reward(_leaf([1, 92, 7, 93]), "7"), "target"),
    (lambda: leaf_reward(_leaf([1, 92, 7, 93]), [7], format_penalty=float("nan")), "format_penalty"),
])
def test_bad_input_is_refused(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()
