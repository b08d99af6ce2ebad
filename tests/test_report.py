import json
from html.parser import HTMLParser
from pathlib import Path

from icml26.harness import run_claim
from icml26.report import write_report
from icml26.store import ResultStore


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs, self.rows, self.ids = [], [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("href", "src"):
            if a.get(k):
                self.refs.append(a[k])
        if "id" in a:
            self.ids.add(a["id"])
        if "data-verdict" in a and (a["data-slug"], a["data-claim"], a["data-verdict"]) not in self.rows:
            self.rows.append((a["data-slug"], a["data-claim"], a["data-verdict"]))


def _fill(out: Path) -> None:
    store = ResultStore(out)
    for claim in ("mean_is_small", "always_wrong", "boom"):
        store.append(run_claim("alpha", claim, budget="smoke"))
    store.append(run_claim("alpha", "always_wrong", budget="smoke", seed=3))  # history: a re-run


def test_report_links_and_rows(toy_papers, tmp_path):
    _fill(tmp_path)
    index = write_report(tmp_path)
    p = _Links()
    p.feed(index.read_text())
    assert sorted(p.rows) == [("alpha", "always_wrong", "fails"), ("alpha", "boom", "error"), ("alpha", "mean_is_small", "holds")]
    assert {"alpha", "summary", "papers", "fails", "holds", "alpha-always_wrong"} <= p.ids
    figs = [r for r in p.refs if r.startswith("figures/")]
    assert figs, "the figure of mean_is_small is linked"
    for ref in p.refs:
        if ref.startswith("#"):
            assert ref[1:] in p.ids, ref
        elif not ref.startswith(("http", "data:")):
            assert (index.parent / ref).is_file(), ref
    html = index.read_text()
    assert "<script" not in html and "cdn" not in html.lower()
    assert "History (4 runs)" in html
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert summary["counts"] == {"holds": 1, "fails": 1, "inconclusive": 0, "unsupported": 0, "error": 1}
    md = (tmp_path / "report" / "README.md").read_text()
    assert "| P90 alpha | two plus two is five |" in md
    assert html.index('id="fails"') < html.index('data-claim="always_wrong"') < html.index('id="holds"')  # fails first
    for line in md.splitlines():
        if line.startswith("!["):
            assert (tmp_path / "report" / line.split("](")[1].rstrip(")")).is_file()


def test_report_is_deterministic(toy_papers, tmp_path):
    _fill(tmp_path)
    a = write_report(tmp_path).read_bytes()
    md_a = (tmp_path / "report" / "README.md").read_bytes()
    b = write_report(tmp_path).read_bytes()
    assert a == b and md_a == (tmp_path / "report" / "README.md").read_bytes()


def test_report_escapes_html(toy_papers, tmp_path):
    rec = run_claim("alpha", "always_wrong", budget="smoke").replace(reason="<script>alert(1)</script>")
    ResultStore(tmp_path).append(rec)
    html = write_report(tmp_path).read_text()
    assert "<script>" not in html and "&lt;script&gt;" in html
