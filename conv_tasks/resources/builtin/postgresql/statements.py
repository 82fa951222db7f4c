"""The statements the PostgreSQL types send, composed with psycopg.sql. Pure.

Names are quoted as identifiers and values as literals by psycopg, never pasted into the
text: DDL takes no bind parameters, so a literal is the only way a value reaches it. A
password never does: a role is given a verifier (SCRAM or MD5) that the client computed,
which PostgreSQL stores as it is, so no statement, server log or error holds the password.
"""

from __future__ import annotations

from psycopg import sql

# Every database is copied from template0, the pristine template: any encoding can be
# asked for (template1 may hold another, or extensions nobody asked for).
TEMPLATE = "template0"
# Bounds of each statement of a step, set on the session while the step acts: a lock held
# elsewhere or a slow server makes the step Transient instead of holding a worker.
BOUNDS = sql.SQL("SET lock_timeout = '2s'; SET statement_timeout = '30s'")
UNBOUNDED = sql.SQL("RESET lock_timeout; RESET statement_timeout")


def create_database(name: str, owner: str | None, encoding: str) -> sql.Composed:
    owned = sql.SQL(" OWNER {}").format(sql.Identifier(owner)) if owner else sql.SQL("")
    return sql.SQL("CREATE DATABASE {}{} ENCODING {} TEMPLATE {}").format(
        sql.Identifier(name), owned, sql.Literal(encoding), sql.Identifier(TEMPLATE)
    )


def comment_on_database(name: str, comment: str) -> sql.Composed:
    return sql.SQL("COMMENT ON DATABASE {} IS {}").format(
        sql.Identifier(name), sql.Literal(comment)
    )


def rename_database(old: str, new: str) -> sql.Composed:
    return sql.SQL("ALTER DATABASE {} RENAME TO {}").format(
        sql.Identifier(old), sql.Identifier(new)
    )


def database_owner(name: str, owner: str | None) -> sql.Composed:
    """Give the database to `owner` (None: the connection's own role)."""
    to = sql.Identifier(owner) if owner else sql.SQL("CURRENT_USER")
    return sql.SQL("ALTER DATABASE {} OWNER TO {}").format(sql.Identifier(name), to)


def drop_database(name: str) -> sql.Composed:
    """Drop it even while sessions are connected (PostgreSQL 13 and later end them)."""
    return sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))


def create_role(name: str, login: bool, verifier: str | None) -> sql.Composed:
    return sql.SQL("CREATE ROLE {} {} PASSWORD {}").format(
        sql.Identifier(name), _login(login), sql.Literal(verifier)
    )


def alter_role(name: str, login: bool, verifier: str | None) -> sql.Composed:
    return sql.SQL("ALTER ROLE {} {} PASSWORD {}").format(
        sql.Identifier(name), _login(login), sql.Literal(verifier)
    )


def comment_on_role(name: str, comment: str) -> sql.Composed:
    return sql.SQL("COMMENT ON ROLE {} IS {}").format(sql.Identifier(name), sql.Literal(comment))


def grant_membership(group: str, member: str) -> sql.Composed:
    return sql.SQL("GRANT {} TO {}").format(sql.Identifier(group), sql.Identifier(member))


def revoke_membership(group: str, member: str) -> sql.Composed:
    return sql.SQL("REVOKE {} FROM {}").format(sql.Identifier(group), sql.Identifier(member))


def drop_role(name: str) -> sql.Composed:
    return sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name))


def _login(login: bool) -> sql.SQL:
    return sql.SQL("LOGIN" if login else "NOLOGIN")
