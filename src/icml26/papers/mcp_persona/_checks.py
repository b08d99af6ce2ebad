"""What the [P38] claims measure: episodes of the oracle, the context-blind heuristic, the random agent and an LLM
agent on sampled twin tasks over seeded persona trees, through real MCP clients; and the figures.

The verdicts come from :mod:`._rules`; this module runs episodes and draws.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from icml26.claims import ClaimResult, Context, Verdict
from icml26.figures import new_figure, render
from icml26.papers.mcp_persona._agents import Agent, BlindHeuristicAgent, OracleAgent, RandomAgent
from icml26.papers.mcp_persona._episodes import run_episodes, score
from icml26.papers.mcp_persona._persona import APPS, generate_persona
from icml26.papers.mcp_persona._probes import error_probes
from icml26.papers.mcp_persona._rules import judge_gap, judge_harness, rates
from icml26.papers.mcp_persona._tasks import Task, sample_tasks

if TYPE_CHECKING:  # pragma: no cover - typing only
    from icml26.papers.mcp_persona.claims import GapConfig, HarnessConfig

CHECKPOINT_ENV = "ICML26_MCP_PERSONA_CHECKPOINT"
ORACLE_TURNS = 10  # the oracle stops by itself after its chain and answer


def _rows(agent_name: str, agent: Agent, seed: int, tasks: Sequence[Task], *, transport: str, max_turns: int
          ) -> list[dict[str, Any]]:
    persona = generate_persona(seed=seed)
    traces = run_episodes(agent, persona, tasks, transport=transport, max_turns=max_turns)
    out = []
    for t, tr in zip(tasks, traces):
        s = score(tr, t)
        out.append({"seed": seed, "agent": agent_name, "pair": t.pair, "app": t.app, "variant": t.variant,
                    "reference": t.reference, "transport": transport, "success": int(s.success), "calls": s.calls,
                    "valid_calls": s.valid_calls, "turns": s.turns, "error_results": s.error_results,
                    "exceptions": tr.exceptions})
    return out


def harness_rows(task: tuple[int, int, int, int]) -> list[dict[str, Any]]:
    """[P38] One seed of the harness check: the oracle in-process (and over stdio on ``stdio_pairs`` pairs), the
    random agent (to exercise refusals), and the probes. ``task = (seed, n_pairs, stdio_pairs, max_turns)``."""
    seed, n_pairs, stdio_pairs, max_turns = task
    persona = generate_persona(seed=seed)
    tasks = sample_tasks(persona, n_pairs=n_pairs, seed=seed)
    probes = error_probes(persona)
    rows = _rows("oracle", OracleAgent(tasks), seed, tasks, transport="inprocess", max_turns=ORACLE_TURNS)
    rows += _rows("random", RandomAgent(seed=seed), seed, tasks, transport="inprocess", max_turns=max_turns)
    rows += _rows("oracle", OracleAgent(probes), seed, probes, transport="inprocess", max_turns=ORACLE_TURNS)
    if stdio_pairs:
        sub = tasks[:2 * stdio_pairs]
        rows += _rows("oracle", OracleAgent(sub), seed, sub, transport="stdio", max_turns=ORACLE_TURNS)
    return rows


def baseline_rows(task: tuple[int, int, int]) -> list[dict[str, Any]]:
    """[P38] One seed of the oracle, blind-heuristic and random agents on ``n_pairs`` twin pairs, in-process.
    ``task = (seed, n_pairs, max_turns)``."""
    seed, n_pairs, max_turns = task
    tasks = sample_tasks(generate_persona(seed=seed), n_pairs=n_pairs, seed=seed)
    rows = _rows("oracle", OracleAgent(tasks), seed, tasks, transport="inprocess", max_turns=ORACLE_TURNS)
    return rows + [r for name, ag in (("blind", BlindHeuristicAgent()), ("random", RandomAgent(seed=seed)))
                   for r in _rows(name, ag, seed, tasks, transport="inprocess", max_turns=max_turns)]


def check_harness_oracle(cfg: HarnessConfig, ctx: Context) -> ClaimResult:
    """[P38] pipeline: every sampled tool chain solves its task through the MCP servers; refusals are MCP errors."""
    rows = [r for rs in ctx.map(harness_rows, [(s, cfg.n_pairs, cfg.stdio_pairs if k == 0 else 0, cfg.max_turns)
                                               for k, s in enumerate(ctx.seeds)]) for r in rs]
    j = judge_harness(rows, bars=ctx.bars)
    m = j.measured
    summary = (f"oracle {sum(r['success'] for r in rows if r['agent'] == 'oracle' and r['variant'] != 'probe')}"
               f"/{m.get('oracle_episodes', 0)} ({', '.join(m.get('transports', []))}); "
               f"{m.get('error_results', 0)} error results, {m.get('exceptions', 0)} exceptions; "
               f"{m.get('probes_state_unchanged', 0)}/{m.get('probes', 0)} probes left the state unchanged")
    return ClaimResult.judged(j, summary=summary, rows=rows,
                              notes="servers, tools, persona trees and tasks are our reconstruction from the "
                                    "abstract: 4 apps x 7-8 tools, not the paper's 18 servers and 139 tools")


def _load(name: str) -> tuple[Any, Any]:
    from icml26.common.models import load_causal_lm, tiny_causal_lm

    if name == "tiny":
        return tiny_causal_lm(seed=0, max_positions=4096)
    if name == "checkpoint":
        from icml26.common.models import MissingExtraError

        path = os.environ.get(CHECKPOINT_ENV, "")
        if not path:
            raise MissingExtraError(f"set {CHECKPOINT_ENV} to a local instruction-tuned transformers checkpoint")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
        return AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=torch.float32).eval(), tok
    return load_causal_lm(name)


def _llm_rows(cfg: GapConfig, seeds: Sequence[int]) -> list[dict[str, Any]] | str:
    from icml26.common.models import INSTALL_HINT, MissingExtraError
    from icml26.papers.mcp_persona._llm import LLMAgent

    try:
        model, tok = _load(cfg.model)
    except MissingExtraError as exc:
        return f"{exc} ({INSTALL_HINT})"
    agent = LLMAgent(model, tok, max_new_tokens=cfg.max_new_tokens, max_observation_chars=cfg.max_observation_chars,
                     batch=cfg.batch, cache=cfg.model != "tiny",
                     model_id=f"checkpoint:{os.environ.get(CHECKPOINT_ENV, '')}" if cfg.model == "checkpoint" else cfg.model)
    rows: list[dict[str, Any]] = []
    for k, s in enumerate(seeds):  # the apps' order turns with the seed, so that few pairs still cover every app
        turn = (k * cfg.n_pairs) % len(APPS)
        tasks = sample_tasks(generate_persona(seed=s), n_pairs=cfg.n_pairs, seed=s, apps=APPS[turn:] + APPS[:turn])
        rows += _rows("oracle", OracleAgent(tasks), s, tasks, transport="inprocess", max_turns=ORACLE_TURNS)
        rows += _rows("llm", agent, s, tasks, transport="inprocess", max_turns=cfg.max_turns)
    return rows


def _figure(rows: Sequence[dict[str, Any]], agents: Sequence[str]) -> Any:
    fig, ax = new_figure(width=6.0, height=3.6)
    width = 0.8 / 2
    for k, variant in enumerate(("explicit", "fuzzy")):
        vals = [float(np.mean([r["success"] for r in rows if r["agent"] == a and r["variant"] == variant] or [0]))
                for a in agents]
        ax.bar(np.arange(len(agents)) + (k - 0.5) * width, vals, width, label=f"{variant} reference")
    ax.set_xticks(range(len(agents)), list(agents))
    ax.set(ylabel="task success (Acc)", ylim=(0, 1.05), title="explicit-id twins vs fuzzified references")
    ax.legend()
    return render(fig, name="success_by_variant", caption="Task success of each agent on explicit-id tasks and on "
                  "their fuzzified twins (same target, same action).")


def _by_reference(rows: Sequence[dict[str, Any]], agent: str) -> str:
    refs = sorted({r["reference"] for r in rows if r["agent"] == agent})
    return ", ".join(f"{f} {np.mean([r['success'] for r in rows if r['agent'] == agent and r['reference'] == f]):.2f}"
                     f" (n={sum(r['agent'] == agent and r['reference'] == f for r in rows)})" for f in refs)


def check_gap(cfg: GapConfig, ctx: Context) -> ClaimResult:
    """[P38] Abstract: agents struggle with personalised tool use; fuzzified references cost more than their
    explicit-id twins (``cfg.agent``: ``blind`` heuristic or ``llm``)."""
    if cfg.agent == "llm":
        got = _llm_rows(cfg, ctx.seeds)
        if isinstance(got, str):
            return ClaimResult(Verdict.UNSUPPORTED, reason=got, summary="not run")
        rows, agents = got, ("oracle", "llm")
    else:
        rows = [r for rs in ctx.map(baseline_rows, [(s, cfg.n_pairs, cfg.max_turns) for s in ctx.seeds]) for r in rs]
        agents = ("oracle", "blind", "random")
    j = judge_gap(rows, bars=ctx.bars, agent=cfg.agent)
    rs = {a: rates(rows, a) for a in agents}
    summary = "; ".join(f"{a}: explicit {v['explicit']['success']:.2f}, fuzzified {v['fuzzy']['success']:.2f}"
                        for a, v in rs.items() if "explicit" in v and "fuzzy" in v)
    findings = {f"{a} valid-call rate and turns (ours)": ", ".join(
        f"{var} {v['valid_call_rate']:.2f} valid, {v['turns']:.1f} turns" for var, v in rs[a].items())
        for a in agents}
    findings[f"{cfg.agent} success by reference (ours)"] = _by_reference(rows, cfg.agent)
    return ClaimResult.judged(j, summary=summary, rows=rows, figures=[_figure(rows, agents)], findings=findings,
                              measured={"all_rates": rs})
