"""Two multi-turn environments of [P15]'s kind (sparse success reward, a turn budget) whose low-information turns
are measurable exactly; both follow gymnasium's API (``reset(seed=, options=) -> (obs, info)``,
``step(action) -> (obs, reward, terminated, truncated, info)``) with integer observations and actions.

- :class:`NumberHunt`: find a hidden integer in ``[0, n)`` by guesses answered "higher", "lower" or "correct". The
  consistent set is always an interval; a guess's expected information (bits, uniform prior on the interval) is
  :func:`guess_information`, its realised information ``log2(|S_before| / |S_after|)``.
- :class:`GridMaze`: walk a maze from a start cell to the goal with moves N/E/S/W; a move into a wall leaves the
  agent in place; shortest paths are :func:`maze_distances` (BFS).

In both, a turn is *low-information* when it neither shrinks what the agent could still need to learn nor reaches
the goal ([P15] abstract: "actions that neither reduce uncertainty nor advance task progress"): a guess outside
the consistent interval or a repeat; a wall bump or a move back to a visited cell; any malformed action
(``action = -1``), which also costs ``invalid_penalty``. ``hypotheses()`` lists the actions still worth
considering (the consistent interval; the moves into free cells): what an agent thinks about. ``info`` carries ``low_information``, ``anchor`` (an int
id of the environment state, for GiGPO's anchor groups) and ``success``.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import numpy as np

from icml26.common import validation

__all__ = ["GridMaze", "NumberHunt", "guess_information", "make_maze", "maze_distances"]

MOVES = ((-1, 0), (0, 1), (1, 0), (0, -1))  # N, E, S, W


def guess_information(lo: int, hi: int, guess: int) -> float:
    """Expected information (bits) of ``guess`` in [P15]'s number game when the secret is uniform on the
    consistent interval ``[lo, hi]``: the entropy of the answer (lower / correct / higher); 0 for a guess outside
    the interval (its answer is known in advance)."""
    lo = validation.int_at_least(lo, "lo", 0)
    hi = validation.int_at_least(hi, "hi", lo)
    guess = validation.int_at_least(guess, "guess", -(2**62))
    m = hi - lo + 1
    counts = (min(max(guess - lo, 0), m), 1 if lo <= guess <= hi else 0, min(max(hi - guess, 0), m))
    return float(-sum(c / m * math.log2(c / m) for c in counts if c))


class NumberHunt:
    """[P15]-style multi-turn game: find a secret in ``[0, n)`` within ``max_turns`` guesses (reward 1 on success).

    Observations: :attr:`START`, :attr:`HIGHER` (the secret is above the guess), :attr:`LOWER`, :attr:`CORRECT`,
    :attr:`INVALID` (a malformed action, ``-1``, penalised by ``invalid_penalty``). The state is the consistent
    interval ``(lo, hi)``; ``info["anchor"] = lo * n + hi``. :meth:`oracle_action` is binary search,
    :meth:`idle_action` a low-information guess (a repeat, or outside the interval).
    """

    START, HIGHER, LOWER, CORRECT, INVALID = range(5)
    n_observations = 5

    def __init__(self, *, n: int = 16, max_turns: int = 6, invalid_penalty: float = 0.1) -> None:
        self.n = validation.int_at_least(n, "n", 2)
        self.max_turns = validation.positive_int(max_turns, "max_turns")
        self.invalid_penalty = validation.real(invalid_penalty, "invalid_penalty", lo=0.0)
        self.n_actions = self.n
        self.secret, self.lo, self.hi, self.turn, self.last_guess = 0, 0, self.n - 1, 0, -1

    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
        """Start an episode: the secret is ``options["secret"]`` or drawn from ``seed``."""
        seed = validation.seed(seed)
        secret = (options or {}).get("secret")
        if secret is None:
            secret = int(np.random.default_rng(seed).integers(self.n))
        self.secret = validation.int_at_least(secret, "secret", 0, hi=self.n - 1)
        self.lo, self.hi, self.turn, self.last_guess = 0, self.n - 1, 0, -1
        return self.START, {"anchor": self.anchor, "interval": (self.lo, self.hi)}

    @property
    def anchor(self) -> int:
        """The state id ``lo * n + hi`` (the consistent interval)."""
        return self.lo * self.n + self.hi

    def step(self, action: int) -> tuple[int, float, bool, bool, dict[str, Any]]:
        """One guess (``action`` in ``[0, n)``, or ``-1`` for a malformed answer)."""
        a = validation.int_at_least(action, "action", -1, hi=self.n - 1)
        before = self.hi - self.lo + 1
        expected = guess_information(self.lo, self.hi, a) if a >= 0 else 0.0
        self.turn += 1
        reward, success = 0.0, False
        if a < 0:
            obs, reward = self.INVALID, -self.invalid_penalty
        elif a == self.secret:
            obs, reward, success = self.CORRECT, 1.0, True
        elif a < self.secret:
            obs, self.lo = self.HIGHER, max(self.lo, a + 1)
        else:
            obs, self.hi = self.LOWER, min(self.hi, a - 1)
        after = 1 if success else self.hi - self.lo + 1
        self.last_guess = a
        info = {"anchor": self.anchor, "interval": (self.lo, self.hi), "success": success,
                "expected_information": expected, "information": math.log2(before / after) if a >= 0 else 0.0,
                "low_information": (not success) and after == before}
        return obs, reward, success, (not success) and self.turn >= self.max_turns, info

    def oracle_action(self) -> int:
        """Binary search: the middle of the consistent interval (maximal expected information)."""
        return (self.lo + self.hi) // 2

    def hypotheses(self) -> list[int]:
        """The guesses still consistent with the answers so far (the interval ``[lo, hi]``)."""
        return list(range(self.lo, self.hi + 1))

    def idle_action(self, rng: np.random.Generator) -> int:
        """A low-information guess: the previous guess again when there is one, else a value outside the
        interval (or the oracle's when none is left)."""
        if self.last_guess >= 0:
            return self.last_guess
        outside = [v for v in range(self.n) if not self.lo <= v <= self.hi]
        return int(rng.choice(outside)) if outside else self.oracle_action()


def make_maze(rows: int, cols: int, *, seed: int, loops: int = 0) -> np.ndarray:
    """A random maze for [P15]'s second environment: ``rows × cols`` rooms carved by a randomised depth-first
    search (a spanning tree: one path between any two rooms) on a ``(2 rows + 1, 2 cols + 1)`` grid, then
    ``loops`` extra walls between rooms opened; True = free cell."""
    r, c = validation.positive_int(rows, "rows"), validation.positive_int(cols, "cols")
    loops = validation.int_at_least(loops, "loops", 0)
    g = np.random.default_rng(validation.seed(seed))
    grid = np.zeros((2 * r + 1, 2 * c + 1), dtype=bool)
    seen = np.zeros((r, c), dtype=bool)
    stack = [(0, 0)]
    seen[0, 0] = True
    grid[1, 1] = True
    while stack:
        y, x = stack[-1]
        nxt = [(y + dy, x + dx) for dy, dx in MOVES if 0 <= y + dy < r and 0 <= x + dx < c and not seen[y + dy, x + dx]]
        if not nxt:
            stack.pop()
            continue
        ny, nx = nxt[int(g.integers(len(nxt)))]
        seen[ny, nx] = True
        grid[2 * ny + 1, 2 * nx + 1] = True
        grid[y + ny + 1, x + nx + 1] = True
        stack.append((ny, nx))
    walls = [(y, x) for y in range(1, 2 * r) for x in range(1, 2 * c) if not grid[y, x] and (y + x) % 2 == 1]
    for k in g.permutation(len(walls))[:loops]:
        grid[walls[k]] = True
    return grid


def _grid(grid: Any) -> np.ndarray:
    a = np.asarray(grid)
    if a.dtype != np.bool_ or a.ndim != 2 or a.size == 0:
        raise ValueError(f"grid must be a non-empty 2-D boolean array (True = free), got {a.dtype} {a.shape}")
    return a


def maze_distances(grid: Any, goal: tuple[int, int]) -> np.ndarray:
    """Shortest-path lengths (moves N/E/S/W) from every cell to ``goal`` by breadth-first search ([P15]'s maze):
    ``-1`` for walls and cells that cannot reach it."""
    g = _grid(grid)
    gy, gx = (validation.int_at_least(v, "goal", 0) for v in goal)
    if gy >= g.shape[0] or gx >= g.shape[1] or not g[gy, gx]:
        raise ValueError(f"goal must be a free cell of the grid, got {goal}")
    dist = np.full(g.shape, -1, dtype=np.int64)
    dist[gy, gx] = 0
    todo = deque([(gy, gx)])
    while todo:
        y, x = todo.popleft()
        for dy, dx in MOVES:
            ny, nx = y + dy, x + dx
            if 0 <= ny < g.shape[0] and 0 <= nx < g.shape[1] and g[ny, nx] and dist[ny, nx] < 0:
                dist[ny, nx] = dist[y, x] + 1
                todo.append((ny, nx))
    return dist


class GridMaze:
    """[P15]-style navigation: reach ``goal`` from a start cell within ``max_turns`` moves (reward 1).

    Actions 0..3 are N, E, S, W (``-1``: malformed, penalised); the observation is the agent's cell ``y * W + x``
    (``n_cells`` = :attr:`INVALID` after a malformed action). ``info["anchor"]`` is the cell;
    ``info["distance"]`` the BFS distance to the goal. :meth:`oracle_action` follows a shortest path,
    :meth:`idle_action` bumps into a wall or steps back to a visited cell.
    """

    n_actions = 4

    def __init__(self, grid: Any, *, goal: tuple[int, int], max_turns: int = 12, invalid_penalty: float = 0.1) -> None:
        self.grid = _grid(grid).copy()
        self.dist = maze_distances(self.grid, goal)
        self.goal = (int(goal[0]), int(goal[1]))
        self.max_turns = validation.positive_int(max_turns, "max_turns")
        self.invalid_penalty = validation.real(invalid_penalty, "invalid_penalty", lo=0.0)
        self.width = self.grid.shape[1]
        self.INVALID = self.grid.size
        self.n_observations = self.grid.size + 1
        self.starts = [(int(y), int(x)) for y, x in zip(*np.nonzero(self.dist > 0))]
        if not self.starts:
            raise ValueError("grid: no free cell other than the goal can reach it")
        self.pos, self.turn, self.visited = self.starts[0], 0, {self.starts[0]}

    def reset(self, *, seed: int, options: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
        """Start at ``options["start"]`` or at a cell drawn from ``seed`` (any free cell that reaches the goal)."""
        seed = validation.seed(seed)
        start = (options or {}).get("start")
        if start is None:
            start = self.starts[int(np.random.default_rng(seed).integers(len(self.starts)))]
        start = (int(start[0]), int(start[1]))
        if start not in self.starts:
            raise ValueError(f"start must be a free cell that reaches the goal (not the goal), got {start}")
        self.pos, self.turn, self.visited = start, 0, {start}
        return self._obs(), {"anchor": self._obs(), "distance": int(self.dist[start])}

    def _obs(self) -> int:
        return self.pos[0] * self.width + self.pos[1]

    def step(self, action: int) -> tuple[int, float, bool, bool, dict[str, Any]]:
        """One move (``action`` in 0..3, or ``-1`` for a malformed answer)."""
        a = validation.int_at_least(action, "action", -1, hi=3)
        self.turn += 1
        reward, obs = 0.0, self._obs()
        new = False
        if a < 0:
            reward, obs = -self.invalid_penalty, self.INVALID
        else:
            ny, nx = self.pos[0] + MOVES[a][0], self.pos[1] + MOVES[a][1]
            if 0 <= ny < self.grid.shape[0] and 0 <= nx < self.grid.shape[1] and self.grid[ny, nx]:
                self.pos = (ny, nx)
            new = self.pos not in self.visited
            self.visited.add(self.pos)
            obs = self._obs()
        success = self.pos == self.goal
        reward += 1.0 if success else 0.0
        info = {"anchor": self._obs(), "distance": int(self.dist[self.pos]), "success": success,
                "low_information": not success and not new}
        return obs, reward, success, (not success) and self.turn >= self.max_turns, info

    def oracle_action(self) -> int:
        """The first move (N, E, S, W order) along a shortest path to the goal."""
        y, x = self.pos
        for a, (dy, dx) in enumerate(MOVES):
            ny, nx = y + dy, x + dx
            if 0 <= ny < self.grid.shape[0] and 0 <= nx < self.grid.shape[1] and self.dist[ny, nx] == self.dist[y, x] - 1:
                return a
        raise RuntimeError("no shortest-path move from a cell that reaches the goal")  # pragma: no cover

    def hypotheses(self) -> list[int]:
        """The moves that lead to a free cell (the ones worth considering)."""
        y, x = self.pos
        return [a for a, (dy, dx) in enumerate(MOVES) if 0 <= y + dy < self.grid.shape[0]
                and 0 <= x + dx < self.grid.shape[1] and bool(self.grid[y + dy, x + dx])]

    def idle_action(self, rng: np.random.Generator) -> int:
        """A low-information move: into a wall, or else back to a visited cell (the oracle's when neither)."""
        y, x = self.pos
        bumps, back = [], []
        for a, (dy, dx) in enumerate(MOVES):
            ny, nx = y + dy, x + dx
            if not (0 <= ny < self.grid.shape[0] and 0 <= nx < self.grid.shape[1] and self.grid[ny, nx]):
                bumps.append(a)
            elif (ny, nx) in self.visited:
                back.append(a)
        pool = bumps or back or [self.oracle_action()]
        return int(pool[int(rng.integers(len(pool)))])
