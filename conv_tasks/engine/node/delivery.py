"""One delivery of a graph node task: what every step of an update or clean-up node shares.

A delivery holds one database connection, its lease nonce, what its claim
found, and the payloads it will publish at the end in one batch (the
successors it triggers and the nodes that waited for a lease it released).
It never decides what to do with a resource: converge.py and cleanup.py do.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from conv_tasks.db import Claim, NodeEvent, NodeStore, ResourceVersion, Written
from conv_tasks.engine.definition import StackDefinition, plugin_type, registries_of
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.node.propagate import hand_on
from conv_tasks.engine.payload import NodeOutput, NodeTask, waiter_ref, woken_payload
from conv_tasks.errors import NotFound
from conv_tasks.graph import NodeKey, Phase
from conv_tasks.resources import Registry, ResourceType
from conv_tasks.statuses import Action, Status
from conv_tasks.syncpoint import FinishOutcome

log = logging.getLogger(__name__)


class Outcome(StrEnum):
    """What one delivery of a node did, for logs and tests."""

    COMPLETE = "complete"  # an action finished and the successors were handed the result
    NOOP = "noop"  # the resource was converged already
    CLEANED = "cleaned"  # the clean-up purged what it had to (possibly nothing)
    POLLING = "polling"  # an action is under way; the node polls it again later
    FAILED = "failed"  # the action failed; the successors were handed the failure
    SKIPPED = "skipped"  # a predecessor failed: the failure was handed on, nothing done
    WAITING = "waiting"  # another node holds the resource; it wakes this one when it lets go
    WOKEN_ALREADY = "woken-already"  # a recheck of a wait that had ended: nothing to do
    RETRY = "retry"  # lost a race for the resource; the node runs again shortly
    SUPERSEDED = "superseded"  # a newer traversal owns the stack: stopped
    STACK_GONE = "stack-gone"  # the stack no longer exists
    # Finished an action an older traversal began (its worker died) for another definition
    # than this traversal's, or a delete: the node is delivered again to converge afresh.
    TAKEN_OVER = "taken-over"
    LOST_LEASE = "lost-lease"  # the lease expired mid-action and another node took over


class NodeRun:
    """The state of one node delivery; its methods are the steps converge and clean-up share."""

    def __init__(self, env: EngineEnv, store: NodeStore, task: NodeTask, nonce: str) -> None:
        self.env = env
        self.store = store
        self.task = task
        self.nonce = nonce
        self.name = task.node.name
        self.current = False
        self.tenant = ""  # the stack's tenant, once claimed
        self.outbox: list[dict[str, Any]] = []
        self._definition: StackDefinition | None = None
        # The database's clock as the claim read it: now(), whatever this host's clock says.
        self._now: datetime | None = None

    @property
    def ttl(self) -> float:
        return self.env.settings.lock_ttl

    def definition(self) -> StackDefinition:
        """The traversal's stack definition (cached per process; read only on a miss)."""
        if self._definition is None:
            self._definition = self.env.definitions.get(self.task.template_id, self.store.template)
        return self._definition

    def plugin(self, version: ResourceVersion) -> ResourceType:
        """The plugin that acts on `version`: a provider template's class comes from the
        definition of the version's own template, else of the traversal's (read only for
        resources whose type is a provider template)."""

        def own() -> Registry | None:
            if version.template_id is None:
                return None
            return self.env.definitions.get(version.template_id, self.store.template).types

        def traversal() -> Registry | None:
            return self.definition().types

        cls = plugin_type(self.env.registry, version.type, lambda: registries_of(own, traversal))
        return cls()

    def redact(self, text: str) -> str:
        """`text` with the stack's hidden values masked."""
        try:
            return self.definition().reason(self.name, text)
        except NotFound:
            # The template went with its superseded traversal: nothing says what to hide.
            return "the action failed (its details are withheld: the template is gone)"

    def claim(self, *, cleanup: bool, in_template: bool) -> Claim:
        claim = self.store.claim(
            self.name,
            cleanup=cleanup,
            in_template=in_template,
            ttl=self.ttl,
            waiter=waiter_ref(self.task),
        )
        self.current = claim.stack is not None and claim.stack.current
        if claim.stack is not None:
            self.tenant = claim.stack.tenant
        if claim.now is not None:
            self._now = claim.now
        return claim

    def now(self) -> datetime:
        """The delivery's time: PostgreSQL's clock as it claimed. Every deadline and action
        start is decided and written by it, so a worker host whose clock runs ahead never
        times an action or a stack out early, nor one running behind late (issue 23, clock
        skew). One instant for the whole delivery (a step is bounded by its budget), so that
        an action's start is never later than the next delivery's claim. Before a claim (or
        with a store that does not give it): this host's clock."""
        return datetime.now(UTC) if self._now is None else self._now

    def write(
        self,
        version: ResourceVersion,
        fields: Mapping[str, Any],
        events: Sequence[NodeEvent] = (),
        *,
        release: bool = True,
        ttl: float = 0.0,
        purge: int | None = None,
    ) -> Written:
        written = self.store.write(
            version, fields, events, release=release, ttl=ttl or self.ttl, purge=purge
        )
        self.wake(written.woken)
        return written

    def wake(self, refs: Iterable[str]) -> None:
        """Enqueue (with the rest of this delivery's messages) the nodes that waited for us.

        A delivery of this very node that waited for us is not woken: we hand its successors
        on ourselves, and woken it would only trigger them again, and they theirs.
        """
        own = waiter_ref(self.task)
        for ref in refs:
            if ref == own:
                continue
            payload = woken_payload(self.task.stack_id, ref, self.task.stack)
            if payload is None:
                log.warning("stack %s: unreadable waiter %r dropped", self.task.stack_id, ref)
            else:
                self.outbox.append(payload)

    def hand_on(
        self, output: NodeOutput, *, settled: Iterable[NodeKey] = (), acted: bool = False
    ) -> None:
        """Give the successors this node's output, if the traversal is still ours.

        `acted`: this delivery finished an action the database said was still to do. If the
        node's SyncPoint says it had finished before, PostgreSQL lost the write that said so
        (a failover to a standby behind it), and its successors may have run on what Redis
        kept: the operation is resumed from the database instead of trusting Redis."""
        if not self.current:
            return
        handoff = hand_on(self.env, self.task, output, settled=settled, also=self.outbox)
        self.outbox = []
        if acted and handoff.outcome == FinishOutcome.REPEAT:
            where = f"as node {self.task.node} finished again"
            self.env.resume_traversal(
                self.env, self.task.stack_id, self.task.traversal, [self.task.node], where
            )

    def fail_unclaimed(self, reason: str) -> Outcome:
        """Fail the node where there is no version of the resource to write the failure on."""
        self.store.event(self.name, Action.UPDATE, Status.FAILED, reason)
        self.hand_on(NodeOutput(failed=(f"{self.name}: {reason}",)), settled=self.own_cleanup())
        return Outcome.FAILED

    def own_cleanup(self) -> tuple[NodeKey, ...]:
        """This resource's clean-up node, for an update node to declare settled."""
        return (NodeKey(Phase.CLEANUP, self.name),)

    def poll_later(self, after: float) -> Outcome:
        """Come back to check the action under way, holding on to our lease."""
        self.env.syncpoints.heartbeat(self.task.traversal, str(self.task.node))
        again = self.task.again(nonce=self.nonce, poll=self.task.poll + 1, attempt=0)
        self.env.dispatcher.node(again.to_payload(), countdown=after)
        return Outcome.POLLING

    def recheck_later(self) -> Outcome:
        """We are recorded as a waiter; run again after a lease's life in case the holder
        died without letting go (that delivery does nothing if we were woken meanwhile)."""
        fresh = self.task.again(nonce=None, poll=False, attempt=0, recheck=True)
        self.env.dispatcher.node(fresh.to_payload(), countdown=self.ttl)
        return Outcome.WAITING

    def retry_soon(self) -> Outcome:
        """Lost a race for the resource between reading and locking: run again shortly."""
        fresh = self.task.again(nonce=None, poll=False, attempt=0, recheck=False)
        self.env.dispatcher.node(fresh.to_payload(), countdown=self.env.settings.poll_interval)
        return Outcome.RETRY

    def flush(self) -> None:
        """Publish whatever is still waiting in the outbox, in one batch."""
        if self.outbox:
            self.env.dispatcher.nodes(self.outbox)
            self.outbox = []
