"""Heat's request bodies and query strings, as the public tasks' keyword arguments.

Pure functions: a stack create/update/preview/validate body becomes the kwargs of
`conv_tasks.stack.create` (...), an action body the task it names. The body fields taken
are those the requests declare (conv_tasks.requests: each field's Heat keys), and
tests/requests/test_requests_surfaces.py checks that each becomes its field. Every
refusal is an ApiFault that names the field: an unknown field, a wrong type, a template
by URL (only files sent with the request may be used), a file name that climbs out of its
directory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conv_tasks.edge import ApiFault, bad_request, not_implemented
from conv_tasks.requests import (
    NewStackRequest,
    PreviewRequest,
    UpdateRequest,
    ValidateRequest,
    field_names,
    heat_keys,
)

# Fields heatclient sends (heatclient/osc/v1/stack.py) that conv_tasks takes.
_TAKEN = heat_keys(NewStackRequest)
# An update's body may also name the stack (its URL does) and ask for what is refused below.
_UPDATE_TAKEN = heat_keys(UpdateRequest) | {
    "stack_name",
    "stack_id",
    "clear_parameters",
    "converge",
}
# Known to Heat, not implemented here: named in a 501 when given a value.
_NOT_IMPLEMENTED = {
    "files_container": "templates and files from a Swift container (files_container)",
    "adopt_stack_data": "stack adoption (adopt_stack_data)",
    "clear_parameters": "clearing parameters on update (clear_parameters)",
    "converge": "observing the real world on update (converge)",
}
_URL_SCHEMES = ("http://", "https://", "ftp://", "file://", "swift://")


@dataclass(frozen=True)
class StackRequest:
    """A create, update or preview body, as kwargs for the task."""

    kwargs: dict[str, Any]


def _is_true(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _flag(body: Mapping[str, Any], name: str) -> bool | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise bad_request(f"{name} must be true or false, got {_shown(value)}.", name)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _integer(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise bad_request(f"{name} must be a whole number, got {_shown(value)}.", name)
    if isinstance(value, str):
        text = value.strip()
        if not text.lstrip("-").isdigit() or len(text) > 20:
            raise bad_request(f"{name} must be a whole number, got {_shown(value)}.", name)
        return int(text)
    return value


def tag_list(value: Any, name: str = "tags") -> list[str]:
    """Tags as heatclient sends them (one comma-separated string) or as a list."""
    if isinstance(value, str):
        return [tag.strip() for tag in value.split(",")] if value.strip() else []
    if isinstance(value, list) and all(isinstance(tag, str) for tag in value):
        return list(value)
    raise bad_request(f"{name} must be a comma-separated string or a list of strings.", name)


def climbs_out(name: str) -> bool:
    """Whether a file name has a `..` segment: a path that leaves its directory."""
    path = name.split("://", 1)[1] if "://" in name else name
    return any(part == ".." for part in path.replace("\\", "/").split("/"))


def _files(body: Mapping[str, Any]) -> dict[str, str] | None:
    files = body.get("files")
    if files is None:
        return None
    if not isinstance(files, dict):
        raise bad_request("files must be an object of file names to their text.", "files")
    for name, text in files.items():
        if climbs_out(name):
            raise bad_request(
                f"files: the name {_shown(name)} climbs out of its directory (..).",
                f"files.{name[:200]}",
                "InvalidFiles",
            )
        if not isinstance(text, str):
            raise bad_request(
                f"files: the file {_shown(name)} must be text, got {type(text).__name__}.",
                f"files.{name[:200]}",
                "InvalidFiles",
            )
    return dict(files) if files else None


def _template(body: Mapping[str, Any], *, required: bool) -> Any:
    if body.get("template_url") is not None:
        raise bad_request(
            "template_url: conv_tasks takes the template in the request (template), "
            "never from a URL; send its text, as `openstack stack create -t` does.",
            "template_url",
            "InvalidTemplateReference",
        )
    template = body.get("template")
    if template is None:
        if required:
            raise bad_request("No template specified: template is required.", "template")
        return None
    if not isinstance(template, dict | str):
        raise bad_request("template must be an object or YAML/JSON text.", "template")
    if isinstance(template, str) and template.strip().startswith(_URL_SCHEMES):
        raise bad_request(
            "template is a URL: send the template's text; only files sent with the request "
            "may be used.",
            "template",
            "InvalidTemplateReference",
        )
    return template


def _environments(body: Mapping[str, Any], files: Mapping[str, str] | None) -> list[Any] | None:
    names = body.get("environment_files")
    if names:
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise bad_request(
                "environment_files must be a list of file names.", "environment_files"
            )
        missing = [n for n in names if n not in (files or {})]
        if missing:
            raise bad_request(
                f"environment_files names {_shown(missing[0])}, which is not in files: only "
                "files sent with the request may be used.",
                "environment_files",
                "InvalidFiles",
            )
        return [(files or {})[n] for n in names]
    environment = body.get("environment")
    if environment is None or environment == {} or environment == "":
        return None
    if not isinstance(environment, dict | str):
        raise bad_request("environment must be an object or YAML text.", "environment")
    return [environment]


def _refuse_unknown(body: Mapping[str, Any], allowed: frozenset[str]) -> None:
    for key, value in body.items():
        if key in _NOT_IMPLEMENTED and value not in (None, False, [], {}, ""):
            raise not_implemented(_NOT_IMPLEMENTED[key])
        if key not in allowed and key not in _NOT_IMPLEMENTED and key != "template_url":
            raise bad_request(
                f"Unknown field {_shown(key)}: a stack request takes {', '.join(sorted(allowed))}.",
                key[:200],
                "UnknownUserParameter",
            )


def _common(body: Mapping[str, Any], *, template_required: bool) -> dict[str, Any]:
    parameters = body.get("parameters")
    if parameters is not None and not isinstance(parameters, dict):
        raise bad_request("parameters must be an object of names to values.", "parameters")
    files = _files(body)
    kwargs: dict[str, Any] = {
        "template": _template(body, required=template_required),
        "parameters": dict(parameters or {}),
        "environment": _environments(body, files),
        "files": files,
    }
    return kwargs


def create_request(body: Mapping[str, Any]) -> StackRequest:
    """`POST /stacks`: the kwargs of conv_tasks.stack.create (without the tenant)."""
    _refuse_unknown(body, _TAKEN)
    name = body.get("stack_name")
    if not isinstance(name, str) or not name:
        raise bad_request("No stack name specified: stack_name is required.", "stack_name")
    kwargs = _common(body, template_required=True)
    kwargs["name"] = name
    kwargs.update(_options(body))
    return StackRequest({k: v for k, v in kwargs.items() if v is not None})


def _options(body: Mapping[str, Any]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    rollback = _flag(body, "disable_rollback")
    if rollback is not None:
        options["disable_rollback"] = rollback
    if body.get("timeout_mins") is not None:
        options["timeout_mins"] = _integer(body["timeout_mins"], "timeout_mins")
    if body.get("tags") is not None:
        options["tags"] = tag_list(body["tags"])
    return options


def update_request(body: Mapping[str, Any], *, patch: bool) -> StackRequest:
    """`PUT` (a whole new template) or `PATCH` (changes onto the stack's, `--existing`)."""
    _refuse_unknown(body, _UPDATE_TAKEN)
    if body.get("stack_name") not in (None, "") and not isinstance(body.get("stack_name"), str):
        raise bad_request("stack_name must be a string.", "stack_name")
    kwargs = _common(body, template_required=not patch)
    if patch or _is_true(body.get("existing")):
        kwargs["existing_parameters"] = True
    kwargs.update(_options(body))
    return StackRequest({k: v for k, v in kwargs.items() if v is not None})


def preview_request(body: Mapping[str, Any], *, patch: bool) -> StackRequest:
    """An update preview: as update, without the options preview does not take."""
    request = update_request(body, patch=patch)
    kept = field_names(PreviewRequest)
    return StackRequest({k: v for k, v in request.kwargs.items() if k in kept})


def create_preview_request(body: Mapping[str, Any]) -> tuple[str, StackRequest]:
    """`POST /stacks/preview`: the stack's name and conv_tasks.stack.preview's kwargs."""
    request = create_request(body)
    kept = field_names(PreviewRequest)
    return request.kwargs["name"], StackRequest(
        {k: v for k, v in request.kwargs.items() if k in kept}
    )


def validate_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """`POST /validate`: conv_tasks.template.validate's kwargs."""
    _refuse_unknown(body, heat_keys(ValidateRequest))
    kwargs = _common(body, template_required=True)
    return {k: v for k, v in kwargs.items() if v is not None}


# Actions of `POST .../actions` (heat/api/openstack/v1/actions.py).
ACTIONS_TAKEN = {
    "cancel_update": ("conv_tasks.stack.cancel_update", {"rollback": True}),
    "cancel_without_rollback": ("conv_tasks.stack.cancel_update", {"rollback": False}),
    "check": ("conv_tasks.stack.check", {}),
    "suspend": ("conv_tasks.stack.suspend", {}),
    "resume": ("conv_tasks.stack.resume", {}),
}
_ACTION_NAMES = ", ".join(ACTIONS_TAKEN)


def action_request(body: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The task and kwargs an actions body asks for: it holds exactly one action."""
    if len(body) < 1:
        raise bad_request(
            f"No action specified: send one of {_ACTION_NAMES}.",
            "body",
        )
    if len(body) > 1:
        raise bad_request("Multiple actions specified: send exactly one.", "body")
    action = next(iter(body))
    if action not in ACTIONS_TAKEN:
        raise bad_request(
            f"Invalid action {_shown(action)} specified: conv_tasks takes {_ACTION_NAMES}.",
            action[:200],
        )
    task, kwargs = ACTIONS_TAKEN[action]
    return task, dict(kwargs)


def mark_unhealthy_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """`PATCH .../resources/{name}`: {mark_unhealthy: bool, resource_status_reason}."""
    for key in body:
        if key not in ("mark_unhealthy", "resource_status_reason"):
            raise bad_request(
                f"Unknown field {_shown(key)}: takes mark_unhealthy and resource_status_reason.",
                key[:200],
            )
    mark = _flag(body, "mark_unhealthy")
    if mark is None:
        raise bad_request("mark_unhealthy (true or false) is required.", "mark_unhealthy")
    reason = body.get("resource_status_reason")
    if reason is not None and not isinstance(reason, str):
        raise bad_request("resource_status_reason must be a string.", "resource_status_reason")
    kwargs: dict[str, Any] = {"reset": not mark}
    if reason:
        kwargs["reason"] = reason
    return kwargs


def signal_details(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise bad_request("A signal's body must be a JSON object.", "body")
    return dict(body)


def check_no_refused_query(query: Mapping[str, str]) -> None:
    """Heat's admin-only listing across tenants is never allowed here."""
    if _is_true(query.get("global_tenant")):
        raise ApiFault(
            403, "Forbidden", "global_tenant: listing other tenants' stacks is not allowed."
        )
