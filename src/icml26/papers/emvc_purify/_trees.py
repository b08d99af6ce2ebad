"""Fusion trees over views, the individuals of [P08]'s evolutionary multi-view search.

A tree is a view index (a leaf: ``0 <= v < V``) or ``(op, left, right)`` with ``op`` one of :data:`OPS`, the fusion
operators of the authors' EMVC code: element-wise ``add``, ``mul``, ``max``, ``avg`` and ``cat`` (concatenate, then a
linear layer back to the fused width). Trees are plain tuples: hashable, comparable, printable with
:func:`tree_str`. The genetic operators are subtree crossover and point/subtree mutation under a depth limit.
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np

__all__ = ["OPS", "Tree", "check_tree", "crossover", "mutate", "random_tree", "tree_depth", "tree_str", "tree_views"]

OPS: tuple[str, ...] = ("add", "mul", "cat", "max", "avg")
Tree = Union[int, tuple[str, Any, Any]]


def check_tree(tree: Any, n_views: int, name: str = "tree") -> Tree:
    """``tree`` if it is a well-formed fusion tree over ``n_views`` views, else a ``ValueError``/``TypeError``."""
    if isinstance(tree, (bool, np.bool_)):
        raise TypeError(f"{name}: a leaf must be an int view index, got bool")
    if isinstance(tree, (int, np.integer)):
        if not 0 <= int(tree) < n_views:
            raise ValueError(f"{name}: leaf {int(tree)} is not a view index in [0, {n_views})")
        return int(tree)
    if not (isinstance(tree, tuple) and len(tree) == 3):
        raise TypeError(f"{name} must be a view index or a tuple (op, left, right), got {tree!r}")
    if tree[0] not in OPS:
        raise ValueError(f"{name}: unknown operator {tree[0]!r}; known: {list(OPS)}")
    return (tree[0], check_tree(tree[1], n_views, name), check_tree(tree[2], n_views, name))


def tree_str(tree: Tree, names: tuple[str, ...] | None = None) -> str:
    """A [P08] fusion tree as text, ``"cat(v0, max(v1, v3))"`` (with ``names``, view names replace ``v0``...)."""
    if isinstance(tree, int):
        return names[tree] if names else f"v{tree}"
    return f"{tree[0]}({tree_str(tree[1], names)}, {tree_str(tree[2], names)})"


def tree_depth(tree: Tree) -> int:
    """0 for a leaf, else 1 + the deeper child's depth."""
    return 0 if isinstance(tree, int) else 1 + max(tree_depth(tree[1]), tree_depth(tree[2]))


def tree_views(tree: Tree) -> set[int]:
    """The views a tree reads."""
    return {tree} if isinstance(tree, int) else tree_views(tree[1]) | tree_views(tree[2])


def random_tree(n_views: int, *, max_depth: int, rng: np.random.Generator, p_leaf: float = 0.3) -> Tree:
    """A random [P08] fusion tree of depth <= ``max_depth`` (grow method: below the root a node is a leaf with
    probability ``p_leaf``; operators and views uniform), the initial population of the search."""
    def grow(depth: int) -> Tree:
        if depth == max_depth or (depth > 0 and rng.random() < p_leaf):
            return int(rng.integers(n_views))
        return (OPS[int(rng.integers(len(OPS)))], grow(depth + 1), grow(depth + 1))

    return grow(0) if max_depth > 0 else int(rng.integers(n_views))


def _paths(tree: Tree, path: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    if isinstance(tree, int):
        return [path]
    return [path, *_paths(tree[1], (*path, 1)), *_paths(tree[2], (*path, 2))]


def _get(tree: Tree, path: tuple[int, ...]) -> Tree:
    for k in path:
        tree = tree[k]  # type: ignore[index]
    return tree


def _put(tree: Tree, path: tuple[int, ...], sub: Tree) -> Tree:
    if not path:
        return sub
    node = list(tree)  # type: ignore[arg-type]
    node[path[0]] = _put(node[path[0]], path[1:], sub)
    return (node[0], node[1], node[2])


def crossover(a: Tree, b: Tree, *, rng: np.random.Generator, max_depth: int) -> tuple[Tree, Tree]:
    """Swap a random subtree of ``a`` with one of ``b``; parents come back unchanged if no swap fits ``max_depth``."""
    for _ in range(10):
        pa, pb = _paths(a), _paths(b)
        i, j = pa[int(rng.integers(len(pa)))], pb[int(rng.integers(len(pb)))]
        c1, c2 = _put(a, i, _get(b, j)), _put(b, j, _get(a, i))
        if tree_depth(c1) <= max_depth and tree_depth(c2) <= max_depth:
            return c1, c2
    return a, b


def mutate(tree: Tree, n_views: int, *, rng: np.random.Generator, max_depth: int) -> Tree:
    """Mutate one random node: a leaf gets another view, an operator another operator, or (half the time) the node
    is replaced by a fresh random subtree that keeps the depth within ``max_depth``."""
    paths = _paths(tree)
    path = paths[int(rng.integers(len(paths)))]
    node = _get(tree, path)
    if rng.random() < 0.5:
        room = max_depth - len(path)
        return _put(tree, path, random_tree(n_views, max_depth=room, rng=rng))
    if isinstance(node, int):
        new: Tree = int((node + rng.integers(1, n_views)) % n_views) if n_views > 1 else node
    else:
        others = [o for o in OPS if o != node[0]]
        new = (others[int(rng.integers(len(others)))], node[1], node[2])
    return _put(tree, path, new)
