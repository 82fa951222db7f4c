"""Provider templates: a resource type implemented by a template (Heat's TemplateResource).

provider_template_type(type_name, template_text) makes a ResourceType class whose
properties are the template's parameters (their types and defaults; required when there
is no default, neither in the template nor in the environment's parameter_defaults) and
whose attributes are the template's outputs plus OS::stack_id, and Heat's resource.NAME
and resource.NAME.ATTR (the reference or an attribute of the child's resource NAME: the
child's template then carries an output for each that the parent reads,
conv_tasks.template.nested_attributes). Each resource of that type owns a child stack of
the template, with its properties as the child's parameters. Its reference is the child's
`OS::stack_id` output when the template defines one, else the child stack's id. The
environment's resource_registry decides which type names map to which template; this
module only makes the class.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from conv_tasks.errors import TemplateError
from conv_tasks.sdk import (
    BOOLEAN,
    LIST,
    MAP,
    NUMBER,
    STRING,
    ActionContext,
    AttributeSchema,
    ChildRequest,
    NestedStackResource,
    PropertySchema,
    ResourceType,
    child_timeout,
)
from conv_tasks.template import (
    ParameterSchema,
    load_template,
    nested_key,
    nested_outputs,
    nested_problem,
    parse_yaml,
)

STACK_ID = "OS::stack_id"

# A HOT parameter type -> the property type that carries its value.
PROPERTY_TYPES: Mapping[str, str] = {
    "string": STRING,
    "number": NUMBER,
    "boolean": BOOLEAN,
    "json": MAP,
    "comma_delimited_list": LIST,
}


def _property(parameter: ParameterSchema, *, defaulted: bool) -> PropertySchema:
    """The property that carries `parameter`; `defaulted`: the environment's
    parameter_defaults give it a value, so, as in Heat, it is not required either."""
    return PropertySchema(
        PROPERTY_TYPES[parameter.type],
        parameter.description or parameter.label,
        required=not (parameter.has_default or defaulted),
        # No default here: a property not given is not passed, so the child's own default,
        # or the environment's parameter_defaults, apply there (as Heat passes only the
        # values the user set).
        update_allowed=True,
    )


class ProviderTemplateResource(NestedStackResource):
    """A resource whose child stack is the provider template of its type."""

    template_text: ClassVar[str] = ""
    template_path: ClassVar[str] = ""
    dynamic_attributes: ClassVar[bool] = False
    # The names of the template's resources, which resource.NAME may read.
    nested_resources: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def has_attribute(cls, attribute: str) -> bool:
        return nested_key(attribute) is not None or super().has_attribute(attribute)

    @classmethod
    def reference_problem(cls, attribute: str, path: Sequence[Any]) -> str | None:
        where = cls.template_path or getattr(cls, "type_name", "(inline)")
        return nested_problem(attribute, cls.nested_resources, where)

    @classmethod
    def references_in_definition(cls, references: Sequence[tuple[str, Sequence[Any]]]) -> Any:
        # The child carries an output for each resource.NAME(.ATTR) read: reading another
        # one changes the child's template.
        return sorted(nested_outputs(references, cls.nested_resources)) or None

    @classmethod
    def unknown_child_parameters(
        cls, properties: Mapping[str, Any], unknown: Callable[[Any], bool]
    ) -> frozenset[str] | None:
        # The child's parameters are this resource's properties, one for one.
        return frozenset(key for key, value in properties.items() if unknown(value))

    def child_request(self, ctx: ActionContext) -> ChildRequest:
        # Properties not given stay out, so the child's own defaults apply.
        parameters = {k: v for k, v in ctx.properties.items() if v is not None}
        return ChildRequest(
            template=self._child_template(ctx),
            parameters=parameters,
            timeout_mins=child_timeout(ctx),
            provider=self.template_path or None,
        )

    def _child_template(self, ctx: ActionContext) -> Mapping[str, Any] | str:
        """The template text as written, or, when the parent reads resource.NAME(.ATTR), the
        template with an output for each (under that name, so they read like outputs)."""
        added = nested_outputs(ctx.attribute_references, self.nested_resources)
        if not added:
            return self.template_text
        document = dict(parse_yaml(self.template_text, filename=self.template_path or "template"))
        document["outputs"] = {**dict(document.get("outputs") or {}), **added}
        return document

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        outputs = dict(self.child_outputs(ctx))
        outputs.setdefault(STACK_ID, ctx.physical_id)
        return outputs

    def reference(self, ctx: ActionContext) -> str | None:
        outputs = self.child_outputs(ctx)
        value = outputs.get(STACK_ID)
        return str(value) if value is not None else ctx.physical_id


def provider_template_type(
    type_name: str,
    template_text: str,
    *,
    path: str = "",
    files: Mapping[str, str] | None = None,
    parameter_defaults: Mapping[str, Any] | None = None,
) -> type[ResourceType]:
    """A ResourceType implemented by the template in `template_text` (`path` names it in
    errors; `files` are the files its get_file calls read; `parameter_defaults` the
    environment's, which the child stack inherits: a parameter they set is not a required
    property). TemplateError naming the type if the template does not load."""
    try:
        template = load_template(template_text, filename=path or type_name, files=files)
    except TemplateError as exc:
        raise TemplateError(
            [
                type(problem)(f"{path or type_name}: {problem.path}", problem.message)
                for problem in exc.problems
            ]
        ) from None
    defaults = parameter_defaults or {}
    properties = {
        name: _property(p, defaulted=name in defaults) for name, p in template.parameters.items()
    }
    attributes = {
        name: AttributeSchema(output.description or f"The output {name} of the template.")
        for name, output in template.outputs.items()
    }
    attributes.setdefault(STACK_ID, AttributeSchema("The child stack's id.", type=STRING))
    digest = hashlib.sha256(template_text.encode()).hexdigest()[:12]
    return type(
        f"ProviderTemplate_{digest}",
        (ProviderTemplateResource,),
        {
            "__doc__": f"{type_name}: implemented by the template {path or '(inline)'}.",
            "type_name": type_name,
            "template_text": template_text,
            "template_path": path,
            "properties_schema": properties,
            "attributes_schema": attributes,
            "nested_resources": frozenset(template.resources),
        },
    )
