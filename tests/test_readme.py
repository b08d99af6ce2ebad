"""The README tells a new user how to set up and test; CI runs exactly that."""

from __future__ import annotations

import re
from pathlib import Path

import icml26
from icml26 import registry

ROOT = Path(__file__).resolve().parents[1]


def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def _setup_block() -> list[str]:
    m = re.search(r"## Set up and test\n+```bash\n(.*?)```", _readme(), flags=re.S)
    assert m, "README has a '## Set up and test' bash block"
    return [ln for ln in m.group(1).splitlines() if ln.strip()]


def test_readme_has_two_setup_commands_and_ci_runs_them():
    install, test = _setup_block()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert install in ci, ".ci/run must install exactly as the README says"
    assert test in ci, ".ci/run must run exactly the README's test command"
    assert "set -euo pipefail" in ci
    assert "pytest" in test


def test_readme_paper_index_is_current():
    m = re.search(r"<!-- papers:start -->\n(.*?)<!-- papers:end -->", _readme(), flags=re.S)
    assert m, "README has the generated paper index between <!-- papers:start --> and <!-- papers:end -->"
    assert m.group(1) == registry.index_markdown(icml26.list_papers()), "regenerate with: icml26 list --markdown"


def test_readme_verdict_tally_matches_the_paper_readmes():
    import importlib.util

    spec = importlib.util.spec_from_file_location("verdict_table", ROOT / "ci" / "verdict_table.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    m = re.search(r"<!-- verdicts:start -->\n(.*?)<!-- verdicts:end -->", _readme(), flags=re.S)
    assert m, "README has the verdict tally between <!-- verdicts:start --> and <!-- verdicts:end -->"
    assert m.group(1) == mod.table(), "regenerate with: python ci/verdict_table.py"
    for p in icml26.list_papers():  # every claim of a paper has its row in the paper's claims table
        counts = mod.tally((ROOT / "src" / "icml26" / "papers" / p.slug / "README.md").read_text(encoding="utf-8"))
        assert sum(counts.values()) == len(p.claims), f"{p.slug}: the claims table has {sum(counts.values())} rows for {len(p.claims)} claims"
