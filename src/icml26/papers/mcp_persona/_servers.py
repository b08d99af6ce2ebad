"""The simulated MCP servers of [P38] ("traverse-then-simulate", reconstructed): one MCP server per app, built with
the official ``mcp`` SDK (``MCPServer``), whose tools read and change the persona database.

A tool that is refused (an unknown id, a permission the account lacks, a malformed argument) raises the SDK's
``ToolError``; the SDK turns it into a tool result with ``is_error = True`` and the message as text, so a client
never sees an exception for a bad call. Messages start with a machine-readable code (``not_found``,
``permission_denied``, ``invalid_argument``, ``conflict``), as real servers' traversal logs do.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from icml26.common.validation import choice
from icml26.papers.mcp_persona._persona import APPS, ITEM_PREFIX, fmt_time

__all__ = ["EMOJIS", "build_server"]

EMOJIS: tuple[str, ...] = ("thumbsup", "heart", "tada", "eyes", "rocket")


@contextlib.contextmanager
def _no_root_handlers() -> Iterator[None]:
    """``MCPServer()`` calls ``logging.basicConfig``; a placeholder handler keeps the root logger as it was."""
    root = logging.getLogger()
    guard = None if root.handlers else logging.NullHandler()
    if guard is not None:
        root.addHandler(guard)
    try:
        yield
    finally:
        if guard is not None:
            root.removeHandler(guard)


class _Store:
    """The database behind one server: an open connection, or a file opened anew for every call."""

    def __init__(self, db: sqlite3.Connection | str | os.PathLike[str], app: str) -> None:
        self._con = db if isinstance(db, sqlite3.Connection) else None
        self._path = None if self._con is not None else str(db)
        self.app = app
        with self.connect() as con:
            row = con.execute("SELECT value FROM meta WHERE key = 'me'").fetchone()
        if row is None:
            raise ValueError("db holds no persona (no 'me' in its meta table)")
        self.me = str(row[0])

    @contextlib.contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        if self._con is not None:
            yield self._con
            self._con.commit()
            return
        assert self._path is not None
        con = sqlite3.connect(self._path)
        try:
            yield con
            con.commit()
        finally:
            con.close()

    def rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.connect() as con:
            return [tuple(r) for r in con.execute(sql, args)]

    def write(self, sql: str, args: tuple[Any, ...]) -> None:
        with self.connect() as con:
            con.execute(sql, args)

    def name(self, uid: str) -> str:
        r = self.rows("SELECT name FROM users WHERE id = ?", (uid,))
        return str(r[0][0]) if r else uid

    def space(self, sid: str, noun: str) -> tuple[str, str, bool]:
        """(id, name, whether the account is a member) of the space ``sid`` of this app, else ``not_found``."""
        r = self.rows("SELECT id, name FROM spaces WHERE id = ? AND app = ?", (sid, self.app))
        if not r:
            _refuse(f"not_found: no {noun} with id {sid!r}")
        member = bool(self.rows("SELECT 1 FROM members WHERE space_id = ? AND user_id = ?", (sid, self.me)))
        return str(r[0][0]), str(r[0][1]), member

    def spaces(self) -> list[dict[str, Any]]:
        return [{"id": i, "name": n} for i, n in self.rows("SELECT id, name FROM spaces WHERE app = ? ORDER BY id",
                                                            (self.app,))]

    def item(self, iid: str, noun: str) -> dict[str, Any]:
        r = self.rows("SELECT id, space_id, author_id, ts, title, body, recipient_id, parent_id, unread FROM items "
                      "WHERE id = ? AND app = ?", (iid, self.app))
        if not r:
            _refuse(f"not_found: no {noun} with id {iid!r}")
        i, sp, a, ts, title, body, rec, parent, unread = r[0]
        out = {"id": i, "space_id": sp, "author_id": a, "author": self.name(a), "time": fmt_time(int(ts)),
               "title": title, "body": body}
        if self.app == "mail":
            out |= {"to_id": rec, "to": self.name(rec), "unread": bool(unread)}
        if parent:
            out["parent_id"] = parent
        return out

    def listing(self, sid: str) -> list[dict[str, Any]]:
        """The items of a space, ordered by id (storage order), with a short preview."""
        ids = [r[0] for r in self.rows("SELECT id FROM items WHERE space_id = ? ORDER BY id", (sid,))]
        out = []
        for iid in ids:
            d = self.item(iid, "item")
            d["body"] = d["body"][:40]
            d.pop("space_id")
            out.append(d)
        return out

    def insert(self, *, space_id: str, title: str, body: str, recipient_id: str = "", parent_id: str = "") -> str:
        """A new item by the account, stamped one minute after the newest one; returns its id."""
        nums = [int(r[0].split("_")[1]) for r in self.rows("SELECT id FROM items WHERE app = ?", (self.app,))]
        ts = int(self.rows("SELECT MAX(ts) FROM items")[0][0] or 0) + 1
        iid = f"{ITEM_PREFIX[self.app]}_{max([1000, *nums]) + 1:04d}"
        self.write("INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (iid, self.app, space_id, self.me, ts, title, body, recipient_id, parent_id, 0))
        return iid

    def own(self, d: dict[str, Any], noun: str, verb: str) -> None:
        if d["author_id"] != self.me:
            _refuse(f"permission_denied: only the author of {noun} {d['id']} may {verb} it")


def _refuse(message: str) -> Any:
    from mcp.server.mcpserver.exceptions import ToolError

    raise ToolError(message)


def _text(value: str, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        _refuse(f"invalid_argument: {name} must be a non-empty string")
    if len(value) > 500:
        _refuse(f"invalid_argument: {name} is longer than 500 characters")
    return value.strip()


def _chat_tools(srv: Any, st: _Store) -> None:
    @srv.tool(description="The signed-in account: its user id and name.")
    def whoami() -> dict[str, Any]:
        return {"id": st.me, "name": st.name(st.me)}

    @srv.tool(description="The workspace's channels (id, name).")
    def list_channels() -> dict[str, Any]:
        return {"channels": st.spaces()}

    @srv.tool(description="Messages of a channel, ordered by id (author, time, text preview).")
    def get_channel_history(channel_id: str) -> dict[str, Any]:
        sid, name, _ = st.space(channel_id, "channel")
        return {"channel": name, "messages": st.listing(sid)}

    @srv.tool(description="One message in full.")
    def get_message(message_id: str) -> dict[str, Any]:
        return st.item(message_id, "message")

    @srv.tool(description="Post a new message in a channel the account is a member of.")
    def post_message(channel_id: str, text: str) -> dict[str, Any]:
        sid, name, member = st.space(channel_id, "channel")
        if not member:
            _refuse(f"permission_denied: not a member of #{name}")
        return {"id": st.insert(space_id=sid, title="", body=_text(text, "text")), "ok": True}

    @srv.tool(description="Reply in the thread of a message.")
    def reply_in_thread(message_id: str, text: str) -> dict[str, Any]:
        d = st.item(message_id, "message")
        sid, name, member = st.space(d["space_id"], "channel")
        if not member:
            _refuse(f"permission_denied: not a member of #{name}")
        return {"id": st.insert(space_id=sid, title="", body=_text(text, "text"), parent_id=d["id"]), "ok": True}

    @srv.tool(description=f"React to a message with an emoji name, one of {', '.join(EMOJIS)}.")
    def add_reaction(message_id: str, emoji: str) -> dict[str, Any]:
        d = st.item(message_id, "message")
        e = str(emoji).strip(": ")
        if e not in EMOJIS:
            _refuse(f"invalid_argument: unknown emoji {emoji!r}; known: {', '.join(EMOJIS)}")
        if st.rows("SELECT 1 FROM reactions WHERE item_id = ? AND user_id = ? AND emoji = ?", (d["id"], st.me, e)):
            _refuse(f"conflict: already reacted with :{e}: to {d['id']}")
        st.write("INSERT INTO reactions VALUES (?, ?, ?)", (d["id"], st.me, e))
        return {"ok": True}


def _forum_tools(srv: Any, st: _Store) -> None:
    @srv.tool(description="The signed-in account: its user id and name.")
    def whoami() -> dict[str, Any]:
        return {"id": st.me, "name": st.name(st.me)}

    @srv.tool(description="The forums the account follows (id, name).")
    def list_forums() -> dict[str, Any]:
        return {"forums": st.spaces()}

    @srv.tool(description="Posts of a forum, ordered by id (author, time, title, preview).")
    def list_posts(forum_id: str) -> dict[str, Any]:
        sid, name, _ = st.space(forum_id, "forum")
        return {"forum": name, "posts": [p for p in st.listing(sid) if "parent_id" not in p]}

    @srv.tool(description="One post in full.")
    def get_post(post_id: str) -> dict[str, Any]:
        return st.item(post_id, "post")

    @srv.tool(description="Create a post in a forum.")
    def create_post(forum_id: str, title: str, body: str) -> dict[str, Any]:
        sid, _, _ = st.space(forum_id, "forum")
        return {"id": st.insert(space_id=sid, title=_text(title, "title"), body=_text(body, "body")), "ok": True}

    @srv.tool(description="Comment on a post.")
    def comment(post_id: str, text: str) -> dict[str, Any]:
        d = st.item(post_id, "post")
        return {"id": st.insert(space_id=d["space_id"], title="", body=_text(text, "text"), parent_id=d["id"]),
                "ok": True}

    @srv.tool(description="Replace the body of one of the account's own posts.")
    def edit_post(post_id: str, body: str) -> dict[str, Any]:
        d = st.item(post_id, "post")
        st.own(d, "post", "edit")
        st.write("UPDATE items SET body = ? WHERE id = ?", (_text(body, "body"), d["id"]))
        return {"ok": True}

    @srv.tool(description="Delete one of the account's own posts.")
    def delete_post(post_id: str) -> dict[str, Any]:
        d = st.item(post_id, "post")
        st.own(d, "post", "delete")
        st.write("DELETE FROM items WHERE id = ?", (d["id"],))
        return {"ok": True}


def _notes_tools(srv: Any, st: _Store) -> None:
    @srv.tool(description="The account's notebooks (id, name).")
    def list_notebooks() -> dict[str, Any]:
        return {"notebooks": st.spaces()}

    @srv.tool(description="Notes of a notebook, ordered by id (time, title, preview).")
    def list_notes(notebook_id: str) -> dict[str, Any]:
        sid, name, _ = st.space(notebook_id, "notebook")
        return {"notebook": name, "notes": st.listing(sid)}

    @srv.tool(description="Notes whose title contains the query (case-insensitive).")
    def search_notes(query: str) -> dict[str, Any]:
        q = _text(query, "query").lower()
        ids = [r[0] for r in st.rows("SELECT id FROM items WHERE app = 'notes' AND instr(lower(title), ?) > 0 "
                                     "ORDER BY id", (q,))]
        return {"notes": [st.item(i, "note") for i in ids]}

    @srv.tool(description="One note in full.")
    def get_note(note_id: str) -> dict[str, Any]:
        return st.item(note_id, "note")

    @srv.tool(description="Create a note in a notebook.")
    def create_note(notebook_id: str, title: str, body: str) -> dict[str, Any]:
        sid, _, _ = st.space(notebook_id, "notebook")
        return {"id": st.insert(space_id=sid, title=_text(title, "title"), body=_text(body, "body")), "ok": True}

    @srv.tool(description="Replace the body of a note.")
    def update_note(note_id: str, body: str) -> dict[str, Any]:
        d = st.item(note_id, "note")
        st.write("UPDATE items SET body = ? WHERE id = ?", (_text(body, "body"), d["id"]))
        return {"ok": True}

    @srv.tool(description="Delete a note.")
    def delete_note(note_id: str) -> dict[str, Any]:
        d = st.item(note_id, "note")
        st.write("DELETE FROM items WHERE id = ?", (d["id"],))
        return {"ok": True}


def _mail_tools(srv: Any, st: _Store) -> None:
    @srv.tool(description="The signed-in account: its user id and name.")
    def whoami() -> dict[str, Any]:
        return {"id": st.me, "name": st.name(st.me)}

    @srv.tool(description="The mail folders (id, name).")
    def list_folders() -> dict[str, Any]:
        return {"folders": st.spaces()}

    @srv.tool(description="Mails of a folder, ordered by id (sender, time, subject, unread flag).")
    def list_mail(folder_id: str) -> dict[str, Any]:
        sid, name, _ = st.space(folder_id, "folder")
        return {"folder": name, "mails": [{k: v for k, v in m.items() if k != "body"} for m in st.listing(sid)]}

    @srv.tool(description="Open one mail in full; marks it read.")
    def read_mail(mail_id: str) -> dict[str, Any]:
        d = st.item(mail_id, "mail")
        st.write("UPDATE items SET unread = 0 WHERE id = ?", (d["id"],))
        return d | {"unread": False}

    @srv.tool(description="Reply to a mail; the reply goes to its sender and is filed in Sent.")
    def reply_mail(mail_id: str, body: str) -> dict[str, Any]:
        d = st.item(mail_id, "mail")
        if d["author_id"] == st.me:
            _refuse(f"invalid_argument: {d['id']} was sent by the account; reply to a received mail")
        sent = next(s["id"] for s in st.spaces() if s["name"] == "Sent")
        return {"id": st.insert(space_id=sent, title=f"Re: {d['title']}", body=_text(body, "body"),
                                recipient_id=d["author_id"], parent_id=d["id"]), "ok": True}

    @srv.tool(description="Move a mail to another folder.")
    def move_mail(mail_id: str, folder_id: str) -> dict[str, Any]:
        d = st.item(mail_id, "mail")
        sid, _, _ = st.space(folder_id, "folder")
        if sid == d["space_id"]:
            _refuse(f"conflict: {d['id']} is already in {folder_id}")
        st.write("UPDATE items SET space_id = ? WHERE id = ?", (sid, d["id"]))
        return {"ok": True}

    @srv.tool(description="Contacts whose name contains the query (id, name).")
    def find_contact(name: str) -> dict[str, Any]:
        q = _text(name, "name").lower()
        return {"contacts": [{"id": i, "name": n} for i, n in st.rows("SELECT id, name FROM users ORDER BY id")
                             if q in str(n).lower() and i != st.me]}


_BUILDERS = {"chat": _chat_tools, "forum": _forum_tools, "notes": _notes_tools, "mail": _mail_tools}


def build_server(app: str, *, db: sqlite3.Connection | str | os.PathLike[str]) -> Any:
    """[P38] The simulated MCP server of ``app`` (``chat``, ``forum``, ``notes``, ``mail``; 7-8 tools each) over the
    persona database ``db``: an open ``sqlite3.Connection`` (in-process use) or the path of a database file (opened
    for every call, so that a stdio server sees the file as the caller left it). Returns an ``mcp`` ``MCPServer``.

    Tools act for the account stored in the database's ``meta`` table; refusals are MCP error results (module doc).
    """
    app = choice(app, "app", list(APPS))
    if not isinstance(db, (sqlite3.Connection, str, os.PathLike)):
        raise TypeError(f"db must be a sqlite3.Connection or a path, got {type(db).__name__}")
    if not isinstance(db, sqlite3.Connection) and not Path(db).is_file():
        raise ValueError(f"db: no database file at {os.fspath(db)!r}")
    from mcp.server.mcpserver import MCPServer

    st = _Store(db, app)
    with _no_root_handlers():
        srv = MCPServer(f"{app}-sim", instructions=f"A simulated {app} app signed in as {st.me}.", log_level="WARNING")
    _BUILDERS[app](srv, st)
    return srv
