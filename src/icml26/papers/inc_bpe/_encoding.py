"""The user-facing tokenizer of [P19]: :class:`Encoding` (tiktoken-compatible) and :func:`load_encoding`.

Pre-tokenization (``pretokenize=True``) splits text with the encoding's regex exactly as tiktoken does and runs the
incremental BPE core on every piece; ``pretokenize=False`` runs BPE over the whole byte string, the setting in which
the paper's per-byte worst case matters most. The cl100k and o200k patterns are split by a native scanner (C++,
``_native/pretok.cpp``) whose character classes are tiktoken's; any other ``pat_str`` (and the ``ICML26_NO_EXT=1``
fallback) is split with the ``regex`` module, which implements a newer Unicode version than tiktoken (see the README).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

from icml26.papers.inc_bpe._backend import NATIVE, make_core
from icml26.papers.inc_bpe._text import allowed_set, check_disallowed, fix_surrogates, native_pattern, regex_module
from icml26.papers.inc_bpe._tiktoken_api import TiktokenAPI, batch_texts, check_threads, pooled, usable_cores
from icml26.papers.inc_bpe._vocab import VocabSpec, builtin_spec, check_n_vocab, read_tiktoken_file, tokens_from_ranks

__all__ = ["Encoding", "load_encoding"]


class Encoding(TiktokenAPI):
    """A byte-level BPE tokenizer whose BPE core is the incremental algorithm of [P19].

    Implements standard BPE (Sec. 2 of [P19]) through the per-byte incremental algorithm (Alg. 1-2: candidate suffix
    tokens from an Aho-Corasick automaton, the O(1) validity test on the successor forest). Output equals tiktoken's
    for the same ranks and pattern.

    Args:
        name: a display name.
        tokens: token bytes indexed by rank (rank = token id = merge priority, lower merges first).
        pat_str: the pre-tokenization regex (tiktoken syntax); the cl100k and o200k patterns run on the native scanner,
            any other with the ``regex`` module.
        special_tokens: special token text -> id (ids must not collide with ``tokens``).
        pretokenize: split with ``pat_str`` first (tiktoken behaviour) or run BPE over the whole byte string.
        cache: the preprocessing cache folder (True: ``$ICML26_CACHE_DIR`` when set, else none; False: no cache).
    """

    _builtin: bool = False  # loaded by name from the installed vocabulary files (pickles as that name)

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: Mapping[bytes, int] | None = None,
        special_tokens: Mapping[str, int] | None = None,
        explicit_n_vocab: int | None = None,
        tokens: Sequence[bytes] | None = None,
        pretokenize: bool = True,
        cache: bool | str | os.PathLike[str] = True,
    ) -> None:
        if (mergeable_ranks is None) == (tokens is None):
            raise TypeError("give exactly one of mergeable_ranks (tiktoken's form) and tokens")
        if tokens is None:
            tokens = tokens_from_ranks(mergeable_ranks, arg="mergeable_ranks")
        if not isinstance(pat_str, str):
            raise TypeError(f"pat_str must be str, got {type(pat_str).__name__}")
        if not isinstance(pretokenize, bool):
            raise TypeError(f"pretokenize must be bool, got {type(pretokenize).__name__}")
        tokens = list(tokens)
        if not all(isinstance(t, bytes) for t in tokens):
            raise TypeError("tokens must be a sequence of bytes")
        specials = dict(special_tokens or {})
        for s, i in specials.items():
            if not isinstance(s, str) or not isinstance(i, int) or i < 0:
                raise TypeError(f"special_tokens must map str to non-negative int, got {s!r}: {i!r}")
            if i < len(tokens):
                raise ValueError(f"special_tokens: id {i} of {s!r} collides with a regular token")
        if len(set(specials.values())) != len(specials):
            raise ValueError("special_tokens: ids must be distinct")
        regex = regex_module()
        try:
            self._pat = regex.compile(pat_str)
        except regex.error as exc:
            raise ValueError(f"pat_str: not a valid regex ({exc})") from None
        self.name = name
        self.pat_str = pat_str
        self.pretokenize = pretokenize
        self._pat_kind = native_pattern(pat_str)
        if not isinstance(cache, (bool, str, os.PathLike)):
            raise TypeError(f"cache must be a bool or a folder path, got {type(cache).__name__}")
        self._core = make_core(tokens, cache=cache)
        self._tokens = tokens
        self._special = specials
        self._special_re = (
            regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True))) if specials else None
        )
        self._decoder: dict[int, bytes] = {i: s.encode("utf-8") for s, i in specials.items()}
        if explicit_n_vocab is not None:
            check_n_vocab(explicit_n_vocab, len(tokens) + len(specials), self.n_vocab)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle (and ``copy.deepcopy``) by what the encoding is made of: a built-in name reloads from the installed
        vocabulary files; any other encoding carries its tokens, pattern and specials. Worker processes, DataLoader
        workers and Ray tasks receive a working copy."""
        if self._builtin:
            return (_load_builtin, (self.name, self.pretokenize))
        return (_rebuild, (self.name, list(self._tokens), self.pat_str, dict(self._special), self.pretokenize))

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_tiktoken_file(
        cls,
        path: str | os.PathLike[str],
        *,
        pat_str: str,
        special_tokens: Mapping[str, int] | None = None,
        name: str | None = None,
        pretokenize: bool = True,
        cache: bool | str | os.PathLike[str] = True,
    ) -> Encoding:
        """Load a tiktoken rank file (``base64 rank`` lines, plain or gzip). Malformed files raise ``ValueError``."""
        tokens, _ = read_tiktoken_file(path)
        return cls(
            name=name or os.path.basename(os.fspath(path)),
            tokens=tokens,
            pat_str=pat_str,
            special_tokens=special_tokens,
            pretokenize=pretokenize,
            cache=cache,
        )

    @classmethod
    def from_ranks(
        cls,
        ranks: Mapping[bytes, int],
        *,
        pat_str: str,
        special_tokens: Mapping[str, int] | None = None,
        name: str = "custom",
        pretokenize: bool = True,
        cache: bool | str | os.PathLike[str] = True,
    ) -> Encoding:
        """Build from tiktoken-style ``mergeable_ranks`` (token bytes -> rank; ranks must be exactly ``0..n-1``)."""
        tokens = tokens_from_ranks(ranks, arg="ranks")
        try:
            return cls(
                name=name, tokens=tokens, pat_str=pat_str, special_tokens=special_tokens, pretokenize=pretokenize,
                cache=cache,
            )
        except ValueError as exc:  # the vocabulary checks name ``tokens``; here the caller's argument is ``ranks``
            msg = str(exc)
            if msg.startswith("tokens:"):
                raise ValueError("ranks:" + msg[len("tokens:"):]) from None
            raise

    @classmethod
    def from_merges(
        cls,
        merges: Sequence[object],
        *,
        pat_str: str,
        special_tokens: Mapping[str, int] | None = None,
        name: str = "merges",
        pretokenize: bool = True,
        cache: bool | str | os.PathLike[str] = True,
    ) -> Encoding:
        """Build from a user's own byte-level merges list (HF ``merges.txt`` / GPT-2 style), in priority order.

        Implements the rank form of BPE that [P19] (Sec. 2) computes: ids 0..255 are the single bytes (in byte order),
        id 256 + k is the token of ``merges[k]``. Each entry is a ``(bytes, bytes)`` pair, a ``(str, str)`` pair or an
        ``"a b"`` string in the GPT-2 byte-to-unicode alphabet (``"Ġ"`` is a space). Raises ``ValueError`` naming the
        entry when a side is not produced by an earlier merge, a merge repeats a token, or a listed pair is not its
        token's canonical rule (then no rank BPE equals pair-merge BPE on that list).
        """
        from icml26.papers.inc_bpe._merges import check_rules, tokens_from_merges

        if isinstance(merges, (str, bytes)) or not isinstance(merges, Sequence):
            raise TypeError(f"merges must be a sequence of pairs, got {type(merges).__name__}")
        tokens, pairs = tokens_from_merges(merges)
        try:
            enc = cls(
                name=name,
                tokens=tokens,
                pat_str=pat_str,
                special_tokens=special_tokens,
                pretokenize=pretokenize,
                cache=cache,
            )
        except ValueError as exc:
            if str(exc).startswith("tokens:"):
                raise ValueError(f"merges: not a BPE merge list ({exc})") from None
            raise
        check_rules(tokens, pairs, enc._core.rule)
        return enc

    @classmethod
    def from_hf_tokenizer(cls, path_or_json: str | os.PathLike[str], *, name: str | None = None,
                          pretokenize: bool = True) -> Encoding:
        """A HF byte-level BPE ``tokenizer.json`` (path or JSON text) on [P19]'s core, with the file's ids; see
        :func:`icml26.papers.inc_bpe._hf_tokenizer.from_hf_tokenizer`."""
        from icml26.papers.inc_bpe._hf_tokenizer import from_hf_tokenizer

        return from_hf_tokenizer(path_or_json, name=name, pretokenize=pretokenize)

    # ------------------------------------------------------------------ properties
    @property
    def n_vocab(self) -> int:
        """One more than the largest token id (regular or special), as in tiktoken."""
        return max([len(self._tokens) - 1, *self._special.values()]) + 1

    @property
    def special_tokens_set(self) -> set[str]:
        """The special token strings."""
        return set(self._special)

    @property
    def max_token_bytes(self) -> int:
        """T in the paper: the longest token, in bytes."""
        return max(len(t) for t in self._tokens)

    @property
    def native(self) -> bool:
        """True when the C++ core is in use (False under ``ICML26_NO_EXT=1`` or without a build)."""
        return NATIVE

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r} n_vocab={self.n_vocab} pretokenize={self.pretokenize}>"

    # ------------------------------------------------------------------ encoding
    def _pieces(self, text: str) -> list[str]:
        return self._pat.findall(text)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the pre-tokens of ``text`` (lone surrogates count as one character each)."""
        if self._pat_kind:
            from icml26.papers.inc_bpe._backend import split_spans

            flat = split_spans(text.encode("utf-8", "surrogateescape"), self._pat_kind, chars=True)
            return list(zip(flat[0::2], flat[1::2]))
        return [m.span() for m in self._pat.finditer(text)]

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text`` treating special-token strings as ordinary text."""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, got {type(text).__name__}")
        text = fix_surrogates(text)
        if self.pretokenize:
            if self._pat_kind:
                return self._core.encode_text(text, self._pat_kind)
            return self._core.encode_pieces(self._pieces(text))
        return self._core.encode(text.encode("utf-8"))

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """Encode ``text`` to token ids, with tiktoken's rules for special tokens.

        Special-token strings listed in ``allowed_special`` become their ids (names that are no special token of this
        encoding are ignored); a string of ``disallowed_special`` (by default every special token not allowed) raises
        ``ValueError`` where it occurs in ``text``; the rest is encoded as ordinary text.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be str, got {type(text).__name__}")
        allowed = allowed_set(allowed_special, self._special)
        # searched on its own (as tiktoken does): an allowed or ordinary special may overlap a disallowed one
        check_disallowed(text, disallowed_special, allowed, self._special)
        if not allowed or self._special_re is None:
            return self.encode_ordinary(text)
        out: list[int] = []
        for chunk, special in self._segments(text, allowed):
            out.extend(self.encode_ordinary(chunk))
            if special is not None:
                out.append(special)
        return out

    def _segments(self, text: str, allowed: set[str]) -> Iterator[tuple[str, int | None]]:
        """``text`` as (ordinary text, id of the allowed special token after it, or None for the last chunk)."""
        start = find = 0
        # tiktoken's scan: the next special from `find`; one not allowed moves the search on by a character only, so
        # an allowed special overlapping it (e.g. "bc" in "abc" with "ab" not allowed) is still found
        while allowed and self._special_re is not None and (m := self._special_re.search(text, find)) is not None:
            if m.group() not in allowed:
                find = m.start() + 1
                continue
            yield text[start : m.start()], self._special[m.group()]
            start = find = m.end()
        yield text[start:], None

    def encode_bytes(self, data: bytes) -> list[int]:
        """Encode raw bytes (any bytes, not only UTF-8); decode_bytes(encode_bytes(b)) == b.

        With pre-tokenization, the bytes are read as UTF-8 with undecodable bytes kept as surrogate escapes, split by
        the pattern, and each piece's original bytes are encoded; for valid UTF-8 this equals ``encode_ordinary``.
        """
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data must be bytes, got {type(data).__name__}")
        data = bytes(data)
        if not self.pretokenize:
            return self._core.encode(data)
        if self._pat_kind:  # the native scanner reads invalid UTF-8 bytes as one unclassified character each
            return self._core.encode_text(data, self._pat_kind)
        try:
            return self._core.encode_pieces(self._pieces(data.decode("utf-8")))
        except UnicodeDecodeError:
            text = data.decode("utf-8", "surrogateescape")
            return self._core.encode_pieces([p.encode("utf-8", "surrogateescape") for p in self._pieces(text)])

    def encode_batch(
        self,
        text: Iterable[str],
        *,
        num_threads: int = 8,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[list[int]]:
        """:meth:`encode` of every text of ``text`` (a list of str), as tiktoken's ``encode_batch``.

        Up to ``num_threads`` threads (at most the cores this process may use): the cl100k/o200k patterns run on
        native threads without the GIL ([P19]'s core, Alg. 1-2, on every piece); other patterns on a thread pool.
        """
        num_threads = check_threads(num_threads)
        texts = batch_texts(text)
        allowed = allowed_set(allowed_special, self._special)
        for t in texts:
            check_disallowed(t, disallowed_special, allowed, self._special)
        if not allowed or self._special_re is None:
            return self._ordinary_batch(texts, num_threads)
        return pooled(texts, functools.partial(_encode_allowed, self, allowed), num_threads)

    def _ordinary_batch(self, texts: list[str], num_threads: int) -> list[list[int]]:
        threads = min(num_threads, usable_cores(), max(len(texts), 1))
        batch = getattr(self._core, "encode_text_batch", None)
        if self.pretokenize and self._pat_kind and batch is not None:
            return batch([t if t.isascii() else fix_surrogates(t) for t in texts], self._pat_kind, threads)
        return pooled(texts, self.encode_ordinary, threads)

    # ------------------------------------------------------------------ streaming
    def incremental(self) -> Any:
        """A streaming encoder (:class:`IncrementalEncoder`) over this encoding (special tokens as ordinary text)."""
        from icml26.papers.inc_bpe._stream import IncrementalEncoder

        return IncrementalEncoder(self)


_CACHE: dict[tuple[str, bool], Encoding] = {}


def load_encoding(name: str, *, pretokenize: bool = True, cache: bool | str | os.PathLike[str] = True) -> Encoding:
    """Load ``"cl100k_base"`` or ``"o200k_base"`` from the vocabulary files shipped by installed packages.

    Returns [P19]'s incremental BPE (the core of :class:`Encoding`) as a drop-in for tiktoken's encoding of the
    same name (the vocabularies of this package's ``exact_vs_tiktoken`` check).

    Never downloads. Raises ``LookupError`` naming the ``icml26[tokenizers]`` extra when no package ships the file.
    Encodings are memoised per (name, pretokenize) in this process. ``cache``: where the preprocessing cache lives
    (True: ``$ICML26_CACHE_DIR`` when it is set, else no cache: nothing is written where the caller did not say; False:
    none); it makes later loads about twice as fast.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be str, got {type(name).__name__}")
    if not isinstance(pretokenize, bool):
        raise TypeError(f"pretokenize must be bool, got {type(pretokenize).__name__}")
    key = (name, bool(pretokenize))
    if key not in _CACHE:
        other = _CACHE.get((name, not pretokenize))
        if other is not None:  # share the (expensive) core between the two modes
            enc = Encoding.__new__(Encoding)
            enc.__dict__.update(other.__dict__)
            enc.pretokenize = bool(pretokenize)
        else:
            spec: VocabSpec = builtin_spec(name)
            enc = Encoding(
                name=name,
                tokens=spec.tokens,
                pat_str=spec.pat_str,
                special_tokens=spec.special_tokens,
                pretokenize=pretokenize,
                cache=cache,
            )
        enc._builtin = True
        _CACHE[key] = enc
    return _CACHE[key]


def _encode_allowed(enc: Encoding, allowed: set[str], text: str) -> list[int]:
    return enc.encode(text, allowed_special=allowed, disallowed_special=())


def _load_builtin(name: str, pretokenize: bool) -> Encoding:
    return load_encoding(name, pretokenize=pretokenize)


def _rebuild(name: str, tokens: list[bytes], pat_str: str, special: dict[str, int], pretokenize: bool) -> Encoding:
    return Encoding(name=name, tokens=tokens, pat_str=pat_str, special_tokens=special, pretokenize=pretokenize)
