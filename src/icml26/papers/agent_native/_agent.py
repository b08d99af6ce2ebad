"""The agent loop and the two evaluations of the [P17] toy: resolve rate and code completion.

The paper evaluates with an agentic scaffold on SWE-Bench Verified; here the trained LM writes one action at a time
(greedy), the environment answers with real observations, for at most ``max_actions`` actions; a task is resolved
when the modules, as they stand at SUBMIT (or when the actions or the context run out), pass the original tests.
Episodes advance in lockstep so that one round's test runs share one sandbox batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from torch import Tensor

from icml26.common import validation as V
from icml26.common.nn import TinyGPT
from icml26.papers.agent_native._env import RepoEnv, Trajectory
from icml26.papers.agent_native._model import ACT, EOS, OBS, KVCache, extend, greedy
from icml26.papers.agent_native._repo import Function, Task
from icml26.papers.agent_native._sandbox import TestCache, run_unit_tests
from icml26.papers.agent_native._text import INDEX, decode, encode

__all__ = ["completion_accuracy", "resolve"]


@dataclass
class _Episode:
    env: RepoEnv
    kv: KVCache
    logits: Tensor | None
    ended: bool = False


def _feed(model: TinyGPT, ep: _Episode, ids: list[int]) -> None:
    if ep.kv.length + len(ids) > model.cfg.block_size:
        ep.logits, ep.ended = None, True
    else:
        ep.logits = extend(model, ep.kv, ids)


def resolve(model: TinyGPT, tasks: Sequence[Task], *, max_actions: int = 10, window: int = 5,
            cache: TestCache | None = None, max_action_tokens: int = 24) -> tuple[list[bool], list[Trajectory]]:
    """Run the agent on every task ([P17] agentic evaluation, our scaffold); whether each was resolved, and the
    trajectories."""
    max_actions = V.positive_int(max_actions, "max_actions")
    max_action_tokens = V.positive_int(max_action_tokens, "max_action_tokens")
    if any(not isinstance(t, Task) for t in tasks):
        raise TypeError("tasks must hold Task objects only")
    cache = cache if cache is not None else TestCache()
    model.eval()
    eps = []
    for t in tasks:
        ep = _Episode(RepoEnv(t, window=window, cache=cache), KVCache(model.cfg.n_layer), None)
        _feed(model, ep, encode(f"<issue> {t.issue} <act>"))
        eps.append(ep)
    for _ in range(max_actions):
        live = [e for e in eps if not e.ended and not e.env.done and e.logits is not None]
        if not live:
            break
        moves = []
        for e in live:
            assert e.logits is not None
            toks, e.logits = greedy(model, e.kv, e.logits, stop=(OBS, EOS), max_new=max_action_tokens)
            stop = toks[-1] if toks and toks[-1] in (OBS, EOS) else None
            moves.append((e, decode([t for t in toks if t not in (OBS, EOS)]), stop))
        run_unit_tests([e.env.repo for e, text, _ in moves if text.strip() == "RUN_TESTS"], cache=cache)
        for e, text, stop in moves:
            obs = e.env.step(text)
            if e.env.done or stop == EOS or e.logits is None:
                e.ended = True
                continue
            _feed(model, e, ([] if stop == OBS else [OBS]) + encode(obs) + [ACT])
    ok = run_unit_tests([e.env.judged_repo() for e in eps], cache=cache)
    return [r.ok for r in ok], [e.env.trajectory for e in eps]


#: prompt formats of the completion probe: the pretraining text (plain source after ``<file> m0.py``), the static
#: arm's numbered file (``<file> m0.py`` then ``1 | ...``) and the agent's file viewer (``OPEN m0.py 1`` then its
#: numbered observation): each model is asked in every format, since the arms show code in different formats
FORMATS = ("plain", "numbered", "viewer")


def _completion_prompt(f: Function, fmt: str) -> tuple[list[int], list[int]]:
    """(prompt ids, wanted ids up to and including ``return``) of ``f`` in format ``fmt``."""
    src = f.source()
    if fmt == "plain":
        head, lines = "<file> m0.py\n", src
    else:
        head = "<file> m0.py\n" if fmt == "numbered" else "<act> OPEN m0.py 1 <obs> "
        lines = [f"{i} | {ln}" for i, ln in enumerate(src, 1)]
    prompt = encode(head + "\n".join(lines[:2]) + "\n")
    full = encode(head + "\n".join(lines[:-1]) + "\n" + lines[-1][: lines[-1].index("return") + len("return")])
    return prompt, full[len(prompt):]


def completion_accuracy(model: TinyGPT, functions: Sequence[Function], *, fmt: str = "plain",
                        max_new: int = 48) -> float:
    """Share of ``functions`` whose body the model completes exactly (greedy) from its signature and docstring
    ([P17] general code ability, our stand-in for HumanEval/EvalPlus: held-out templates), with the prompt in
    format ``fmt`` (:data:`FORMATS`)."""
    if not functions:
        raise ValueError("functions must not be empty")
    if any(not isinstance(f, Function) for f in functions):
        raise TypeError("functions must hold Function objects only")
    fmt = V.choice(fmt, "fmt", FORMATS)
    max_new = V.positive_int(max_new, "max_new")
    ret = INDEX["return"]
    right = 0
    for f in functions:
        prompt, want = _completion_prompt(f, fmt)
        kv = KVCache(model.cfg.n_layer)
        toks, _ = greedy(model, kv, extend(model, kv, prompt), stop=(ret,), max_new=max_new)
        right += toks == want
    return right / len(functions)
