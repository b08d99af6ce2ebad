"""The environments' rules against brute force: the information of each guess, maze shortest paths ([P15])."""

import math
from collections import Counter

import numpy as np
import pytest

from icml26.papers.t2po import GridMaze, NumberHunt, guess_information, make_maze, maze_distances


def _answer(secret: int, guess: int) -> str:
    return "correct" if guess == secret else ("higher" if secret > guess else "lower")


@pytest.mark.parametrize(("lo", "hi"), [(0, 0), (0, 1), (0, 15), (3, 9), (5, 6)])
def test_guess_information_against_brute_force(lo, hi) -> None:
    for guess in range(-1, 17):
        counts = Counter(_answer(s, guess) for s in range(lo, hi + 1))
        m = hi - lo + 1
        want = -sum(c / m * math.log2(c / m) for c in counts.values())
        assert guess_information(lo, hi, guess) == pytest.approx(want, abs=1e-12)
    assert guess_information(0, 15, 7) == pytest.approx(-(7 / 16) * math.log2(7 / 16) - (1 / 16) * math.log2(1 / 16)
                                                         - (8 / 16) * math.log2(8 / 16))


def test_number_hunt_rules_and_realised_information() -> None:
    env = NumberHunt(n=16, max_turns=4, invalid_penalty=0.1)
    obs, info = env.reset(seed=0, options={"secret": 11})
    assert obs == env.START and info["interval"] == (0, 15)
    obs, r, term, trunc, info = env.step(7)
    assert (obs, r, term, trunc) == (env.HIGHER, 0.0, False, False) and info["interval"] == (8, 15)
    assert info["information"] == pytest.approx(1.0) and not info["low_information"]
    obs, r, _, _, info = env.step(7)  # a repeat: nothing learned
    assert obs == env.HIGHER and info["low_information"] and info["information"] == 0.0
    assert info["expected_information"] == 0.0
    obs, r, _, _, info = env.step(-1)  # malformed
    assert obs == env.INVALID and r == pytest.approx(-0.1) and info["low_information"]
    obs, r, term, trunc, info = env.step(11)
    assert (obs, r, term, trunc) == (env.CORRECT, 1.0, True, False) and info["success"]
    assert info["information"] == pytest.approx(3.0) and not info["low_information"]  # 8 candidates -> 1


def test_number_hunt_truncates_and_binary_search_always_wins() -> None:
    env = NumberHunt(n=16, max_turns=2)
    env.reset(seed=0, options={"secret": 0})
    assert env.step(9)[3] is False and env.step(9)[3] is True
    for secret in range(16):
        env = NumberHunt(n=16, max_turns=5)
        env.reset(seed=0, options={"secret": secret})
        for _ in range(5):
            _, _, term, _, info = env.step(env.oracle_action())
            if term:
                break
        assert info["success"], secret
    env = NumberHunt(n=16)
    env.reset(seed=3)
    env.step(7)
    assert env.idle_action(np.random.default_rng(0)) == 7 and env.hypotheses() == list(range(env.lo, env.hi + 1))


def _bellman_ford(grid: np.ndarray, goal: tuple[int, int]) -> np.ndarray:
    h, w = grid.shape
    inf = 10**9
    d = np.full((h, w), inf)
    d[goal] = 0
    for _ in range(h * w):
        for y in range(h):
            for x in range(w):
                if grid[y, x]:
                    for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                        if 0 <= y + dy < h and 0 <= x + dx < w and grid[y + dy, x + dx]:
                            d[y, x] = min(d[y, x], d[y + dy, x + dx] + 1)
    return np.where(d >= inf, -1, d)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_maze_distances_against_brute_force_and_networkx(seed) -> None:
    grid = make_maze(3, 4, seed=seed, loops=2)
    goal = (grid.shape[0] - 2, grid.shape[1] - 2)
    dist = maze_distances(grid, goal)
    np.testing.assert_array_equal(dist, _bellman_ford(grid, goal))
    nx = pytest.importorskip("networkx")
    g = nx.grid_2d_graph(*grid.shape)
    g.remove_nodes_from([tuple(map(int, c)) for c in zip(*np.nonzero(~grid))])
    for node, d in nx.single_source_shortest_path_length(g, goal).items():
        assert dist[node] == d


def test_a_maze_without_loops_is_a_spanning_tree() -> None:
    for seed in range(4):
        grid = make_maze(4, 3, seed=seed)
        free = int(grid.sum())
        edges = int((grid[1:, :] & grid[:-1, :]).sum() + (grid[:, 1:] & grid[:, :-1]).sum())
        assert free == 2 * 4 * 3 - 1 and edges == free - 1  # rooms + passages; a tree has one edge fewer than nodes
        assert np.all(maze_distances(grid, (1, 1))[grid] >= 0)  # connected
    assert int(make_maze(4, 3, seed=0, loops=3).sum()) == 2 * 4 * 3 - 1 + 3


def test_grid_maze_moves_bumps_and_low_information() -> None:
    grid = np.array([[False, False, False, False], [False, True, True, False], [False, True, True, False],
                     [False, False, False, False]])
    env = GridMaze(grid, goal=(2, 2), max_turns=5)
    obs, info = env.reset(seed=0, options={"start": (1, 1)})
    assert obs == 1 * 4 + 1 and info["distance"] == 2 and sorted(env.hypotheses()) == [1, 2]
    obs, r, term, _, info = env.step(0)  # north: a wall
    assert obs == 5 and r == 0.0 and not term and info["low_information"]
    obs, _, _, _, info = env.step(1)  # east: a new cell
    assert obs == 6 and not info["low_information"] and info["distance"] == 1
    _, _, _, _, info = env.step(3)  # back west: visited
    assert info["low_information"]
    obs, r, term, _, info = env.step(-1)
    assert obs == env.INVALID and r == pytest.approx(-0.1) and info["low_information"]
    _, r, term, trunc, info = env.step(2)  # south to (2, 1): new; not the goal
    assert not term and trunc  # 5 turns used


def test_oracle_follows_shortest_paths_and_idle_makes_no_progress() -> None:
    grid = make_maze(3, 3, seed=5, loops=1)
    goal = (grid.shape[0] - 2, grid.shape[1] - 2)
    env = GridMaze(grid, goal=goal, max_turns=50)
    rng = np.random.default_rng(0)
    for start in env.starts:
        env.reset(seed=0, options={"start": start})
        steps = 0
        while True:
            _, _, term, _, info = env.step(env.oracle_action())
            steps += 1
            if term:
                break
        assert steps == env.dist[start]
        env.reset(seed=0, options={"start": start})
        if env.step(env.oracle_action())[2]:
            continue
        for _ in range(3):  # a bump, or a step back to a visited cell: there is always one after a move
            assert env.step(env.idle_action(rng))[4]["low_information"]


def test_bad_environment_inputs() -> None:
    with pytest.raises(ValueError, match="goal"):
        maze_distances(np.ones((2, 2), dtype=bool), (5, 5))
    with pytest.raises(ValueError, match="grid"):
        maze_distances(np.ones((2, 2)), (0, 0))
    with pytest.raises(ValueError, match="action"):
        NumberHunt().step(99)
    with pytest.raises(ValueError, match="secret"):
        NumberHunt(n=4).reset(seed=0, options={"secret": 4})
    with pytest.raises(TypeError, match="seed"):
        NumberHunt().reset(seed=None)  # type: ignore[arg-type]
