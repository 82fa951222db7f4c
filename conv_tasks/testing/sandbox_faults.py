"""The service_faults hook of types that act on the sandbox cloud (OS::Heat::TestResource's).

The sandbox is conv_tasks' own test cloud, kept in its database; it misbehaves when the
fault plan file CONV_TASKS_SANDBOX_FAULTS names exists (conv_tasks.resources.sandbox_faults).
The kit's cluster names a file of its own for its workers and its in-process engine, and
writes the plan there while the checks run.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from conv_tasks.testing.case import ServiceFaults
from conv_tasks.testing.fault_plan import FaultPlan

if TYPE_CHECKING:
    from conv_tasks.testing.cluster import Cluster


def sandbox_faults(plan: FaultPlan | None = None) -> ServiceFaults:
    """A TypeCase.service_faults hook: while it is on, the sandbox throttles and fails its
    calls as `plan` says (by default FaultPlan(): one in 15 throttled, one in 25 failed)."""
    chosen = plan or FaultPlan()

    def turned_on(cluster: Cluster) -> AbstractContextManager[object]:
        return cluster.sandbox_faults(chosen)

    return turned_on
