"""The ``icml26`` command line: ``list``, ``show``, ``reproduce``, ``report``, ``history``.

Exit codes: 0 when every claim ran (whatever its verdict), 1 when a claim raised or timed out, 2 for usage errors.
Heavy imports (torch, papers, ray) happen only when a claim runs.
"""

from __future__ import annotations

import ast
import json
import logging
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, NoReturn

import click

from icml26 import __version__, registry
from icml26.claims import BUDGET_NAMES

DEFAULT_OUT = "icml26-out"
#: per-claim timeout (seconds) when --timeout is not given
DEFAULT_TIMEOUT = {"smoke": 120.0, "small": 900.0, "full": None}
_STYLE = {"holds": "green", "fails": "red", "inconclusive": "yellow", "unsupported": "bright_black", "error": "magenta"}


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def _escape(text: Any) -> str:
    """``text`` made literal for rich markup (a claim's text or an extra such as ``icml26[rl]`` keeps its brackets)."""
    from rich.markup import escape

    return escape(str(text))


log = logging.getLogger(__name__)

MAX_TIMEOUT_S = 7 * 86400.0
#: caches the libraries under a run would otherwise write to $HOME or $TMPDIR, kept inside --out/cache
_CACHE_VARS = {"ICML26_CACHE_DIR": "", "MPLCONFIGDIR": "matplotlib", "TORCHINDUCTOR_CACHE_DIR": "torchinductor",
               "TRITON_CACHE_DIR": "triton", "HF_HOME": "huggingface"}
#: Ray's unix sockets live under its temp dir: <dir>/session_<date>_<time>_<pid>/sockets/plasma_store adds up to 63
#: bytes and the path must stay under 108, so longer --out paths keep Ray's default (/tmp/ray, with a warning)
RAY_TMPDIR_MAX = 39


def _finite(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and value != value:  # NaN passes click's range check
        raise click.BadParameter("must be a number, not nan")
    return value


def _fail(msg: str) -> NoReturn:
    click.echo(f"Error: {msg}", err=True)
    sys.exit(2)


def _latest_verdicts(out: Path, budget: str | None = None) -> dict[str, dict[str, str]]:
    """Per paper and claim, the verdict label (``"fails (paper)"``) of its current record (:func:`icml26.record.latest`)."""
    from icml26.record import latest
    from icml26.store import ResultStore

    table: dict[str, dict[str, str]] = {}
    for (paper, claim), r in latest(ResultStore(out).read(), budget=budget).items():
        table.setdefault(paper, {})[claim] = r.label
    return table


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="icml26")
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
def main(verbose: int) -> None:
    """Methods and claim checks of ICML 2026 papers."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)


@main.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--markdown", is_flag=True, help="The paper index table of the README.")
@click.option("--out", default=DEFAULT_OUT, show_default=True, type=click.Path(file_okay=False), help="Results folder to read verdicts from.")
@click.option("--budget", type=click.Choice(BUDGET_NAMES), default=None,
              help="Verdicts at this budget (default: each claim at the largest budget it was run at).")
def list_cmd(as_json: bool, markdown: bool, out: str, budget: str | None) -> None:
    """Every paper: id, slug, title, tier, number of claims, latest verdicts."""
    try:
        papers = registry.list_papers()
    except registry.RegistryError as exc:
        _fail(str(exc))
    if markdown:
        click.echo(registry.index_markdown(papers), nl=False)
        return
    latest = _latest_verdicts(Path(out), budget)
    rows = [
        {"id": p.id, "slug": p.slug, "title": p.title, "tier": p.tier, "claims": len(p.claims),
         "requires": list(p.requires), "missing": registry.missing_requirements(p), "verdicts": latest.get(p.slug, {})}
        for p in papers
    ]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    from rich.table import Table

    t = Table(title=f"icml26 {__version__}: {len(rows)} papers")
    for col in ("id", "slug", "title", "tier", "claims", "needs", "latest verdicts"):
        t.add_column(col, overflow="fold")
    for r in rows:
        counts = Counter(r["verdicts"].values())
        v = " ".join(f"[{_STYLE[k.split()[0]]}]{n} {_escape(k)}[/]" for k, n in sorted(counts.items())) or "-"
        needs = ", ".join(f"[{'red' if x in r['missing'] else 'default'}]{x}[/]" for x in r["requires"]) or "-"
        t.add_row(r["id"], r["slug"], r["title"], r["tier"], str(r["claims"]), needs, v)
    _console().print(t)
    if any(r["missing"] for r in rows):
        missing = sorted({x for r in rows for x in r["missing"]})
        _console().print(f"not installed (red): pip install 'icml26[{','.join(missing)}]'", markup=False)


def _card(info: registry.PaperInfo) -> str:
    try:
        tree = ast.parse((info.path / "__init__.py").read_text(encoding="utf-8"))
        return ast.get_docstring(tree) or info.summary
    except (OSError, SyntaxError):
        return info.summary


@main.command()
@click.argument("slug")
@click.option("--out", default=DEFAULT_OUT, show_default=True, type=click.Path(file_okay=False), help="Results folder.")
def show(slug: str, out: str) -> None:
    """The paper card, its claims with source and the paper's number, and the latest results."""
    try:
        info = registry.get_paper(slug)
    except registry.RegistryError as exc:
        _fail(str(exc))
    from icml26.store import ResultStore

    con = _console()
    con.rule(f"{info.id} {info.slug}")
    con.print(f"[bold]{info.title}[/]\n{', '.join(info.authors)} — {info.url}\n")
    con.print(_card(info), markup=False)
    missing = registry.missing_requirements(info)
    if missing:
        con.print(f"\n[yellow]needs: pip install 'icml26[{','.join(missing)}]'[/]")
    records = {(r.claim, r.budget): r for r in ResultStore(Path(out)).read() if r.paper == info.slug}
    con.print("\n[bold]Claims[/]")
    for c in info.claims:
        con.print(f"- [bold]{_escape(c.id)}[/] ({_escape(c.source)}): {_escape(c.text)}", markup=True)
        con.print(f"  paper: {c.paper_value}", markup=False)
        for bar in c.bars:
            con.print(f"  our bar: {bar} — {bar.why}", markup=False)
        basis = c.basis.value + (f" ({c.basis_note})" if c.basis_note else "")
        con.print(f"  basis: {basis}" + ("; timed (runs alone)" if c.timed else "")
                  + ("; about GPU hardware" if c.platform == "gpu" else ""), markup=False)
        for b in BUDGET_NAMES:
            r = records.get((c.id, b))
            if r:
                con.print(f"  {b}: [{_STYLE[r.verdict]}]{_escape(r.label)}[/] {_escape(r.summary)} — {_escape(r.reason)}")


def _resolve_targets(targets: tuple[str, ...]) -> tuple[list[tuple[str, str]], list[str]]:
    """[(slug, claim_id)] for ``SLUG`` or ``SLUG:CLAIM`` targets (all papers when empty) and warnings."""
    out: list[tuple[str, str]] = []
    warnings: list[str] = []
    explicit = bool(targets)
    infos: list[tuple[registry.PaperInfo, str | None]] = []
    if explicit:
        for t in targets:
            slug, _, claim = t.partition(":")
            info = registry.get_paper(slug)
            if claim:
                info.claim(claim)
            infos.append((info, claim or None))
    else:
        infos = [(p, None) for p in registry.list_papers()]
    for info, claim in infos:
        missing = registry.missing_requirements(info)
        if missing:
            msg = f"{info.slug} needs the optional extra(s) {', '.join(missing)}: pip install 'icml26[{','.join(missing)}]'"
            if explicit:
                raise registry.RegistryError(msg)
            warnings.append(f"skipping {msg}")
            continue
        out.extend((info.slug, c.id) for c in info.claims if claim in (None, c.id))
    return out, warnings


@main.command()
@click.argument("targets", nargs=-1)
@click.option("--budget", type=click.Choice(BUDGET_NAMES), default="smoke", show_default=True, help="How much compute each claim gets.")
@click.option("--seeds", type=click.IntRange(min=1), default=None, help="Number of seeds per claim (default: the budget's).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Base seed.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Claims run at once (default: cores).")
@click.option("--executor", type=click.Choice(["serial", "process", "ray"]), default="process", show_default=True)
@click.option("--address", default=None, help="Ray cluster address to join (with --executor ray).")
@click.option("--out", default=DEFAULT_OUT, show_default=True, type=click.Path(file_okay=False), help="Output folder.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True, max=MAX_TIMEOUT_S), default=None,
              callback=_finite, help="Seconds per claim (default: 120 smoke, 900 small, none full; at most a week).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per finished claim on stdout, then a summary.")
@click.option("--quiet", "-q", is_flag=True, help="Only errors and the summary.")
def reproduce(targets: tuple[str, ...], budget: str, seeds: int | None, seed: int, jobs: int | None, executor: str,
              address: str | None, out: str, timeout: float | None, as_json: bool, quiet: bool) -> None:
    """Run the claims of TARGETS (slugs, or SLUG:CLAIM; default: every paper) and write the report.

    Appends one record per claim to OUT/results.jsonl and rebuilds OUT/report/. Results go to stdout (one line per
    claim, then a summary); the live progress display and warnings go to stderr.
    """
    from icml26.progress import RunDisplay
    from icml26.report import write_report
    from icml26.runner import MissingExtraError, Task, make_executor, plan, run_tasks, slots
    from icml26.store import ResultStore

    if address and executor != "ray":
        _fail("--address needs --executor ray")
    try:
        pairs, warnings = _resolve_targets(targets)
    except registry.RegistryError as exc:
        _fail(str(exc))
    store = ResultStore(out)
    try:
        store.ensure_writable()
    except OSError as exc:
        _fail(f"cannot write to --out {out!r}: {exc.strerror or exc}")
    _keep_caches_in(Path(out), ray=executor == "ray" and not address)
    if not pairs:
        _fail("no claims to run")
    timeout = timeout if timeout is not None else DEFAULT_TIMEOUT[budget]
    tasks = [Task(p, c, budget=budget, seed=seed, n_seeds=seeds) for p, c in pairs]
    try:
        ex = make_executor(executor, jobs=jobs, address=address)
    except MissingExtraError as exc:
        _fail(str(exc))
    except Exception as exc:  # noqa: BLE001 - e.g. a Ray cluster that cannot be reached
        _fail(f"cannot start the {executor} executor: {type(exc).__name__}: {exc}")
    untimed, timed = plan(tasks)
    order = [f"{t.paper}:{t.claim}" for job in (*untimed, *timed) for t in job]
    show = RunDisplay(order=order, expected=_expected(pairs, budget), slots=slots(ex), as_json=as_json, quiet=quiet,
                      budget=budget)
    for w in warnings:
        show.warn(w)
    try:
        for rec in run_tasks(tasks, ex, timeout=timeout):
            store.append(rec)
            show.finished(rec)
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
        index = write_report(out)
        show.close(str(index))
    sys.exit(1 if show.counts.get("error") else 0)


def _keep_caches_in(out: Path, *, ray: bool) -> None:
    """Caches that methods keep (e.g. inc_bpe's vocabulary preprocessing), the libraries' caches (matplotlib, torch
    inductor, triton, Hugging Face), temporary files ($TMPDIR) and a local Ray cluster's session files stay inside the
    output folder during a run (workers inherit the environment)."""
    cache = out.resolve() / "cache"
    for var, sub in _CACHE_VARS.items():
        os.environ.setdefault(var, str(cache / sub) if sub else str(cache))
    # scratch files of the checks and of the libraries they call (a sandbox's working folder, pytesseract's images)
    scratch = cache / "tmp"
    scratch.mkdir(parents=True, exist_ok=True)
    os.environ["TMPDIR"] = str(scratch)
    tempfile.tempdir = None  # tempfile caches the folder it chose first
    if ray and "RAY_TMPDIR" not in os.environ:
        if len(str(cache / "ray")) <= RAY_TMPDIR_MAX:
            os.environ["RAY_TMPDIR"] = str(cache / "ray")
        else:  # Ray would otherwise put its sockets under $TMPDIR
            os.environ["RAY_TMPDIR"] = "/tmp/ray"
            log.warning("--out path too long for Ray's sockets: the local Ray cluster keeps its files under /tmp/ray")


def _expected(pairs: list[tuple[str, str]], budget: str) -> dict[str, float]:
    """Each claim's expected seconds at ``budget`` (for the ETA); 10 s where its claims module cannot be read."""
    out: dict[str, float] = {}
    for paper, claim in pairs:
        try:
            b = registry.load_claim(paper, claim).budgets.get(budget)
            out[f"{paper}:{claim}"] = float(b.expected_s) if b is not None else 1.0
        except Exception:  # noqa: BLE001 - the worker will report the real error; the ETA just guesses
            out[f"{paper}:{claim}"] = 10.0
    return out


@main.command()
@click.option("--out", default=DEFAULT_OUT, show_default=True, type=click.Path(file_okay=False), help="Output folder holding results.jsonl.")
def report(out: str) -> None:
    """Rebuild OUT/report/ from OUT/results.jsonl."""
    from icml26.report import write_report

    if not (Path(out) / "results.jsonl").exists():
        _fail(f"no results in {out!r} (run `icml26 reproduce --out {out}` first)")
    try:
        index = write_report(out)
    except OSError as exc:
        _fail(f"cannot write the report under {out!r}: {exc.strerror or exc}")
    click.echo(f"report: {index}")


@main.command("history")
@click.argument("target")
@click.option("--out", default=DEFAULT_OUT, show_default=True, type=click.Path(file_okay=False), help="Output folder holding results.jsonl.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per run.")
def history_cmd(target: str, out: str, as_json: bool) -> None:
    """Every recorded run of TARGET (SLUG or SLUG:CLAIM), oldest first (from a SQLite index of results.jsonl)."""
    from icml26.history import history

    slug, _, claim = target.partition(":")
    try:
        info = registry.get_paper(slug)
        if claim:
            info.claim(claim)
    except registry.RegistryError as exc:
        _fail(str(exc))
    if not (Path(out) / "results.jsonl").exists():
        _fail(f"no results in {out!r} (run `icml26 reproduce --out {out}` first)")
    rows = history(out, info.slug, claim or None)
    if as_json:
        for r in rows:
            click.echo(json.dumps(r, ensure_ascii=False))
        return
    from rich.table import Table

    t = Table(title=f"{info.id} {info.slug}{':' + claim if claim else ''}: {len(rows)} runs")
    for col in ("finished", "claim", "budget", "verdict", "measured", "commit"):
        t.add_column(col, overflow="fold")
    for r in rows:
        label = r["verdict"] + (f" ({r['basis']})" if r["basis"] and r["verdict"] != "error" else "")
        t.add_row(r["finished_at"], r["claim"], r["budget"], f"[{_STYLE[r['verdict']]}]{_escape(label)}[/]",
                  _escape(r["summary"] or ""), r["git_commit"] or "")
    _console().print(t)


if __name__ == "__main__":  # pragma: no cover
    main()
