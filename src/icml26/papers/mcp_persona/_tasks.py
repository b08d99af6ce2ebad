"""Tasks of [P38] (reconstructed): tool-chain sampling over each server's tool dependency graph, instruction
fuzzification ("my latest post in r/cooking" instead of ``p_0012``), and success predicates on the final database
state and the answer.

Every sampled task comes as a twin pair over the same target item and the same action: the *fuzzified* instruction
names the item by a personal reference (resolved through the chain ``list spaces -> list items -> act``), the
*explicit* one by its id (chain: the action alone). The pair differs only in the reference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from icml26.common.validation import positive_int
from icml26.common.validation import seed as check_seed
from icml26.papers.mcp_persona._persona import APPS, Item, Persona

__all__ = ["ITEM_COLUMNS", "TOOL_GRAPH", "Call", "Effect", "Task", "expected_state", "sample_tasks",
           "same_answer", "task_success"]

#: the tool dependency graph: per app, the tool that lists spaces (gives ``<space>_id``), the tool that lists a
#: space's items (needs it, gives ``<item>_id``) and, for notes, the search tool (gives ``note_id`` from a title)
TOOL_GRAPH: dict[str, dict[str, tuple[str, str, str]]] = {
    "chat": {"spaces": ("list_channels", "", "channel_id"), "items": ("get_channel_history", "channel_id",
                                                                      "message_id")},
    "forum": {"spaces": ("list_forums", "", "forum_id"), "items": ("list_posts", "forum_id", "post_id")},
    "notes": {"spaces": ("list_notebooks", "", "notebook_id"), "items": ("list_notes", "notebook_id", "note_id"),
              "search": ("search_notes", "query", "note_id")},
    "mail": {"spaces": ("list_folders", "", "folder_id"), "items": ("list_mail", "folder_id", "mail_id")},
}
_NOUN = {"chat": "message", "forum": "post", "notes": "note", "mail": "mail"}
#: the actions a chain can end in: (tool, effect kind, who may be the target, instruction template)
_TERMINALS: dict[str, tuple[tuple[str, str, str, str], ...]] = {
    "chat": (("reply_in_thread", "reply", "member", 'Reply "{text}" in the thread of {ref}.'),
             ("add_reaction", "react", "any", "React with :{emoji}: to {ref}."),
             ("get_message", "read:body", "any", "What does {ref} say? Answer with its text only.")),
    "forum": (("comment", "reply", "any", 'Comment "{text}" on {ref}.'),
              ("edit_post", "edit", "mine", 'Change the body of {ref} to "{text}".'),
              ("delete_post", "delete", "mine", "Delete {ref}."),
              ("get_post", "read:title", "any", "What is the title of {ref}? Answer with the title only.")),
    "notes": (("update_note", "edit", "any", 'Replace the text of {ref} with "{text}".'),
              ("delete_note", "delete", "any", "Delete {ref}."),
              ("get_note", "read:body", "any", "What does {ref} say? Answer with its text only.")),
    "mail": (("reply_mail", "mailreply", "inbox", 'Reply "{text}" to {ref}.'),
             ("move_mail", "move", "inbox", "Move {ref} to the Archive folder."),
             ("read_mail", "read:title", "inbox", "What is the subject of {ref}? Answer with the subject only.")),
}
_ARG = {"reply_in_thread": "text", "comment": "text", "edit_post": "body", "update_note": "body", "reply_mail": "body"}
ITEM_COLUMNS = ("id", "app", "space_id", "author_id", "ts", "title", "body", "recipient_id", "parent_id", "unread")
_EMOJI = ("thumbsup", "heart", "tada", "eyes", "rocket")
_REPLIES = ("sounds good", "thanks for sharing", "count me in", "see you there", "great idea", "let us talk soon")


@dataclass(frozen=True)
class Call:
    """[P38] One tool call of a chain: the tool's name and its arguments."""

    tool: str
    arguments: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Effect:
    """[P38] One change the task must leave in the database: ``insert`` (``values`` of a new row, ids and times
    aside), ``update`` (``key`` row gets ``values``) or ``delete`` (``key`` row is gone) in ``table``."""

    op: str
    table: str
    key: str = ""
    values: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Task:
    """[P38] A personalised tool-use task: the instruction, the ground-truth tool chain, the effects on the state,
    and the expected answer (``""`` for tasks judged on the state alone); ``pair`` links a fuzzified task to its
    explicit-id twin, ``reference`` names how the instruction points at the target."""

    id: str
    pair: str
    app: str
    variant: str
    reference: str
    instruction: str
    chain: tuple[Call, ...]
    effects: tuple[Effect, ...]
    answer: str = ""
    answer_field: str = ""


def _space_text(p: Persona, sid: str) -> str:
    s = p.space(sid)
    return {"chat": f"#{s.name}", "forum": s.name, "notes": f"my '{s.name}' notebook", "mail": f"my {s.name}"}[s.app]


def _references(p: Persona, it: Item, items: Sequence[Item]) -> list[tuple[str, str]]:
    """The personal references that single out ``it`` (form, text)."""
    noun, where = _NOUN[it.app], _space_text(p, it.space_id)
    same = [i for i in items if i.space_id == it.space_id]
    out = []
    by = [i for i in same if i.author_id == it.author_id]
    who = p.user(it.author_id).name
    if it.author_id == p.me.id and it.app != "notes":
        if it.ts == max(i.ts for i in by):
            out.append(("mine_latest", f"my latest {noun} in {where}"))
        if it.ts == min(i.ts for i in by):
            out.append(("mine_oldest", f"my oldest {noun} in {where}"))
    elif it.app == "notes":
        if it.ts == max(i.ts for i in same):
            out.append(("mine_latest", f"my most recent note in {where}"))
        if it.ts == min(i.ts for i in same):
            out.append(("mine_oldest", f"my oldest note in {where}"))
    elif it.ts == max(i.ts for i in by):
        out.append(("contact_latest", f"the latest {noun} from {who} in {where}"))
    if it.title and sum(i.title == it.title for i in items if i.app == it.app) == 1:
        out.append(("titled", f"the {noun} titled '{it.title}' in {where}"))
    return out


def _eligible(p: Persona, it: Item, who: str) -> bool:
    if who == "mine":
        return it.author_id == p.me.id
    if who == "member":
        return p.me.id in p.space(it.space_id).members
    if who == "inbox":
        return p.space(it.space_id).name == "Inbox"
    return True


def _effects(p: Persona, it: Item, kind: str, args: Mapping[str, str]) -> tuple[Effect, ...]:
    me = p.me.id
    if kind == "reply":
        return (Effect("insert", "items", values=(("app", it.app), ("space_id", it.space_id), ("author_id", me),
                                                   ("title", ""), ("body", args[_ARG_OF[it.app]]),
                                                   ("recipient_id", ""), ("parent_id", it.id))),)
    if kind == "mailreply":
        sent = next(s.id for s in p.spaces if s.app == "mail" and s.name == "Sent")
        return (Effect("insert", "items", values=(("app", "mail"), ("space_id", sent), ("author_id", me),
                                                   ("title", f"Re: {it.title}"), ("body", args["body"]),
                                                   ("recipient_id", it.author_id), ("parent_id", it.id))),)
    if kind == "react":
        return (Effect("insert", "reactions", values=(("item_id", it.id), ("user_id", me),
                                                       ("emoji", args["emoji"]))),)
    if kind == "edit":
        return (Effect("update", "items", key=it.id, values=(("body", args["body"]),)),)
    if kind == "delete":
        return (Effect("delete", "items", key=it.id),)
    if kind == "move":
        archive = next(s.id for s in p.spaces if s.app == "mail" and s.name == "Archive")
        return (Effect("update", "items", key=it.id, values=(("space_id", archive),)),)
    if it.app == "mail" and it.unread:  # read_mail marks the mail read
        return (Effect("update", "items", key=it.id, values=(("unread", 0),)),)
    return ()


_ARG_OF = {"chat": "text", "forum": "text"}


def _pair(p: Persona, app: str, g: np.random.Generator, pair: str) -> tuple[Task, Task]:
    items = [i for i in p.items if i.app == app]
    options: list[tuple[Item, tuple[str, str]]] = []
    for t in g.permutation(len(_TERMINALS[app])):  # a terminal with at least one target the persona holds
        tool, kind, who, template = _TERMINALS[app][int(t)]
        options = [(it, ref) for it in items if _eligible(p, it, who) for ref in _references(p, it, items)]
        if options:
            break
    forms = sorted({r[0] for _, r in options})
    form = forms[int(g.integers(len(forms)))]
    it, (_, ref_text) = [o for o in options if o[1][0] == form][int(g.integers(sum(o[1][0] == form
                                                                                  for o in options)))]
    args: dict[str, str] = {TOOL_GRAPH[app]["items"][2]: it.id}
    text = f"{_REPLIES[int(g.integers(len(_REPLIES)))]} {int(g.integers(10, 99))}"
    if tool in _ARG:
        args[_ARG[tool]] = text
    if tool == "add_reaction":
        args["emoji"] = _EMOJI[int(g.integers(len(_EMOJI)))]
    if tool == "move_mail":
        args["folder_id"] = next(s.id for s in p.spaces if s.app == "mail" and s.name == "Archive")
    effects = _effects(p, it, kind, args)
    field_ = kind.split(":")[1] if kind.startswith("read:") else ""
    answer = getattr(it, field_) if field_ else ""
    fill = {"text": text, "emoji": args.get("emoji", "")}
    act = Call(tool, args)
    if form == "titled" and app == "notes":
        lookup: tuple[Call, ...] = (Call("search_notes", {"query": it.title}),)
    else:
        sp_tool, _, sp_arg = TOOL_GRAPH[app]["spaces"]
        it_tool = TOOL_GRAPH[app]["items"][0]
        lookup = (Call(sp_tool), Call(it_tool, {sp_arg: it.space_id}))
    fuzzy = Task(f"{pair}-fuzzy", pair, app, "fuzzy", form, template.format(ref=ref_text, **fill),
                 (*lookup, act), effects, answer, field_)
    explicit = Task(f"{pair}-explicit", pair, app, "explicit", "explicit",
                    template.format(ref=f"{_NOUN[app]} {it.id}", **fill), (act,), effects, answer, field_)
    return fuzzy, explicit


def sample_tasks(persona: Persona, *, n_pairs: int, seed: int, apps: Sequence[str] = APPS) -> list[Task]:
    """[P38] Tool-chain sampling with fuzzification (reconstructed): ``n_pairs`` twin pairs (fuzzified, explicit),
    apps taken in turn from ``apps``; per pair a terminal tool, a reference form, then a target item it singles out.

    Returns ``2 * n_pairs`` tasks, each fuzzified task followed by its explicit twin.
    """
    if not isinstance(persona, Persona):
        raise TypeError(f"persona must be a Persona, got {type(persona).__name__}")
    n = positive_int(n_pairs, "n_pairs", hi=10_000)
    s = check_seed(seed)
    if isinstance(apps, str) or not apps or any(a not in APPS for a in apps):
        raise ValueError(f"apps must be a non-empty sequence of {list(APPS)}, got {apps!r}")
    g = np.random.default_rng([s, 38])
    out: list[Task] = []
    for k in range(n):
        out.extend(_pair(persona, apps[k % len(apps)], g, f"s{s}-{k:03d}"))
    return out


def expected_state(initial: Mapping[str, Sequence[tuple[Any, ...]]], effects: Sequence[Effect]
                   ) -> dict[str, list[tuple[Any, ...]]]:
    """[P38] The state the effects leave, with inserted item rows reduced to their compared columns (no id, time
    or unread flag): ``{"items": rows keyed by id, "new_items": sorted reduced rows, other tables: rows}``."""
    out: dict[str, Any] = {t: sorted(map(tuple, rows)) for t, rows in initial.items() if t != "items"}
    items = {r[0]: list(r) for r in initial["items"]}
    new: list[tuple[Any, ...]] = []
    for e in effects:
        if e.table == "reactions":
            out["reactions"] = sorted([*out["reactions"], tuple(v for _, v in e.values)])
        elif e.op == "insert":
            vals = dict(e.values)
            new.append(tuple(vals[c] for c in _COMPARED))
        elif e.op == "update":
            for c, v in e.values:
                items[e.key][ITEM_COLUMNS.index(c)] = v
        else:
            items.pop(e.key)
    out["items"] = sorted(tuple(r) for r in items.values())
    out["new_items"] = sorted(new)
    return out


_COMPARED = ("app", "space_id", "author_id", "title", "body", "recipient_id", "parent_id")


def _observed(initial: Mapping[str, Sequence[tuple[Any, ...]]], final: Mapping[str, Sequence[tuple[Any, ...]]]
              ) -> dict[str, list[tuple[Any, ...]]]:
    old = {r[0] for r in initial["items"]}
    out: dict[str, Any] = {t: sorted(map(tuple, rows)) for t, rows in final.items() if t != "items"}
    out["items"] = sorted(tuple(r) for r in final["items"] if r[0] in old)
    out["new_items"] = sorted(tuple(r[ITEM_COLUMNS.index(c)] for c in _COMPARED)
                              for r in final["items"] if r[0] not in old)
    return out


def same_answer(got: str, want: str) -> bool:
    """[P38] Whether an answer matches: equal after lower-casing and stripping spaces, quotes and a final period."""
    def norm(x: str) -> str:
        return " ".join(str(x).lower().split()).strip(" '\"`.")
    return norm(got) == norm(want)


def task_success(task: Task, initial: Mapping[str, Sequence[tuple[Any, ...]]],
                 final: Mapping[str, Sequence[tuple[Any, ...]]], answer: str) -> bool:
    """[P38] The success predicate: the final state is exactly the initial state with the task's effects (no other
    change anywhere), and, for a question, the answer matches (:func:`same_answer`)."""
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task, got {type(task).__name__}")
    if _observed(initial, final) != expected_state(initial, task.effects):
        return False
    return not task.answer or same_answer(answer, task.answer)
