"""What PostgreSQL's catalogs say of one database or one role, read by name.

Reads only, with bind parameters. pg_roles is read, never pg_authid: a password (even its
verifier) is never selected. A membership is listed once, however many grantors it has
(PostgreSQL 16 keeps one row per grantor).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FoundDatabase:
    oid: int
    name: str
    owner: str
    encoding: str
    comment: str | None


@dataclass(frozen=True)
class FoundRole:
    oid: int
    name: str
    login: bool
    member_of: tuple[str, ...]  # the roles it is a member of, by name, sorted
    comment: str | None


_DATABASE = """
SELECT d.oid, d.datname, pg_get_userbyid(d.datdba), pg_encoding_to_char(d.encoding),
       shobj_description(d.oid, 'pg_database')
FROM pg_database d WHERE d.datname = %s
"""

_ROLE = """
SELECT r.oid, r.rolname, r.rolcanlogin,
       ARRAY(SELECT DISTINCT g.rolname FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
             WHERE m.member = r.oid ORDER BY g.rolname),
       shobj_description(r.oid, 'pg_authid')
FROM pg_roles r WHERE r.rolname = %s
"""


def find_database(conn: Any, name: str) -> FoundDatabase | None:
    row = conn.execute(_DATABASE, (name,)).fetchone()
    if row is None:
        return None
    oid, found, owner, encoding, comment = row
    return FoundDatabase(int(oid), found, owner, encoding, comment)


def find_role(conn: Any, name: str) -> FoundRole | None:
    row = conn.execute(_ROLE, (name,)).fetchone()
    if row is None:
        return None
    oid, found, login, member_of, comment = row
    return FoundRole(int(oid), found, bool(login), tuple(member_of), comment)
