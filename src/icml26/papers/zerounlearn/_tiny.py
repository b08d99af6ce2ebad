"""A tiny Llama that knows synthetic facts, for [P27]'s smoke runs and tests: transformers' ``LlamaForCausalLM`` at a
tiny size (``icml26.common.models.tiny_causal_lm``) with an in-memory word-level tokenizer (every subject one token,
as a subject's last token is where MEMIT-style edits read and write), trained here for a few seconds on made-up
(subject, capital) pairs under a canonical prompt and two paraphrases. Cached under the cache folder when there
is one (keyed by every field of the spec and the library versions), else trained in place."""

from __future__ import annotations

import importlib.metadata
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from icml26.common.cache import cache_root, materialise
from icml26.common.models import tiny_causal_lm
from icml26.papers.zerounlearn._model import frozen, pad_rows
from icml26.papers.zerounlearn._prompts import Fact

__all__ = ["TINY_PARAPHRASES", "TINY_PROMPT", "TinySpec", "filler_rows", "tiny_facts", "tiny_model", "word_tokenizer"]

TINY_PROMPT = "the capital of {}"
TINY_PARAPHRASES = ("capital city of {}", "what is the capital of {}")
#: every word of the prompts, the context templates and the KL prompt of the smoke runs
_WORDS = ("the", "capital", "city", "of", "is", "what", "Here", "a", "fact", ".")
_EOS = "<|eos|>"
_CONS, _VOWELS = "bcdfghklmnprstvz", "aeiou"


@dataclass(frozen=True)
class TinySpec:
    """The tiny model of [P27]'s smoke runs and what it is trained on."""

    subjects: int = 16
    objects: int = 8
    unknown: int = 4  # made-up subjects the model is taught to answer with EOS (its "I do not know" state)
    hidden: int = 64
    layers: int = 3
    heads: int = 4
    kv_heads: int = 2
    intermediate: int = 128
    steps: int = 120
    lr: float = 1e-2


def _word(g: np.random.Generator, n: int) -> str:
    return "".join(_CONS[g.integers(len(_CONS))] if i % 2 == 0 else _VOWELS[g.integers(len(_VOWELS))]
                   for i in range(n)).capitalize()


def tiny_facts(*, subjects: int, objects: int, seed: int, unknown: int = 0) -> list[Fact]:
    """[P27] smoke facts: ``subjects`` made-up countries, each with one of ``objects`` made-up capitals (distinct names), then
    ``unknown`` further made-up countries whose answer is the EOS token, from ``seed``."""
    g = np.random.default_rng(seed)
    names: list[str] = []
    while len(names) < subjects + objects + unknown:
        w = _word(g, 3 if subjects <= len(names) < subjects + objects else 4)
        if w not in names:
            names.append(w)
    caps = names[subjects:subjects + objects]
    known = [Fact(s, TINY_PROMPT, " " + caps[int(g.integers(objects))], TINY_PARAPHRASES, "capital")
             for s in names[:subjects]]
    return known + [Fact(s, TINY_PROMPT, _EOS, TINY_PARAPHRASES, "unknown") for s in names[subjects + objects:]]


def word_tokenizer(words: list[str]) -> Any:
    """A word-level transformers tokenizer (fast, with offsets) over ``words`` plus [UNK] and three specials."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(dict.fromkeys([*words, "[UNK]", "<|bos|>", "<|eos|>", "<|pad|>"]))}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<|bos|>", eos_token="<|eos|>",
                                   pad_token="<|pad|>", unk_token="[UNK]")


def _build(spec: TinySpec, seed: int) -> tuple[Any, Any, list[Fact], list[Fact]]:
    """(model, tokenizer, known facts, unknown-subject facts) before training."""
    every = tiny_facts(subjects=spec.subjects, objects=spec.objects, unknown=spec.unknown, seed=seed)
    facts = every[:spec.subjects]
    tok = word_tokenizer([*_WORDS, *(f.subject for f in every), *sorted({f.answer.strip() for f in facts})])
    model, _ = tiny_causal_lm(seed=seed, hidden_size=spec.hidden, num_layers=spec.layers, num_heads=spec.heads,
                              num_kv_heads=spec.kv_heads, intermediate_size=spec.intermediate)
    return model, tok, facts, every[spec.subjects:]


def filler_rows(tokenizer: Any, *, rows: int, length: int, seed: int, exclude: tuple[str, ...] = ()
                ) -> list[list[int]]:
    """Random word sequences over the tiny vocabulary without the words in ``exclude`` (the smoke runs' retain and
    held-out text: general text that does not name the facts' subjects), from ``seed``."""
    g = np.random.default_rng(seed)
    drop = set(tokenizer.all_special_ids) | {tokenizer.convert_tokens_to_ids(w) for w in exclude}
    ids = sorted(set(tokenizer.get_vocab().values()) - drop)
    return [[int(ids[i]) for i in g.integers(len(ids), size=length)] for _ in range(rows)]


def _train(spec: TinySpec, seed: int) -> tuple[Any, Any, list[Fact]]:
    model, tok, facts, unknown = _build(spec, seed)
    rows, spans = [], []
    for f in (*facts, *unknown):
        for t in (f.prompt, *f.paraphrases):
            p = tok(f.text(t))["input_ids"]
            a = tok(f.answer, add_special_tokens=False)["input_ids"]
            a = a if a == [tok.eos_token_id] else [*a, tok.eos_token_id]
            rows.append(p + a)
            spans.append((len(p), len(a)))
    ids, mask = pad_rows(rows, tok.pad_token_id)
    labels = torch.full_like(ids, -100)
    for i, (p, a) in enumerate(spans):
        labels[i, p:p + a] = ids[i, p:p + a]
    params = list(model.parameters())
    with frozen(model, *params):
        model.train()
        opt = torch.optim.AdamW(params, lr=spec.lr, weight_decay=0.0)
        for _ in range(spec.steps):  # full batch: deterministic
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model.eval(), tok, facts


def _key(spec: TinySpec, seed: int) -> dict[str, Any]:
    return {"spec": asdict(spec), "seed": seed, "format": 1, "torch": torch.__version__,
            "transformers": importlib.metadata.version("transformers")}


def tiny_model(spec: TinySpec, *, seed: int) -> tuple[Any, Any, list[Fact]]:
    """[P27] smoke model: (model, tokenizer, facts), the tiny Llama trained on :func:`tiny_facts`, from the cache folder when cached."""
    root = cache_root(None)
    if root is None:
        return _train(spec, seed)
    name = "tiny-" + "-".join(str(v) for v in asdict(spec).values()) + f"-s{seed}"

    def build(folder: Path) -> None:
        model, _, _ = _train(spec, seed)
        torch.save(model.state_dict(), folder / "model.pt")

    folder = materialise(root / "zerounlearn" / name, key=_key(spec, seed), build=build)
    model, tok, facts, _ = _build(spec, seed)
    model.load_state_dict(torch.load(folder / "model.pt", weights_only=True))
    return model.eval(), tok, facts
