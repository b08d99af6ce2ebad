"""[P31] toy clips and LM against oracles: answers read back from the raw pixels and spectrogram, and the LM's
temporal-bias plumbing (gathering a selection == masking the rest of the full sequence)."""

import numpy as np
import pytest
import torch

from icml26.papers.prim import QUESTIONS, AVLMConfig, TinyAVLM, TrainConfig, _train, make_clips, train_avlm
from icml26.papers.prim._data import AUDIO_PER_FRAME, CANVAS, PATCH

CLIPS = make_clips(60, seed=5)


def _pixels(video: np.ndarray) -> np.ndarray:
    """(T, 3, H, W) frames rebuilt from the (T, P, 48) channel-major patch tokens."""
    q = CANVAS // PATCH
    return video.reshape(-1, q, q, 3, PATCH, PATCH).transpose(0, 3, 1, 4, 2, 5).reshape(-1, 3, CANVAS, CANVAS)


def test_moment_answer_read_back_from_the_raw_clip():
    """Oracle: the beep frame is the audio frame with the most spectral energy above the hum, the square is where the
    pixels leave the dim background; the quadrant of its centre in that frame is the answer of ``where_at_beep``."""
    assert QUESTIONS[2] == "where_at_beep"
    for i in np.flatnonzero(CLIPS.question == 2):
        energy = np.exp(3.0 * CLIPS.audio[i][..., 8:] - 6.5).sum(axis=(1, 2))  # bins above 500 Hz
        frame = int(np.argmax(energy))
        assert frame == CLIPS.beep_frame[i]
        img = _pixels(CLIPS.video[i])[frame]
        rows, cols = np.nonzero(img.max(axis=0) > 0.6)
        quadrant = 2 * int(rows.mean() >= CANVAS // 2) + int(cols.mean() >= CANVAS // 2)
        assert quadrant == CLIPS.answer[i]


def test_moment_question_needs_the_moment():
    """The quadrant most often occupied over the clip misses the answer in over a third of the moment questions."""
    clips = make_clips(2000, seed=1)
    sel = clips.question == 2
    quad = 2 * (clips.centre[sel, :, 0] >= 8) + (clips.centre[sel, :, 1] >= 8)
    modal = np.array([np.bincount(q, minlength=4).argmax() for q in quad])
    assert np.mean(modal == clips.answer[sel]) < 0.65
    assert set(np.unique(clips.answer[sel]).tolist()) == {0, 1, 2, 3}


def test_single_modality_answers():
    for i in np.flatnonzero(CLIPS.question == 1)[:10]:  # the beep's pitch from its loudest bin
        spec = CLIPS.audio[i][CLIPS.beep_frame[i]].mean(axis=0)
        hz = (np.argmax(spec) + 1) * 62.5
        assert int(np.argmin(np.abs(np.array([500.0, 800.0, 1200.0, 1650.0]) - hz))) == CLIPS.answer[i]
    assert CLIPS.audio.shape[2] == AUDIO_PER_FRAME


def test_selection_equals_masking():
    """Running the LM on a gathered selection (with its tokens' frames) gives the logits of the full sequence with
    the other tokens masked out: the temporal bias follows the tokens."""
    model = TinyAVLM(AVLMConfig(), seed=2)
    with torch.no_grad():
        model.time_bias.copy_(torch.randn(model.time_bias.shape, generator=torch.Generator().manual_seed(0)))
        av, text = model.embed(torch.from_numpy(CLIPS.video[:4]), torch.from_numpy(CLIPS.audio[:4]),
                               torch.from_numpy(CLIPS.question[:4]))
        idx = torch.stack([torch.as_tensor(np.sort(np.random.default_rng(j).choice(model.n_av, 50, replace=False)))
                           for j in range(4)])
        sel = torch.gather(av, 1, idx[..., None].expand(-1, -1, av.shape[-1]))
        got = model.run(sel, text, tokens=idx)
        mask = torch.zeros(4, model.n_av, dtype=torch.bool).scatter_(1, idx, True)
        ref = model.run(av, text, key_mask=mask)
    torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)
    assert not torch.allclose(got, model.run(sel, text, tokens=torch.zeros_like(idx)).detach())


def test_shared_bias_equals_per_clip_bias():
    """The whole-sequence prefill (one temporal bias broadcast over the clips) gives the logits of passing every
    clip's token indices explicitly (a per-clip bias), with and without a key mask."""
    model = TinyAVLM(AVLMConfig(), seed=3)
    with torch.no_grad():
        model.time_bias.copy_(torch.randn(model.time_bias.shape, generator=torch.Generator().manual_seed(1)))
        av, text = model.embed(torch.from_numpy(CLIPS.video[:5]), torch.from_numpy(CLIPS.audio[:5]),
                               torch.from_numpy(CLIPS.question[:5]))
        explicit = torch.arange(model.n_av).repeat(5, 1)
        torch.testing.assert_close(model.run(av, text), model.run(av, text, tokens=explicit), rtol=1e-5, atol=1e-5)
        mask = torch.rand(5, model.n_av, generator=torch.Generator().manual_seed(2)) < 0.5
        torch.testing.assert_close(model.run(av, text, key_mask=mask),
                                   model.run(av, text, tokens=explicit, key_mask=mask), rtol=1e-5, atol=1e-5)


def test_initial_temporal_bias():
    """At initialisation the local heads' effective bias is −local_slope·|Δt| (stored divided by bias_scale), the
    global heads' zero, and the question rows and columns get none."""
    cfg = AVLMConfig(local_slope=3.0, bias_scale=5.0)
    model = TinyAVLM(cfg, seed=0)
    bias = model._time_bias(0, torch.arange(model.n_av)[None], 2)[0].detach()  # pyright: ignore[reportPrivateUsage]
    frames = model.token_frames()
    dist = (frames[:, None] - frames[None, :]).abs().float()
    torch.testing.assert_close(bias[1, :-2, :-2], -3.0 * dist)
    assert torch.all(bias[0] == 0) and torch.all(bias[:, -2:, :] == 0) and torch.all(bias[:, :, -2:] == 0)


def _square(video: np.ndarray) -> np.ndarray:
    """(T, H, W) pixels of the square (bright against the dim background) in a clip's frames."""
    return _pixels(video).max(axis=1) > 0.6


def _still(video: np.ndarray) -> bool:
    """Whether the square covers the same pixels in every frame of a clip."""
    on = _square(video)
    return bool((on == on[:1]).all())


def test_static_square_keeps_the_draws():
    """``static=True``: the same clip draws (questions, beep, audio, colour) with the square held at its first corner;
    read back from the pixels, the moment answer is the quadrant of that one position."""
    moving, still = make_clips(40, seed=7), make_clips(40, seed=7, static=True)
    np.testing.assert_array_equal(moving.question, still.question)
    np.testing.assert_array_equal(moving.beep_frame, still.beep_frame)
    np.testing.assert_array_equal(moving.audio, still.audio)
    np.testing.assert_array_equal(still.centre, np.broadcast_to(moving.centre[:, :1], moving.centre.shape))
    single = moving.question < 2
    np.testing.assert_array_equal(moving.answer[single], still.answer[single])
    for i in np.flatnonzero(still.question == 2):
        assert _still(still.video[i])
        rows, cols = np.nonzero(_square(still.video[i])[0])
        assert 2 * int(rows.mean() >= CANVAS // 2) + int(cols.mean() >= CANVAS // 2) == still.answer[i]
    assert not any(_still(v) for v in moving.video)  # the ordinary squares move
    with pytest.raises(TypeError, match="static"):
        make_clips(2, seed=0, static=1)  # pyright: ignore[reportArgumentType]


def test_warm_up_trains_on_static_clips_first(monkeypatch: pytest.MonkeyPatch):
    """The first ``static_until`` of the steps read the static-square clips, the rest the moving ones."""
    seen: list[bool] = []
    real = _train.masked_loss

    def spy(model: TinyAVLM, video: torch.Tensor, *rest):  # pyright: ignore[reportMissingParameterType]
        seen.append(all(_still(v.numpy()) for v in video))
        return real(model, video, *rest)

    monkeypatch.setattr(_train, "masked_loss", spy)
    tiny = AVLMConfig(d_model=16, n_head=2, n_layer=1)
    train_avlm(TrainConfig(model=tiny, n_train=8, steps=4, batch_size=8, static_until=0.5), seed=0)
    assert seen == [True, True, False, False]
    with pytest.raises(ValueError, match="static_until"):
        train_avlm(TrainConfig(model=tiny, n_train=8, steps=1, static_until=1.5), seed=0)
