"""The checks of a resource's life on the real workers: create, observe, preview, update in
place, replace, delete, delete again.

One stack of the case goes through its life over the broker, as a user's would (the tenant's
Client); what the type's `observe` says is read in the test process, with the context a
node would give it. The stack's names are its own (TypeCase.unique). The kit's observes and
previews are asked again while the service puts them off (retries.py): a check fails on what
the type did, and says so, not on a passing 429 or 503. Each check returns what it saw when
it passes, and raises CheckFailed (the step, what it saw) or NotApplicable. Property values
are never shown (one may be a secret): only their names.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from conv_tasks.db import ResourceVersion
from conv_tasks.sdk import Throttled, Transient
from conv_tasks.testing.case import UNDER_TEST, TypeCase, unique_suffix
from conv_tasks.testing.cluster import Cluster
from conv_tasks.testing.inprocess import InProcessEngine
from conv_tasks.testing.report import CheckFailed, NotApplicable


def stack_name(case: TypeCase, purpose: str) -> str:
    slug = "".join(c if c.isalnum() else "-" for c in case.type_name.lower()).strip("-")
    return f"kit-{slug}-{purpose}-{uuid.uuid4().hex[:6]}"


class Lifecycle:
    """One stack of the case, driven through its life by the cluster's workers."""

    def __init__(self, cluster: Cluster, case: TypeCase, engine: InProcessEngine) -> None:
        self.cluster = cluster
        self.case = case.unique(unique_suffix())
        self.engine = engine
        self.client = cluster.client(case.tenant)
        self.stack_id: str | None = None
        self.physical_id: str | None = None
        self.properties: Mapping[str, Any] = self.case.properties
        self.last_head: ResourceVersion | None = None
        self.deleted = False
        # Every show of the resource, for the secrets check.
        self.shown: list[str] = []

    # ------------------------------------------------------------ the checks

    def create(self) -> str:
        # No rollback: a failure stays as it happened, for the report and for a look at it.
        created = self.client.create(
            stack_name(self.case, "life"),
            self.case.template(self.case.properties),
            disable_rollback=True,
        )
        self.stack_id = str(created["stack_id"])
        self._operation("CREATE", "stack create")
        self.physical_id = self._resource()["physical_id"]
        return f"the stack is CREATE_COMPLETE; physical id {self.physical_id}"

    def observe_after_create(self) -> str:
        return self._observed_as_stored("observe")

    def preview_after_apply(self) -> str:
        self._unchanged("preview")
        return "preview says every resource is unchanged, reality included"

    def update_in_place(self) -> str:
        if self.case.update_in_place is None:
            raise NotApplicable("the case gives no update_in_place (the type has none)")
        before = self.physical_id
        after = self._update(self.case.changed(self.case.update_in_place), "update")
        if after != before:
            raise CheckFailed(
                "update", f"preview said update, but the physical id changed from {before} to "
                f"{after}"
            )  # fmt: skip
        return f"preview said update; physical id {after} kept; " + self._after_update()

    def replacement(self) -> str:
        if self.case.update_replace is None:
            raise NotApplicable("the case gives no update_replace (no change replaces the type)")
        old = self._head()
        after = self._update(self.case.changed(self.case.update_replace), "replace")
        if after == old.physical_id:
            raise CheckFailed("update", f"preview said replace, but the physical id stayed {after}")
        detail = self._after_update()
        if self.engine.can_observe():
            observed = self.engine.observe(self._stack(), old, "observe the replaced object")
            if observed is not None and observed.exists:
                raise CheckFailed(
                    "observe the replaced object",
                    f"the type's observe finds object {old.physical_id} still there after its "
                    "replacement: its delete of the replaced version left it",
                )
            detail += f"; the replaced object {old.physical_id} is gone"
        return f"preview said replace; physical id {old.physical_id} -> {after}; " + detail

    def delete(self) -> str:
        self.last_head = self._head()
        self.client.delete(self._stack())
        self._operation("DELETE", "stack delete")
        self.deleted = True
        return "the stack is DELETE_COMPLETE"

    def observe_after_delete(self) -> str:
        head = self._last_head()
        observed = self._observe(head)
        if observed.exists:
            raise CheckFailed(
                "observe",
                f"the type's observe finds object {head.physical_id} still there after the "
                "stack's delete: the delete left it, or observe does not see that it is gone",
            )
        return f"observe says object {head.physical_id} is gone"

    def delete_twice(self) -> str:
        head = self._last_head()
        step = self.engine.delete_again(self._stack(), head)
        if step.failed is not None:
            raise CheckFailed("delete again", f"the second delete failed: {step.failed}")
        return f"a second delete of object {head.physical_id} (the same token) ends done"

    # ------------------------------------------------------------ steps

    def _stack(self) -> str:
        if self.stack_id is None:
            raise CheckFailed("read", "the stack was never created")
        return self.stack_id

    def _operation(self, action: str, step: str) -> None:
        final = self.cluster.wait(self.case, self.client, self._stack(), action)
        wanted = f"{action}_COMPLETE"
        if final["status"] != wanted:
            raise CheckFailed(step, f"the stack ended {final['status']}: {self._reason(final)}")

    def _reason(self, stack: Mapping[str, Any]) -> str:
        try:
            resource = self._resource()
        except CheckFailed:
            return str(stack.get("status_reason") or "no reason given")
        return f"{UNDER_TEST} is {resource['status']}: {resource['status_reason'] or '-'}"

    def _resource(self) -> dict[str, Any]:
        for resource in self.client.resources(self._stack()):
            if resource["name"] == UNDER_TEST:
                return resource
        raise CheckFailed("read", f"the stack has no resource {UNDER_TEST}")

    def _head(self) -> ResourceVersion:
        return self.engine.head(self._stack())

    def _last_head(self) -> ResourceVersion:
        if self.last_head is None:
            raise CheckFailed("read", "the stack was never deleted")
        return self.last_head

    def _observe(self, head: ResourceVersion, step: str = "observe") -> Any:
        if not self.engine.can_observe():
            raise NotApplicable("the type does not implement observe")
        observed = self.engine.observe(self._stack(), head, step)
        if observed is None:
            raise NotApplicable("the type's observe returned None (it cannot observe)")
        return observed

    def _observed_as_stored(self, step: str) -> str:
        head = self._head()
        self.shown.append(repr(self.client.resource(self._stack(), UNDER_TEST)))
        observed = self._observe(head, step)
        if not observed.exists:
            raise CheckFailed(
                step, f"the type's observe says object {head.physical_id} does not exist"
            )
        drift = observed.differences(head.properties)
        if drift:
            raise CheckFailed(
                step,
                f"the type's observe reads object {head.physical_id} as differing from the "
                f"resource's properties in {', '.join(drift)} (values are not shown: one may "
                "be a secret)",
            )
        read = ", ".join(sorted(observed.properties)) or "none"
        return f"object {head.physical_id} exists as stored (properties read back: {read})"

    def _unchanged(self, step: str) -> None:
        preview = self._preview(self.case.template(self.properties), step)
        changed = [said for entry in preview["resources"] if (said := _changed(entry))]
        if changed:
            raise CheckFailed(
                step,
                "a preview of the template just applied says: "
                f"{'; '.join(changed)} (applying it again must change nothing)",
            )

    def _preview(self, template: Mapping[str, Any], step: str) -> dict[str, Any]:
        """The stack's preview of `template`, made again while an entry's reality could not
        be read for a passing reason (its observe was put off) and the retry budget lasts."""

        def attempt() -> dict[str, Any]:
            preview = self.client.preview(self._stack(), template)
            busy = [(e.get("reality") or {}) | {"name": e["name"]} for e in preview["resources"]]
            busy = [reality for reality in busy if reality.get("retryable")]
            if not busy:
                return preview
            said = "; ".join(f"{r['name']}: {r['unknown']}" for r in busy)
            after = [float(r["retry_after"]) for r in busy if r.get("retry_after")]
            message = f"the preview could not read reality ({said})"
            if after:
                raise Throttled(message, retry_after=max(after))
            raise Transient(message)

        return self.engine.retrier.call(step, attempt)

    def _update(self, properties: Mapping[str, Any], expected: str) -> str | None:
        """Preview, then apply, an update to `properties`; the physical id after it."""
        template = self.case.template(properties)
        preview = self.client.preview(self._stack(), template)
        [entry] = [e for e in preview["resources"] if e["name"] == UNDER_TEST]
        if entry["action"] != expected:
            raise CheckFailed(
                "preview",
                f"preview says {entry['action']} ({entry['reason'] or 'no reason'}), where the "
                f"case expects {expected}",
            )
        self.cluster.forget_acts(self._stack())
        self.client.update(self._stack(), template, disable_rollback=True)
        self._operation("UPDATE", "stack update")
        self.properties = properties
        self.physical_id = self._resource()["physical_id"]
        return self.physical_id

    def _after_update(self) -> str:
        """Observe and preview after an update, when the type can observe."""
        self._unchanged("preview after the update")
        try:
            return self._observed_as_stored("observe after the update") + "; preview unchanged"
        except NotApplicable:
            return "a preview then says nothing changes"


def _changed(entry: Mapping[str, Any]) -> str | None:
    """What a preview entry says would change, or differs in reality, in the type's terms;
    None when nothing."""
    said = []
    name = entry["name"]
    if entry["action"] != "unchanged":
        reason = f" ({entry['reason']})" if entry.get("reason") else ""
        said.append(f"{name} would {entry['action']}{reason}")
    reality = entry.get("reality")
    if reality:
        if "unknown" in reality:
            said.append(f"the type's observe of {name} failed: {reality['unknown']}")
        elif not reality.get("exists", True):
            said.append(f"the type's observe says {name}'s object does not exist")
        else:
            differs = ", ".join(reality.get("differs") or [])
            said.append(
                f"the type's observe reads {name}'s object as differing from its properties "
                f"in {differs}"
            )
    return "; ".join(said) or None
