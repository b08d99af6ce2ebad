import os
import shutil
import tempfile

import pytest

from icml26.runner import SerialExecutor, Task, make_executor, run_tasks


def _tasks(*claims, **kw):
    return [Task("alpha", c, **kw) for c in claims]


def test_serial_runs_in_order(toy_papers):
    recs = list(run_tasks(_tasks("mean_is_small", "always_wrong", "boom"), SerialExecutor()))
    assert [r.verdict for r in recs] == ["holds", "fails", "error"]


def test_make_executor_validates():
    with pytest.raises(ValueError, match="executor must be one of"):
        make_executor("threads")
    with pytest.raises(ValueError, match="jobs"):
        make_executor("serial", jobs=0)
    with pytest.raises(ValueError, match="address"):
        make_executor("process", address="auto")


def test_process_pool_returns_records_and_enforces_timeout(toy_papers):
    ex = make_executor("process", jobs=2)
    try:
        recs = list(run_tasks(_tasks("mean_is_small", "hangs", "boom"), ex, timeout=15.0))  # a fresh worker may need seconds to import
    finally:
        ex.shutdown(wait=True)
    by = {r.claim: r for r in recs}
    assert by["mean_is_small"].verdict == "holds"
    assert by["mean_is_small"].provenance["pid"] != os.getpid()  # ran in a worker
    assert by["hangs"].verdict == "error" and by["hangs"].timed_out
    assert by["boom"].verdict == "error"
    # the same seed gives the same numbers in a worker as in this process
    serial = next(run_tasks(_tasks("mean_is_small"), SerialExecutor()))
    assert serial.measured == by["mean_is_small"].measured


@pytest.mark.ray
def test_ray_local_cluster_on_loopback(toy_papers, monkeypatch):
    ray = pytest.importorskip("ray")
    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # advertise 127.0.0.1, not the NIC address
    short = tempfile.mkdtemp(prefix="r", dir="/tmp")  # Ray's socket paths must stay under 108 bytes
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _temp_dir=short)
    try:
        ex = make_executor("ray")  # joins the running cluster
        recs = list(run_tasks(_tasks("mean_is_small", "always_wrong"), ex, timeout=60))
        ex.shutdown()
        assert ray.is_initialized()  # a cluster the executor did not start is left running
    finally:
        ray.shutdown()
        shutil.rmtree(short, ignore_errors=True)
    by = {r.claim: r for r in recs}
    assert by["mean_is_small"].verdict == "holds" and by["always_wrong"].verdict == "fails"
    serial = next(run_tasks(_tasks("mean_is_small"), SerialExecutor()))
    assert serial.measured == by["mean_is_small"].measured  # ctx.map fanned out through ray: same numbers


def _square(x):
    return x * x


def test_local_pool_mapper_keeps_order_and_falls_back_for_closures():
    from icml26.runner import LocalPoolMapper

    m = LocalPoolMapper(2)
    assert m(_square, list(range(6))) == [0, 1, 4, 9, 16, 25]  # through two spawned processes
    k = 3
    assert m(lambda x: x + k, [1, 2]) == [4, 5]  # a closure cannot be pickled: runs serially, same answer
    assert LocalPoolMapper(1)(_square, [3]) == [9]


def test_process_executor_with_one_job_fans_out_ctx_map(toy_papers):
    ex = make_executor("process", jobs=1)
    try:
        rec = next(run_tasks(_tasks("mean_is_small"), ex, timeout=60))
    finally:
        ex.shutdown(wait=True)
    serial = next(run_tasks(_tasks("mean_is_small"), SerialExecutor()))
    assert rec.verdict == "holds" and rec.measured == serial.measured


def test_spare_workers_go_to_ctx_map_when_there_are_fewer_jobs(toy_papers, monkeypatch):
    import concurrent.futures as cf

    import icml26.runner as runner

    widths = []

    class Recording(cf.ProcessPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            widths.append(args[-1])  # _execute(job, timeout, fan_out, width)
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(runner.os, "cpu_count", lambda: 4)
    ex = Recording(max_workers=2)
    try:
        list(run_tasks(_tasks("mean_is_small"), ex, timeout=60))  # one job on two workers: all four cores to ctx.map
        list(run_tasks(_tasks("mean_is_small", "always_wrong"), ex, timeout=60))  # two jobs share them
    finally:
        ex.shutdown(wait=True)
    assert widths == [4, 2, 2]


def test_a_dying_worker_fails_only_its_own_claim(toy_papers, monkeypatch):
    monkeypatch.setenv("ICML26_TOY_DIE", "1")  # gamma:dies calls os._exit in its worker
    tasks = [Task("gamma", "dies"), *_tasks("mean_is_small", "always_wrong", "boom")]
    ex = make_executor("process", jobs=2)
    try:
        recs = list(run_tasks(tasks, ex, timeout=60.0))
    finally:
        ex.shutdown(wait=True)
    by = {r.claim: r for r in recs}
    assert len(recs) == 4
    assert by["dies"].verdict == "error" and "died again when run alone" in by["dies"].reason
    assert by["mean_is_small"].verdict == "holds" and by["always_wrong"].verdict == "fails"
    assert by["boom"].verdict == "error" and "kaboom" in by["boom"].reason  # its own error, not the pool's


@pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="parent-death signal is Linux only")
def test_workers_die_with_their_parent():
    import subprocess
    import sys
    import time

    # a process that starts a pool worker through the runner's initializer, then is killed: the worker must follow
    code = (
        "import concurrent.futures as cf, multiprocessing, os, sys, time\n"
        "from icml26.runner import _limit_threads\n"
        "ex = cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context('spawn'), initializer=_limit_threads,"
        " initargs=(1,))\n"
        "print(ex.submit(os.getpid).result(), flush=True)\n"
        "time.sleep(60)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    def alive(pid: int) -> bool:  # a zombie (killed, not yet reaped by init) counts as dead
        try:
            with open(f"/proc/{pid}/stat") as fh:
                return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False

    for _ in range(100):
        if not alive(child):
            break
        time.sleep(0.05)
    else:
        os.kill(child, 9)
        pytest.fail("the pool worker outlived its killed parent")


def test_a_run_group_shares_one_computation_and_timed_claims_run_last(toy_papers):
    from icml26.runner import plan

    tasks = [Task("delta", "timed_spin"), Task("delta", "shared_a"), Task("alpha", "always_wrong"),
             Task("delta", "shared_b")]
    untimed, timed = plan(tasks)
    assert [[t.claim for t in job] for job in untimed] == [["shared_a", "shared_b"], ["always_wrong"]]
    assert [[t.claim for t in job] for job in timed] == [["timed_spin"]]
    ex = make_executor("process", jobs=2)
    try:
        recs = list(run_tasks(tasks, ex, timeout=60.0))
    finally:
        ex.shutdown(wait=True)
    assert recs[-1].claim == "timed_spin" and recs[-1].contention is not None
    by = {r.claim: r for r in recs}
    assert by["shared_a"].measured["token"] == by["shared_b"].measured["token"]  # computed once for the group
    alone = [next(run_tasks([Task("delta", c)], SerialExecutor())) for c in ("shared_a", "shared_b")]
    assert alone[0].measured["token"] != alone[1].measured["token"]  # run apart, each recomputes
