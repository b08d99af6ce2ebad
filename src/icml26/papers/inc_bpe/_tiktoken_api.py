"""tiktoken's public ``Encoding`` surface on the [P19] encoder: decoding, single tokens, batches, numpy, metadata.

:class:`TiktokenAPI` is a base class of :class:`~icml26.papers.inc_bpe.Encoding`; every method keeps tiktoken's name,
parameter names and meaning, so code written against ``tiktoken.Encoding`` runs unchanged. Errors are instances of
the exception type tiktoken raises (``KeyError`` for an id or bytes with no token, ``OverflowError`` for an id outside
``0..2**32-1``, ``LookupError`` for an unknown ``errors`` handler) and also of ``ValueError``, with a message that names
the argument. Deliberate differences: a bool is refused as a token id (``TypeError``; tiktoken reads ``True`` as id
1), ``is_special_token`` takes numpy integers and refuses other types with ``TypeError`` (tiktoken asserts), a str
where a list of texts belongs is refused (tiktoken encodes each character), an unknown ``errors`` name is refused
before decoding (tiktoken fails only once it meets invalid UTF-8), and ``num_threads`` defaults to 1 (tiktoken: 8;
the output is the same).
"""

from __future__ import annotations

import codecs
import functools
import os
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

__all__ = ["TiktokenAPI", "TokenRangeError", "UnknownErrorHandler", "UnknownTokenError", "check_threads"]

_U32 = 2**32


class UnknownTokenError(KeyError, ValueError):
    """An id (or byte string) that is no token of the encoding: tiktoken's ``KeyError``, also a ``ValueError``."""

    def __str__(self) -> str:  # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


class TokenRangeError(OverflowError, ValueError):
    """A token id outside ``0..2**32-1``: tiktoken's ``OverflowError``, also a ``ValueError``."""


class UnknownErrorHandler(LookupError, ValueError):
    """An ``errors`` name with no registered codec error handler: Python's ``LookupError``, also a ``ValueError``."""


def check_threads(num_threads: object) -> int:
    """``num_threads`` as a positive int, or ``TypeError``/``ValueError`` naming it."""
    if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)):
        raise TypeError(f"num_threads must be a positive int, got {num_threads!r}")
    if num_threads < 1:
        raise ValueError(f"num_threads must be a positive int, got {num_threads!r}")
    return int(num_threads)


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity masks
        return max(os.cpu_count() or 1, 1)


def batch_texts(text: object) -> list[str]:
    """``text`` of a batch method as a list of str (``TypeError`` naming the item otherwise); one str is refused, as
    iterating it would encode each character as its own text."""
    if isinstance(text, (str, bytes, bytearray)) or not isinstance(text, Iterable):
        raise TypeError(f"text must be a list of texts, got {type(text).__name__}; use encode() for one text, "
                        "or pass [text]")
    texts = list(text)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise TypeError(f"text[{i}] must be str, got {type(t).__name__}")
    return texts


def pooled(items: list[Any], fn: Callable[[Any], list[int]], num_threads: int) -> list[list[int]]:
    """``fn`` over ``items`` on a thread pool of at most ``num_threads`` (and the usable cores) threads."""
    threads = min(num_threads, usable_cores(), max(len(items), 1))
    if threads == 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(fn, items))


def _check_errors(errors: object) -> str:
    if not isinstance(errors, str):
        raise TypeError(f"errors must be the name of a codec error handler (str), got {type(errors).__name__}")
    try:
        codecs.lookup_error(errors)
    except LookupError:
        raise UnknownErrorHandler(
            f"errors: {errors!r} is not a codec error handler (e.g. 'replace', 'strict', 'ignore', 'surrogatepass')"
        ) from None
    return errors


def _as_id(token: object, arg: str) -> int:
    """A token id as a Python int: bools and non-integers raise ``TypeError``, ids outside u32 ``TokenRangeError``."""
    if isinstance(token, (bool, np.bool_)):
        raise TypeError(f"{arg}: {token!r} is a bool, not a token id")
    if not isinstance(token, (int, np.integer)):
        raise TypeError(f"{arg}: {token!r} is not a token id (an int), got {type(token).__name__}")
    i = int(token)
    if not 0 <= i < _U32:
        raise TokenRangeError(f"{arg}: {i} is outside the token id range 0..2**32-1")
    return i


def _sequences(batch: object, arg: str) -> list[object]:
    if isinstance(batch, (str, bytes, bytearray)) or not isinstance(batch, Iterable):
        raise TypeError(f"{arg} must be a list of token sequences, got {type(batch).__name__}")
    return list(batch)


class TiktokenAPI:
    """The rest of ``tiktoken.Encoding``'s public methods, over the tables of :class:`Encoding` ([P19] Sec. 2).

    Decoding is a table look-up (token id -> bytes); encoding methods call :meth:`Encoding.encode` /
    :meth:`Encoding.encode_ordinary`, i.e. [P19]'s incremental BPE (Alg. 1-2). Nothing here is reconstructed.
    """

    name: str
    pat_str: str
    _tokens: list[bytes]
    _special: dict[str, int]
    _decoder: dict[int, bytes]

    if TYPE_CHECKING:

        @property
        def n_vocab(self) -> int: ...

        def encode_ordinary(self, text: str) -> list[int]: ...

        def _ordinary_batch(self, texts: list[str], num_threads: int) -> list[list[int]]: ...

        def encode(
            self,
            text: str,
            *,
            allowed_special: Literal["all"] | Collection[str] = frozenset(),
            disallowed_special: Literal["all"] | Collection[str] = "all",
        ) -> list[int]: ...

    # ------------------------------------------------------------------ tables
    @functools.cached_property
    def _ranks(self) -> dict[bytes, int]:
        return {t: i for i, t in enumerate(self._tokens)}

    @property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        """Token bytes -> rank (a copy), as tiktoken's attribute of that name; specials are not in it."""
        return dict(self._ranks)

    @property
    def _special_tokens(self) -> dict[str, int]:
        """Special token text -> id (a copy), as tiktoken's attribute of that name."""
        return dict(self._special)

    @property
    def _pat_str(self) -> str:
        """The pre-tokenization regex, as tiktoken's attribute of that name."""
        return self.pat_str

    @property
    def max_token_value(self) -> int:
        """The largest token id, regular or special (``n_vocab - 1``)."""
        return self.n_vocab - 1

    @property
    def eot_token(self) -> int:
        """The id of ``<|endoftext|>``; ``KeyError`` when the encoding has none."""
        if "<|endoftext|>" not in self._special:
            raise UnknownTokenError(f"eot_token: {self.name} has no '<|endoftext|>' special token")
        return self._special["<|endoftext|>"]

    def is_special_token(self, token: int) -> bool:
        """True when ``token`` is the id of a special token (any other int: False)."""
        if isinstance(token, (bool, np.bool_)) or not isinstance(token, (int, np.integer)):
            raise TypeError(f"token must be an int token id, got {type(token).__name__} {token!r}")
        return int(token) in self._decoder

    def token_byte_values(self) -> list[bytes]:
        """The bytes of every regular token, sorted as byte strings (tiktoken's order; specials excluded)."""
        return list(self._sorted_tokens)

    @functools.cached_property
    def _sorted_tokens(self) -> tuple[bytes, ...]:
        return tuple(sorted(self._tokens))

    # ------------------------------------------------------------------ single tokens
    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of the one token whose bytes (or special-token text) are exactly ``text_or_bytes``.

        Regular tokens are looked up first, then special tokens (always allowed here, as in tiktoken); anything else
        raises ``KeyError``. A str with lone surrogates raises ``UnicodeEncodeError`` (a ``ValueError``).
        """
        if isinstance(text_or_bytes, str):
            try:
                data = text_or_bytes.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise UnicodeEncodeError(exc.encoding, exc.object, exc.start, exc.end,
                                         f"text_or_bytes: {exc.reason}") from None
        elif isinstance(text_or_bytes, (bytes, bytearray, memoryview)):
            data = bytes(text_or_bytes)
        else:
            raise TypeError(f"text_or_bytes must be str or bytes, got {type(text_or_bytes).__name__}")
        rank = self._ranks.get(data)
        if rank is not None:
            return rank
        try:
            special = self._special.get(data.decode("utf-8"))
        except UnicodeDecodeError:
            special = None
        if special is None:
            raise UnknownTokenError(f"text_or_bytes: {data!r} is not a single token of {self.name}")
        return special

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token id (a special token gives its text's UTF-8); an unknown id raises ``KeyError``."""
        return self._bytes_of(token, "token")

    def token_bytes(self, token: int) -> bytes:
        """The bytes of one token id (same as :meth:`decode_single_token_bytes`)."""
        return self._bytes_of(token, "token")

    def _bytes_of(self, token: object, arg: str) -> bytes:
        i = _as_id(token, arg)
        if i < len(self._tokens):
            return self._tokens[i]
        out = self._decoder.get(i)
        if out is None:
            raise UnknownTokenError(f"{arg}: {i} is not a token id of {self.name}")
        return out

    # ------------------------------------------------------------------ decoding
    def decode_bytes(self, tokens: Iterable[int]) -> bytes:
        """Concatenate the bytes of ``tokens`` (ints or numpy integers); an id with no token raises ``KeyError``."""
        toks, n = self._tokens, len(self._tokens)
        out: list[bytes] = []
        for i in tokens:
            out.append(toks[i] if type(i) is int and 0 <= i < n else self._bytes_of(i, "tokens"))
        return b"".join(out)

    def decode(self, tokens: Iterable[int], errors: str = "replace") -> str:
        """Decode ``tokens`` to text. ``errors`` is any codec error handler: ``"replace"`` (default, invalid UTF-8 ->
        U+FFFD, as tiktoken), ``"strict"`` (raise ``UnicodeDecodeError``), ``"surrogatepass"``, ``"ignore"``, ...
        """
        errors = _check_errors(errors)
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_tokens_bytes(self, tokens: Iterable[int]) -> list[bytes]:
        """The bytes of each token of ``tokens``, one entry per token."""
        return [self._bytes_of(t, "tokens") for t in tokens]

    def decode_with_offsets(self, tokens: Iterable[int]) -> tuple[str, list[int]]:
        """The text of ``tokens`` and, per token, the index of the first character holding any of its bytes.

        A token that starts inside a multi-byte character gets that character's index. The bytes must be valid
        UTF-8 (``UnicodeDecodeError`` otherwise), as in tiktoken.
        """
        pieces = self.decode_tokens_bytes(tokens)
        offsets: list[int] = []
        n_chars = 0  # characters started so far = bytes that are not UTF-8 continuation bytes (0b10xxxxxx)
        for piece in pieces:
            inside = 0x80 <= piece[0] < 0xC0 if piece else False
            offsets.append(max(0, n_chars - 1) if inside else n_chars)
            n_chars += sum(1 for b in piece if not 0x80 <= b < 0xC0)
        return b"".join(pieces).decode("utf-8", errors="strict"), offsets

    def decode_batch(
        self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int = 1
    ) -> list[str]:
        """:meth:`decode` of every token sequence of ``batch``. Decoding is a table look-up that holds the GIL, so it
        runs in this thread; ``num_threads`` (checked) is accepted for tiktoken's signature."""
        check_threads(num_threads)
        errors = _check_errors(errors)
        return [self.decode_bytes(seq).decode("utf-8", errors=errors) for seq in _sequences(batch, "batch")]  # type: ignore[arg-type]

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int = 1) -> list[bytes]:
        """:meth:`decode_bytes` of every token sequence of ``batch`` (``num_threads`` as in :meth:`decode_batch`)."""
        check_threads(num_threads)
        return [self.decode_bytes(seq) for seq in _sequences(batch, "batch")]  # type: ignore[arg-type]

    # ------------------------------------------------------------------ encoding variants
    def encode_ordinary_batch(self, text: Sequence[str], *, num_threads: int = 8) -> list[list[int]]:
        """:meth:`encode_ordinary` of every text of ``text`` (a list of str), as tiktoken's method: up to
        ``num_threads`` threads (at most the usable cores), native ones without the GIL for cl100k/o200k ([P19]'s
        core on every piece)."""
        threads = check_threads(num_threads)
        return self._ordinary_batch(batch_texts(text), threads)

    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> np.ndarray:
        """:meth:`encode` as a ``uint32`` numpy array (special tokens handled as in :meth:`encode`)."""
        ids = self.encode(text, allowed_special=allowed_special, disallowed_special=disallowed_special)
        return np.array(ids, dtype=np.uint32)

    def encode_with_unstable(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> tuple[list[int], list[list[int]]]:
        """As tiktoken's ``encode_with_unstable``: ``(stable, completions)``, the tokens more text cannot change and every
        token sequence that could begin the rest (order unspecified), with :meth:`encode`'s special-token rules."""
        from icml26.papers.inc_bpe._text import allowed_set, check_disallowed, fix_surrogates
        from icml26.papers.inc_bpe._unstable import encode_with_unstable

        if not isinstance(text, str):
            raise TypeError(f"text must be str, got {type(text).__name__}")
        allowed = allowed_set(allowed_special, self._special)
        check_disallowed(text, disallowed_special, allowed, self._special)
        return encode_with_unstable(self, fix_surrogates(text), allowed)  # type: ignore[arg-type]

    def _encode_bytes(self, text: bytes) -> list[int]:
        """As tiktoken's ``_encode_bytes``: valid UTF-8 as :meth:`encode_ordinary`; for invalid UTF-8, the last regex
        piece of the valid prefix is joined to the invalid rest and that is BPE-encoded as one piece
        (:meth:`Encoding.encode_bytes` keeps each piece apart, the streaming semantics)."""
        from icml26.papers.inc_bpe._unstable import encode_bytes_tiktoken

        if not isinstance(text, (bytes, bytearray, memoryview)):
            raise TypeError(f"text must be bytes, got {type(text).__name__}")
        return encode_bytes_tiktoken(self, bytes(text))  # type: ignore[arg-type]
