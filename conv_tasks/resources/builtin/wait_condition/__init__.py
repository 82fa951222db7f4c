"""OS::Heat::WaitCondition: the resource type (resource.py) and what it decides from the
signals its handle holds (decide.py, pure). Never sees a handle's token."""

from conv_tasks.resources.builtin.wait_condition.decide import WaitOutcome, judge
from conv_tasks.resources.builtin.wait_condition.resource import WaitConditionResource

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.resources.builtin.wait_condition_handle", "conv_tasks.sdk")
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.waitconditions",
    "httpx",
    "kombu",
    "psycopg",
    "redis",
    "sqlalchemy",
)

__all__ = ["WaitConditionResource", "WaitOutcome", "judge"]
