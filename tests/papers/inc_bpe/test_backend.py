"""The native extension must be present unless ICML26_NO_EXT asks for the fallback; a silent fallback is a failure."""

import logging

from icml26.papers.inc_bpe import _backend


def test_native_extension_loaded_unless_disabled():
    if _backend.ext_disabled():
        assert not _backend.NATIVE  # ICML26_NO_EXT=1: the pure-Python fallback, on purpose
    else:
        assert _backend.NATIVE, "the inc_bpe extension did not import: rebuild with pip install -e . (see README)"


def test_unexpected_fallback_logs_a_warning(monkeypatch, caplog):
    import builtins

    real_import = builtins.__import__

    def no_native(name, globals=None, locals=None, fromlist=(), level=0):
        if fromlist and "_inc_bpe_native" in fromlist:
            raise ImportError("simulated: extension missing")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.delenv("ICML26_NO_EXT", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_native)
    with caplog.at_level(logging.WARNING, logger=_backend.__name__):
        assert _backend._load_native() is None
    assert any("native extension unavailable" in r.getMessage() for r in caplog.records)


def test_requested_fallback_is_quiet(monkeypatch, caplog):
    monkeypatch.setenv("ICML26_NO_EXT", "1")
    with caplog.at_level(logging.WARNING, logger=_backend.__name__):
        assert _backend._load_native() is None
    assert not caplog.records

