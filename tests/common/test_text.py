"""icml26.common.text: stdlib docstrings, against inspect on the same modules."""

import inspect
import json

import pytest

from icml26.common.text import stdlib_docstrings


def test_module_docstrings_alone_are_inspects():
    assert stdlib_docstrings(["json"], members=False) == [inspect.getdoc(json)]


def test_members_follow_their_module_in_name_order():
    docs = stdlib_docstrings(["json"])
    public = [a for a in sorted(vars(json)) if not a.startswith("_")
              and (inspect.isclass(getattr(json, a)) or inspect.isfunction(getattr(json, a)))]
    assert docs == [inspect.getdoc(json)] + [inspect.getdoc(getattr(json, a)) or "" for a in public]
    assert inspect.getdoc(json.dumps) in docs


def test_a_single_string_is_refused():
    with pytest.raises(TypeError, match="modules"):
        stdlib_docstrings("json")
