"""The LLM agent of [P38]'s loop: a transformers causal LM (SmolLM2-135M-Instruct at ``small``, a tiny random Llama
at ``smoke``) reads the tools the MCP client listed, the instruction and the turns so far through its chat
template, and answers with one JSON object: ``{"tool": ..., "arguments": {...}}`` or ``{"answer": ...}``.

Decoding is greedy, batched over the open episodes of a round, and stops at the first complete JSON object (or
``max_new_tokens``). Output without such an object is an :class:`Invalid` action, which ends the episode. The
paper's agents are frontier models with native tool calling; this prompt format is ours.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from icml26.common.cache import cached_value
from icml26.common.validation import positive_int
from icml26.papers.mcp_persona._agents import Action, AgentView, Answer, Invalid, ToolSpec
from icml26.papers.mcp_persona._tasks import Call

__all__ = ["LLMAgent", "parse_action", "render_messages"]

_FORMAT = ('Reply with one JSON object and nothing else. To call a tool: {{"tool": "{tool}", "arguments": '
           '{{{args}}}}}. When the task is done: {{"answer": "<the answer, or done>"}}.')


def _signature(t: ToolSpec) -> str:
    return f"- {t.name}({', '.join(t.required)}): {t.description}"


def render_messages(view: AgentView, *, max_observation_chars: int = 400) -> list[dict[str, str]]:
    """[P38] The chat messages an LLM agent sees for one episode: a system message listing the tools (names,
    required arguments, descriptions, from the MCP client's ``list_tools``), the instruction, then one
    (call, result) exchange per turn, each result cut to ``max_observation_chars``."""
    if not isinstance(view, AgentView):
        raise TypeError(f"view must be an AgentView, got {type(view).__name__}")
    n = positive_int(max_observation_chars, "max_observation_chars")
    example = next((t for t in view.tools if t.required), view.tools[0])
    args = ", ".join(f'"{a}": "<{a}>"' for a in example.required)
    system = (f"You operate the {view.app} app for the signed-in user. Tools:\n"
              + "\n".join(_signature(t) for t in view.tools) + "\n" + _FORMAT.format(tool=example.name, args=args))
    msgs = [{"role": "system", "content": system}, {"role": "user", "content": view.instruction}]
    for s in view.history:
        a = s.action
        said = json.dumps({"tool": a.tool, "arguments": dict(a.arguments)}) if isinstance(a, Call) else str(
            getattr(a, "text", ""))
        msgs.append({"role": "assistant", "content": said})
        msgs.append({"role": "user", "content": ("Error: " if s.is_error else "Result: ") + s.observation[:n]})
    return msgs


def _first_object(text: str, *, close: int = 0) -> Any:
    """The first JSON object in ``text``; with ``close`` > 0, also one left open by at most that many braces."""
    dec = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        for k in range(close + 1):
            try:
                return dec.raw_decode(text[start:].rstrip() + "}" * k)[0]
            except ValueError:
                continue
        start = text.find("{", start + 1)
    return None


def parse_action(text: str) -> Action:
    """[P38] The action in an LLM's reply: the first JSON object (closing at most two braces the reply left open)
    with a ``tool`` (or ``name``) and ``arguments`` is a :class:`Call`, one with ``answer`` an :class:`Answer`;
    anything else is :class:`Invalid`."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    obj = _first_object(text, close=2)  # a reply that stopped before its last braces still counts
    if isinstance(obj, dict):
        tool = obj.get("tool", obj.get("name"))
        if isinstance(tool, str) and tool:
            args = obj.get("arguments", {})
            if isinstance(args, dict):
                return Call(tool, {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in args.items()})
        if "answer" in obj:
            return Answer(str(obj["answer"]))
    return Invalid(text)


def _complete(text: str) -> bool:
    return _first_object(text) is not None


#: the reply is started for the model: its continuation is the rest of one JSON object
REPLY_PREFIX = '{"'


def _prompt(tok: Any, msgs: list[dict[str, str]]) -> str:
    if getattr(tok, "chat_template", None):
        head = str(tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True))
    else:
        head = "".join(f"{m['role']}: {m['content']}\n" for m in msgs) + "assistant: "
    return head + REPLY_PREFIX


class LLMAgent:
    """[P38] An LLM agent with JSON tool calls (module doc): ``model`` a transformers causal LM, ``tokenizer`` its
    tokenizer; ``model_id`` names the model in the generation cache (used when ``cache`` and ``$ICML26_CACHE_DIR``
    are set)."""

    def __init__(self, model: Any, tokenizer: Any, *, max_new_tokens: int = 48, max_observation_chars: int = 400,
                 batch: int = 16, model_id: str = "", cache: bool = False) -> None:
        if not callable(getattr(model, "generate", None)):
            raise TypeError("model must be a transformers causal LM (with .generate)")
        if not callable(tokenizer):
            raise TypeError("tokenizer must be a transformers tokenizer")
        self.model, self.tokenizer = model, tokenizer
        self.max_new_tokens = positive_int(max_new_tokens, "max_new_tokens", hi=4096)
        self.max_observation_chars = positive_int(max_observation_chars, "max_observation_chars")
        self.batch = positive_int(batch, "batch")
        if cache and not model_id:
            raise ValueError("model_id must name the model when cache is on")
        self.model_id, self.cache = str(model_id), bool(cache)
        self.generations = 0

    def act(self, views: Sequence[AgentView]) -> list[Action]:
        """[P38] One greedy, batched generation per open episode, parsed by :func:`parse_action`."""
        prompts = [_prompt(self.tokenizer, render_messages(v, max_observation_chars=self.max_observation_chars))
                   for v in views]
        if not prompts:
            return []
        if self.cache:
            key = {"what": "llm-round", "model": self.model_id, "max_new_tokens": self.max_new_tokens,
                   "batch": self.batch, "prompts": hashlib.sha256("\x00".join(prompts).encode()).hexdigest()}
            texts = cached_value("mcp_persona", key, "out.json", lambda: self.generate(prompts))
        else:
            texts = self.generate(prompts)
        return [parse_action(t) for t in texts]

    def generate(self, prompts: Sequence[str]) -> list[str]:
        """[P38] Greedy continuations of ``prompts`` (left-padded batches), each stopped at its first complete JSON
        object or after ``max_new_tokens``."""
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList

        tok: Any = self.tokenizer
        out: list[str] = []
        for i in range(0, len(prompts), self.batch):
            enc: Any = tok(list(prompts[i:i + self.batch]), return_tensors="pt", padding=True, padding_side="left",
                      add_special_tokens=False)
            width = enc["input_ids"].shape[1]

            class _Done(StoppingCriteria):
                def __call__(self, input_ids: Any, scores: Any, **kw: Any) -> Any:
                    texts = tok.batch_decode(input_ids[:, width:], skip_special_tokens=True)
                    return torch.tensor([_complete(REPLY_PREFIX + t) for t in texts], dtype=torch.bool)

            with torch.inference_mode():
                gen = self.model.generate(**enc, max_new_tokens=self.max_new_tokens, do_sample=False,
                                          stopping_criteria=StoppingCriteriaList([_Done()]),
                                          pad_token_id=tok.pad_token_id if tok.pad_token_id is not None
                                          else tok.eos_token_id)
            out.extend(REPLY_PREFIX + t for t in tok.batch_decode(gen[:, width:], skip_special_tokens=True))
            self.generations += len(gen)
        return out
