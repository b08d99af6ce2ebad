"""Results -> a static report: ``report/index.html`` (Jinja2, no JS, no CDN), ``report/README.md``, ``report/summary.json``.

The report formats what the records hold; it computes nothing. It shows one current record per claim (the latest run at the
largest budget that ran: counts never mix runs) and keeps every earlier run in a per-paper history. The same records give byte-identical files.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from icml26 import registry
from icml26.claims import Bar
from icml26.record import RunRecord, latest
from icml26.store import ResultStore, atomic_write

__all__ = ["write_report", "VERDICT_ORDER"]

VERDICT_ORDER = ("holds", "fails", "inconclusive", "unsupported", "error")


def _claim_order(slug: str) -> dict[str, int]:
    try:
        return {c.id: i for i, c in enumerate(registry.get_paper(slug).claims)}
    except registry.RegistryError:
        return {}


def _current(records: Sequence[RunRecord]) -> list[RunRecord]:
    """One current record per claim (the latest run at the largest budget that ran), in paper and claim order."""
    def key(r: RunRecord) -> tuple[Any, ...]:
        return (r.paper_id, _claim_order(r.paper).get(r.claim, 99), r.claim)
    return sorted(latest(records).values(), key=key)


def _bar_text(r: RunRecord) -> str:
    return "; ".join(f"{b.get('text') or b['name']} {Bar.from_dict(b).threshold} ({b['provenance']})" for b in r.bars)


def _view(r: RunRecord) -> dict[str, Any]:
    v = r.to_json()
    figs = []
    for f in r.figures:
        g = dict(f)
        if f.get("svg"):
            g["svg_rel"] = Path(f["svg"]).relative_to("report").as_posix()
        if f.get("png"):
            g["png_rel"] = Path(f["png"]).relative_to("report").as_posix()
        figs.append(g)
    v["figures"] = figs
    v["label"] = r.label
    v["bar_text"] = _bar_text(r)
    details = {k: v.get(k) for k in ("measured", "timings", "contention", "config", "seeds", "budget", "duration_s",
                                     "cpu_s", "peak_rss_mb", "provenance", "run_id", "started_at", "finished_at")}
    v["details_json"] = json.dumps(details, indent=2, sort_keys=True)
    return v


def _md_escape(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def _markdown(rows: list[RunRecord], counts: Counter) -> str:
    lines = ["# icml26 — claim report", ""]
    lines.append(" · ".join(f"{counts[v]} {v}" for v in VERDICT_ORDER if counts[v]) or "no results")
    lines += ["", "| paper | claim | source | paper says | our bar | measured | verdict | reason | budget | time |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cells = (f"{r.paper_id} {r.paper}", r.claim_text or r.claim, r.source, r.paper_value, _bar_text(r) or "—",
                 r.summary or "—", f"**{r.label}**", r.reason, r.budget, f"{r.duration_s or 0:.1f} s")
        lines.append("| " + " | ".join(_md_escape(x) for x in cells) + " |")
    lines.append("")
    for r in rows:
        for f in r.figures:
            if f.get("png"):
                rel = Path(f["png"]).relative_to("report").as_posix()
                lines.append(f"![{r.paper} {r.claim}: {_md_escape(f.get('caption') or f['name'])}]({rel})")
    return "\n".join(lines) + "\n"


def _paper_view(slug: str, views: list[dict[str, Any]], records: Sequence[RunRecord]) -> dict[str, Any]:
    try:
        info = registry.get_paper(slug)
        meta = {"id": info.id, "slug": info.slug, "title": info.title, "summary": info.summary, "url": info.url}
    except registry.RegistryError:
        meta = {"id": "", "slug": slug, "title": "(not in this installation)", "summary": "", "url": ""}
    rows = [v for v in views if v["paper"] == slug]
    hist = [{"finished_at": h.finished_at, "claim": h.claim, "budget": h.budget, "verdict": h.label,
             "verdict_class": h.verdict, "summary": h.summary, "commit": h.commit[:10]}
            for h in records if h.paper == slug]
    counts = Counter(v["verdict"] for v in rows)
    budgets = ", ".join(b for b in ("smoke", "small", "full") if any(v["budget"] == b for v in rows))
    return {**meta, "rows": rows, "history": hist, "counts": counts, "budgets": budgets}


def write_report(out_dir: str | Path) -> Path:
    """Write the report for the results in ``out_dir``; returns the path of ``report/index.html``."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    out = Path(out_dir)
    records = ResultStore(out).read()
    rows = _current(records)
    counts = Counter(r.verdict for r in rows)
    views = [_view(r) for r in rows]
    papers = [_paper_view(slug, views, records) for slug in dict.fromkeys(r.paper for r in rows)]
    summary = {"total": len(rows), "records": len(records), "papers": len(papers),
               "counts": {v: counts.get(v, 0) for v in VERDICT_ORDER}}
    groups = {"fails": [v for v in views if v["verdict"] in ("fails", "error")],
              "open": [v for v in views if v["verdict"] in ("inconclusive", "unsupported")],
              "holds": [v for v in views if v["verdict"] == "holds"]}
    env = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"), autoescape=select_autoescape(["html", "j2"]))
    html = env.get_template("report.html.j2").render(rows=views, papers=papers, summary=summary,
                                                     verdict_order=VERDICT_ORDER, **groups)
    rep = out / "report"
    atomic_write(rep / "index.html", html)
    atomic_write(rep / "README.md", _markdown(rows, counts))
    claims = [
        {k: r.to_json()[k] for k in ("paper", "paper_id", "claim", "budget", "verdict", "bar_verdict", "basis", "reason",
                                     "summary", "measured", "timings", "paper_value", "bars", "duration_s", "run_id")}
        for r in rows
    ]
    atomic_write(rep / "summary.json", json.dumps({**summary, "claims": claims}, indent=2, sort_keys=True) + "\n")
    return rep / "index.html"
