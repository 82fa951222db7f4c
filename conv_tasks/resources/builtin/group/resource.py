"""OS::Heat::ResourceGroup: count members of one definition, kept in a child stack.

The child stack's template is generated (nested.py) and changed a batch at a
time (batches.py, rollout.py): a create with batch_create and an update of
resource_def with rolling_update go through several child updates, pause_time apart. Each
step either starts a batch on the child or reads the child's state; none waits. Between
polls everything lives in the plugin data, as JSON: the skip list, the rollout, the member
attributes the child's outputs carry, and the members' references and attributes once done.
This module decides nothing about names or batches itself; it must never touch a stack
other than through the ChildStacks service.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from conv_tasks.resources.builtin.group import schema as s
from conv_tasks.resources.builtin.group.attributes import member_attributes_needed
from conv_tasks.resources.builtin.group.batches import (
    Batch,
    BatchPlan,
    Member,
    check_pause_fits,
    group_definer,
    plan_create,
    plan_update,
    replay,
)
from conv_tasks.resources.builtin.group.names import index_order, member_names, next_skiplist
from conv_tasks.resources.builtin.group.nested import child_template, members_from_outputs
from conv_tasks.resources.builtin.group.properties import (
    GroupProperties,
    group_properties,
    update_policy,
)
from conv_tasks.resources.builtin.group.rollout import Move, Rollout
from conv_tasks.resources.builtin.group.static import static_group_problems
from conv_tasks.sdk import (
    COMPLETE,
    DEFAULT_ACTION_TIMEOUT,
    FAILED,
    MEMBER_VIEW,
    MIN_POLL_SECS,
    ActionContext,
    AttributeSchema,
    ChildRequest,
    ChildStack,
    ChildTemplateSource,
    ConvTasksError,
    InvalidInput,
    NestedStackResource,
    Problem,
    Progress,
    PropertySchema,
    ResourceFailure,
    SupportStatus,
    TypeLookup,
    child_stacks,
    child_timeout,
    member_view_data,
    poll_after,
    reference_problem,
)

SKIPLIST = "skiplist"
ROLLOUT = "rollout"
MEMBER_ATTRIBUTES = "member_attributes"
REFS = "refs"
MEMBERS = "members"


class ResourceGroup(NestedStackResource):
    """A group of identical resources, scaled by count, updated in batches."""

    type_name: ClassVar[str] = s.TYPE_NAME
    support_status: ClassVar[SupportStatus] = SupportStatus(version="2014.1")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = s.PROPERTIES
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = s.ATTRIBUTES_SCHEMA
    update_policy_schema: ClassVar[Mapping[str, PropertySchema] | None] = s.UPDATE_POLICY
    # resource.N, resource.N.ATTR and any member attribute name.
    dynamic_attributes: ClassVar[bool] = True

    @classmethod
    def template_problems(cls, values: Any, *, path: str, lookup: TypeLookup) -> list[Problem]:
        return static_group_problems(values, path=path, lookup=lookup)

    @classmethod
    def child_template_source(cls, properties: Mapping[str, Any]) -> ChildTemplateSource | None:
        # The members' provider template, unless the count is a literal 0 (no member).
        definition = properties.get(s.RESOURCE_DEF)
        if properties.get(s.COUNT) in (0, "0") or not isinstance(definition, Mapping):
            return None
        member_type = definition.get(s.DEF_TYPE)
        if not isinstance(member_type, str):
            return None
        return ChildTemplateSource(f"{s.RESOURCE_DEF}.{s.DEF_TYPE}", member_type=member_type)

    @classmethod
    def references_in_definition(cls, references: Sequence[tuple[str, Sequence[Any]]]) -> Any:
        # The child's outputs carry only the member attributes read: reading another one
        # changes the child.
        return sorted(member_attributes_needed(references)) or None

    @classmethod
    def reference_problem(cls, attribute: str, path: Sequence[Any]) -> str | None:
        return reference_problem(attribute, path)

    def needs_replacement(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        # index_var is not update_allowed in Heat's schema either; everything else converges.
        return old.get(s.INDEX_VAR) != new.get(s.INDEX_VAR)

    # ------------------------------------------------------------------ create
    def create(self, ctx: ActionContext) -> Progress:
        group = self._group(ctx)
        policy = self._policy(ctx)
        skiplist = next_skiplist(
            (), group.removal_entries, group.removal_mode, members=(), refs={}, created=False
        )
        plan = plan_create(group, skiplist, policy.batch_create)
        self._check_pause(ctx, plan, s.BATCH_CREATE)
        rollout = Rollout.of(plan)
        attributes = member_attributes_needed(ctx.attribute_references)
        request = self._group_request(
            ctx, replay({}, rollout.batches[0], group_definer(group)), attributes
        )
        try:
            child_id = child_stacks(ctx).create(
                parent_stack_id=ctx.stack_id,
                resource_name=ctx.resource_name,
                token=ctx.idempotency_token,
                request=request,
            )
        except ResourceFailure:
            raise
        except ConvTasksError as exc:
            raise self._failure(ctx, f"nested stack refused: {exc}") from None
        data = {
            SKIPLIST: list(skiplist),
            ROLLOUT: rollout.applied(0).to_data(),
            MEMBER_ATTRIBUTES: list(attributes),
            REFS: {},
            MEMBERS: {},
        }
        return Progress(done=False, physical_id=child_id, data=data, poll_after=MIN_POLL_SECS)

    def check_create(self, ctx: ActionContext) -> Progress:
        return self._advance(ctx)

    # ------------------------------------------------------------------ update
    def update(self, ctx: ActionContext) -> Progress:
        if ctx.physical_id is None:  # its create failed before the child existed
            return self.create(ctx)
        planned = self._plan_update(ctx)
        self._check_pause(ctx, planned.plan, s.ROLLING_UPDATE)
        rollout = Rollout.of(planned.plan)
        request = self._group_request(
            ctx,
            replay(planned.current, rollout.batches[0], group_definer(planned.group)),
            planned.attributes,
        )
        try:
            child_stacks(ctx).update(ctx.physical_id, request)
        except ConvTasksError as exc:
            raise self._failure(ctx, f"nested stack update refused: {exc}") from None
        data = {
            **ctx.data,
            SKIPLIST: list(planned.skiplist),
            ROLLOUT: rollout.applied(0).to_data(),
            MEMBER_ATTRIBUTES: list(planned.attributes),
        }
        return Progress(done=False, data=data, poll_after=MIN_POLL_SECS)

    def preview_request(self, ctx: ActionContext) -> ChildRequest | None:
        """The child once every batch of this update is applied (a preview's answer: the
        batches and pauses between are how, not what)."""
        if ctx.physical_id is None:
            return super().preview_request(ctx)
        planned = self._plan_update(ctx)
        resources: Mapping[str, Mapping[str, Any]] = planned.current
        for batch in Rollout.of(planned.plan).batches:
            resources = dict(replay(resources, batch, group_definer(planned.group)))
        members = tuple(resources.items())
        return self._group_request(ctx, members, planned.attributes)

    def _plan_update(self, ctx: ActionContext) -> _PlannedUpdate:
        """The batches that take the child from its members now to this update's (read
        through the ChildStacks service; nothing is started)."""
        assert ctx.physical_id is not None
        group = self._group(ctx)
        policy = self._policy(ctx)
        children = child_stacks(ctx)
        resources = _child_resources(children.template(ctx.physical_id))
        failed = children.failed_resources(ctx.physical_id)
        members = [
            Member(name, definition, failed=name in failed) for name, definition in resources
        ]
        skiplist = next_skiplist(
            ctx.data.get(SKIPLIST) or (),
            group.removal_entries,
            group.removal_mode,
            members=[m.name for m in members],
            refs=dict(ctx.data.get(REFS) or {}),
            created=True,
        )
        old_def = (ctx.old_properties or {}).get(s.RESOURCE_DEF)
        plan = plan_update(
            members,
            group,
            skiplist,
            policy.rolling_update,
            definition_changed=old_def != ctx.properties.get(s.RESOURCE_DEF),
        )
        if not plan.batches:
            # resource_def changed in a way no member's definition shows (a null property):
            # one batch that keeps every member still gives the child its outputs.
            plan = BatchPlan((Batch(resources, (), (), ()),))
        attributes = member_attributes_needed(ctx.attribute_references)
        return _PlannedUpdate(group, dict(resources), tuple(skiplist), plan, tuple(attributes))

    def check_update(self, ctx: ActionContext) -> Progress:
        return self._advance(ctx)

    # ------------------------------------------------------------- each poll
    def _advance(self, ctx: ActionContext) -> Progress:
        """The child's batch finished? Then pause, start the next batch, or finish."""
        if ctx.physical_id is None:
            raise self._failure(ctx, "the nested stack was never created")
        children = child_stacks(ctx)
        child = children.get(ctx.physical_id)
        if child.deleted:
            raise self._failure(ctx, f"nested stack {child.name or child.id} is gone")
        if child.status == FAILED:
            raise self._failure(ctx, f"nested stack {child.name} failed: {child.reason}")
        if child.status != COMPLETE:
            return Progress(done=False, poll_after=poll_after(ctx.now - ctx.started_at))
        rollout = Rollout.from_data(ctx.data[ROLLOUT]).finished(ctx.now)
        move = rollout.next_move(ctx.now)
        if move.move == Move.WAIT:
            data = {**ctx.data, ROLLOUT: rollout.to_data()}
            return Progress(done=False, data=data, poll_after=max(MIN_POLL_SECS, move.wait))
        if move.move == Move.APPLY:
            assert move.batch is not None
            return self._apply(ctx, rollout, move.batch)
        return self._finish(ctx, child, rollout)

    def _apply(self, ctx: ActionContext, rollout: Rollout, batch: int) -> Progress:
        """Send batch `batch` to the child (sending it twice is harmless: same template)."""
        assert ctx.physical_id is not None
        children = child_stacks(ctx)
        group = self._group(ctx)
        current = dict(_child_resources(children.template(ctx.physical_id)))
        resources = replay(current, rollout.batches[batch], group_definer(group))
        attributes = list(ctx.data.get(MEMBER_ATTRIBUTES) or ())
        try:
            children.update(ctx.physical_id, self._group_request(ctx, resources, attributes))
        except ConvTasksError as exc:
            raise self._failure(ctx, f"nested stack update refused: {exc}") from None
        data = {**ctx.data, ROLLOUT: rollout.applied(batch).to_data()}
        return Progress(done=False, data=data, poll_after=MIN_POLL_SECS)

    def _finish(self, ctx: ActionContext, child: ChildStack, rollout: Rollout) -> Progress:
        members = members_from_outputs(child.outputs)
        data = {
            **ctx.data,
            ROLLOUT: rollout.to_data(),
            REFS: {name: member.ref for name, member in members.items()},
            MEMBERS: {
                name: {"ref": member.ref, "attributes": dict(member.attributes)}
                for name, member in members.items()
            },
            "stack_name": child.name,
        }
        return Progress(done=True, data=data)

    # ------------------------------------------------------------- attributes
    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        """The members' data whole: get_attr's path is applied per member when it is read
        (conv_tasks.template.member_view)."""
        group = self._group(ctx)
        skiplist = tuple(ctx.data.get(SKIPLIST) or ())
        stored = ctx.data.get(MEMBERS) or {}
        members = {
            name: (member.get("ref"), dict(member.get("attributes") or {}))
            for name, member in stored.items()
        }
        names = member_names(group.count, skiplist)
        return {MEMBER_VIEW: member_view_data(ctx.resource_name, names, members, skiplist)}

    # ---------------------------------------------------------------- helpers
    def _group(self, ctx: ActionContext) -> GroupProperties:
        return group_properties(ctx.properties, path=f"resources.{ctx.resource_name}.properties")

    def _policy(self, ctx: ActionContext) -> Any:
        return update_policy(
            ctx.update_policy or None, path=f"resources.{ctx.resource_name}.update_policy"
        )

    def _check_pause(self, ctx: ActionContext, plan: BatchPlan, part: str) -> None:
        timeout = DEFAULT_ACTION_TIMEOUT if ctx.deadline is None else ctx.deadline - ctx.now
        where = f"resources.{ctx.resource_name}.update_policy.{part}.{s.PAUSE_TIME}"
        try:
            check_pause_fits(plan, timeout, path=where)
        except InvalidInput as exc:
            raise self._failure(ctx, str(exc)) from None

    def _group_request(
        self,
        ctx: ActionContext,
        resources: tuple[tuple[str, Mapping[str, Any]], ...],
        attributes: Any,
    ) -> ChildRequest:
        return ChildRequest(
            template=child_template(resources, attributes),
            parameters={},
            timeout_mins=child_timeout(ctx),
        )


@dataclass(frozen=True)
class _PlannedUpdate:
    group: GroupProperties
    current: dict[str, Mapping[str, Any]]
    skiplist: tuple[str, ...]
    plan: BatchPlan
    attributes: tuple[str, ...]


def _child_resources(template: Mapping[str, Any]) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    """The members in a generated child template, as generated (name, resource), in index
    order (the order they were created in; a stored template need not keep key order)."""
    resources = template.get("resources") or {}
    return tuple((name, resources[name]) for name in sorted(resources, key=index_order))
