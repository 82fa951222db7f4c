"""Templates with an error Heat refuses when a stack is created, shared by the unit and
the integration tests of the refusals at the request (issue 25, item 6)."""

from __future__ import annotations

HEAD = "heat_template_version: 2018-08-31\n"

STRICT = (
    HEAD
    + """resources:
  x:
    type: OS::Heat::Value
    properties:
      value:
        str_replace_strict:
          template: hello
          params:
            $missing: world
"""
)

VALUE = (
    HEAD
    + """resources:
  x:
    type: OS::Heat::Value
    properties:
      type: number
      value: abc
"""
)

FACADE = (
    HEAD
    + """resources:
  x:
    type: OS::Heat::Value
    properties:
      value: {resource_facade: metadata}
"""
)

DEEP = (
    HEAD
    + """resources:
  outer:
    type: OS::Heat::Stack
    properties:
      template:
        heat_template_version: 2018-08-31
        resources:
          inner:
            type: OS::Heat::Stack
            properties:
              template:
                heat_template_version: 2018-08-31
                resources:
                  wait:
                    type: OS::Heat::TestResource
                    properties:
                      wait_secs: 4000
"""
)

GROUP = (
    HEAD
    + """resources:
  g:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: My::Member
"""
)

MEMBER = (
    HEAD
    + """resources:
  m:
    type: OS::Heat::TestResource
    properties:
      value: {str_split: [',', 'a,b', 7]}
"""
)

ENVIRONMENT = {"resource_registry": {"My::Member": "member.yaml"}}
FILES = {"member.yaml": MEMBER}
