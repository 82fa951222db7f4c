"""The Client's stack operations: the requests conv_tasks.requests declares, and the rest.

create, apply, update, preview, validate, delete and rollback are made from their
requests: each method's arguments are its request dataclass's (its signature, which
help() and type checkers read, is the dataclass's), so the Client cannot take a field the
task does not, nor miss one. The other operations take a stack and little else, and are
written out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks import requests
from conv_tasks.client.sending import Sender, sends


class StackOperations(Sender):
    """What a Client asks of a stack: operations that start a traversal, and the requests
    that change nothing (preview, validate, graph)."""

    create = sends(
        requests.NewStackRequest,
        """Create a stack. Retry a create that timed out with the same `idempotency_key`
        (one is made up when none is given): it answers with the stack the first made.

        `environment`: environments merged in order (mappings or YAML text); `files`: the
        texts that get_file and provider templates name. conv_tasks.local_files.collect
        reads both from disk as the CLI does.""",
    )
    update = sends(
        requests.UpdateRequest,
        """Update a stack. With a new template and without existing_parameters, the
        environments and files given replace the stack's (none given: none kept); otherwise
        they are merged onto the stack's (docs/features/environments.md). `tags` replace the
        stack's ([] clears them); None keeps them when the update keeps the template or
        existing_parameters, and clears them on a full update (Heat's PUT and PATCH).""",
    )
    apply = sends(
        requests.ApplyRequest,
        """Create stack `name`, update it to this request, or leave it as it is if it is
        COMPLETE on exactly this template, parameters, environments, files and tags: the
        answer's `result` says `created`, `updated` or `unchanged` (then no operation was
        started, and there is nothing to wait for). Sending it again is safe.
        `disable_rollback` and `timeout_mins` count only when given (None: create's
        defaults for a new stack, the stack's own for an existing one); `tags` None is none.
        `idempotency_key` is used only if the apply creates the stack.""",
    )
    preview = sends(
        requests.PreviewRequest,
        """What update (or, for a stack that does not exist, create) would do to each
        resource: {"resources": [{"name", "type", "action", "reason", "changes",
        "uncertain", "reality", "nested_stack", "nested"}], "counts", "nested_counts",
        "summary", "exists"}; `nested` holds the entries of the resource's child stack (a
        nested stack, a provider template, a group), to any depth. Changes nothing.""",
    )
    validate = sends(
        requests.ValidateRequest,
        """{"valid", "errors": [{"path", "message", "line", "column"}], "warnings", "order",
        "dependencies", "types"}: a template with errors is an answer, not a refusal.""",
    )

    delete = sends(
        requests.DeleteRequest,
        """Delete a stack. The resources `retain` names are left alone: their physical
        resources are not deleted, and the stack forgets them (an event says so).""",
    )
    rollback = sends(
        requests.RollbackRequest,
        """Roll a failed stack back to its last complete template. The resources `skip`
        names, which the rollback would delete, are left alone and forgotten instead.""",
    )

    def cancel(self, stack: str, *, rollback: bool = True) -> dict[str, Any]:
        return self.call("conv_tasks.stack.cancel_update", stack=stack, rollback=rollback)

    def check(self, stack: str) -> dict[str, Any]:
        """Start a stack check: every resource's type says whether it is healthy; the stack
        ends CHECK_COMPLETE or CHECK_FAILED (wait() for it). Refused while an operation runs."""
        return self.call("conv_tasks.stack.check", stack=stack)

    def suspend(self, stack: str) -> dict[str, Any]:
        """Start a stack suspend: every resource's type suspends it, dependants first; the
        stack ends SUSPEND_COMPLETE or SUSPEND_FAILED (wait() for it). Refused while an
        operation runs, once suspended, or after a failed operation."""
        return self.call("conv_tasks.stack.suspend", stack=stack)

    def resume(self, stack: str) -> dict[str, Any]:
        """Start a stack resume of a suspended stack: every resource's type resumes it,
        dependencies first; the stack ends RESUME_COMPLETE or RESUME_FAILED."""
        return self.call("conv_tasks.stack.resume", stack=stack)

    def mark_unhealthy(
        self, stack: str, resource: str, reason: str | None = None, *, reset: bool = False
    ) -> dict[str, Any]:
        """Mark the resource CHECK_FAILED, so that the next update replaces it; reset=True
        makes a CHECK_FAILED resource CHECK_COMPLETE again. {"status", "changed", ...}."""
        return self.call(
            "conv_tasks.resource.mark_unhealthy",
            stack=stack,
            resource=resource,
            reason=reason,
            reset=reset,
        )

    def signal(
        self, stack: str, resource: str, details: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        return self.call(
            "conv_tasks.resource.signal",
            stack=stack,
            resource=resource,
            details=dict(details or {}),
        )

    def graph(self, stack: str) -> dict[str, Any]:
        """The stack's traversal graph: {"nodes": [{"id", "phase", "name", "status"}],
        "edges": [[before, after], ...], "stack", "status", "traversal"}."""
        return self.call("conv_tasks.stack.graph", stack=stack)
