"""[P37] When Data Is Scarce: Scaling Sparse Language Models with Repeated Training

What it is: a scaling law for dynamic sparse training (DST) when unique data is scarce and training repeats it.
Loss is modelled from the active parameters N = s·N_raw (density s), the unique tokens U, the tokens trained D and
the density: L = E + A·f(s)/N'^α + B/D'^β with f(s) = s^ε + c(1 − s)^μ, the effective data
D' = U + U·R_D*(s)(1 − e^{−R_D/R_D*(s)}) (R_D = D/U − 1 repetitions) and effective parameters N' of the same form
over the compute-optimal size for U; the repetition half-lives grow with sparsity, R_D*(s) = R_D*(1 + λ_D x + σ_D x²)
with x = 1 − s. DST is SET: magnitude prune and random regrow at a uniform per-layer density, optimiser moments
masked.

This package provides:
  * :func:`sparse_law`, :func:`R_D_star`, :func:`R_N_star`, :func:`density_factor`, :func:`n_star_unique` with the
    paper's fitted constants :data:`PAPER_PARAMS` (:class:`LawParams`);
  * :func:`fit_law` (any subset of the constants; Huber δ = 1e-3 on log-loss, L-BFGS-B from a grid of starts) and
    :func:`fit_repetition` (R_D*(s) per density at one model size, the reduced form tiny runs identify);
  * :func:`loss_optimal_density`, :func:`iso_flop_optimum`: where the law puts the best density on a slice;
  * :class:`SETMasker`: SET dynamic sparse training for any torch model, Adam moments masked;
  * :func:`markov_corpus` (:class:`MarkovChain`): a synthetic corpus with an exact entropy floor;
  * :func:`saturation_run` (:class:`RunConfig`): a tiny LLaMA-style model trained with SET on fresh or repeated data.

Claims (words, bars and basis in paper.toml; measured in ``_checks_*.py``, judged in ``_rules.py``):
  1. ``law_values`` — the law with the fitted constants gives the paper's numbers: the 11 held-out predictions and
     validation R² printed by the authors, and the values the notes derive (R_D*(s), f(0.5), a 520M slice).
  2. ``delayed_saturation`` — sparse training delays data saturation: R_D*(0.5) > R_D*(1), fitted per seed from
     tiny-model SET runs on repeated and fresh data over 1-16 epochs.
  3. ``loss_optimal_sparsity`` — with fixed data the loss-optimal sparsity is moderate (~50 %): where the paper's own
     law puts it with only the unique data fixed, beside the notes' fixed-size slice (about 25 %).

Deviations / reconstructions:
  1. The law, its constants and the fit procedure are read from the authors' fitting notebook (the paper's text and
     equation numbers were not available); the held-out runs use the notebook's size table.
  2. ``sparse_law`` takes ``min(U, D)`` unique tokens when D < U (less than an epoch); the notebook leaves it to the
     caller.
  3. The tiny runs replace C4 and LLaMA 20M-1.92B by an order-1 Markov chain (64 tokens, Dirichlet(0.05) rows,
     smoothed) and a ~6K-parameter TinyGPT; each epoch count comes from one constant-rate trunk with a 10 % linear
     cool-down branch (the paper runs each configuration with its own cosine schedule).
  4. At one model size the parameter term is one constant per density, so ``fit_repetition`` fits K_s + B_s/D'^β
     with β shared (the paper fits R_D*(s) through its quadratic in x over many sizes).
  5. SET's cosine prune-rate decay runs over the trunk of a run; its cool-down branches keep their masks fixed.
"""

from icml26.papers.sparse_scaling._fit import DEFAULT_GRID, LawFit, fit_law, huber
from icml26.papers.sparse_scaling._law import (
    PAPER_PARAMS,
    LawParams,
    R_D_star,
    R_N_star,
    density_factor,
    n_star_unique,
    sparse_law,
)
from icml26.papers.sparse_scaling._markov import MarkovChain, markov_corpus
from icml26.papers.sparse_scaling._optimum import DensityOptimum, iso_flop_optimum, loss_optimal_density
from icml26.papers.sparse_scaling._repetition import RepetitionFit, effective_data, fit_repetition
from icml26.papers.sparse_scaling._set import SETMasker, sparsifiable
from icml26.papers.sparse_scaling._train import RunConfig, make_model, saturation_run, validation_loss

__all__ = [
    "DEFAULT_GRID",
    "PAPER_PARAMS",
    "DensityOptimum",
    "LawFit",
    "LawParams",
    "MarkovChain",
    "R_D_star",
    "R_N_star",
    "RepetitionFit",
    "RunConfig",
    "SETMasker",
    "density_factor",
    "effective_data",
    "fit_law",
    "fit_repetition",
    "huber",
    "iso_flop_optimum",
    "loss_optimal_density",
    "make_model",
    "markov_corpus",
    "n_star_unique",
    "saturation_run",
    "sparse_law",
    "sparsifiable",
    "validation_loss",
]
