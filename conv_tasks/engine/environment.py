"""Everything a piece of the engine needs from the outside world, in one plain object.

The engine finds nothing in a global: the database, the SyncPoint store, the dispatcher,
the registry, the stores the resource types act through and the definitions cache all
come in here. Three services are callbacks, so that the node path needs nothing above it:
`end_traversal` (the stack's SyncPoint completed: finish the operation),
`resume_traversal` (a node found that PostgreSQL lost writes its SyncPoints count on:
resume the operation from the database) and `children` (the nested-stack service plugins
and the node path use). conv_tasks.engine.assembly
builds an environment for a process; tests build one with stand-ins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from conv_tasks.connections import Connections
from conv_tasks.constraints import ConstraintCheckers, installed_checkers
from conv_tasks.deployments import DeploymentStore
from conv_tasks.graph import NodeKey
from conv_tasks.resources import ChildStacks, Registry, Sandbox
from conv_tasks.settings import Settings
from conv_tasks.syncpoint import SyncPointStore
from conv_tasks.waitconditions import WaitHandleStore

if TYPE_CHECKING:
    from conv_tasks.db import Database
    from conv_tasks.engine.definition import Definitions
    from conv_tasks.engine.dispatch import Dispatcher


class TraversalEnd(Protocol):
    def __call__(
        self, env: EngineEnv, stack_id: str, traversal: str, inputs: Mapping[str, Any]
    ) -> None:
        """The stack's own SyncPoint completed with `inputs`: end the stack's operation."""


class TraversalResume(Protocol):
    def __call__(
        self, env: EngineEnv, stack_id: str, traversal: str, lost: Sequence[NodeKey], where: str
    ) -> None:
        """PostgreSQL lost what the nodes `lost` wrote, though the traversal's SyncPoints say
        they finished (`where`: how that was found): resume the operation from the database."""


@dataclass
class EngineEnv:
    settings: Settings
    db: Database
    syncpoints: SyncPointStore
    dispatcher: Dispatcher
    registry: Registry
    definitions: Definitions
    sandbox: Sandbox
    deployments: DeploymentStore
    wait_handles: WaitHandleStore
    end_traversal: TraversalEnd
    resume_traversal: TraversalResume
    # The named connections resource types act through (none unless configured).
    connections: Connections = field(default_factory=Connections)
    # The custom constraint checkers requests are checked with (conv_tasks.constraints), and
    # whether a constraint without one is refused (CONV_TASKS_STRICT_CONSTRAINTS).
    constraints: ConstraintCheckers = field(default_factory=installed_checkers)
    # Set once the environment exists (the service reaches the engine through it).
    children: ChildStacks | None = None

    def child_stacks(self) -> ChildStacks:
        if self.children is None:
            raise RuntimeError("this engine environment has no nested-stack service")
        return self.children
