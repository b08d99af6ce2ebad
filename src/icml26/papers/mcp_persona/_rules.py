"""Verdict rules of the [P38] claims: pure functions of episode rows, built from :mod:`icml26.verdicts`.

An episode row: ``{"seed", "agent", "pair", "app", "variant" ("fuzzy" | "explicit" | "probe"), "reference",
"transport", "success" (0/1), "calls", "valid_calls", "turns", "error_results", "exceptions"}``.

- ``harness_oracle``: the oracle solves every task (both variants, every transport), and every refused call (the
  probes' and any agent's) came back as an MCP error result, never as a client-side exception; probes leave the
  state unchanged (their ``success``).
- ``blind_gap`` / ``llm_gap``: with the oracle at 100 % on the same tasks, the agent's success on fuzzified tasks
  (bootstrap CI over episodes) meets ``fuzzy_success``, and its paired success gap explicit − fuzzified over twin
  pairs meets ``twin_gap``; fewer than 3 seeds is inconclusive. With the oracle below 100 % the harness is broken
  and nothing is judged; an agent that solves no task of either variant cannot use the tools at all, so its gap
  cannot be measured (inconclusive).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from icml26.claims import Bar, Verdict
from icml26.common.stats import bootstrap_ci
from icml26.verdicts import Judgement, against_bar, all_of, enough_seeds, share

__all__ = ["RULES", "UNJUDGED", "judge_gap", "judge_harness", "rates"]


def rates(rows: Sequence[Mapping[str, Any]], agent: str) -> dict[str, Any]:
    """Success, valid-call rate and mean turns of ``agent`` per variant (plain numbers, for the record)."""
    out: dict[str, Any] = {}
    for variant in ("fuzzy", "explicit"):
        sel = [r for r in rows if r["agent"] == agent and r["variant"] == variant]
        if not sel:
            continue
        calls = sum(r["calls"] for r in sel)
        out[variant] = {"success": float(np.mean([r["success"] for r in sel])), "episodes": len(sel),
                        "valid_call_rate": float(sum(r["valid_calls"] for r in sel) / calls) if calls else 0.0,
                        "turns": float(np.mean([r["turns"] for r in sel]))}
    return out


def judge_harness(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar]) -> Judgement:
    """``harness_oracle`` (module doc)."""
    oracle = [r for r in rows if r["agent"] == "oracle" and r["variant"] in ("fuzzy", "explicit")]
    probes = [r for r in rows if r["variant"] == "probe"]
    if not oracle or not probes:
        return Judgement(Verdict.INCONCLUSIVE, "no oracle episodes or no probes in the rows")
    ok = share("oracle success", sum(int(r["success"]) for r in oracle), len(oracle), bars["oracle_success"],
               noun="oracle episodes")
    refused = sum(r["error_results"] for r in rows)
    raised = sum(r["exceptions"] for r in rows)
    probe_calls = sum(r["calls"] for r in probes)
    probe_errors = sum(r["error_results"] for r in probes)
    clean = sum(int(r["success"]) for r in probes)
    # every error result counts for the bar; a client-side exception, a probe call that was not refused and a
    # probe that changed the state count against it
    k = refused
    n = refused + raised + (probe_calls - probe_errors) + (len(probes) - clean)
    err = share("refused calls reported as MCP error results", k, max(n, 1), bars["error_results"],
                noun="refused calls or probes")
    j = all_of({"oracle": ok, "errors": err}, what="parts")
    transports = sorted({r["transport"] for r in oracle})
    measured = {**j.measured, "oracle_episodes": len(oracle), "transports": transports, "error_results": refused,
                "exceptions": raised, "probe_calls": probe_calls, "probe_errors": probe_errors,
                "probes_state_unchanged": clean, "probes": len(probes)}
    return Judgement(j.verdict, f"{j.reason}. Transports: {', '.join(transports)}", measured)


def judge_gap(rows: Sequence[Mapping[str, Any]], *, bars: Mapping[str, Bar], agent: str) -> Judgement:
    """``blind_gap`` / ``llm_gap`` (module doc) for ``agent``."""
    oracle = [r for r in rows if r["agent"] == "oracle"]
    mine = [r for r in rows if r["agent"] == agent]
    if not oracle or not mine:
        return Judgement(Verdict.INCONCLUSIVE, f"no oracle or no {agent} episodes in the rows")
    if not all(r["success"] for r in oracle):
        bad = sum(not r["success"] for r in oracle)
        return Judgement(Verdict.INCONCLUSIVE, f"the oracle failed {bad} of {len(oracle)} episodes: the harness is "
                                               "not validated, so no agent score is judged")
    seeds = sorted({r["seed"] for r in mine})
    few = enough_seeds(len(seeds))
    by = {(r["pair"], r["variant"]): float(r["success"]) for r in mine}
    pairs = sorted({p for p, v in by if (p, "fuzzy") in by and (p, "explicit") in by})
    if few is not None or not pairs:
        return few or Judgement(Verdict.INCONCLUSIVE, "no complete twin pairs")
    if not any(by[p, v] for p in pairs for v in ("fuzzy", "explicit")):  # a gap needs an agent that acts at all
        r = rates(rows, agent)
        valid = r.get("explicit", {}).get("valid_call_rate", 0.0)
        return Judgement(Verdict.INCONCLUSIVE,
                         f"the {agent} agent solved none of its {2 * len(pairs)} tasks, fuzzified or explicit-id "
                         f"(valid-call rate on explicit-id tasks {valid:.2f}): it cannot use the tools at all here, "
                         "so neither its struggle with personalisation nor the twin gap can be measured. "
                         f"{len(pairs)} twin pairs over {len(seeds)} seeds; oracle 100 %",
                         {"seeds": len(seeds), "pairs": len(pairs), "rates": r, "oracle": rates(rows, "oracle")})
    fuzzy = [by[p, "fuzzy"] for p in pairs]
    gaps = [by[p, "explicit"] - by[p, "fuzzy"] for p in pairs]
    fz = against_bar(f"{agent} success on fuzzified tasks", bootstrap_ci(fuzzy, seed=0), bars["fuzzy_success"],
                     n=len(pairs))
    gp = against_bar(f"{agent} success explicit − fuzzified (paired)", bootstrap_ci(gaps, seed=1),
                     bars["twin_gap"], n=len(pairs))
    j = all_of({"fuzzy_success": fz, "twin_gap": gp}, what="parts")
    measured = {**j.measured, "seeds": len(seeds), "pairs": len(pairs), "rates": rates(rows, agent),
                "oracle": rates(rows, "oracle")}
    return Judgement(j.verdict, f"{j.reason}. {len(pairs)} twin pairs over {len(seeds)} seeds; oracle 100 %",
                     measured)


RULES = {"harness_oracle": judge_harness, "blind_gap": judge_gap, "llm_gap": judge_gap}
UNJUDGED: dict[str, str] = {}
