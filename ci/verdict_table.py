"""The top README's verdict tally, read off each paper README's claims table (`python ci/verdict_table.py`).

Each paper README has a table whose header starts ``| claim`` and whose last column is ``verdict (basis)``; this
counts its rows by verdict. A ``fails`` must say its basis is ``paper`` (the paper's claim failed under the paper's
method and bar): on any other basis the harness reports a missed bar as ``inconclusive``. ``tests/test_readme.py`` checks that the README holds exactly this output.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("holds", "fails (paper)", "inconclusive", "unsupported", "not judged")


def _verdict(cell: str) -> str:
    cell = cell.lower()
    for word in ("unsupported", "inconclusive", "not judged", "holds", "fails"):
        if word in cell:
            if word == "fails" and "(paper)" not in cell:  # the harness settles any other basis to inconclusive
                raise ValueError(f"a fails on a basis other than paper: {cell!r}")
            return "fails (paper)" if word == "fails" else word
    raise ValueError(f"no verdict in the cell {cell!r}")


def tally(readme: str) -> dict[str, int]:
    """Counts of each verdict in one paper README's claims table."""
    lines = readme.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith("| claim") and "verdict" in ln), None)
    if start is None:
        raise ValueError("no claims table (a header starting '| claim' with a verdict column)")
    counts = dict.fromkeys(KINDS, 0)
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        counts[_verdict(ln.rstrip().rstrip("|").rsplit("|", 1)[-1])] += 1
    return counts


def table() -> str:
    """The Markdown table, one row a paper."""
    sys.path.insert(0, str(ROOT / "src"))
    import icml26

    out = ["| paper | claims | " + " | ".join(KINDS) + " |", "|---" * (len(KINDS) + 2) + "|"]
    for p in icml26.list_papers():
        try:
            c = tally((ROOT / "src" / "icml26" / "papers" / p.slug / "README.md").read_text(encoding="utf-8"))
        except ValueError as e:
            raise ValueError(f"{p.slug}: {e}") from None
        out.append(f"| {p.id} [{p.slug}](src/icml26/papers/{p.slug}/README.md) | {len(p.claims)} | "
                   + " | ".join(str(c[k]) for k in KINDS) + " |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table())
