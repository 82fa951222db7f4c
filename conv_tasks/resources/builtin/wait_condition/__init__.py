"""OS::Heat::WaitCondition: the resource type (resource.py) and what it decides from the
signals its handle holds (decide.py, pure). Never sees a handle's token."""

from conv_tasks.resources.builtin.wait_condition.decide import WaitOutcome, judge
from conv_tasks.resources.builtin.wait_condition.resource import WaitConditionResource

__all__ = ["WaitConditionResource", "WaitOutcome", "judge"]
