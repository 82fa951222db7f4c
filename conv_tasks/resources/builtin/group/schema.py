"""What OS::Heat::ResourceGroup accepts and exposes, as schema data.

Heat's property, update-policy and attribute schemas of the group, stated
with conv_tasks' PropertySchema and AttributeSchema so that the usual
checks (types, constraints, unknown keys, defaults) apply. Declarations
only: nothing here reads a value of a real stack.
"""

from __future__ import annotations

from collections.abc import Mapping

from conv_tasks.sdk import (
    ATTRIBUTES,
    INTEGER,
    LIST,
    MAP,
    NUMBER,
    REFS,
    REFS_MAP,
    REMOVED_RSRC_LIST,
    STRING,
    AttributeSchema,
    Constraint,
    PropertySchema,
    SupportStatus,
)

TYPE_NAME = "OS::Heat::ResourceGroup"

COUNT = "count"
INDEX_VAR = "index_var"
RESOURCE_DEF = "resource_def"
REMOVAL_POLICIES = "removal_policies"
REMOVAL_POLICIES_MODE = "removal_policies_mode"

DEF_TYPE = "type"
DEF_PROPERTIES = "properties"
DEF_METADATA = "metadata"

RESOURCE_LIST = "resource_list"

# removal_policies_mode: "append" adds newly listed names to the names removed before;
# "update" starts again from the names listed now.
APPEND = "append"
UPDATE = "update"
REMOVAL_MODES = (APPEND, UPDATE)

DEFAULT_INDEX_VAR = "%index%"

ROLLING_UPDATE = "rolling_update"
BATCH_CREATE = "batch_create"
MIN_IN_SERVICE = "min_in_service"
MAX_BATCH_SIZE = "max_batch_size"
PAUSE_TIME = "pause_time"

PROPERTIES: Mapping[str, PropertySchema] = {
    COUNT: PropertySchema(
        INTEGER,
        "The number of resources to create.",
        default=1,
        constraints=(Constraint.range(0, None),),
        update_allowed=True,
    ),
    INDEX_VAR: PropertySchema(
        STRING,
        "The text replaced, in every string of the member properties, by the member's index.",
        default=DEFAULT_INDEX_VAR,
        constraints=(Constraint.length(3, None),),
        support_status=SupportStatus(version="2014.2"),
    ),
    RESOURCE_DEF: PropertySchema(
        MAP,
        "The definition of each member, as if it were declared in the template itself.",
        required=True,
        update_allowed=True,
        schema={
            DEF_TYPE: PropertySchema(STRING, "The type of the members.", required=True),
            DEF_PROPERTIES: PropertySchema(MAP, "Property values of the members."),
            DEF_METADATA: PropertySchema(
                MAP,
                "Metadata of the members.",
                support_status=SupportStatus(version="5.0.0"),
            ),
        },
    ),
    REMOVAL_POLICIES: PropertySchema(
        LIST,
        "Members to remove on update; a removed member's name is never used again.",
        default=[],
        update_allowed=True,
        support_status=SupportStatus(version="2015.1"),
        schema=PropertySchema(
            MAP,
            "Members to remove, by name (its index) or by reference (an item of refs).",
            schema={
                RESOURCE_LIST: PropertySchema(
                    LIST, "Names or references of the members to remove.", default=[]
                ),
            },
        ),
    ),
    REMOVAL_POLICIES_MODE: PropertySchema(
        STRING,
        "append: names listed now are added to those removed before; update: they replace them.",
        default=APPEND,
        constraints=(Constraint.allowed_values(*REMOVAL_MODES),),
        update_allowed=True,
        support_status=SupportStatus(version="10.0.0"),
    ),
}

ROLLING_UPDATE_SCHEMA: Mapping[str, PropertySchema] = {
    MIN_IN_SERVICE: PropertySchema(
        INTEGER,
        "The fewest members left untouched (in service) while a batch is updated.",
        default=0,
        constraints=(Constraint.range(0, None),),
    ),
    MAX_BATCH_SIZE: PropertySchema(
        INTEGER,
        "The most members given the new definition at once.",
        default=1,
        constraints=(Constraint.range(1, None),),
    ),
    PAUSE_TIME: PropertySchema(
        NUMBER,
        "Seconds to wait between two batches.",
        default=0,
        constraints=(Constraint.range(0, None),),
    ),
}

BATCH_CREATE_SCHEMA: Mapping[str, PropertySchema] = {
    MAX_BATCH_SIZE: PropertySchema(
        INTEGER,
        "The most members created at once.",
        default=1,
        constraints=(Constraint.range(1, None),),
    ),
    PAUSE_TIME: PropertySchema(
        NUMBER,
        "Seconds to wait between two batches.",
        default=0,
        constraints=(Constraint.range(0, None),),
    ),
}

UPDATE_POLICY: Mapping[str, PropertySchema] = {
    ROLLING_UPDATE: PropertySchema(
        MAP,
        "Update the members in batches when resource_def changes.",
        schema=ROLLING_UPDATE_SCHEMA,
        support_status=SupportStatus(version="5.0.0"),
    ),
    BATCH_CREATE: PropertySchema(
        MAP,
        "Create the members in batches.",
        schema=BATCH_CREATE_SCHEMA,
        support_status=SupportStatus(version="5.0.0"),
    ),
}

ATTRIBUTES_SCHEMA: Mapping[str, AttributeSchema] = {
    REFS: AttributeSchema("The members' references, in index order.", type=LIST),
    REFS_MAP: AttributeSchema(
        "A map of member name to reference.",
        type=MAP,
        support_status=SupportStatus(version="7.0.0"),
    ),
    ATTRIBUTES: AttributeSchema(
        "A map of member name to the attribute named next in the get_attr path.",
        type=MAP,
        support_status=SupportStatus(version="2014.2"),
    ),
    REMOVED_RSRC_LIST: AttributeSchema(
        "The names of the members removed by removal_policies.",
        type=LIST,
        support_status=SupportStatus(version="7.0.0"),
    ),
}
