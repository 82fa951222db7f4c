"""The limits on what a request may hold, in one place.

Every input from outside (a public task's payload, a template, parameter
values, signal details) is checked against these before any work starts,
and a refusal names the limit by the constant's name here, so a user can
look it up in docs/operations/limits.md. The values are chosen so that
real stacks never meet them (the engine benchmark's 10,000-resource
templates are about 1 MB of JSON and 70,000 values) while a hostile or
broken message is refused in bounded time and memory.

Ordering matters where two layers check the same thing: the broker's
decoder refuses only what is past MAX_MESSAGE_BYTES / MAX_MESSAGE_DEPTH,
which are larger than the payload limits, so a payload just past a payload
limit still reaches its task and gets a JSON refusal naming that limit.

This module holds numbers only: it imports nothing, and nothing here may
read the environment (a limit that differs between workers would make the
same request succeed or fail depending on which worker took it).
"""

from __future__ import annotations

# A public task's keyword arguments, measured as compact UTF-8 JSON.
MAX_PAYLOAD_BYTES = 4 * 1024 * 1024
# JSON objects and lists nested inside each other in a payload, counting the payload itself.
MAX_PAYLOAD_DEPTH = 120

# A whole broker message body: what a decoder may refuse before any task sees it.
MAX_MESSAGE_BYTES = 2 * MAX_PAYLOAD_BYTES
MAX_MESSAGE_DEPTH = 128

# A template: as sent, in bytes (YAML text in UTF-8, a mapping as compact JSON); mappings
# and lists nested inside each other (the document itself counts as 1); values after YAML
# aliases are expanded; aliases written.
MAX_TEMPLATE_BYTES = 2 * 1024 * 1024
MAX_TEMPLATE_DEPTH = 100
MAX_TEMPLATE_VALUES = 200_000
MAX_YAML_ALIASES = 100

# Environments (docs/features/environments.md): how many one request may merge, and each one's size
# as sent (YAML text in UTF-8, a mapping as compact JSON); type mappings a resource's type
# may pass through before it reaches a type (an alias of an alias of ...).
MAX_ENVIRONMENTS = 100
MAX_ENVIRONMENT_BYTES = 1024 * 1024
MAX_TYPE_MAPPINGS = 10

# The files map (get_file contents and provider templates): how many files, their text
# together in UTF-8 bytes, and each file name in characters (a path or a file:// URL).
MAX_FILES = 1000
MAX_FILES_BYTES = 2 * 1024 * 1024
MAX_FILE_NAME_CHARS = 1024

# Resources a template may declare (the engine benchmark walks 10,000).
MAX_RESOURCES = 10_000

# Names: tenant, stack, resource, parameter and output names, in characters. The
# database's name columns hold 255.
MAX_NAME_CHARS = 255

# A ConvTasks::Celery::Task call's kwargs, and the result it keeps, as compact UTF-8 JSON: a
# result is kept with the resource and handed to the resources that read it.
MAX_TASK_JSON_BYTES = 1024 * 1024

# Free text that is stored with events (a signal's deploy_status_reason), in characters.
MAX_REASON_CHARS = 4096

# Stack tags: how many one stack (or one filter of `stack list`) may hold, and the length of
# each in characters (Heat's stack_tag column holds 80).
MAX_TAGS = 50
MAX_TAG_CHARS = 80

# A stack's timeout: at least a minute, at most a week.
MIN_TIMEOUT_MINS = 1
MAX_TIMEOUT_MINS = 7 * 24 * 60

# Ids and cursors (after_id) are PostgreSQL bigints.
MAX_ID = 2**63 - 1
# The most events one `latest` read of a stack's events asks for (0 asks for them all): a
# page of them, about 1.2 MB of JSON, where all of a 10,000-resource stack's are three times that.
MAX_LATEST_EVENTS = 10_000

# A parameter's allowed_pattern: its length in characters, and the work all the pattern
# checks of one template load or one set of parameter values may do together, counted as
# RE2 program instructions times value bytes (the bound on RE2's matching time: at worst
# about 5 ns a step, so this is at most about half a second).
MAX_PATTERN_CHARS = 1000
MAX_PATTERN_WORK = 100_000_000

# One problem of a refusal (its path, its message), in characters: a refusal must not
# carry a huge input back to the sender.
MAX_PROBLEM_CHARS = 1000

# Nested stacks inside each other below a stack a user made (Heat's max_nested_stack_depth):
# a template that includes itself, directly or not, is refused at this depth.
MAX_NESTING_DEPTH = 5
# A wait condition's timeout, in seconds: Heat's bound (12 hours).
MAX_WAIT_CONDITION_SECS = 43200
# Signals one wait condition handle keeps (distinct ids), and the bytes of one signal's `data`
# as compact JSON: a handle is a rendezvous for a few hosts, not a data store.
MAX_WAIT_SIGNALS = 1000
MAX_WAIT_SIGNAL_DATA_BYTES = 64 * 1024

# The web view's reads: operations one page of a stack's history holds, stacks one page of
# the stacks overview holds, and the statuses one overview filter may name.
MAX_HISTORY_PAGE = 200
MAX_OVERVIEW_PAGE = 500
MAX_STATUS_FILTERS = 30
