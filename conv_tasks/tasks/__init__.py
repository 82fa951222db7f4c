"""The Celery tasks: public stack API, graph nodes and beat jobs.

Tasks are thin: parse the JSON payload, call the engine's face, return JSON. Other packages
take from here the Celery app (`app`: workers run `celery -A conv_tasks.tasks.app`), the
dispatcher that sends graph nodes through it (CeleryDispatcher), and the JSON Schemas of the
public tasks (contracts). Nothing here speaks SQL or Redis itself.
"""

from conv_tasks.tasks.app import app
from conv_tasks.tasks.contracts import contracts, public_tasks
from conv_tasks.tasks.runtime import CeleryDispatcher

__all__ = ["CeleryDispatcher", "app", "contracts", "public_tasks"]
