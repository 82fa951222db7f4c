"""Stacks for the web view's tests, made through conv_tasks.client on the real workers: one
that completes, holding a hidden parameter whose value is a unique marker, and one that
fails."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from conv_tasks.client import Client


def hidden_marker() -> str:
    return f"HIDDEN-{uuid.uuid4().hex}"


def secret_template(resources: int = 2) -> dict[str, Any]:
    """`resources` resources in a chain, the first holding the greeting; one more, `vault`,
    holding the hidden `secret`, which an output reads too."""
    chain: dict[str, Any] = {
        "first": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_param": "greeting"}},
        }
    }
    for n in range(1, resources):
        before = "first" if n == 1 else f"r{n - 1}"
        chain[f"r{n}"] = {
            "type": "OS::Heat::TestResource",
            "properties": {"value": {"get_attr": [before, "output"]}},
        }
    chain["vault"] = {
        "type": "OS::Heat::TestResource",
        "properties": {"value": {"get_param": "secret"}},
    }
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {
            "greeting": {"type": "string", "default": "hello"},
            "secret": {"type": "string", "hidden": True},
        },
        "resources": chain,
        "outputs": {
            "said": {"value": {"get_attr": ["first", "output"]}, "description": "the greeting"},
            "vault_value": {"value": {"get_attr": ["vault", "output"]}},
            "secret_again": {"value": {"get_param": "secret"}},
        },
    }


FAILING_TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "good": {"type": "OS::Heat::TestResource", "properties": {"value": "fine"}},
        "bad": {
            "type": "OS::Heat::TestResource",
            "properties": {"value": "doomed", "fail": True},
            "depends_on": ["good"],
        },
    },
}


@dataclass
class Stacks:
    """Makes stacks for one tenant and waits for them."""

    client: Client

    @property
    def tenant(self) -> str:
        return self.client.tenant

    def secret_stack(
        self, name: str, marker: str, *, resources: int = 2, tags: list[str] | None = None
    ) -> dict[str, Any]:
        made = self.client.create(
            name,
            secret_template(resources),
            {"secret": marker, "greeting": "hi"},
            tags=tags,
        )
        done = self.client.wait(made["stack_id"], timeout=120)
        assert done["status"] == "CREATE_COMPLETE", done
        return done

    def failed_stack(self, name: str) -> dict[str, Any]:
        made = self.client.create(name, FAILING_TEMPLATE, disable_rollback=True)
        done = self.client.wait(made["stack_id"], timeout=120)
        assert done["status"] == "CREATE_FAILED", done
        return done
