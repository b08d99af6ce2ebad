"""One seed of the [P28] pipeline at toy scale: private corpus -> DP table (MST) -> DP conditional generator -> ARL,
and the direct DP-SFT, RL-without-anchor and best-of-N-SFT-only (anchor without RL) baselines, all at the same
(ε, δ); one row of metrics per seed."""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass

import numpy as np

from icml26.papers.actg._arl import anchored_rl, best_of_n, bon_sft
from icml26.papers.actg._corpus import CorpusSchema, extract_attributes, make_corpus
from icml26.papers.actg._lm import Vocab, dp_train_lm, encode_pairs, generate, make_generator
from icml26.papers.actg._metrics import control_accuracy, embed_texts, mauve_score
from icml26.papers.actg._privacy import calibrate_dpsgd_sigma, calibrate_stage1, compose_epsilon
from icml26.papers.actg._tabular import MSTSynth, marginal_tv

__all__ = ["SYSTEMS", "PipelineConfig", "pipeline_row"]

log = logging.getLogger(__name__)
SYSTEMS = ("actg", "direct", "arl", "rl_only", "bon_sft")


@dataclass(frozen=True)
class PipelineConfig:
    """Sizes of one [P28] pipeline run (one seed). ``sigma_ratio``: ACTG's DP-SGD noise over the direct baseline's
    (both calibrated to ``epsilon``; the remainder goes to stage 1, as in the paper); ``pgm_iters``: Private-PGM
    iterations of MST's tree-model fit."""

    n_private: int = 3000
    n_eval: int = 500
    epsilon: float = 4.0
    delta: float = 1e-5
    q: float = 0.1
    steps: int = 80
    sigma_ratio: float = 1.15
    lr: float = 1e-2
    d_model: int = 32
    n_layer: int = 1
    block_size: int = 40
    max_words: int = 32
    n_anchor: int = 128
    n_candidates: int = 8
    rl_steps: int = 60
    rl_prompts: int = 16
    rl_group: int = 4
    rl_lr: float = 3e-3
    kl_coef: float = 0.05
    embed: str = "minilm"
    pgm_iters: int = 300


def _train(cfg: PipelineConfig, vocab: Vocab, rows: np.ndarray | None, texts: list[list[str]], sigma: float,
           seed: int) -> object:
    model = make_generator(vocab, block_size=cfg.block_size, n_layer=cfg.n_layer, d_model=cfg.d_model, n_head=2,
                           seed=seed)
    data = encode_pairs(vocab, rows, texts, block_size=cfg.block_size)
    dp_train_lm(model, data, q=cfg.q, sigma=sigma, steps=cfg.steps, lr=cfg.lr, seed=seed + 1)
    return model


def _budget(cfg: PipelineConfig) -> dict[str, float]:
    sd = calibrate_dpsgd_sigma(q=cfg.q, steps=cfg.steps, epsilon=cfg.epsilon, delta=cfg.delta)
    s2 = cfg.sigma_ratio * sd
    rho = calibrate_stage1(q=cfg.q, sigma=s2, steps=cfg.steps, epsilon=cfg.epsilon, delta=cfg.delta)
    return {"sigma_direct": sd, "sigma_actg": s2, "stage1_rho": rho,
            "eps_actg": compose_epsilon(stage1_rho=rho, q=cfg.q, sigma=s2, steps=cfg.steps, delta=cfg.delta),
            "eps_direct": compose_epsilon(stage1_rho=None, q=cfg.q, sigma=sd, steps=cfg.steps, delta=cfg.delta)}


def _distinct2(texts: list[list[str]]) -> float:
    grams = [tuple(t[i:i + 2]) for t in texts for i in range(len(t) - 1)]
    return len(set(grams)) / max(1, len(grams))


def pipeline_row(cfg: PipelineConfig, seed: int) -> dict[str, float | int | str]:
    """Run the [P28] pipeline and its baselines once (module docstring); MAUVE, attribute TV, control per system."""
    schema = CorpusSchema()
    vocab = Vocab()
    table, texts = make_corpus(schema, cfg.n_private, seed=seed)
    ref_table, ref_texts = make_corpus(schema, cfg.n_eval, seed=10_000 + seed)  # held-out real texts
    b = _budget(cfg)
    synth = MSTSynth(b["stage1_rho"], schema.cardinalities, iters=cfg.pgm_iters).fit(table, seed=seed + 2)
    eval_rows = synth.sample(cfg.n_eval, seed=seed + 3)
    prompt_rows = synth.sample(cfg.n_anchor, seed=seed + 4)
    cond = _train(cfg, vocab, table, texts, b["sigma_actg"], seed * 10 + 5)
    direct = _train(cfg, vocab, None, texts, b["sigma_direct"], seed * 10 + 6)
    log.info("seed %d: generators trained", seed)
    out: dict[str, list[list[str]]] = {}
    out["actg"] = generate(cond, vocab, eval_rows, n=cfg.n_eval, max_words=cfg.max_words, seed=seed + 7)[0]  # type: ignore[arg-type]
    out["direct"] = generate(direct, vocab, None, n=cfg.n_eval, max_words=cfg.max_words, seed=seed + 8)[0]  # type: ignore[arg-type]
    bon_texts, bon_r = best_of_n(cond, vocab, prompt_rows, n_candidates=cfg.n_candidates,  # type: ignore[arg-type]
                                 max_words=cfg.max_words, seed=seed + 9)
    rl_kw = {"steps": cfg.rl_steps, "prompts": cfg.rl_prompts, "group": cfg.rl_group, "lr": cfg.rl_lr,
             "kl_coef": cfg.kl_coef, "max_words": cfg.max_words, "seed": seed + 11}
    for name, anchor in (("arl", (prompt_rows, bon_texts)), ("rl_only", None)):
        pol = copy.deepcopy(cond)
        anchored_rl(pol, vocab, prompt_rows, anchor=anchor, **rl_kw)  # type: ignore[arg-type]
        out[name] = generate(pol, vocab, eval_rows, n=cfg.n_eval, max_words=cfg.max_words, seed=seed + 7)[0]  # type: ignore[arg-type]
    pol = copy.deepcopy(cond)
    bon_sft(pol, vocab, (prompt_rows, bon_texts), steps=cfg.rl_steps, batch=cfg.rl_prompts * cfg.rl_group,  # type: ignore[arg-type]
            lr=cfg.rl_lr, seed=seed + 11)
    out["bon_sft"] = generate(pol, vocab, eval_rows, n=cfg.n_eval, max_words=cfg.max_words, seed=seed + 7)[0]  # type: ignore[arg-type]
    log.info("seed %d: RL and best-of-N SFT done", seed)
    encoder = None
    if cfg.embed == "minilm":
        from icml26.common.models import load_sentence_encoder

        encoder = load_sentence_encoder("all-minilm-l6-v2")
    p = embed_texts(ref_texts, embed=cfg.embed, encoder=encoder)
    ref_attr = np.array([extract_attributes(t) for t in ref_texts])
    row: dict[str, float | int | str] = {"seed": seed, **b, "bon_reward": float(np.mean(bon_r)),
                                         "real_control": control_accuracy(ref_texts, ref_table),
                                         "stage1_tv2": marginal_tv(eval_rows, ref_table,
                                                                   cardinalities=schema.cardinalities, order=2)}
    for name in SYSTEMS:
        q = embed_texts(out[name], embed=cfg.embed, encoder=encoder)
        row[f"mauve_{name}"] = mauve_score(p, q, seed=seed)
        attrs = np.array([extract_attributes(t) for t in out[name]])
        row[f"tv_{name}"] = marginal_tv(attrs, ref_attr, cardinalities=schema.cardinalities, order=1)
        if name != "direct":  # unconditional: nothing was requested
            row[f"control_{name}"] = control_accuracy(out[name], eval_rows)
        row[f"length_{name}"] = float(np.mean([len(t) for t in out[name]]))
        row[f"distinct2_{name}"] = _distinct2(out[name])
    row["mauve_real_vs_real"] = mauve_score(p, embed_texts(texts[: cfg.n_eval], embed=cfg.embed, encoder=encoder),
                                            seed=seed)
    return row
