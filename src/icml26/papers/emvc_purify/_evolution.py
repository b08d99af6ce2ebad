"""The evolutionary multi-view search of [P08] (EMVC): a population of fusion trees, evolved by tournament selection,
subtree crossover and mutation, with fitness = validation accuracy of each tree's trained network.

The authors' EMVC runs 28 individuals for 20 generations (crossover 0.9, mutation 0.2, fused width 128, Adam,
<= 200 epochs with patience 10); the defaults here are smaller (see the class docstring) and keep the best
``elite`` individuals from one generation to the next.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from numpy.typing import ArrayLike

from icml26.common.validation import int_at_least, positive_int, real
from icml26.common.validation import seed as check_seed
from icml26.papers.emvc_purify._fusion import FusionModel, FusionNet, accuracy, fit_tree_tensors
from icml26.papers.emvc_purify._net import Standardizer
from icml26.papers.emvc_purify._trees import Tree, crossover, mutate, random_tree, tree_str
from icml26.papers.emvc_purify._validate import check_labels, check_views, check_views_like

__all__ = ["EvolutionaryFusion"]


class EvolutionaryFusion:
    """Evolutionary search over fusion trees of any list of views ([P08]'s EMVC, Sec. 2 of its setting).

    Fitness is the validation accuracy, against the validation labels given to :meth:`fit`, of the tree's network
    trained on the training views and labels: give it noisy labels and it searches a biased landscape (fitness
    evaluation bias), give it purified ones (:func:`purify`) and it searches the corrected one.

    Args (keyword-only):
        population: individuals per generation (>= 2).
        generations: generations after the initial population (>= 0).
        crossover: probability that two selected parents swap subtrees.
        mutation: probability that a child is mutated.
        max_depth: depth limit of the trees (>= 1).
        tournament: tournament size of the selection (at most ``population``).
        elite: individuals copied unchanged to the next generation (at most ``population - 1``).
        width, epochs, lr, weight_decay: each individual's network and training (:func:`train_fusion`).
        seed: seeds the search and (with each tree) the initialisation.

    Attributes (after ``fit``): ``best_tree_``, ``best_fitness_``, ``best_model_`` (a :class:`FusionModel`),
    ``history_`` (per generation: best and mean fitness), ``fitness_`` (tree -> fitness of every tree evaluated),
    ``population_`` (the last generation), ``n_evaluations_``.
    """

    def __init__(self, *, population: int = 12, generations: int = 8, crossover: float = 0.9, mutation: float = 0.2,
                 max_depth: int = 3, tournament: int = 3, elite: int = 2, width: int = 32, epochs: int = 100,
                 lr: float = 1e-2, weight_decay: float = 1e-4, seed: int) -> None:
        self.population = population
        self.generations = generations
        self.crossover = crossover
        self.mutation = mutation
        self.max_depth = max_depth
        self.tournament = tournament
        self.elite = elite
        self.width = width
        self.epochs = epochs
        self.lr = lr
        self.weight_decay = weight_decay
        self.seed = seed

    def _params(self) -> dict[str, Any]:
        p = int_at_least(self.population, "population", 2)
        return {"population": p, "generations": int_at_least(self.generations, "generations", 0),
                "crossover": real(self.crossover, "crossover", lo=0.0, hi=1.0),
                "mutation": real(self.mutation, "mutation", lo=0.0, hi=1.0),
                "max_depth": positive_int(self.max_depth, "max_depth"),
                "tournament": min(positive_int(self.tournament, "tournament"), p),
                "elite": min(int_at_least(self.elite, "elite", 0), p - 1),
                "width": positive_int(self.width, "width"), "epochs": int_at_least(self.epochs, "epochs", 0),
                "lr": real(self.lr, "lr", lo=0.0, lo_open=True),
                "weight_decay": real(self.weight_decay, "weight_decay", lo=0.0), "seed": check_seed(self.seed)}

    def _select(self, pop: list[Tree], rng: np.random.Generator, k: int) -> Tree:
        picks = rng.choice(len(pop), size=k, replace=False)
        return pop[min(picks, key=lambda i: (-self.fitness_[pop[i]], i))]

    def _breed(self, pop: list[Tree], rng: np.random.Generator, hp: dict[str, Any], n_views: int) -> list[Tree]:
        ranked = sorted(range(len(pop)), key=lambda i: (-self.fitness_[pop[i]], i))
        nxt = [pop[i] for i in ranked[:hp["elite"]]]
        while len(nxt) < hp["population"]:
            a, b = self._select(pop, rng, hp["tournament"]), self._select(pop, rng, hp["tournament"])
            if rng.random() < hp["crossover"]:
                a, b = crossover(a, b, rng=rng, max_depth=hp["max_depth"])
            for child in (a, b):
                if rng.random() < hp["mutation"]:
                    child = mutate(child, n_views, rng=rng, max_depth=hp["max_depth"])
                if len(nxt) < hp["population"]:
                    nxt.append(child)
        return nxt

    def fit(self, train_views: Sequence[ArrayLike], train_labels: ArrayLike, val_views: Sequence[ArrayLike],
            val_labels: ArrayLike, *, n_classes: int | None = None) -> EvolutionaryFusion:
        """Run the search; fitness is accuracy on (``val_views``, ``val_labels``). Returns self."""
        hp = self._params()
        tv = check_views(train_views, "train_views")
        widths = [v.shape[1] for v in tv]
        vv = check_views_like(val_views, widths, "val_views")
        ty = check_labels(train_labels, "train_labels", n=tv[0].shape[0])
        vy = check_labels(val_labels, "val_labels", n=vv[0].shape[0])
        c = int(max(ty.max(), vy.max())) + 1 if n_classes is None else int_at_least(n_classes, "n_classes", 2)
        if max(ty.max(), vy.max()) >= c:
            raise ValueError(f"train_labels and val_labels must be < n_classes = {c}")
        scaler = Standardizer(tv)
        xs, xv, yt = scaler(tv), scaler(vv), torch.as_tensor(ty)
        rng = np.random.default_rng(hp["seed"])
        self.fitness_: dict[Tree, float] = {}
        nets: dict[Tree, FusionNet] = {}

        def evaluate(pop: list[Tree]) -> None:
            for t in pop:
                if t not in self.fitness_:
                    nets[t] = fit_tree_tensors(t, xs, yt, n_classes=c, width=hp["width"], epochs=hp["epochs"],
                                               lr=hp["lr"], weight_decay=hp["weight_decay"], seed=hp["seed"])
                    self.fitness_[t] = accuracy(nets[t], xv, vy)

        pop = [random_tree(len(tv), max_depth=hp["max_depth"], rng=rng) for _ in range(hp["population"])]
        evaluate(pop)
        self.history_: list[dict[str, float]] = [self._summary(pop)]
        for _ in range(hp["generations"]):
            pop = self._breed(pop, rng, hp, len(tv))
            evaluate(pop)
            self.history_.append(self._summary(pop))
        order = list(self.fitness_)  # evaluation order breaks ties: the earliest tree of the best fitness wins
        self.best_tree_: Tree = max(order, key=lambda t: (self.fitness_[t], -order.index(t)))
        self.best_fitness_ = self.fitness_[self.best_tree_]
        self.best_model_ = FusionModel(nets[self.best_tree_], scaler, widths)
        self.population_ = pop
        self.n_evaluations_ = len(self.fitness_)
        return self

    def _summary(self, pop: list[Tree]) -> dict[str, float]:
        f = [self.fitness_[t] for t in pop]
        return {"best": float(max(f)), "mean": float(np.mean(f))}

    def predict(self, views: Sequence[ArrayLike]) -> np.ndarray:
        """Classes predicted by the best individual."""
        if not hasattr(self, "best_model_"):
            raise ValueError("this EvolutionaryFusion is not fitted yet: call fit(...) first")
        return self.best_model_.predict(views)

    def score(self, views: Sequence[ArrayLike], labels: ArrayLike) -> float:
        """Accuracy of the best individual against ``labels``."""
        if not hasattr(self, "best_model_"):
            raise ValueError("this EvolutionaryFusion is not fitted yet: call fit(...) first")
        return self.best_model_.score(views, labels)

    def best_str(self, names: tuple[str, ...] | None = None) -> str:
        """The best tree as text."""
        return tree_str(self.best_tree_, names)
