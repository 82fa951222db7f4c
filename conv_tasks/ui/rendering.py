"""The Jinja2 environment the pages are rendered with: autoescaped, strict about names.

Every value a page prints is escaped; the one exception is the graph's SVG, which the
graph renderer builds with its labels escaped and no scripts (conv_tasks.ui.graph).
"""

from __future__ import annotations

import functools
from typing import Any

import yaml
from jinja2 import Environment, PackageLoader, StrictUndefined

from conv_tasks.ui import views
from conv_tasks.ui.query import with_params


def as_yaml(value: Any) -> str:
    """A template or environment as YAML, in its own order, for reading (escaped on the page)."""
    return str(yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100))


@functools.cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("conv_tasks.ui", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        badge=views.badge,
        duration=views.duration,
        when=views.when,
        pretty=views.pretty,
        attention=views.attention_text,
        counts=views.counts_text,
        yaml=as_yaml,
    )
    env.globals.update(with_params=with_params)
    return env


def render(template_name: str, /, **context: Any) -> str:
    return environment().get_template(template_name).render(**context)
