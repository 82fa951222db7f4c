"""One database, handed to whoever needs it: transactions of named repositories, node stores.

The engine never opens a session or builds SQL: it is given a Database (through its
environment) and asks it for a transaction, whose repositories read frozen values and write
with named operations, or for the node store of one node delivery. A transaction commits
when its block ends and rolls back when the block raises.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

from conv_tasks.db.deployments import DeploymentRecords
from conv_tasks.db.events import Events
from conv_tasks.db.nodes import NodeStore
from conv_tasks.db.operations import Operations
from conv_tasks.db.overview import Overview
from conv_tasks.db.purge import Purges
from conv_tasks.db.resources import ResourceVersions
from conv_tasks.db.session import node_connection, session_scope
from conv_tasks.db.stacks import Stacks
from conv_tasks.db.templates import Templates
from conv_tasks.db.wait_handles import HandleRecords
from conv_tasks.secrets_at_rest import Sealer


class Transaction:
    """The repositories of one transaction."""

    def __init__(self, session: Session, sealer: Sealer) -> None:
        self.stacks = Stacks(session)
        self.templates = Templates(session, sealer)
        self.resources = ResourceVersions(session, sealer)
        self.events = Events(session)
        self.deployments = DeploymentRecords(session, sealer)
        self.handles = HandleRecords(session)
        self.purges = Purges(session)
        self.operations = Operations(session)
        self.overview = Overview(session)


class Database:
    """The PostgreSQL database at `url`. `sealer` seals and opens the columns that may hold a
    secret (conv_tasks.db.sealed_columns) with the keys of CONV_TASKS_ENCRYPTION_KEYS; the
    callers never see a sealed value."""

    def __init__(self, url: str, *, sealer: Sealer) -> None:
        self.url = url
        self.sealer = sealer

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        with session_scope(self.url) as session:
            yield Transaction(session, self.sealer)

    def answers(self) -> bool:
        """Whether the database answers a trivial query (the health check)."""
        with self.transaction() as tx:
            return tx.stacks.answers()

    @contextmanager
    def node_store(
        self,
        *,
        stack_id: str,
        traversal: str,
        template_id: int,
        nonce: str,
        continues: str | None = None,
    ) -> Iterator[NodeStore]:
        """The repository of one node delivery, on one autocommit connection."""
        with node_connection(self.url) as conn:
            yield NodeStore(
                conn,
                stack_id=stack_id,
                traversal=traversal,
                template_id=template_id,
                nonce=nonce,
                continues=continues,
                sealer=self.sealer,
            )
