import json
import os
import tempfile

import pytest
from click.testing import CliRunner

from icml26.cli import main


@pytest.fixture
def cli(monkeypatch):
    monkeypatch.setenv("ICML26_CACHE_DIR", "unset")  # records the original state, restored after the test ...
    monkeypatch.delenv("ICML26_CACHE_DIR")  # ... since reproduce sets it for the process
    monkeypatch.setenv("TMPDIR", os.environ.get("TMPDIR", "unset"))  # reproduce points TMPDIR into --out as well
    if os.environ["TMPDIR"] == "unset":
        monkeypatch.delenv("TMPDIR")
    monkeypatch.setattr(tempfile, "tempdir", tempfile.tempdir)
    return CliRunner()


def test_list_json(cli, toy_papers):
    res = cli.invoke(main, ["list", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)
    assert [r["slug"] for r in rows] == ["alpha", "beta", "gamma", "delta"]
    assert rows[0]["claims"] == 4 and rows[1]["missing"] == ["gpu"]


def test_list_table_and_show(cli, toy_papers, tmp_path):
    out = str(tmp_path / "o")
    assert cli.invoke(main, ["reproduce", "alpha:always_wrong", "--executor", "serial", "--out", out]).exit_code == 0
    res = cli.invoke(main, ["list", "--out", out])
    assert res.exit_code == 0 and "alpha" in res.output and "1 fails (paper)" in res.output
    res = cli.invoke(main, ["show", "alpha", "--out", out])
    assert res.exit_code == 0
    assert "Alpha: a toy paper card." in res.output and "two plus two is five" in res.output
    assert "smoke: fails (paper)" in res.output


def test_reproduce_writes_results_and_report(cli, toy_papers, tmp_path):
    out = tmp_path / "o"
    res = cli.invoke(main, ["reproduce", "alpha:mean_is_small", "alpha:always_wrong", "--executor", "serial", "--out", str(out), "--seeds", "3"])
    assert res.exit_code == 0, res.output  # a `fails` verdict is a finding, not an error
    assert "holds" in res.output and "alpha:always_wrong" in res.output
    recs = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [r["verdict"] for r in recs] == ["holds", "fails"]
    assert recs[0]["seeds"] == [0, 1, 2]
    for f in ("index.html", "README.md", "summary.json"):
        assert (out / "report" / f).is_file()
    res = cli.invoke(main, ["reproduce", "alpha:always_wrong", "--executor", "serial", "--out", str(out)])
    assert len((out / "results.jsonl").read_text().splitlines()) == 3  # re-runs append
    assert os.environ["ICML26_CACHE_DIR"] == str(out.resolve() / "cache")  # method caches stay in the output folder
    assert tempfile.gettempdir() == str(out.resolve() / "cache" / "tmp")  # and so do the checks' scratch files
    os.remove(out / "report" / "index.html")
    res = cli.invoke(main, ["report", "--out", str(out)])
    assert res.exit_code == 0 and (out / "report" / "index.html").is_file()


def test_reproduce_exit_1_when_a_claim_raises_or_times_out(cli, toy_papers, tmp_path):
    res = cli.invoke(main, ["reproduce", "alpha:boom", "alpha:hangs", "--executor", "serial", "--timeout", "0.5", "--out", str(tmp_path)])
    assert res.exit_code == 1
    assert "kaboom" in res.output and "timed out" in res.output


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["reproduce", "nope"], "unknown paper 'nope'"),
        (["reproduce", "alpha:nope"], "no claim 'nope'"),
        (["reproduce", "beta"], "pip install 'icml26[gpu]'"),
        (["reproduce", "alpha", "--address", "x:1"], "--address needs --executor ray"),
        (["show", "nope"], "unknown paper"),
        (["report"], "no results"),
    ],
)
def test_usage_errors_are_one_line_exit_2(cli, toy_papers, tmp_path, args, match):
    res = cli.invoke(main, [*args, "--out", str(tmp_path / "empty")] if args[0] != "show" else args)
    assert res.exit_code == 2, res.output
    assert match in res.output
    assert "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_bad_budget_and_unwritable_out(cli, toy_papers, tmp_path):
    res = cli.invoke(main, ["reproduce", "alpha", "--budget", "huge"])
    assert res.exit_code == 2 and "huge" in res.output
    blocker = tmp_path / "file"
    blocker.write_text("")
    res = cli.invoke(main, ["reproduce", "alpha:always_wrong", "--out", str(blocker / "sub")])
    assert res.exit_code == 2 and "cannot write to --out" in res.output and "Traceback" not in res.output


def test_default_run_skips_papers_with_missing_extras(cli, toy_papers, tmp_path):
    res = cli.invoke(main, ["reproduce", "--executor", "serial", "--timeout", "0.5", "--out", str(tmp_path)])
    assert "skipping beta needs the optional extra(s) gpu" in res.output
    assert "pip install 'icml26[gpu]'" in res.output  # the extra's brackets are text, not rich markup
    assert res.exit_code == 1  # alpha:boom raises


@pytest.mark.parametrize("args", [["--seed", "-1"], ["--timeout", "nan"], ["--timeout", "inf"], ["--timeout", "0"]])
def test_bad_seed_or_timeout_is_a_usage_error(cli, toy_papers, tmp_path, args):
    res = cli.invoke(main, ["reproduce", "alpha:always_wrong", "--executor", "serial", "--out", str(tmp_path), *args])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert not (tmp_path / "results.jsonl").exists()


def test_budget_full_without_a_full_budget_is_unsupported_not_an_error(cli, toy_papers, tmp_path):
    res = cli.invoke(main, ["reproduce", "alpha", "--budget", "full", "--executor", "serial", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "4 unsupported" in res.output


def test_list_shows_each_claim_at_its_largest_budget(cli, toy_papers, tmp_path):
    out = str(tmp_path)
    for budget in ("small", "smoke"):  # a later smoke run must not hide the small verdict
        cli.invoke(main, ["reproduce", "alpha:mean_is_small", "--budget", budget, "--executor", "serial", "--out", out])
    from icml26.store import ResultStore

    recs = list(ResultStore(out).read())
    assert [r.budget for r in recs] == ["small", "smoke"]
    rows = json.loads(cli.invoke(main, ["list", "--json", "--out", out]).output)
    assert rows[0]["verdicts"] == {"mean_is_small": recs[0].label}
    rows = json.loads(cli.invoke(main, ["list", "--json", "--out", out, "--budget", "smoke"]).output)
    assert rows[0]["verdicts"] == {"mean_is_small": recs[1].label}
    cli.invoke(main, ["reproduce", "alpha:mean_is_small", "--budget", "full", "--executor", "serial", "--out", out])
    assert list(ResultStore(out).read())[-1].verdict == "unsupported"  # no full budget declared
    rows = json.loads(cli.invoke(main, ["list", "--json", "--out", out]).output)
    assert rows[0]["verdicts"] == {"mean_is_small": recs[0].label}  # the small verdict, not 'unsupported'
    rows = json.loads(cli.invoke(main, ["list", "--json", "--out", out, "--budget", "full"]).output)
    assert rows[0]["verdicts"] == {"mean_is_small": "unsupported (paper)"}


def test_reproduce_keeps_matplotlib_cache_in_out(cli, toy_papers, tmp_path, monkeypatch):
    monkeypatch.delenv("MPLCONFIGDIR", raising=False)
    res = cli.invoke(main, ["reproduce", "alpha:always_wrong", "--executor", "serial", "--out", str(tmp_path)])
    assert res.exit_code == 0
    assert os.environ["MPLCONFIGDIR"] == str(tmp_path.resolve() / "cache" / "matplotlib")


def test_history_from_a_sqlite_index_rebuilt_when_stale(cli, toy_papers, tmp_path):
    out = str(tmp_path)
    for seed in ("0", "1"):
        cli.invoke(main, ["reproduce", "alpha:always_wrong", "--executor", "serial", "--out", out, "--seed", seed])
    res = cli.invoke(main, ["history", "alpha:always_wrong", "--out", out, "--json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in res.output.splitlines()]
    assert [r["verdict"] for r in rows] == ["fails", "fails"] and rows[0]["basis"] == "paper"
    assert (tmp_path / "results.sqlite").is_file()
    cli.invoke(main, ["reproduce", "alpha:mean_is_small", "--executor", "serial", "--out", out])  # the JSONL grows
    rows = [json.loads(x) for x in cli.invoke(main, ["history", "alpha", "--out", out, "--json"]).output.splitlines()]
    assert [r["claim"] for r in rows] == ["always_wrong", "always_wrong", "mean_is_small"]
    (tmp_path / "results.sqlite").write_bytes(b"not a database")  # damaged: rebuilt from the JSONL
    assert len(cli.invoke(main, ["history", "alpha", "--out", out, "--json"]).output.splitlines()) == 3
    res = cli.invoke(main, ["history", "alpha", "--out", out])
    assert res.exit_code == 0 and "3 runs" in res.output
    res = cli.invoke(main, ["history", "alpah", "--out", out])
    assert res.exit_code == 2 and "did you mean 'alpha'" in res.output


def test_reproduce_prints_results_to_stdout_unwrapped_and_streams_json(toy_papers, tmp_path):
    import subprocess
    import sys

    long = "alpha:mean_is_small"
    res = subprocess.run([sys.executable, "-m", "icml26.cli", "reproduce", long, "alpha:always_wrong", "--executor",
                          "serial", "--out", str(tmp_path / "a")], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert any(line.startswith("holds (paper)") and long in line for line in lines), res.stdout
    assert lines[-1].startswith("report: ") and lines[-1].endswith("index.html")  # one line, however long the path
    assert "2 claims in" in lines[-2]
    res = subprocess.run([sys.executable, "-m", "icml26.cli", "reproduce", long, "alpha:always_wrong", "--executor",
                          "serial", "--json", "--out", str(tmp_path / "b")], capture_output=True, text=True, timeout=120)
    events = [json.loads(x) for x in res.stdout.splitlines()]
    assert [e["event"] for e in events] == ["claim", "claim", "summary"]
    assert events[1]["verdict"] == "fails" and events[2]["counts"] == {"fails": 1, "holds": 1}
    res = subprocess.run([sys.executable, "-m", "icml26.cli", "reproduce", long, "--executor", "serial", "--quiet",
                          "--out", str(tmp_path / "c")], capture_output=True, text=True, timeout=120)
    assert res.stdout.splitlines()[0].startswith("1 claim in")


def test_mistyped_slugs_get_suggestions(cli, toy_papers, tmp_path):
    res = cli.invoke(main, ["reproduce", "gamma:swallow", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "did you mean 'swallows'" in res.output
