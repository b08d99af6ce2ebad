import subprocess
import sys
import textwrap

import pytest

import icml26
from icml26 import registry

TOML = """
id = "{id}"
slug = "{slug}"
title = "t"
authors = ["a"]
url = "u"
family = "f"
tier = "A"
summary = "s"
[[claims]]
id = "c"
text = "t"
source = "Abstract"
paper_value = "1"
"""


def _paper(root, slug, pid, extra=""):
    d = root / slug
    d.mkdir()
    (d / "paper.toml").write_text(TOML.format(id=pid, slug=slug) + extra)
    return d


def test_listing_imports_neither_torch_nor_papers():
    code = textwrap.dedent(
        """
        import sys, icml26
        papers = icml26.list_papers()
        assert "torch" not in sys.modules, "torch imported"
        loaded = [m for m in sys.modules if m.startswith("icml26.papers.")]
        assert not loaded, loaded
        print(len(papers))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout.strip()) == len(icml26.list_papers())


def test_real_registry_is_consistent():
    papers = icml26.list_papers()
    assert [p.id for p in papers] == sorted(p.id for p in papers)
    for p in papers:
        assert icml26.get_paper(p.slug) is p
        assert icml26.get_paper(p.id.lower()) is p


def test_duplicate_id_is_an_error(tmp_path):
    _paper(tmp_path, "one", "P01")
    _paper(tmp_path, "two", "P01")
    with pytest.raises(registry.RegistryError, match="duplicate paper id 'P01'"):
        registry.scan(tmp_path)


def test_slug_must_match_folder(tmp_path):
    d = tmp_path / "folder"
    d.mkdir()
    (d / "paper.toml").write_text(TOML.format(id="P01", slug="other"))
    with pytest.raises(registry.RegistryError, match="equal to the folder name"):
        registry.scan(tmp_path)


_GOOD = TOML.format(id="P05", slug="x")


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (_GOOD.replace('title = "t"\n', ""), "missing fields"),
        (_GOOD.replace('id = "P05"', 'id = "5"'), "id must look like"),
        (_GOOD.replace('paper_value = "1"', 'paper_value = ""'), "lacks 'paper_value'"),
        (_GOOD.replace('summary = "s"\n', 'summary = "s"\nrequires = ["quantum"]\n'), "unknown extras"),
        (_GOOD + "[[[", "paper.toml"),
    ],
)
def test_malformed_toml_is_rejected(tmp_path, text, match):
    d = tmp_path / "x"
    d.mkdir()
    (d / "paper.toml").write_text(text)
    with pytest.raises(registry.RegistryError, match=match):
        registry.scan(tmp_path)


def test_unknown_paper_names_the_known_ones(toy_papers):
    with pytest.raises(registry.RegistryError, match="unknown paper 'nope'; known: alpha, beta"):
        registry.get_paper("nope")
    info = registry.get_paper("P90")
    with pytest.raises(registry.RegistryError, match="no claim 'zzz'"):
        info.claim("zzz")


def test_missing_requirements_names_the_extra(toy_papers):
    assert registry.missing_requirements(registry.get_paper("beta")) == ["gpu"]
    assert registry.missing_requirements(registry.get_paper("alpha")) == []


def test_claims_must_match_paper_toml(toy_papers):
    claims = registry.load_claims("alpha")
    assert list(claims) == ["mean_is_small", "always_wrong", "boom", "hangs"]
