"""A small byte-level BPE tokenizer trained here and a tiny random Llama over it: the stand-ins for a provider's
tokenizer and model in the smoke budget and the tests ([P13] §6 runs the heuristic on real LLMs; a byte-level BPE
keeps what matters for it: every merged token splits into two vocabulary tokens).

The training text is Python's own standard-library docstrings (shipped with the interpreter, nothing downloaded).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from icml26.common.text import stdlib_docstrings
from icml26.common.validation import int_at_least, real
from icml26.common.validation import seed as check_seed

__all__ = ["STDLIB_MODULES", "docstring_corpus", "tiny_bpe_lm", "train_bpe"]

#: standard-library modules whose docstrings (module, classes, functions) make the corpus, in this order
STDLIB_MODULES = ("argparse", "collections", "json", "logging", "string", "textwrap", "heapq", "bisect", "fractions",
                  "statistics", "difflib", "shutil", "calendar", "functools", "itertools", "random", "csv", "zipfile")


def docstring_corpus(*, modules: Sequence[str] = STDLIB_MODULES) -> list[str]:
    """Paragraphs of the docstrings of ``modules`` and of their public members ([P13] §6: text to tokenize; ours)."""
    out: list[str] = []
    for d in stdlib_docstrings(modules):
        out += [p.strip() for p in d.split("\n\n") if len(p.strip()) >= 20]
    return out


def train_bpe(texts: Sequence[str], *, vocab_size: int) -> Any:
    """A byte-level BPE tokenizer (GPT-2 style, ``tokenizers``) with ``vocab_size`` ids trained on ``texts``
    ([P13] §2: the tokenizers of the paper's models are byte-level BPEs). Id 0 is the special ``<|endoftext|>``;
    returned as a transformers ``PreTrainedTokenizerFast``. Training is deterministic."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    size = int_at_least(vocab_size, "vocab_size", 258)
    if isinstance(texts, str) or not texts or not all(isinstance(t, str) for t in texts):
        raise TypeError("texts must be a non-empty sequence of str")
    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  special_tokens=["<|endoftext|>"], show_progress=False)
    core.train_from_iterator(list(texts), trainer=trainer)
    return PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                   pad_token="<|endoftext|>")


def tiny_bpe_lm(*, seed: int, vocab_size: int = 384, hidden_size: int = 64, num_layers: int = 2,
                init_std: float = 0.1) -> tuple[Any, Any]:
    """``(model, tokenizer)``: a tiny random ``LlamaForCausalLM`` (drawn from ``seed``) over a BPE of
    ``vocab_size`` ids trained on :func:`docstring_corpus` (the smoke budget's provider; [P13] §6 uses real LLMs).
    ``init_std`` sets how peaked its next-token distributions are (larger: smaller top-p sets)."""
    from icml26.common.models import tiny_causal_lm

    s = check_seed(seed)
    std = real(init_std, "init_std", lo=0.0, lo_open=True)
    tok = train_bpe(docstring_corpus(), vocab_size=vocab_size)
    model, _ = tiny_causal_lm(seed=s, vocab_size=len(tok), hidden_size=hidden_size, num_layers=num_layers,
                              init_std=std)
    return model, tok
