"""Results -> a static report: ``report/index.html`` (Jinja2, no JS, no CDN), ``report/README.md``, ``report/summary.json``.

The report formats what the records hold; it computes nothing. It shows the latest record per (paper, claim, budget)
and keeps every earlier run in a per-paper history. The same records give byte-identical files.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from icml26 import registry
from icml26.store import ResultStore

__all__ = ["write_report", "VERDICT_ORDER"]

VERDICT_ORDER = ("holds", "fails", "inconclusive", "unsupported", "error")
_BUDGET_ORDER = {"smoke": 0, "small": 1, "full": 2}


def _claim_order(slug: str) -> dict[str, int]:
    try:
        return {c.id: i for i, c in enumerate(registry.get_paper(slug).claims)}
    except registry.RegistryError:
        return {}


def _latest(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    latest: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in records:
        latest[(r["paper"], r["claim"], r["budget"])] = r
    def key(r: dict[str, Any]) -> tuple[Any, ...]:
        return (r.get("paper_id", ""), _claim_order(r["paper"]).get(r["claim"], 99), r["claim"], _BUDGET_ORDER.get(r["budget"], 9))
    return sorted(latest.values(), key=key)


def _view(r: dict[str, Any]) -> dict[str, Any]:
    v = dict(r)
    figs = []
    for f in r.get("figures") or []:
        g = dict(f)
        if f.get("svg"):
            g["svg_rel"] = Path(f["svg"]).relative_to("report").as_posix()
        if f.get("png"):
            g["png_rel"] = Path(f["png"]).relative_to("report").as_posix()
        figs.append(g)
    v["figures"] = figs
    details = {k: r.get(k) for k in ("measured", "timings", "config", "seeds", "budget", "duration_s", "cpu_s", "peak_rss_mb", "provenance", "run_id", "started_at", "finished_at")}
    v["details_json"] = json.dumps(details, indent=2, sort_keys=True)
    return v


def _md_escape(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def _markdown(rows: list[dict[str, Any]], counts: Counter) -> str:
    lines = ["# icml26 — claim report", ""]
    lines.append(" · ".join(f"{counts[v]} {v}" for v in VERDICT_ORDER if counts[v]) or "no results")
    lines += ["", "| paper | claim | source | paper says | measured | verdict | reason | budget | time |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            "| " + " | ".join(_md_escape(x) for x in (
                f"{r.get('paper_id', '')} {r['paper']}", r.get("claim_text", r["claim"]), r.get("source", ""), r.get("paper_value", ""),
                r.get("summary") or "—", f"**{r['verdict']}**", r.get("reason", ""), r["budget"], f"{r.get('duration_s') or 0:.1f} s",
            )) + " |"
        )
    lines.append("")
    for r in rows:
        for f in r.get("figures") or []:
            if f.get("png"):
                rel = Path(f["png"]).relative_to("report").as_posix()
                lines.append(f"![{r['paper']} {r['claim']}: {_md_escape(f.get('caption') or f['name'])}]({rel})")
    return "\n".join(lines) + "\n"


def write_report(out_dir: str | Path) -> Path:
    """Write the report for the results in ``out_dir``; returns the path of ``report/index.html``."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    out = Path(out_dir)
    records = ResultStore(out).read()
    rows = _latest(records)
    counts = Counter(r["verdict"] for r in rows)
    views = [_view(r) for r in rows]
    papers = []
    for slug in dict.fromkeys(r["paper"] for r in rows):
        try:
            info = registry.get_paper(slug)
            meta = {"id": info.id, "slug": info.slug, "title": info.title, "summary": info.summary, "url": info.url}
        except registry.RegistryError:
            meta = {"id": "", "slug": slug, "title": "(not in this installation)", "summary": "", "url": ""}
        hist = [
            {"finished_at": h.get("finished_at", ""), "claim": h["claim"], "budget": h["budget"], "verdict": h["verdict"],
             "summary": h.get("summary", ""), "commit": ((h.get("provenance") or {}).get("git") or {}).get("commit", "")[:10]}
            for h in records if h["paper"] == slug
        ]
        papers.append({**meta, "rows": [v for v in views if v["paper"] == slug], "history": hist})
    summary = {"total": len(rows), "records": len(records), "counts": {v: counts.get(v, 0) for v in VERDICT_ORDER}}
    env = Environment(loader=FileSystemLoader(Path(__file__).parent / "templates"), autoescape=select_autoescape(["html", "j2"]))
    html = env.get_template("report.html.j2").render(rows=views, papers=papers, summary=summary, verdict_order=VERDICT_ORDER)
    rep = out / "report"
    rep.mkdir(parents=True, exist_ok=True)
    (rep / "index.html").write_text(html, encoding="utf-8")
    (rep / "README.md").write_text(_markdown(rows, counts), encoding="utf-8")
    claims = [
        {k: r.get(k) for k in ("paper", "paper_id", "claim", "budget", "verdict", "reason", "summary", "measured", "timings", "paper_value", "duration_s", "run_id")}
        for r in rows
    ]
    (rep / "summary.json").write_text(json.dumps({**summary, "claims": claims}, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return rep / "index.html"
