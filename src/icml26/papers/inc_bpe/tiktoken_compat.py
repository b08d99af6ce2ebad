"""A ``tiktoken``-shaped module over the [P19] encoder: ``from icml26.papers.inc_bpe import tiktoken_compat as tiktoken``.

``get_encoding``, ``list_encoding_names``, ``encoding_for_model`` and ``encoding_name_for_model`` behave as tiktoken's
functions of those names for the encodings whose vocabularies ship offline here (``cl100k_base``, ``o200k_base``):
same names, same encodings (token for token), same exceptions (``ValueError`` for an unknown encoding name,
``KeyError`` for a model that cannot be mapped). ``Encoding`` is the class of the returned encodings. Nothing is
downloaded; a model whose encoding is not one of these (GPT-2 era ``r50k``/``p50k``, ``o200k_harmony``) raises
``KeyError``. A non-str name raises an error that is both ``TypeError`` and tiktoken's ``ValueError``.
"""

from __future__ import annotations

from icml26.papers.inc_bpe._encoding import Encoding, load_encoding

__all__ = ["Encoding", "encoding_for_model", "encoding_name_for_model", "get_encoding", "list_encoding_names"]

_NAMES = ("cl100k_base", "o200k_base")

# model name -> encoding, for the models of the offline encodings (OpenAI's published model-to-tokenizer table)
_MODELS: dict[str, str] = {
    **dict.fromkeys(("o1", "o3", "o4-mini", "gpt-5", "gpt-4.1", "gpt-4o"), "o200k_base"),
    **dict.fromkeys(
        ("gpt-4", "gpt-3.5-turbo", "gpt-3.5", "gpt-35-turbo", "davinci-002", "babbage-002", "text-embedding-ada-002",
         "text-embedding-3-small", "text-embedding-3-large"),
        "cl100k_base",
    ),
}
# prefix -> encoding, tried in this order after an exact name (a dated or fine-tuned variant of a model)
_PREFIXES: tuple[tuple[str, str], ...] = (
    *((p, "o200k_base") for p in ("o1-", "o3-", "o4-mini-", "gpt-5", "gpt-4.5-", "gpt-4.1-", "chatgpt-4o-", "gpt-4o-")),
    *((p, "cl100k_base") for p in ("gpt-4-", "gpt-3.5-turbo-", "gpt-35-turbo-")),
    ("gpt-oss-", "o200k_harmony"),
    ("ft:gpt-4o", "o200k_base"),
    *((p, "cl100k_base") for p in ("ft:gpt-4", "ft:gpt-3.5-turbo", "ft:davinci-002", "ft:babbage-002")),
)


class UnknownModelError(KeyError, ValueError):
    """A model with no offline encoding: tiktoken's ``KeyError``, also a ``ValueError``."""

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


class _NotAName(TypeError, ValueError):
    """A name that is not a str: ``TypeError``, also tiktoken's ``ValueError``."""


def list_encoding_names() -> list[str]:
    """The encodings :func:`get_encoding` can load here as [P19] encoders (their vocabularies ship in installed packages)."""
    return list(_NAMES)


def get_encoding(encoding_name: str) -> Encoding:
    """The ``get_encoding`` of tiktoken: the [P19] incremental-BPE :class:`Encoding` of ``encoding_name``.

    Token for token the same as tiktoken's encoding of that name. Loaded once per process from the installed
    vocabulary files (never downloaded); an unknown name raises ``ValueError``.
    """
    if not isinstance(encoding_name, str):
        raise _NotAName(f"encoding_name must be str, got {type(encoding_name).__name__}")
    if encoding_name not in _NAMES:
        raise ValueError(f"encoding_name: unknown encoding {encoding_name!r}; available offline: {list(_NAMES)}")
    return load_encoding(encoding_name)


def encoding_name_for_model(model_name: str) -> str:
    """The name of the [P19]-served encoding of an OpenAI model (exact name first, then the known prefixes, as tiktoken).

    Raises ``KeyError`` for a model that is not mapped to one of :func:`list_encoding_names`.
    """
    if not isinstance(model_name, str):
        raise _NotAName(f"model_name must be str, got {type(model_name).__name__}")
    name = _MODELS.get(model_name)
    if name is None:
        name = next((enc for prefix, enc in _PREFIXES if model_name.startswith(prefix)), None)
    if name is None or name not in _NAMES:
        why = f"it uses {name}, which is not shipped" if name else "it is not a model of the offline encodings"
        raise UnknownModelError(
            f"model_name: cannot map {model_name!r} to an encoding ({why}); use get_encoding() with one of "
            f"{list(_NAMES)}"
        )
    return name


def encoding_for_model(model_name: str) -> Encoding:
    """The ``encoding_for_model`` of tiktoken: the [P19] :class:`Encoding` a model uses (``KeyError`` if unmapped)."""
    return get_encoding(encoding_name_for_model(model_name))
