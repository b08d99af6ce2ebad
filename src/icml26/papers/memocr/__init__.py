"""[P29] MemOCR: memory rendered as an image with adaptive layout, trained with RL under budgets

What it is: a long-horizon agent keeps a rich-text Markdown memory and, to consult it, renders it to an image that a
vision-language reader looks at. A visual-token budget B fixes the image's area (B·28² pixels), so the layout
allocates that space: a segment of L characters at font size s costs area ∝ L·s², and crucial evidence written as a
heading stays legible when the page is shrunk while body details are compressed away. The drafter's layout policy
is trained with GRPO under mixed budgets and three task variants (standard, heavily downsampled memory, detail
questions).

API: :func:`render_memory` (Markdown → page, Pillow with matplotlib's DejaVu fonts), :func:`resize_to_budget` and
:func:`budget_scale` (the area law), :func:`make_episode` (synthetic multi-hop QA), :class:`LayoutPolicy`,
:func:`draft_memory` and :func:`train_layout_policy` (the drafter and its GRPO training), :class:`OcrReader` and
:func:`answer_from_text` (the reader).

Claims (words, bars and basis in paper.toml; measured in ``_checks.py``, judged in ``_rules.py``):
  1. ``low_budget_gain`` — at 16 and 64 tokens the layout memory beats uniform rendering and the same memory as
     truncated text.
  2. ``parity_at_full`` — at 1024 tokens the three memories are on par.
  3. ``policy_beats_random`` — the trained layout beats random promotion at 16 tokens.
  4. ``token_efficiency`` — the paper's 8x, as the budget each memory needs to reach one accuracy.

Deviations / reconstructions (tier C: the 7B VLM agent cannot run here):
  1. Reader: Tesseract OCR plus a fixed chain extractor stands in for Qwen2.5-VL; it has no language prior.
  2. Drafter: the facts' text is fixed; only the layout (heading or body per fact) is learned, by a logistic policy
     on five features of the fact and the question.
  3. Task: synthetic 1-2 hop questions over 40 invented facts, not HotpotQA/2Wiki/NQ/TriviaQA padded to 10K-100K.
  4. RL reward: a geometric legibility reader (glyphs >= 6.5 px after the resize) with per-hop credit, since OCR in
     the loop is too slow; the reading policy is not trained (only the drafting advantage exists).
  5. Rendering: Pillow draws a Markdown subset (headings, body paragraphs) instead of HTML in a browser.
"""

from icml26.papers.memocr._drafter import FEATURES, LayoutPolicy, draft_memory, fact_features, uniform_memory
from icml26.papers.memocr._episodes import Episode, Fact, Question, make_episode
from icml26.papers.memocr._reader import OcrReader, answer_from_text, tesseract_available
from icml26.papers.memocr._render import DEFAULT_FONTS, PATCH, budget_scale, page_size, render_memory, resize_to_budget
from icml26.papers.memocr._train import MIN_PX, TrainResult, legible, train_layout_policy

__all__ = [
    "DEFAULT_FONTS",
    "FEATURES",
    "MIN_PX",
    "PATCH",
    "Episode",
    "Fact",
    "LayoutPolicy",
    "OcrReader",
    "Question",
    "TrainResult",
    "answer_from_text",
    "budget_scale",
    "draft_memory",
    "fact_features",
    "legible",
    "make_episode",
    "page_size",
    "render_memory",
    "resize_to_budget",
    "tesseract_available",
    "train_layout_policy",
    "uniform_memory",
]
