import json
import logging

from icml26.harness import run_claim
from icml26.record import latest
from icml26.store import ResultStore


def test_append_read_and_figures(toy_papers, tmp_path):
    store = ResultStore(tmp_path / "out")
    rec = store.append(run_claim("alpha", "mean_is_small", budget="smoke"))
    store.append(run_claim("alpha", "always_wrong", budget="smoke"))
    store.append(run_claim("alpha", "always_wrong", budget="smoke", seed=1))
    recs = store.read()
    assert [r.claim for r in recs] == ["mean_is_small", "always_wrong", "always_wrong"]
    fig = rec.figures[0]
    assert "svg_b64" not in fig and "png_b64" not in fig
    assert (tmp_path / "out" / fig["svg"]).read_text().startswith("<?xml")
    assert (tmp_path / "out" / fig["png"]).read_bytes()[:4] == b"\x89PNG"
    assert latest(recs)[("alpha", "always_wrong")].seeds == (1,)


def test_torn_last_line_is_skipped_with_a_warning(toy_papers, tmp_path, caplog):
    store = ResultStore(tmp_path)
    store.append(run_claim("alpha", "always_wrong", budget="smoke"))
    line = json.dumps(run_claim("alpha", "always_wrong", budget="smoke").to_json())
    with open(store.path, "a") as fh:
        fh.write(line[: len(line) // 2])  # a write killed half way
    with caplog.at_level(logging.WARNING):
        recs = store.read()
    assert len(recs) == 1
    assert "torn" in caplog.text
    store.append(run_claim("alpha", "always_wrong", budget="smoke"))  # appending after a torn line still works
    recs = store.read()  # the torn fragment stays on a line of its own and is skipped; the new record is intact
    assert len(recs) == 2


def test_empty_store(tmp_path):
    assert ResultStore(tmp_path / "nothing").read() == []
