"""The [P09] checks: one federation per ctx.map item, or each federation's clients mapped, give the same rows."""

from dataclasses import replace

from icml26 import registry
from icml26.claims import Context
from icml26.papers.mfedpba._checks import check_both_alignments_contribute
from icml26.papers.mfedpba.claims import SMOKE_FED, AblationConfig

BARS = {c.id: c.bar_map for c in registry.get_paper("mfedpba").claims}


def test_per_client_mapping_gives_the_same_rows() -> None:
    seen = []

    def mapper(fn, items):  # a serial stand-in for a worker pool, recording what it was asked to map
        seen.append((fn.__name__, len(items)))
        return [fn(x) for x in items]

    fed = replace(SMOKE_FED, n_clients=3, rounds=2)
    runs = {}
    for per_client in (False, True):
        cfg = AblationConfig(fed=replace(fed, per_client=per_client), ablations=("mfedpba_no_gw",))
        ctx = Context(seeds=(0, 1), bars=BARS["both_alignments_contribute"], mapper=mapper)
        runs[per_client] = check_both_alignments_contribute(cfg, ctx)
    assert runs[False].rows == runs[True].rows and len(runs[False].rows) == 4
    assert seen[0] == ("run_federation", 4)  # one federation per item
    assert seen[1:] == [("client_update", 3)] * 8  # 4 federations x 2 rounds, one client per item
    assert runs[False].verdict.value == "inconclusive" and "only 2" in runs[False].reason
