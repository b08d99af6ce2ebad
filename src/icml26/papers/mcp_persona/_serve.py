"""Serve one simulated app of [P38] over stdio: ``python -m icml26.papers.mcp_persona._serve --app forum --db
PATH`` (the database file from ``persona_db``). Started by :func:`run_episodes` with ``transport="stdio"``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from icml26.papers.mcp_persona._persona import APPS
from icml26.papers.mcp_persona._servers import build_server


def main(argv: Sequence[str] | None = None) -> None:
    """[P38] Parse ``--app`` and ``--db`` and run that app's server on stdin/stdout until the client closes."""
    ap = argparse.ArgumentParser(prog="python -m icml26.papers.mcp_persona._serve")
    ap.add_argument("--app", required=True, choices=list(APPS))
    ap.add_argument("--db", required=True)
    ns = ap.parse_args(argv)
    build_server(ns.app, db=ns.db).run("stdio")


if __name__ == "__main__":
    main()
