"""Persona trees of [P38] (Context-Tree + Persona-Gen, reconstructed): one account, its contacts, and per simulated
app the spaces it sees and the items in them, written to a SQLite database that the MCP servers read and change.

The tree is account -> app -> space (channel, forum, notebook, mail folder) -> item (message, post, note, mail).
Items get ids in a random order unrelated to their time stamps, so that "my latest post" cannot be read off an id.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.common.validation import int_at_least
from icml26.common.validation import seed as check_seed

__all__ = ["APPS", "Item", "Persona", "Space", "User", "generate_persona", "persona_db", "snapshot", "fmt_time"]

#: the simulated apps (one MCP server each) and the id prefix of their items
APPS: tuple[str, ...] = ("chat", "forum", "notes", "mail")
ITEM_PREFIX = {"chat": "m", "forum": "p", "notes": "n", "mail": "e"}
SPACE_PREFIX = {"chat": "ch", "forum": "fr", "notes": "nb", "mail": "fd"}

_NAMES = ("Alice Moreau", "Bilal Khan", "Chen Wei", "Dara Okafor", "Elena Petrova", "Farid Haddad", "Greta Lind",
          "Hiro Tanaka", "Ines Duarte", "Jonas Berg", "Kiri Walker", "Lena Vogel")
_SPACES = {
    "chat": ("general", "design", "ops", "reading-club", "travel", "random"),
    "forum": ("r/cooking", "r/python", "r/hiking", "r/boardgames", "r/photography"),
    "notes": ("Recipes", "Work", "Travel plans", "Reading", "Ideas"),
}
_WORDS = ("budget", "garden", "sprint", "river", "lantern", "recipe", "meeting", "draft", "summit", "ticket", "orange",
          "meadow", "camera", "puzzle", "harbor", "festival", "ledger", "window", "pepper", "compass", "violin",
          "glacier", "market", "paper", "signal", "forest", "rocket", "castle", "bridge", "cookie")
_T0 = 1_767_225_600 // 60  # 2026-01-01 00:00 UTC, in minutes


@dataclass(frozen=True)
class User:
    """[P38] A user of the persona tree: the account owner or one of their contacts."""

    id: str
    name: str


@dataclass(frozen=True)
class Space:
    """[P38] A space of one app (channel, forum, notebook, mail folder); ``members`` may post in it."""

    id: str
    app: str
    name: str
    members: tuple[str, ...]


@dataclass(frozen=True)
class Item:
    """[P38] A leaf of the persona tree: a message, post, note or mail (``ts`` in minutes)."""

    id: str
    app: str
    space_id: str
    author_id: str
    ts: int
    title: str
    body: str
    recipient_id: str = ""
    parent_id: str = ""
    unread: int = 0


@dataclass(frozen=True)
class Persona:
    """[P38] Context-Tree: the account ``me``, its ``contacts``, the spaces of each app and their items."""

    me: User
    contacts: tuple[User, ...]
    spaces: tuple[Space, ...]
    items: tuple[Item, ...]

    def user(self, uid: str) -> User:
        """The user with id ``uid``."""
        return next(u for u in (self.me, *self.contacts) if u.id == uid)

    def space(self, sid: str) -> Space:
        """The space with id ``sid``."""
        return next(s for s in self.spaces if s.id == sid)

    def tree(self) -> dict[str, Any]:
        """The nested view: ``{"account", "contacts", "apps": {app: {space name: [item ids]}}}``."""
        apps: dict[str, Any] = {a: {} for a in APPS}
        for s in self.spaces:
            apps[s.app][s.name] = [i.id for i in self.items if i.space_id == s.id]
        return {"account": self.me.name, "contacts": [c.name for c in self.contacts], "apps": apps}


def fmt_time(ts: int) -> str:
    """[P38] A time stamp (minutes since the epoch) as ``YYYY-MM-DD HH:MM`` (UTC)."""
    import datetime as _dt

    return _dt.datetime.fromtimestamp(ts * 60, tz=_dt.UTC).strftime("%Y-%m-%d %H:%M")


def _phrase(g: np.random.Generator, k: int) -> str:
    return " ".join(str(w) for w in g.choice(_WORDS, size=k, replace=False))


def _spaces(g: np.random.Generator, me: User, contacts: tuple[User, ...], per_app: int) -> list[Space]:
    out: list[Space] = []
    everyone = (me.id, *(c.id for c in contacts))
    for app in ("chat", "forum", "notes"):
        names = g.choice(_SPACES[app], size=per_app, replace=False)
        for k, name in enumerate(names):
            if app == "notes":
                members: tuple[str, ...] = (me.id,)
            elif app == "chat" and k == per_app - 1:  # one channel the account only reads: posting is refused
                members = tuple(c.id for c in contacts)
            else:
                members = everyone
            out.append(Space(f"{SPACE_PREFIX[app]}_{k + 1:02d}", app, str(name), members))
    for k, name in enumerate(("Inbox", "Archive", "Sent")):
        out.append(Space(f"fd_{k + 1:02d}", "mail", name, (me.id,)))
    return out


def _authors(g: np.random.Generator, s: Space, me: User, contacts: tuple[User, ...], n: int) -> list[str]:
    if s.app == "notes" or s.name == "Sent":
        return [me.id] * n
    if s.app == "mail":
        return [str(x) for x in g.choice([c.id for c in contacts], size=n)]
    pool = [me.id, me.id, *(c.id for c in contacts)] if me.id in s.members else [c.id for c in contacts]
    return [str(x) for x in g.choice(pool, size=n)]


def generate_persona(*, seed: int, n_contacts: int = 5, spaces_per_app: int = 3, items_per_space: int = 6
                     ) -> Persona:
    """[P38] Persona-Gen (reconstructed): a random persona tree from ``seed``.

    Args:
        seed: the seed of every draw (names, spaces, authors, times, texts).
        n_contacts: contacts besides the account (2..11).
        spaces_per_app: channels, forums and notebooks per app (2..5); mail always has Inbox, Archive, Sent.
        items_per_space: items per space (2..40).
    """
    s = check_seed(seed)
    n_c = int_at_least(n_contacts, "n_contacts", 2, hi=len(_NAMES) - 1)
    n_s = int_at_least(spaces_per_app, "spaces_per_app", 2, hi=5)
    n_i = int_at_least(items_per_space, "items_per_space", 2, hi=40)
    g = np.random.default_rng(s)
    names = [str(x) for x in g.choice(_NAMES, size=n_c + 1, replace=False)]
    me = User("u_00", names[0])
    contacts = tuple(User(f"u_{k:02d}", n) for k, n in enumerate(names[1:], start=1))
    spaces = _spaces(g, me, contacts, n_s)
    drafts: list[tuple[Space, str, int, str, str]] = []
    for sp in spaces:
        authors = _authors(g, sp, me, contacts, n_i)
        times = np.sort(g.choice(60 * 24 * 90, size=n_i, replace=False)) + _T0
        for a, t in zip(authors, times):
            drafts.append((sp, a, int(t), _phrase(g, 3).capitalize(), _phrase(g, 6)))
    counters = {app: g.permutation(sum(d[0].app == app for d in drafts)) for app in APPS}
    used = {app: 0 for app in APPS}
    items = []
    for sp, a, t, title, body in drafts:
        num = int(counters[sp.app][used[sp.app]]) + 1
        used[sp.app] += 1
        recipient = me.id if sp.name in ("Inbox", "Archive") else (
            str(g.choice([c.id for c in contacts])) if sp.name == "Sent" else "")
        unread = int(sp.name == "Inbox" and g.random() < 0.5)
        items.append(Item(f"{ITEM_PREFIX[sp.app]}_{num:04d}", sp.app, sp.id, a, t,
                          "" if sp.app == "chat" else title, body, recipient, "", unread))
    return Persona(me, contacts, tuple(spaces), tuple(sorted(items, key=lambda i: i.id)))


SCHEMA = """
CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE spaces (id TEXT PRIMARY KEY, app TEXT NOT NULL, name TEXT NOT NULL);
CREATE TABLE members (space_id TEXT NOT NULL, user_id TEXT NOT NULL);
CREATE TABLE items (id TEXT PRIMARY KEY, app TEXT NOT NULL, space_id TEXT NOT NULL, author_id TEXT NOT NULL,
                    ts INTEGER NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, recipient_id TEXT NOT NULL,
                    parent_id TEXT NOT NULL, unread INTEGER NOT NULL);
CREATE TABLE reactions (item_id TEXT NOT NULL, user_id TEXT NOT NULL, emoji TEXT NOT NULL);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def persona_db(persona: Persona, path: str = ":memory:") -> sqlite3.Connection:
    """[P38] The persona tree as a SQLite database at ``path`` (default in memory); returns the open connection.

    Tables: ``users``, ``spaces``, ``members``, ``items``, ``reactions``, and ``meta`` (the account's user id).
    """
    if not isinstance(persona, Persona):
        raise TypeError(f"persona must be a Persona, got {type(persona).__name__}")
    if not isinstance(path, str) or not path:
        raise TypeError(f"path must be a non-empty str, got {path!r}")
    con = sqlite3.connect(path, check_same_thread=False)
    con.executescript(SCHEMA)
    con.executemany("INSERT INTO users VALUES (?, ?)", [(u.id, u.name) for u in (persona.me, *persona.contacts)])
    con.executemany("INSERT INTO spaces VALUES (?, ?, ?)", [(s.id, s.app, s.name) for s in persona.spaces])
    con.executemany("INSERT INTO members VALUES (?, ?)", [(s.id, m) for s in persona.spaces for m in s.members])
    con.executemany("INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(i.id, i.app, i.space_id, i.author_id, i.ts, i.title, i.body, i.recipient_id, i.parent_id,
                      i.unread) for i in persona.items])
    con.execute("INSERT INTO meta VALUES ('me', ?)", (persona.me.id,))
    con.commit()
    return con


def snapshot(con: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
    """[P38] The whole database state: table -> sorted rows (what success predicates compare)."""
    if not isinstance(con, sqlite3.Connection):
        raise TypeError(f"con must be a sqlite3.Connection, got {type(con).__name__}")
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return {t: sorted(tuple(r) for r in con.execute(f"SELECT * FROM {t}")) for t in tables}  # noqa: S608
