import json
import math
from dataclasses import dataclass

import numpy as np
import pytest

from icml26.claims import Bar, Basis, Budget, Claim, ClaimResult, Context, Memo, Verdict, jsonable
from icml26.figures import FigureData, new_figure, render


def test_claim_result_json_round_trip():
    fig, ax = new_figure()
    ax.plot([0, 1], [1, 0])
    r = ClaimResult(verdict="fails", reason="because", summary="x = 1", measured={"x": np.float64(1.5), "v": np.arange(3)},
                    timings={"s": 0.1}, rows=[{"a": 1}], figures=[render(fig, name="f", caption="c")], notes="n")
    d = json.loads(json.dumps(r.to_dict()))
    back = ClaimResult.from_dict(d)
    assert back.verdict is Verdict.FAILS
    assert back.measured == {"x": 1.5, "v": [0, 1, 2]}
    assert back.figures[0] == r.figures[0]
    assert back.to_dict() == d


def test_figures_are_deterministic():
    def make():
        fig, ax = new_figure()
        ax.plot([0, 1, 2], [1, 4, 9], label="y")
        ax.legend()
        return render(fig, name="sq")

    a, b = make(), make()
    assert a.svg == b.svg and a.svg.startswith("<?xml")
    assert a.png[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="figure name"):
        FigureData(name="bad name/", caption="", svg="", png=b"")


def test_verdict_values_and_reason_required():
    assert [v.value for v in Verdict] == ["holds", "fails", "inconclusive", "unsupported", "error"]
    with pytest.raises(ValueError, match="reason"):
        ClaimResult(verdict=Verdict.HOLDS, reason="")
    with pytest.raises(ValueError):
        ClaimResult(verdict="maybe", reason="x")


def test_budget_and_claim_validation():
    @dataclass(frozen=True)
    class C:
        n: int = 1

    with pytest.raises(ValueError, match="seeds"):
        Budget(C(), seeds=0)
    with pytest.raises(ValueError, match="lacks budgets"):
        Claim("c", check=lambda c, x: None, budgets={"smoke": Budget(C())})
    with pytest.raises(ValueError, match="unknown budgets"):
        Claim("c", check=lambda c, x: None, budgets={"smoke": Budget(C()), "small": Budget(C()), "huge": Budget(C())})
    with pytest.raises(TypeError, match="must be a Budget"):
        Claim("c", check=lambda c, x: None, budgets={"smoke": C(), "small": Budget(C())})


def test_jsonable_handles_numpy_and_non_finite():
    assert jsonable({"a": np.int64(3), "b": (1, 2), "c": math.nan, "d": np.array([[1.0]])}) == {
        "a": 3, "b": [1, 2], "c": "nan", "d": [[1.0]]}


def test_bars_validate_and_compare():
    b = Bar("ratio", "<=", 1.5, "ours", "why", text="max/min iterations")
    assert b.satisfied(1.5) and not b.satisfied(1.51) and b.threshold == "<= 1.5"
    assert str(b) == "max/min iterations <= 1.5 (ours)"
    band = Bar.from_dict({"name": "alpha", "op": "in", "value": [2.7, 4.5], "provenance": "paper", "why": "3.6 ± 25 %"})
    assert band.satisfied(3.0) and not band.satisfied(4.6) and band.threshold == "in [2.7, 4.5]"
    assert Bar.from_dict(band.to_dict()) == band
    for kw, match in ((dict(op="~"), "op must be"), (dict(provenance="issue"), "provenance"), (dict(why=" "), "why"),
                      (dict(value="1"), "number"), (dict(op="in", value=[2, 1]), "lo <= hi"), (dict(name="a b"), "name")):
        with pytest.raises(ValueError, match=match):
            Bar(**{**dict(name="r", op="<=", value=1.0, provenance="ours", why="w"), **kw})
    with pytest.raises(ValueError, match="lacks"):
        Bar.from_dict({"name": "r", "op": "<="})


def test_budget_threads_and_result_basis():
    with pytest.raises(ValueError, match="threads"):
        Budget({}, threads=0)
    with pytest.raises(ValueError, match="threads"):
        Budget({}, threads=True)
    r = ClaimResult(verdict="holds", reason="r", basis="scaled", findings={"ours": "x"})
    assert r.basis is Basis.SCALED and ClaimResult.from_dict(r.to_dict()).to_dict() == r.to_dict()


def _plus_one(x):
    return x + 1


def test_context_map_refuses_closures_and_names_them():
    ctx = Context(seeds=(0, 1))
    assert ctx.map(_plus_one, [1, 2]) == [2, 3]
    import functools

    assert ctx.map(functools.partial(_plus_one), [5]) == [6]
    with pytest.raises(TypeError, match="module-level function.*<lambda>"):
        ctx.map(lambda x: x, [1])

    def inner(x):
        return x

    with pytest.raises(TypeError, match="test_context_map_refuses_closures_and_names_them.<locals>.inner"):
        ctx.map(functools.partial(inner), [1])


def test_context_bars_and_shared_memo():
    b = Bar("r", "<", 1.0, "ours", "w")
    ctx = Context(seeds=(0,), bars={"r": b})
    assert ctx.bar("r") is b
    with pytest.raises(KeyError, match="declared: \\['r'\\]"):
        ctx.bar("nope")
    memo = Memo()
    calls = _Calls()
    a = Context(seeds=(0,), memo=memo).shared(_record_call, calls, 3)
    again = Context(seeds=(1,), memo=memo).shared(_record_call, calls, 3)
    assert a == again == 6 and len(calls) == 1 and len(memo) == 1
    assert Context(seeds=(0,)).shared(_record_call, calls, 3) == 6 and len(calls) == 2  # a fresh memo recomputes
    with pytest.raises(TypeError, match="hashable"):
        memo.get(_plus_one, ([1],))


class _Calls(list):
    __hash__ = object.__hash__  # identity hash: a list that can key the memo


def _record_call(calls, x):
    calls.append(x)
    return 2 * x


def test_render_raises_tiny_text_to_the_minimum():
    from icml26.figures import MIN_FONT_PT

    fig, ax = new_figure()
    ax.plot([0, 1], [1, 0], label="a")
    ax.set_xticks([0, 1], ["left", "right"], fontsize=5)
    ax.set_title("t", fontsize=4)
    ax.legend(fontsize=3)
    render(fig, name="tiny")
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_text()]
    assert sizes and min(sizes) >= MIN_FONT_PT
