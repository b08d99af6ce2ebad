"""[P28] generator, DP-SGD, ARL and the metrics: semantics on tiny inputs."""

import copy

import numpy as np
import pytest
import torch

from icml26.papers.actg import (
    CorpusSchema,
    Vocab,
    anchored_rl,
    best_of_n,
    bon_sft,
    control_accuracy,
    dp_train_lm,
    embed_texts,
    encode_pairs,
    gamma_schedule,
    generate,
    make_corpus,
    make_generator,
    mauve_score,
    rubric_reward,
)
from icml26.papers.actg._lm import EOS, _top_p_filter

V = Vocab()


def _model(seed=0):
    return make_generator(V, block_size=40, n_layer=1, d_model=16, n_head=2, seed=seed)


def test_top_p_keeps_the_smallest_set_reaching_p():
    logits = torch.log(torch.tensor([[0.05, 0.5, 0.15, 0.3]]))
    assert (_top_p_filter(logits, 0.8) > 0).tolist() == [[False, True, False, True]]
    assert (_top_p_filter(logits, 0.81) > 0).tolist() == [[False, True, True, True]]
    assert (_top_p_filter(logits, 0.5) > 0).tolist() == [[False, True, False, False]]


def test_encode_pairs_masks_the_prompt():
    table, texts = make_corpus(CorpusSchema(), 3, seed=0)
    x, y, m = encode_pairs(V, table, texts, block_size=40)
    plen = len(V.prompt(table[0]))
    assert m[0, : plen - 1].sum() == 0 and m[0].sum() == len(texts[0]) + 1
    assert y[0, int(m[0].sum()) + plen - 2] == V.stoi[EOS]
    xu, _, mu = encode_pairs(V, None, texts, block_size=40)
    assert mu[0].sum() == len(texts[0]) + 1 and xu[0, 1] == V.stoi["<sep>"]


def test_generate_is_seeded_and_conditional():
    rows = np.array([[0, 1, 2, 3, 1]] * 4)
    a, _ = generate(_model(), V, rows, n=4, max_words=10, seed=3)
    b, _ = generate(_model(), V, rows, n=4, max_words=10, seed=3)
    assert a == b and all(len(t) <= 10 for t in a)
    assert all(w in V.stoi and V.stoi[w] >= V.first_word for t in a for w in t)


def test_dp_training_without_noise_learns_and_with_noise_is_seeded():
    table, texts = make_corpus(CorpusSchema(p_mention=1.0), 64, seed=0)
    data = encode_pairs(V, table, texts, block_size=40)
    m = _model()
    log = dp_train_lm(m, data, q=0.5, sigma=0.0, steps=15, lr=1e-2, seed=0)
    assert log.losses[-1] < log.losses[0] - 1.0
    assert 10 < np.mean(log.batch_sizes) < 54
    m1, m2 = _model(), _model()
    dp_train_lm(m1, data, q=0.3, sigma=1.0, steps=3, seed=5)
    dp_train_lm(m2, data, q=0.3, sigma=1.0, steps=3, seed=5)
    assert all(torch.equal(p, r) for p, r in zip(m1.parameters(), m2.parameters()))
    assert not hasattr(next(m1.parameters()), "grad_sample") or next(m1.parameters()).grad_sample is None


def test_gamma_schedule_is_linear():
    assert gamma_schedule(0, 5) == 2.0 and gamma_schedule(4, 5) == pytest.approx(0.2)
    assert gamma_schedule(2, 5) == pytest.approx(1.1)


def test_best_of_n_picks_the_max_reward_candidate():
    rows = np.array([[0, 1, 2, 3, 1], [1, 0, 0, 2, 2]])
    texts, rewards = best_of_n(_model(), V, rows, n_candidates=5, max_words=20, seed=7)
    cands, _ = generate(_model(), V, np.repeat(rows, 5, axis=0), n=10, max_words=20, seed=7)
    for i in range(2):
        r = [rubric_reward(c, rows[i]) for c in cands[5 * i: 5 * i + 5]]
        assert rewards[i] == max(r) and texts[i] == cands[5 * i + int(np.argmax(r))]


def test_anchored_rl_runs_and_the_anchor_is_optional():
    rows = np.array([[0, 1, 2, 3, 1], [1, 0, 0, 2, 2]])
    m = _model()
    before = copy.deepcopy(m)
    anchor = (rows, [["we", "study", "genome", "."]] * 2)
    log = anchored_rl(m, V, rows, anchor=anchor, steps=3, prompts=2, group=2, max_words=8, seed=0)
    assert log.gammas == pytest.approx((2.0, 1.1, 0.2)) and len(log.rewards) == 3
    assert any(not torch.equal(p, q) for p, q in zip(m.parameters(), before.parameters()))
    log0 = anchored_rl(_model(), V, rows, anchor=None, steps=2, prompts=2, group=2, max_words=8, seed=0)
    assert log0.gammas == (0.0, 0.0)


def test_bon_sft_fits_the_anchor_texts_and_is_seeded():
    rows = np.array([[0, 1, 2, 3, 1], [1, 0, 0, 2, 2]])
    anchor = (rows, [["we", "study", "genome", "."], ["we", "study", "neurons", "."]])
    m1, m2 = _model(), _model()
    nll = bon_sft(m1, V, anchor, steps=60, batch=4, lr=1e-2, seed=0)
    assert len(nll) == 60 and nll[-1] < 0.1 * nll[0]
    assert nll == bon_sft(m2, V, anchor, steps=60, batch=4, lr=1e-2, seed=0)
    texts, _ = generate(m1, V, rows, n=2, max_words=8, seed=0)
    assert texts == anchor[1]  # each row's own anchor text


def test_mauve_and_control_on_planted_sets():
    _, texts = make_corpus(CorpusSchema(), 300, seed=0)
    _, other = make_corpus(CorpusSchema(), 300, seed=1)
    p, q = embed_texts(texts, embed="hashed"), embed_texts(other, embed="hashed")
    far = embed_texts([["see", "methods", "."]] * 300, embed="hashed")
    assert mauve_score(p, q, seed=0) > 0.9 > 0.1 > mauve_score(p, far, seed=0)
    table, t2 = make_corpus(CorpusSchema(p_mention=1.0), 10, seed=0)
    assert control_accuracy(t2, table) == 1.0


def test_dp_sgd_noise_generation_and_rl_leave_the_global_rngs_alone():
    table, texts = make_corpus(CorpusSchema(), 32, seed=0)
    data = encode_pairs(V, table, texts, block_size=40)
    t_state, n_state = torch.get_rng_state(), np.random.get_state()[1].copy()
    m = _model()
    dp_train_lm(m, data, q=0.3, sigma=1.0, steps=2, seed=1)
    generate(m, V, table[:4], n=4, max_words=8, seed=2)
    anchored_rl(m, V, table[:4], anchor=None, steps=1, prompts=2, group=2, max_words=8, seed=3)
    assert torch.equal(t_state, torch.get_rng_state()) and (n_state == np.random.get_state()[1]).all()
