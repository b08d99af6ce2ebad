"""The reader: Tesseract OCR on the budgeted memory image, then an answer from what it read ([P29], Sec. 3).

In the paper a vision-language model (Qwen2.5-VL-7B) reads the memory image and answers. Here Tesseract reads the
image (upsampled so that its text detector sees glyphs of a usable size) and a fixed extractor answers: it follows
the question's chain of relations through the text, each hop taking the candidate entity that best fuzzy-matches a
word just after the current key. What the OCR failed to read cannot be answered, which is the mechanism the claims
test (legibility of the crucial evidence under a token budget).

Reconstructed: the OCR reader and the extractor stand in for the VLM; they have no language prior and no reasoning.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import math
import os
import re
import shutil
from collections.abc import Iterator
from typing import Any

from icml26.common import validation
from icml26.papers.memocr._episodes import Episode, Question

__all__ = ["OcrReader", "answer_from_text", "tesseract_available"]

_WORD = re.compile(r"[A-Za-z]+")


def tesseract_available() -> bool:
    """Whether the ``tesseract`` binary and ``pytesseract`` are installed (the OCR reader of [P29]'s toy needs both)."""
    try:
        import pytesseract  # noqa: F401
    except ImportError:
        return False
    return shutil.which("tesseract") is not None


@contextlib.contextmanager
def _omp_limit(n: int) -> Iterator[None]:
    """``OMP_THREAD_LIMIT`` for the tesseract subprocess (pytesseract passes the process environment on)."""
    old = os.environ.get("OMP_THREAD_LIMIT")
    os.environ["OMP_THREAD_LIMIT"] = str(n)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("OMP_THREAD_LIMIT", None)
        else:
            os.environ["OMP_THREAD_LIMIT"] = old


def _ratio(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio()


def answer_from_text(text: str, question: Question, episode: Episode, *, min_match: float = 0.75,
                     window: int = 4) -> str | None:
    """Answer ``question`` from the text a reader saw ([P29]'s reader, reconstructed as a chain extractor).

    Starting from the question's subject, each hop finds the words matching the current key (similarity
    ``>= min_match``, difflib's ratio) and, among the next ``window`` words, the candidate of the hop's type (bands
    for ``founded``, cities for ``from``) with the best similarity; that candidate is the next key. ``None`` when a
    hop finds nothing: the evidence was not legible (or not present).
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    min_match = validation.real(min_match, "min_match", lo=0.0, hi=1.0, lo_open=True)
    window = validation.positive_int(window, "window", hi=64)
    words = _WORD.findall(text)
    key = question.subject
    for rel in question.chain:
        cands = episode.bands if rel == "founded" else episode.cities
        best, best_score = None, min_match
        for i, w in enumerate(words):
            if _ratio(w, key) < min_match:
                continue
            for v in words[i + 1:i + 1 + window]:
                for c in cands:
                    s = _ratio(v, c)
                    if s > best_score or (s == best_score and best is None):
                        best, best_score = c, s
        if best is None:
            return None
        key = best
    return key


class OcrReader:
    """Tesseract reading a memory image ([P29] Sec. 3's reader, reconstructed with OCR in place of the VLM).

    Args:
        upscale: the largest integer factor by which the (budgeted) image is enlarged (Lanczos) before OCR; the
            factor used is ``clip(round(target_width / w), 1, upscale)``. Enlarging adds no information, it only
            brings small glyphs to the size Tesseract's detector expects.
        target_width: the width in pixels the enlargement aims at.
        psm: Tesseract's page segmentation mode (6: one uniform block of text).
        timeout_s: the subprocess limit of one OCR call.
        threads: Tesseract's OpenMP threads (``OMP_THREAD_LIMIT`` of the subprocess); on pages this small more
            threads read the same text for several times the CPU.

    Results are cached per image content (SHA-256 of the pixels) for the lifetime of the reader, so a page shown
    twice is read once.
    """

    def __init__(self, *, upscale: int = 4, target_width: int = 1344, psm: int = 6, timeout_s: float = 30.0,
                 threads: int = 1) -> None:
        self.upscale = validation.positive_int(upscale, "upscale", hi=16)
        self.target_width = validation.positive_int(target_width, "target_width", hi=16384)
        self.psm = validation.int_at_least(psm, "psm", 0, hi=13)
        self.timeout_s = validation.real(timeout_s, "timeout_s", lo=0.0, lo_open=True)
        self.threads = validation.positive_int(threads, "threads", hi=64)
        self._cache: dict[str, str] = {}
        self.calls = 0

    def read(self, img: Any) -> str:
        """The text Tesseract reads in ``img`` (a ``PIL.Image.Image``)."""
        from PIL import Image

        if not isinstance(img, Image.Image):
            raise TypeError(f"img must be a PIL.Image.Image, got {type(img).__name__}")
        if not tesseract_available():
            raise RuntimeError("the OCR reader needs the tesseract binary (Debian: apt install tesseract-ocr "
                               "tesseract-ocr-eng) and pytesseract (pip install pytesseract)")
        import pytesseract

        gray = img.convert("L")
        key = hashlib.sha256(f"{gray.size}".encode() + gray.tobytes()).hexdigest()
        if key not in self._cache:
            k = min(self.upscale, max(1, round(self.target_width / gray.width)))
            big = gray.resize((gray.width * k, gray.height * k), Image.Resampling.LANCZOS)
            with _omp_limit(self.threads):
                self._cache[key] = pytesseract.image_to_string(big, lang="eng", config=f"--psm {self.psm}",
                                                               timeout=math.ceil(self.timeout_s))
            self.calls += 1
        return self._cache[key]

    def answer(self, img: Any, question: Question, episode: Episode) -> str | None:
        """Read ``img`` and answer ``question`` from the text (:func:`answer_from_text`)."""
        return answer_from_text(self.read(img), question, episode)
