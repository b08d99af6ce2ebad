"""Faulty-call probes of [P38]'s simulated servers: per app, calls that a real server refuses (an unknown id, a
permission the account lacks, a malformed or missing argument, an unknown tool, a conflicting change). Each probe
is a :class:`Task` whose chain is the faulty calls and whose effects are none: replayed by the oracle, every call
must come back as an MCP error result (no client-side exception) and the database must be left unchanged."""

from __future__ import annotations

from icml26.papers.mcp_persona._persona import Persona
from icml26.papers.mcp_persona._tasks import Call, Task

__all__ = ["error_probes"]


def _ids(p: Persona) -> dict[str, str]:
    me = p.me.id
    closed = next(s.id for s in p.spaces if s.app == "chat" and me not in s.members)
    others_post = next(i.id for i in p.items if i.app == "forum" and i.author_id != me)
    msg = next(i.id for i in p.items if i.app == "chat")
    note = next(i.id for i in p.items if i.app == "notes")
    inbox = next(s.id for s in p.spaces if s.app == "mail" and s.name == "Inbox")
    received = next(i.id for i in p.items if i.space_id == inbox)
    sent = next(i.id for i in p.items if i.app == "mail" and i.author_id == me)
    return {"closed": closed, "others_post": others_post, "msg": msg, "note": note, "inbox": inbox,
            "received": received, "sent": sent}


def error_probes(persona: Persona) -> list[Task]:
    """[P38] The faulty-call probes (module doc) for ``persona``: one task per app, 4-6 refused calls each."""
    if not isinstance(persona, Persona):
        raise TypeError(f"persona must be a Persona, got {type(persona).__name__}")
    d = _ids(persona)
    chains = {
        "chat": (Call("get_message", {"message_id": "m_9999"}),
                 Call("post_message", {"channel_id": d["closed"], "text": "hello"}),
                 Call("add_reaction", {"message_id": d["msg"], "emoji": "banana"}),
                 Call("reply_in_thread", {"message_id": d["msg"], "text": "   "}),
                 Call("get_channel_history", {}),
                 Call("send_fax", {"number": "1"})),
        "forum": (Call("edit_post", {"post_id": d["others_post"], "body": "mine now"}),
                  Call("delete_post", {"post_id": d["others_post"]}),
                  Call("get_post", {"post_id": "p_9999"}),
                  Call("list_posts", {"forum_id": "fr_99"}),
                  Call("comment", {"post_id": d["others_post"]})),
        "notes": (Call("get_note", {"note_id": "n_9999"}),
                  Call("update_note", {"note_id": d["note"], "body": ""}),
                  Call("list_notes", {"notebook_id": "nb_99"}),
                  Call("search_notes", {"query": "x" * 501})),
        "mail": (Call("read_mail", {"mail_id": "e_9999"}),
                 Call("move_mail", {"mail_id": d["received"], "folder_id": d["inbox"]}),
                 Call("reply_mail", {"mail_id": d["sent"], "body": "again"}),
                 Call("move_mail", {"mail_id": d["received"], "folder_id": "fd_99"})),
    }
    return [Task(f"probe-{app}", f"probe-{app}", app, "probe", "probe", f"(probe of the {app} server's refusals)",
                 chain, ()) for app, chain in chains.items()]
