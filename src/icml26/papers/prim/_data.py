"""Synthetic audio-visual clips for the [P31] toy: a moving coloured square, a tone track with one beep, a question.

Everything here is ours (the paper's benchmarks are real audio-video QA sets): a clip has ``frames`` video frames of a
16 x 16 RGB canvas cut into 4 x 4-pixel patches (16 patch tokens per frame, 48 values each) and a log-spectrogram
of a 4 kHz waveform cut into 4 spectrogram slices per frame (32 frequency bins each). The waveform
is a steady hum plus noise and one 64 ms beep of one of four pitches at a random frame. Questions:

- ``colour`` (video only): which of four colours the square has;
- ``beep`` (audio only): which of four pitches the beep has;
- ``where_at_beep`` (cross-modal, about a moment): the quadrant of the canvas that holds the square's centre at the
  frame of the beep (2 · [row >= 8] + [column >= 8]). The audio finds the moment and the video answers; the square
  moves 2-3 px a frame, so that the quadrant most often occupied over the clip is right only about 46 % of the time.

``static=True`` (ours, a training curriculum's warm-up) keeps the square at its first position: the moment question
is then answerable from any frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import signal

from icml26.common import validation

__all__ = ["AUDIO_PER_FRAME", "CANVAS", "PATCH", "QUESTIONS", "SAMPLE_RATE", "Clips", "make_clips"]

CANVAS = 16  # pixels per side
PATCH = 4  # pixels per patch side -> (CANVAS / PATCH)^2 = 16 patch tokens per frame
SIDE = 3  # the square's side in pixels
SAMPLE_RATE = 4000  # Hz
FRAME_SAMPLES = 256  # 64 ms of audio per video frame
BINS = 32  # spectrogram frequency bins kept per audio token
AUDIO_PER_FRAME = FRAME_SAMPLES // (2 * BINS)  # 4 spectrogram slices (audio tokens) per video frame
QUESTIONS = ("colour", "beep", "where_at_beep")
PALETTE = np.array([[0.9, 0.15, 0.1], [0.1, 0.8, 0.2], [0.15, 0.3, 0.95], [0.95, 0.85, 0.1]])
PITCHES = (500.0, 800.0, 1200.0, 1650.0)  # Hz, one per beep class
HUM = 250.0  # Hz


@dataclass(frozen=True)
class Clips:
    """A batch of [P31] toy clips: ``video`` (N, T, P, 48) patch pixels (channel-major 3 x 4 x 4), ``audio`` (N, T, A, 32)
    log-spectrogram slices, ``question`` (N,) index into :data:`QUESTIONS`, ``answer`` (N,) in 0..3, ``beep_frame``
    (N,) and ``centre`` (N, T, 2) (row, column of the square's centre, for tests and figures)."""

    video: np.ndarray
    audio: np.ndarray
    question: np.ndarray
    answer: np.ndarray
    beep_frame: np.ndarray
    centre: np.ndarray

    def __len__(self) -> int:
        return int(self.question.shape[0])


def _trajectories(g: np.random.Generator, n: int, frames: int, static: bool) -> np.ndarray:
    """Top-left corners (N, T, 2) of a square bouncing inside the canvas at a constant speed of 2-3 px/frame
    (``static``: speed 0, the same draws from ``g``)."""
    hi = CANVAS - SIDE
    pos = g.integers(0, hi + 1, size=(n, 2)).astype(float)
    vel = g.choice([-3.0, -2.0, 2.0, 3.0], size=(n, 2)) * (0.0 if static else 1.0)
    out = np.empty((n, frames, 2))
    for t in range(frames):
        out[:, t] = pos
        nxt = pos + vel
        bounce = (nxt < 0) | (nxt > hi)
        vel = np.where(bounce, -vel, vel)
        pos = np.clip(pos + vel, 0, hi)
    return out.astype(int)


def _video(g: np.random.Generator, corners: np.ndarray, colour: np.ndarray, noise: float) -> np.ndarray:
    n, frames, _ = corners.shape
    yy = np.linspace(0.15, 0.3, CANVAS)[:, None] * np.ones((1, CANVAS))  # a smooth static background
    img = np.broadcast_to(yy, (n, frames, 3, CANVAS, CANVAS)).copy()
    img += noise * g.standard_normal(img.shape)
    px = np.arange(CANVAS)
    inside = (px >= corners[..., None]) & (px < corners[..., None] + SIDE)  # (N, T, 2, CANVAS): rows, columns
    square = inside[:, :, 0, :, None] & inside[:, :, 1, None, :]  # (N, T, H, W)
    img = np.where(square[:, :, None], PALETTE[colour][:, None, :, None, None], img)
    q = CANVAS // PATCH
    patches = img.reshape(n, frames, 3, q, PATCH, q, PATCH).transpose(0, 1, 3, 5, 2, 4, 6)
    return patches.reshape(n, frames, q * q, 3 * PATCH * PATCH)


def _audio(g: np.random.Generator, n: int, frames: int, beep_frame: np.ndarray, pitch: np.ndarray,
           noise: float) -> np.ndarray:
    length = frames * FRAME_SAMPLES
    t = np.arange(length) / SAMPLE_RATE
    phase = g.uniform(0, 2 * np.pi, size=(n, 1))
    wave = 0.3 * np.sin(2 * np.pi * HUM * t[None, :] + phase) + noise * g.standard_normal((n, length))
    local = np.arange(length)[None, :] - beep_frame[:, None] * FRAME_SAMPLES  # samples since the beep's onset
    hz = np.asarray(PITCHES)[pitch][:, None]
    wave += np.where((local >= 0) & (local < FRAME_SAMPLES), np.sin(2 * np.pi * hz * (local / SAMPLE_RATE)), 0.0)
    # non-overlapping 16 ms windows: AUDIO_PER_FRAME spectrogram slices per video frame, BINS bins of 62.5 Hz
    _, _, z = signal.stft(wave, fs=SAMPLE_RATE, nperseg=2 * BINS, noverlap=0, boundary=None,  # pyright: ignore[reportArgumentType]
                          padded=False, axis=-1)
    spec = np.log(1e-3 + np.abs(z[:, 1:BINS + 1, :frames * AUDIO_PER_FRAME]) ** 2).transpose(0, 2, 1)
    spec = (spec + 6.5) / 3.0  # roughly centred and scaled
    return spec.reshape(n, frames, AUDIO_PER_FRAME, BINS)


def make_clips(n: int, *, seed: int, frames: int = 8, noise: float = 0.03,
               question_weights: tuple[float, float, float] = (1 / 3, 1 / 3, 1 / 3), static: bool = False) -> Clips:
    """``n`` clips (module docstring) from an explicit ``seed``; question types are drawn with ``question_weights``
    (the order of :data:`QUESTIONS`; uniform by default, evaluation always uses the default). ``static`` (ours, for
    the warm-up of :class:`._train.TrainConfig`) keeps the square still: the same clips otherwise, same draws.

    Our synthetic stand-in for [P31]'s audio-visual benchmarks (nothing of the paper's data is used).
    """
    n = validation.positive_int(n, "n")
    seed = validation.seed(seed)
    frames = validation.int_at_least(frames, "frames", 2, hi=64)
    noise = validation.real(noise, "noise", lo=0.0, hi=1.0)
    weights = validation.probability_vector(np.asarray(question_weights, dtype=float), "question_weights", atol=1e-6)
    if weights.size != len(QUESTIONS):
        raise ValueError(f"question_weights must have {len(QUESTIONS)} entries, got {weights.size}")
    if not isinstance(static, bool):
        raise TypeError(f"static must be a bool, got {type(static).__name__}")
    g = np.random.default_rng([seed, 31])
    corners = _trajectories(g, n, frames, static)
    colour = g.integers(0, 4, size=n)
    pitch = g.integers(0, 4, size=n)
    beep_frame = g.integers(0, frames, size=n)
    question = g.choice(len(QUESTIONS), size=n, p=weights / weights.sum())
    video = _video(g, corners, colour, noise)
    audio = _audio(g, n, frames, beep_frame, pitch, noise)
    centre = corners + (SIDE - 1) / 2.0
    at_beep = centre[np.arange(n), beep_frame]
    quadrant = 2 * (at_beep[:, 0] >= CANVAS // 2) + (at_beep[:, 1] >= CANVAS // 2)
    answer = np.select([question == 0, question == 1], [colour, pitch], quadrant)
    return Clips(video=video.astype(np.float32), audio=audio.astype(np.float32), question=question.astype(np.int64),
                 answer=answer.astype(np.int64), beep_frame=beep_frame.astype(np.int64), centre=centre)
